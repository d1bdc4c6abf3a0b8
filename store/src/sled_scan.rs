//! Reading a stream's own events out of the sled `events` tree, with read-ahead on a
//! helper thread for long ranges.

use sled::{IVec, Tree};

use crate::codec::{key_seq, open_event, seq_key};
use crate::error::{RecordKind, Result, StoreError};
use crate::types::{Recorded, Seq};

/// An iterator over a stream's own events, in order.
pub(crate) struct SledScan(ScanKind);

impl SledScan {
    /// Reads `stream`'s events from `from` up to (not including) `to`.
    pub(crate) fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        SledScan(ScanKind::new(tree, stream, from, to))
    }
}

impl Iterator for SledScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

/// Ranges at least this long are read ahead on a helper thread.
const READ_AHEAD_MIN: u64 = 4096;
/// Records per batch handed from the reading thread to the caller.
const READ_AHEAD_BATCH: usize = 512;
/// Batches in flight: bounds the read-ahead's memory.
const READ_AHEAD_DEPTH: usize = 4;

/// Reads a stream's own events from the `events` tree. A long range is read, checked
/// and decoded on a helper thread, a few batches ahead of the caller, so that a
/// replay's reducer runs alongside the reads; memory stays bounded by
/// `READ_AHEAD_DEPTH` batches.
enum ScanKind {
    Direct(Box<Scan>),
    ReadAhead(ReadAhead),
}

impl ScanKind {
    fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        let scan = Scan {
            tree: tree.clone(),
            stream: stream.to_owned(),
            next: from,
            to,
            range: None,
        };
        if to.saturating_sub(from) < READ_AHEAD_MIN {
            return ScanKind::Direct(Box::new(scan));
        }
        let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD_DEPTH);
        let spawned = std::thread::Builder::new()
            .name("askuser-store-read".to_owned())
            .spawn(move || {
                let mut scan = scan;
                loop {
                    let batch: Vec<Result<Raw>> = std::iter::from_fn(|| scan.next_raw())
                        .take(READ_AHEAD_BATCH)
                        .collect();
                    if batch.is_empty() || sender.send(batch).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(thread) => ScanKind::ReadAhead(ReadAhead {
                stream: stream.to_owned(),
                receiver: Some(receiver),
                batch: Vec::new().into_iter(),
                thread: Some(thread),
            }),
            // No thread to be had: read on the caller's.
            Err(_) => ScanKind::Direct(Box::new(Scan {
                tree: tree.clone(),
                stream: stream.to_owned(),
                next: from,
                to,
                range: None,
            })),
        }
    }
}

impl Iterator for ScanKind {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            ScanKind::Direct(scan) => scan.next(),
            ScanKind::ReadAhead(ahead) => ahead.next(),
        }
    }
}

struct ReadAhead {
    stream: String,
    receiver: Option<std::sync::mpsc::Receiver<Vec<Result<Raw>>>>,
    batch: std::vec::IntoIter<Result<Raw>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ReadAhead {
    fn next(&mut self) -> Option<Result<Recorded>> {
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item.and_then(|raw| raw.decode(&self.stream)));
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

/// Reads a range of a stream's own events, decoding one at a time. When sled fails
/// to read a record, the scan reports it and restarts after it, so the rest of the
/// stream stays readable.
struct Scan {
    tree: Tree,
    stream: String,
    /// The next sequence number expected.
    next: Seq,
    to: Seq,
    range: Option<sled::Iter>,
}

/// A record read from sled, not decoded yet.
struct Raw {
    seq: Seq,
    key: IVec,
    bytes: IVec,
}

impl Raw {
    fn decode(self, stream: &str) -> Result<Recorded> {
        open_event(stream, self.seq, &self.key, &self.bytes)
    }
}

impl Iterator for Scan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        let raw = self.next_raw()?;
        Some(raw.and_then(|raw| raw.decode(&self.stream)))
    }
}

impl Scan {
    fn next_raw(&mut self) -> Option<Result<Raw>> {
        if self.next > self.to {
            return None;
        }
        let range = self.range.get_or_insert_with(|| {
            self.tree
                .range(seq_key(&self.stream, self.next)..=seq_key(&self.stream, self.to))
        });
        match range.next()? {
            Ok((key, bytes)) => {
                let Some(seq) = key_seq(&key) else {
                    return Some(Err(corrupt(&self.stream, self.next, "a malformed key")));
                };
                self.next = seq + 1;
                Some(Ok(Raw { seq, key, bytes }))
            }
            Err(error) => {
                let seq = self.next;
                self.next += 1;
                self.range = None;
                Some(Err(corrupt(
                    &self.stream,
                    seq,
                    &format!(
                        "the storage engine could not read it: {}",
                        crate::error::sled_words(&error)
                    ),
                )))
            }
        }
    }
}

fn corrupt(stream: &str, seq: Seq, detail: &str) -> StoreError {
    StoreError::Corrupt {
        kind: RecordKind::Event,
        stream: stream.to_owned(),
        seq,
        detail: detail.to_owned(),
    }
}
