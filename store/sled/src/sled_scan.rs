//! Reading a stream's own events out of the sled `events` tree (records of one event
//! and blocks of several, see [`askuser_store::block`]), with read-ahead on a helper thread
//! for long ranges.

use sled::{IVec, Tree};

use askuser_store::Result;
use askuser_store::block::BlockReader;
use askuser_store::codec::{corrupt_event, is_single_record, key_seq, open_event, prefix, seq_key};
use askuser_store::{Recorded, Seq};

/// An iterator over a stream's own events, in order.
pub(crate) struct SledScan(ScanKind);

impl SledScan {
    /// Reads `stream`'s events from `from` up to and including `to`.
    pub(crate) fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        SledScan(ScanKind::new(tree, stream, from, to))
    }
}

impl Iterator for SledScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            ScanKind::Direct(scan) => scan.next(),
            ScanKind::ReadAhead(ahead) => ahead.next(),
        }
    }
}

/// Ranges at least this long are read ahead on a helper thread.
const READ_AHEAD_MIN: u64 = 4096;
/// Events per batch handed from the reading thread to the caller.
const READ_AHEAD_BATCH: usize = 256;
/// Batches in flight: bounds the read-ahead's memory.
const READ_AHEAD_DEPTH: usize = 4;

/// A long range is read, checked and decoded on a helper thread, a few batches
/// ahead of the caller, so that a replay's reducer runs alongside; memory stays
/// bounded by `READ_AHEAD_DEPTH` batches.
enum ScanKind {
    Direct(Box<Scan>),
    ReadAhead(ReadAhead),
}

impl ScanKind {
    fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        let scan = Box::new(Scan::new(tree, stream, from, to));
        if to.saturating_sub(from) < READ_AHEAD_MIN {
            return ScanKind::Direct(scan);
        }
        let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD_DEPTH);
        let spawned = std::thread::Builder::new()
            .name("askuser-store-read".to_owned())
            .spawn(move || {
                let mut scan = scan;
                loop {
                    let batch: Vec<Result<Recorded>> =
                        scan.by_ref().take(READ_AHEAD_BATCH).collect();
                    if batch.is_empty() || sender.send(batch).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(thread) => ScanKind::ReadAhead(ReadAhead {
                receiver: Some(receiver),
                batch: Vec::new().into_iter(),
                thread: Some(thread),
            }),
            // No thread to be had: read on the caller's.
            Err(_) => ScanKind::Direct(Box::new(Scan::new(tree, stream, from, to))),
        }
    }
}

struct ReadAhead {
    receiver: Option<std::sync::mpsc::Receiver<Vec<Result<Recorded>>>>,
    batch: std::vec::IntoIter<Result<Recorded>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ReadAhead {
    fn next(&mut self) -> Option<Result<Recorded>> {
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
            // The thread ended (a missing tail is then reported by the caller's
            // gap check).
            self.batch = self.receiver.as_ref()?.recv().ok()?.into_iter();
        }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // Closing the channel stops the thread at its next batch; wait for it, so
        // that the database is released when the log is dropped.
        drop(self.receiver.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads a range of a stream's own events, decoding one at a time. A damaged value
/// is reported for each event it held (as far as the next value's key tells), and
/// the scan goes on with the next value; when sled fails to read, the scan reports
/// it and restarts after it, so the rest of the stream stays readable.
struct Scan {
    tree: Tree,
    stream: String,
    /// The next sequence number wanted.
    next: Seq,
    to: Seq,
    range: Option<sled::Iter>,
    /// The entry after the current one, read early to bound a damaged block.
    peeked: Option<sled::Result<(IVec, IVec)>>,
    current: Current,
    /// Set after looking again for `next` past a gap (a value rewritten by a
    /// repack while this scan read the old one), so a real gap is looked for once.
    looked_again: bool,
}

/// What reading the next value gave.
#[allow(clippy::large_enum_variant)] // returned at once, as the iterator's item is
enum Step {
    /// The end of the range.
    End,
    /// An event (a record of one), or a problem to report.
    Event(Result<Recorded>),
    /// A value to read from (or to skip): see `Scan::current`.
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

impl Iterator for Scan {
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

impl Scan {
    fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        Self {
            tree: tree.clone(),
            stream: stream.to_owned(),
            next: from,
            to,
            range: None,
            peeked: None,
            current: Current::None,
            looked_again: false,
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
        if first > self.next && !self.looked_again {
            // The value holding `next` went away under the scan (a repack replaced
            // it by a block starting earlier): look again from `next`, once.
            self.looked_again = true;
            self.range = None;
            self.peeked = None;
            return Step::Value;
        }
        if is_single_record(&bytes) {
            if first < self.next {
                return Step::Value;
            }
            self.looked_again = false;
            self.next = first + 1;
            return Step::Event(open_event(&self.stream, first, &key, &bytes));
        }
        match BlockReader::open(&key, first, bytes) {
            Ok(mut reader) => {
                if reader.last() >= self.next {
                    self.looked_again = false;
                    reader.skip_to(self.next);
                    self.next = reader.next_seq();
                    self.current = Current::Block(reader);
                }
            }
            Err(detail) => {
                self.looked_again = false;
                self.damaged(first, detail);
            }
        }
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
