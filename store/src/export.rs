//! A stream written out as JSON lines: a function over any [`Log`].

use std::io::Write;

use crate::error::{Result, StoreError};
use crate::log::Log;
use crate::replay::latest_snapshot;

/// Writes `stream` as JSON lines: one event per line,
/// `{"stream":"s","seq":1,"at":"2025-01-01T00:00:00.000Z","event":{...}}`. A
/// stream compacted through `floor` starts with the snapshot that stands for
/// the dropped events, `{"stream":"s","snapshot":{"seq":floor,"taken_at":...,
/// "state":{...}}}`, so what is written holds the whole stream (every surface
/// exports alike: `askuser log export` and the web inbox's download). Returns how
/// many lines were written.
///
/// # Errors
///
/// As [`Log::read`]; [`StoreError::Corrupt`] at the first damaged record;
/// [`StoreError::Compacted`] when the events were dropped and no snapshot this
/// askuser reads stands for them; [`StoreError::Encode`] when the snapshot's
/// state cannot be written as JSON; [`StoreError::Io`] if writing fails.
pub fn json_lines<L: Log + ?Sized>(log: &L, stream: &str, out: &mut dyn Write) -> Result<u64> {
    let info = log.info(stream)?;
    let mut count = 0;
    if info.floor > 0 {
        let snapshot = latest_snapshot(log, stream, info.floor)?
            .filter(|snapshot| snapshot.seq == info.floor)
            .ok_or_else(|| StoreError::Compacted {
                stream: stream.to_owned(),
                floor: info.floor,
            })?;
        let state = serde_json::to_value(&snapshot.state)
            .map_err(|error| StoreError::Encode(format!("the snapshot's state: {error}")))?;
        let line = serde_json::json!({
            "stream": stream,
            "snapshot": {
                "seq": snapshot.seq,
                "taken_at": snapshot.taken_at.to_string(),
                "state": state,
            },
        });
        serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        count += 1;
    }
    for recorded in log.read(stream, info.floor + 1)? {
        let recorded = recorded?;
        let line = serde_json::json!({
            "stream": stream,
            "seq": recorded.seq,
            "at": recorded.at.to_string(),
            "event": recorded.event,
        });
        serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        count += 1;
    }
    Ok(count)
}
