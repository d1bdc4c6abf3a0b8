//! A stream written out as JSON lines: a function over any [`Log`].

use std::io::Write;

use crate::error::Result;
use crate::log::Log;

/// Writes the events of `stream` as JSON lines, one event per line:
/// `{"stream":"s","seq":1,"at":"2025-01-01T00:00:00.000Z","event":{...}}`.
/// Returns how many lines were written.
///
/// # Errors
///
/// As [`Log::read`]; [`StoreError::Corrupt`](crate::StoreError::Corrupt) at the first
/// damaged record; [`StoreError::Io`](crate::StoreError::Io) if writing fails.
pub fn json_lines<L: Log + ?Sized>(log: &L, stream: &str, out: &mut dyn Write) -> Result<u64> {
    let info = log.info(stream)?;
    let mut count = 0;
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
