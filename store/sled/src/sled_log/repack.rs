//! Repacking: a stream appended a few events at a time (`serve`, `ask` and
//! `answer` append one per step) is stored as many small values; repacking
//! rewrites each run of small values as full blocks, so a replay reads it at
//! block speed.
//!
//! Crash-safe: each run is replaced by one sled batch (its old values removed and
//! its blocks inserted atomically), so a crash leaves every run either as it was
//! or repacked, and the events are the same either way. A reader scanning the
//! stream meanwhile sees a value disappear under it at worst; the scan then
//! looks again from the event it wants (see `sled_scan`). A value that cannot be
//! read ends a run and is left as it is.

use crate::error::Storage as _;
use sled::IVec;

use super::SledLog;
use askuser_store::block::{BlockReader, BlockWriter};
use askuser_store::codec::{is_single_record, key_seq, open_event, seq_key};
use askuser_store::{Recorded, Repacked};
use askuser_store::{Result, StoreError};

/// A value holding fewer events than this is small: it joins a run to repack.
const SMALL: u64 = 32;

/// A run is rewritten once it holds this many events (bounding the memory and the
/// batch of one rewrite), and at its end.
const RUN_EVENTS: usize = 8192;

/// The run being gathered: its keys, and its events in order.
#[derive(Default)]
struct Run {
    keys: Vec<IVec>,
    events: Vec<Recorded>,
}

impl SledLog {
    /// Rewrites `stream`'s runs of small values as full blocks.
    pub(crate) fn repack_stream(&self, stream: &str) -> Result<Repacked> {
        self.writable_at(stream, 0)?;
        // Compactions wait: a drop must not remove events a run is rewriting.
        let _structure = self.lock_structure();
        let Some((record, _)) = self.stream_entry(stream)? else {
            return Err(StoreError::NoSuchStream(stream.to_owned()));
        };
        let start = record.parent.as_ref().map_or(0, |p| p.at).max(record.floor) + 1;
        let mut done = Repacked::default();
        let mut run = Run::default();
        let range = self
            .events
            .range(seq_key(stream, start)..=seq_key(stream, record.head));
        for entry in range {
            let (key, value) = entry.storage()?;
            match small_value(stream, &key, value) {
                Some(events) => {
                    run.keys.push(key);
                    run.events.extend(events);
                    if run.events.len() >= RUN_EVENTS {
                        self.rewrite(stream, &std::mem::take(&mut run), &mut done)?;
                    }
                }
                None => self.rewrite(stream, &std::mem::take(&mut run), &mut done)?,
            }
        }
        self.rewrite(stream, &run, &mut done)?;
        if done.events > 0 {
            self.settle(self.durability)?;
        }
        Ok(done)
    }

    /// Replaces the values of `run` by blocks, in one batch, when that stores its
    /// events in fewer values.
    fn rewrite(&self, stream: &str, run: &Run, done: &mut Repacked) -> Result<()> {
        let Some(first) = run.events.first().map(|r| r.seq) else {
            return Ok(());
        };
        let mut writer = BlockWriter::new(stream, first);
        for recorded in &run.events {
            writer.push(recorded.at, &recorded.event)?;
        }
        let blocks = writer.finish();
        if blocks.len() >= run.keys.len() {
            return Ok(());
        }
        let mut batch = sled::Batch::default();
        for key in &run.keys {
            if !blocks.iter().any(|(new, _)| new.as_slice() == key.as_ref()) {
                batch.remove(key);
            }
        }
        done.events += run.events.len() as u64;
        done.values_before += run.keys.len() as u64;
        done.values_after += blocks.len() as u64;
        for (key, value) in blocks {
            batch.insert(key, value);
        }
        let _turn = self.lock_writes();
        self.events.apply_batch(batch).storage()?;
        Ok(())
    }
}

/// The events of a small value that reads whole; `None` for a full block or a
/// value with a problem (left as it is).
fn small_value(stream: &str, key: &[u8], value: IVec) -> Option<Vec<Recorded>> {
    let first = key_seq(key)?;
    if is_single_record(&value) {
        return open_event(stream, first, key, &value).ok().map(|r| vec![r]);
    }
    let mut reader = BlockReader::open(key, first, value).ok()?;
    if reader.last() + 1 - first >= SMALL {
        return None;
    }
    let mut events = Vec::new();
    while let Some((_, event)) = reader.next_event() {
        events.push(event.ok()?);
    }
    Some(events)
}
