//! Reading a stream's own events out of the sled `events` tree (records of one event
//! and blocks of several, see [`askuser_store::block`]), on the caller's thread.
//!
//! A long range was once read and decoded on a helper thread, a few batches ahead of
//! the caller, so that a replay's reducer ran beside the decoding. Measured, it was
//! slower than reading on one thread: a replay of 1M events took 620-670 ms with the
//! helper and 390-450 ms without (`replay_memory replay`, benches/README.md), the
//! events being built on one core and applied and freed on the other.

use sled::{IVec, Tree};

use askuser_store::Result;
use askuser_store::block::BlockReader;
use askuser_store::codec::{corrupt_event, is_single_record, key_seq, open_event, prefix, seq_key};
use askuser_store::{Recorded, Seq};

/// Reads a range of a stream's own events, decoding one at a time. A damaged value
/// is reported for each event it held (as far as the next value's key tells), and
/// the scan goes on with the next value; when sled fails to read, the scan reports
/// it and restarts after it, so the rest of the stream stays readable.
pub(crate) struct SledScan {
    tree: Tree,
    stream: String,
    /// The next sequence number wanted.
    next: Seq,
    to: Seq,
    range: Option<sled::Iter>,
    /// The entry after the current one, read early to bound a damaged block.
    peeked: Option<sled::Result<(IVec, IVec)>>,
    current: Current,
    /// How many more times to look again for `next` where a value was expected
    /// and another came (or none): a repack rewrote the value this scan was about
    /// to read. Reset on each value read, so a real gap is looked for a few times,
    /// then reported.
    looks_left: u8,
}

/// Looks again for the value holding `next` before a gap is believed: a repack
/// may rewrite a run between the scan's seek and its read, once per run.
const LOOKS_AGAIN: u8 = 3;

/// What reading the next value gave.
#[allow(clippy::large_enum_variant)] // returned at once, as the iterator's item is
enum Step {
    /// The end of the range.
    End,
    /// An event (a record of one), or a problem to report.
    Event(Result<Recorded>),
    /// A value to read from (or to skip): see `SledScan::current`.
    Value,
}

/// The value being read.
enum Current {
    None,
    Block(BlockReader<IVec>),
    /// A value that could not be opened, holding the events up to `last`.
    Damaged {
        last: Seq,
        detail: String,
    },
}

impl Iterator for SledScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.next <= self.to {
            match &mut self.current {
                Current::Block(reader) => {
                    let Some((seq, event)) = reader.next_event() else {
                        self.current = Current::None;
                        continue;
                    };
                    self.next = seq + 1;
                    return Some(event.map_err(|detail| corrupt_event(&self.stream, seq, detail)));
                }
                Current::Damaged { last, detail } => {
                    if self.next > *last {
                        self.current = Current::None;
                        continue;
                    }
                    let seq = self.next;
                    self.next += 1;
                    return Some(Err(corrupt_event(&self.stream, seq, detail.clone())));
                }
                Current::None => match self.next_value() {
                    Step::End => return None,
                    Step::Event(item) => return Some(item),
                    Step::Value => {}
                },
            }
        }
        None
    }
}

