//! Dropping a stream's events up to a floor (compaction): whole values removed,
//! a block that also holds later events rewritten with those alone.

use super::SledLog;
use crate::error::Storage as _;
use askuser_store::Result;
use askuser_store::Seq;
use askuser_store::block::{BlockReader, rewrite_tail};
use askuser_store::codec::{is_single_record, key_seq, prefix, seq_key};

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
            .transpose()
            .storage()?
            .map_or(from, |(key, _)| key.to_vec());
        for entry in self.events.range(first_value..=seq_key(stream, seq)) {
            let (key, value) = entry.storage()?;
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
                self.events
                    .apply_batch(std::mem::take(&mut batch))
                    .storage()?;
                pending = 0;
            }
        }
        self.events.apply_batch(batch).storage()?;
        Ok(dropped)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dropping_through_the_middle_of_a_block_keeps_the_rest_of_it() {
        use askuser_store::backend::Backend;
        use askuser_store::{Log, Recorded, Seq};
        use askuser_testkit::scripted_events;

        use crate::SledLog;
        let log = SledLog::temporary().unwrap();
        let events: Vec<askuser_core::Event> = scripted_events(1, 100).collect();
        log.append("s", 0, &events).unwrap();
        log.append("s", 100, &scripted_events(101, 5).collect::<Vec<_>>())
            .unwrap();
        // What a compaction does when another writer appended after its snapshot: drop
        // through a sequence number inside a block.
        askuser_store::compact::snapshot_at(&log, "s", 37).unwrap();
        assert_eq!(log.drop_through("s", 37).unwrap(), 37);
        let read: Vec<Recorded> = log.read("s", 38).unwrap().map(Result::unwrap).collect();
        let expected: Vec<askuser_core::Event> = scripted_events(38, 68).collect();
        assert_eq!(
            read.iter().map(|r| r.event.clone()).collect::<Vec<_>>(),
            expected
        );
        assert_eq!(read[0].seq, 38);
        // The rest is a block of its own now, keyed by its first event.
        let keys: Vec<Seq> = log
            .events
            .scan_prefix(askuser_store::codec::prefix("s"))
            .keys()
            .map(|key| askuser_store::codec::key_seq(&key.unwrap()).unwrap())
            .collect();
        assert_eq!(keys, [38, 101]);
        // And again, through the last event of a block.
        askuser_store::compact::snapshot_at(&log, "s", 100).unwrap();
        assert_eq!(log.drop_through("s", 100).unwrap(), 63);
        let read: Vec<askuser_core::Event> = log
            .read("s", 101)
            .unwrap()
            .map(|r| r.unwrap().event)
            .collect();
        assert_eq!(read, scripted_events(101, 5).collect::<Vec<_>>());
        assert_eq!(
            askuser_store::replay::load(&log, "s").unwrap().seq,
            105,
            "loads from the snapshot"
        );
    }
}
