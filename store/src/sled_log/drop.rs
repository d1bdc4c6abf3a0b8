//! Dropping a stream's events up to a floor (compaction): whole values removed,
//! a block that also holds later events rewritten with those alone.

use super::SledLog;
use crate::block::{BlockReader, rewrite_tail};
use crate::codec::{is_single_record, key_seq, prefix, seq_key};
use crate::error::Result;
use crate::types::Seq;

/// How many removals a compaction writes per batch.
const DROP_BATCH: usize = 4096;

impl SledLog {
    /// Removes `stream`'s stored events up to `seq` (its own start is `start`);
    /// returns how many. A block that also holds later events is rewritten with those
    /// alone; one that cannot be read is left in place (its later events are reported
    /// damaged where they are read).
    pub(super) fn drop_events(&self, stream: &str, start: Seq, seq: Seq) -> Result<u64> {
        let mut dropped = 0;
        let mut batch = sled::Batch::default();
        let mut pending = 0;
        let from = seq_key(stream, start.min(seq + 1));
        let first_value = self
            .events
            .range(prefix(stream)..=from.clone())
            .next_back()
            .transpose()?
            .map_or(from, |(key, _)| key.to_vec());
        for entry in self.events.range(first_value..=seq_key(stream, seq)) {
            let (key, value) = entry?;
            let Some(first) = key_seq(&key) else {
                continue;
            };
            if is_single_record(&value) {
                dropped += u64::from(first >= start);
            } else {
                let Ok(mut reader) = BlockReader::open(&key, first, value) else {
                    continue;
                };
                if reader.last() > seq {
                    let Some(tail) = rewrite_tail(stream, &mut reader, seq + 1) else {
                        continue;
                    };
                    for (key, value) in tail {
                        batch.insert(key, value);
                    }
                }
                dropped += (reader.last().min(seq) + 1).saturating_sub(first.max(start));
            }
            batch.remove(key);
            pending += 1;
            if pending == DROP_BATCH {
                self.events.apply_batch(std::mem::take(&mut batch))?;
                pending = 0;
            }
        }
        self.events.apply_batch(batch)?;
        Ok(dropped)
    }
}