impl SledScan {
    /// Reads `stream`'s events from `from` up to and including `to`.
    pub(crate) fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        Self {
            tree: tree.clone(),
            stream: stream.to_owned(),
            next: from,
            to,
            range: None,
            peeked: None,
            current: Current::None,
            looks_left: LOOKS_AGAIN,
        }
    }

    /// Hands each record of the range to `visit` as a block decodes it, rather
    /// than returning it as [`Iterator::next`] does (a record is a few hundred
    /// bytes, moved once per layer it is returned through): what
    /// `Backend::visit_own` reads with. Stops at the first `Err` `visit`
    /// returns, and returns it.
    pub(crate) fn visit(
        &mut self,
        visit: &mut dyn FnMut(Result<&Recorded>) -> Result<()>,
    ) -> Result<()> {
        loop {
            if let Current::Block(reader) = &mut self.current {
                while self.next <= self.to {
                    let stream = &self.stream;
                    let visited = reader.visit_next(|seq, event| {
                        let visited = match event {
                            Ok(recorded) => visit(Ok(recorded)),
                            Err(detail) => visit(Err(corrupt_event(stream, seq, detail))),
                        };
                        (seq, visited)
                    });
                    let Some((seq, visited)) = visited else {
                        break;
                    };
                    self.next = seq + 1;
                    visited?;
                }
                if self.next > self.to {
                    return Ok(());
                }
                self.current = Current::None;
            }
            match self.next() {
                Some(Ok(recorded)) => visit(Ok(&recorded))?,
                Some(Err(error)) => visit(Err(error))?,
                None => return Ok(()),
            }
        }
    }

    /// The range of values from the one holding `next` (a block may start before
    /// it) to `to`.
    fn range(&mut self) -> &mut sled::Iter {
        self.range.get_or_insert_with(|| {
            let from = seq_key(&self.stream, self.next);
            let start = self
                .tree
                .range(prefix(&self.stream)..=from.clone())
                .next_back()
                .and_then(std::result::Result::ok)
                .map_or(from, |(key, _)| key.to_vec());
            self.tree.range(start..=seq_key(&self.stream, self.to))
        })
    }

    /// Reads the next value: a record of one event is returned at once; a block
    /// becomes the current value.
    fn next_value(&mut self) -> Step {
        let entry = match self.peeked.take() {
            Some(entry) => entry,
            None => match self.range().next() {
                Some(entry) => entry,
                // The range ended short of `to`: the values holding the rest may
                // have been rewritten as blocks starting before `next` (a repack
                // of the stream's last run), behind where the range stood.
                None if self.next <= self.to => return self.look_again(),
                None => return Step::End,
            },
        };
        let (key, bytes) = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let seq = self.next;
                self.next += 1;
                self.range = None;
                let detail = format!(
                    "the storage engine could not read it: {}",
                    crate::error::sled_words(&error)
                );
                return Step::Event(Err(corrupt_event(&self.stream, seq, detail)));
            }
        };
        let Some(first) = key_seq(&key) else {
            let seq = self.next;
            self.next += 1;
            let detail = "a malformed key".to_owned();
            return Step::Event(Err(corrupt_event(&self.stream, seq, detail)));
        };
        if first > self.next && self.looks_left > 0 {
            // The value holding `next` went away under the scan (a repack replaced
            // it by a block starting earlier): look again from `next`.
            return self.look_again();
        }
        if is_single_record(&bytes) {
            if first < self.next {
                return Step::Value;
            }
            self.looks_left = LOOKS_AGAIN;
            self.next = first + 1;
            return Step::Event(open_event(&self.stream, first, &key, &bytes));
        }
        match BlockReader::open(&key, first, bytes) {
            Ok(mut reader) => {
                if reader.last() >= self.next {
                    self.looks_left = LOOKS_AGAIN;
                    reader.skip_to(self.next);
                    self.next = reader.next_seq();
                    self.current = Current::Block(reader);
                }
            }
            Err(detail) => {
                self.looks_left = LOOKS_AGAIN;
                self.damaged(first, detail);
            }
        }
        Step::Value
    }

    /// Seeks again to the value holding `next`, when looks are left; the end of
    /// the scan otherwise (the caller's gap check reports what is missing).
    fn look_again(&mut self) -> Step {
        if self.looks_left == 0 {
            return Step::End;
        }
        self.looks_left -= 1;
        self.range = None;
        self.peeked = None;
        Step::Value
    }

    /// A value under the key of event `first` that cannot be opened: the events it
    /// held, up to the next value's key, are reported damaged.
    fn damaged(&mut self, first: Seq, detail: String) {
        if self.peeked.is_none() {
            self.peeked = self.range().next();
        }
        let before_next = match &self.peeked {
            Some(Ok((key, _))) => key_seq(key).map(|seq| seq.saturating_sub(1)),
            _ => None,
        };
        let start = first.max(self.next);
        let last = before_next.unwrap_or(self.to).min(self.to).max(first);
        if start > last {
            return;
        }
        self.next = start;
        let detail = if first == last {
            detail
        } else {
            format!("the value holding events {first} to {last} is damaged: {detail}")
        };
        self.current = Current::Damaged { last, detail };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::Event;
    use askuser_store::Timestamp;
    use askuser_store::block::encode_append;
    use askuser_testkit::scripted_events;

    /// A tree holding `count` events of stream `s`, one value each.
    fn one_value_each(count: u64) -> (sled::Db, Tree, Vec<Event>) {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let tree = db.open_tree("events").unwrap();
        let events: Vec<Event> = scripted_events(1, count).collect();
        for (seq, event) in (1..).zip(&events) {
            for (key, value) in
                encode_append("s", seq, Timestamp(seq), std::slice::from_ref(event)).unwrap()
            {
                tree.insert(key, value).unwrap();
            }
        }
        (db, tree, events)
    }

    /// Replaces the values of events `from..=to` by one block, in one batch, as a
    /// repack does.
    fn repack(tree: &Tree, events: &[Event], from: Seq, to: Seq) {
        let mut batch = sled::Batch::default();
        for seq in from..=to {
            batch.remove(seq_key("s", seq));
        }
        let run = &events[usize::try_from(from - 1).unwrap()..usize::try_from(to).unwrap()];
        for (key, value) in encode_append("s", from, Timestamp(from), run).unwrap() {
            batch.insert(key, value);
        }
        tree.apply_batch(batch).unwrap();
    }

    fn read(scan: &mut SledScan, count: usize) -> Vec<Event> {
        scan.by_ref()
            .take(count)
            .map(|r| r.unwrap().event)
            .collect()
    }

    /// Scans events `from..=COUNT` of a stream of `COUNT` single values, and
    /// repacks `from..=to` (one block) under the scan after it has read every
    /// eighth count of events (a sled node holds more): the scan must read each
    /// event once, in order, wherever the node it holds ends.
    fn repacked_under_a_scan(from: Seq, to: Seq) {
        const COUNT: u64 = 1000;
        let (_db, tree, events) = one_value_each(COUNT);
        let wanted = &events[usize::try_from(from - 1).unwrap()..];
        for read_before in (1..usize::try_from(to - from).unwrap()).step_by(8) {
            let mut scan = SledScan::new(&tree, "s", from, COUNT);
            let mut seen = read(&mut scan, read_before);
            repack(&tree, &events, from, to);
            seen.extend(read(&mut scan, usize::MAX));
            assert_eq!(seen.len(), wanted.len(), "after reading {read_before}");
            assert_eq!(seen, wanted, "after reading {read_before}");
            unpack(&tree, &events, from, to);
        }
    }

    #[test]
    fn a_run_repacked_in_the_middle_under_the_scan_is_read_once() {
        repacked_under_a_scan(490, 745);
    }

    /// CI saw a reader lose events 19,981 to 20,000 when the stream's last run
    /// was repacked under it: sled's iterator read the rest of the node it held,
    /// then found the next node past the new block's key, and the range ended
    /// behind it.
    #[test]
    fn the_last_run_repacked_under_the_scan_is_read_to_the_end() {
        repacked_under_a_scan(745, 1000);
    }

    /// Undoes [`repack`]: one value for each event again.
    fn unpack(tree: &Tree, events: &[Event], from: Seq, to: Seq) {
        let mut batch = sled::Batch::default();
        batch.remove(seq_key("s", from));
        for seq in from..=to {
            let event = &events[usize::try_from(seq - 1).unwrap()];
            for (key, value) in
                encode_append("s", seq, Timestamp(seq), std::slice::from_ref(event)).unwrap()
            {
                batch.insert(key, value);
            }
        }
        tree.apply_batch(batch).unwrap();
    }

    #[test]
    fn a_real_gap_ends_the_scan_where_it_is() {
        let (_db, tree, events) = one_value_each(10);
        tree.remove(seq_key("s", 10)).unwrap();
        let mut scan = SledScan::new(&tree, "s", 1, 10);
        assert_eq!(read(&mut scan, 100), events[..9]);
        assert_eq!(scan.next, 10);
    }
}
