//! [`SledLog`]: the durable log, on sled.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use askuser_core::{Event, State};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::{Db, IVec, Transactional, Tree};

use crate::backend::{Backend, RecordIter};
use crate::codec::{
    EventRecord, EventRef, STATE_FORMAT, SnapshotHead, SnapshotRecord, SnapshotRef, StreamRecord,
    check_name, key_seq, open_record, prefix, seal, seq_key,
};
use crate::error::{RecordKind, Result, StoreError};
use crate::log::Log;
use crate::memory::check_fork_point;
use crate::types::{
    Clock, Durability, ForkPoint, Recorded, Seq, Snapshot, StreamInfo, SystemClock,
};

/// The sled page cache [`SledLog::open`] asks for, in bytes (sled's own default is
/// 1 GiB). A log is mostly appended to and read through once, so a large cache
/// buys little; use [`SledLog::from_config`] to choose another size. sled keeps
/// per-page bookkeeping outside this budget (see the benchmarks' README).
pub const DEFAULT_CACHE_CAPACITY: u64 = 32 << 20;

/// How many removals a compaction writes per batch.
const DROP_BATCH: usize = 4096;

/// A durable [`Log`] in a sled database directory.
///
/// The layout: an `events` tree keyed by stream name ++ `0x00` ++ sequence number
/// (big-endian `u64`, so a prefix scan is in order); a `streams` tree keyed by name
/// (head, parent stream and fork point, creation time, compaction floor); a
/// `snapshots` tree keyed like `events`. Every value is MessagePack with named fields
/// inside an envelope with a format version and a CRC-32 of the key and payload (see
/// the crate docs). An append is one sled transaction over `streams` and `events`:
/// the head check and the writes commit together or not at all.
///
/// sled lets one process open a database at a time; within the process, share one
/// `SledLog` (it is `Send + Sync`) between threads.
#[derive(Debug)]
pub struct SledLog {
    db: Db,
    events: Tree,
    streams: Tree,
    snapshots: Tree,
    clock: Arc<dyn Clock>,
    durability: Durability,
    /// Serializes forks and compactions against each other (appends need not wait):
    /// a compaction's check for forks and its change of floor must see no new fork.
    structure: Mutex<()>,
}

impl SledLog {
    /// Opens (creating if needed) the database in the directory `path`, with
    /// [`Durability::Flush`] appends, the system clock, and a sled cache of
    /// [`DEFAULT_CACHE_CAPACITY`] bytes.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_config(
            &sled::Config::new()
                .path(path)
                .cache_capacity(DEFAULT_CACHE_CAPACITY),
        )
    }

    /// A database in a temporary directory, deleted when the log is dropped.
    pub fn temporary() -> Result<Self> {
        Self::from_config(&sled::Config::new().temporary(true))
    }

    /// Opens a database with sled settings of your own (cache size, mode...).
    ///
    /// sled 0.34 can panic while recovering some damaged files; that panic is caught
    /// and reported as [`StoreError::Recovery`] (the panic message is still printed
    /// by the panic hook).
    pub fn from_config(config: &sled::Config) -> Result<Self> {
        let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()));
        let db = match opened {
            Ok(db) => db?,
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "sled panicked".to_owned());
                return Err(StoreError::Recovery(detail));
            }
        };
        Ok(Self {
            events: db.open_tree("events")?,
            streams: db.open_tree("streams")?,
            snapshots: db.open_tree("snapshots")?,
            db,
            clock: Arc::new(SystemClock),
            durability: Durability::Flush,
            structure: Mutex::new(()),
        })
    }

    /// The same log, with `durability` for [`Log::append`].
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// The same log, stamping records with `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The size of the database on disk, in bytes.
    pub fn size_on_disk(&self) -> Result<u64> {
        Ok(self.db.size_on_disk()?)
    }

    /// The sled database underneath (for inspection and tools; writing to the
    /// store's trees directly bypasses its checks).
    pub fn db(&self) -> &Db {
        &self.db
    }

    fn settle(&self, durability: Durability) -> Result<()> {
        if durability == Durability::Flush {
            self.db.flush()?;
        }
        Ok(())
    }

    fn decode_stream(name: &str, bytes: &[u8]) -> Result<StreamRecord> {
        open_record(RecordKind::Stream, name, 0, name.as_bytes(), bytes)
    }

    fn stream_record(&self, name: &str) -> Result<Option<StreamRecord>> {
        match self.streams.get(name.as_bytes())? {
            Some(bytes) => Self::decode_stream(name, &bytes).map(Some),
            None => Ok(None),
        }
    }

    fn lock_structure(&self) -> std::sync::MutexGuard<'_, ()> {
        self.structure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

fn info(name: &str, record: StreamRecord) -> StreamInfo {
    StreamInfo {
        name: name.to_owned(),
        head: record.head,
        parent: record.parent,
        created_at: record.created_at,
        floor: record.floor,
    }
}

/// Unwraps a transaction's result.
fn settled<T>(result: std::result::Result<T, TransactionError<StoreError>>) -> Result<T> {
    result.map_err(|error| match error {
        TransactionError::Abort(error) => error,
        TransactionError::Storage(error) => StoreError::Storage(error),
    })
}

fn abort<T>(error: StoreError) -> std::result::Result<T, ConflictableTransactionError<StoreError>> {
    Err(ConflictableTransactionError::Abort(error))
}

impl Backend for SledLog {
    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        Ok(Box::new(SledScan::new(&self.events, stream, from, to)))
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        let key = seq_key(stream, seq);
        let value = seal(
            &key,
            &SnapshotRef {
                state_format: STATE_FORMAT,
                seq,
                taken_at: self.clock.now(),
                state,
            },
        )?;
        self.snapshots.insert(key, value)?;
        self.settle(self.durability)
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        let key = seq_key(stream, seq);
        let Some(bytes) = self.snapshots.get(&key)? else {
            return Ok(None);
        };
        let head: SnapshotHead = open_record(RecordKind::Snapshot, stream, seq, &key, &bytes)?;
        if head.state_format != STATE_FORMAT {
            return Ok(None);
        }
        let record: SnapshotRecord = open_record(RecordKind::Snapshot, stream, seq, &key, &bytes)?;
        Ok(Some(record.into()))
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        let mut seqs = Vec::new();
        for entry in self.snapshots.scan_prefix(prefix(stream)) {
            let (key, _) = entry?;
            seqs.extend(key_seq(&key));
        }
        Ok(seqs)
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        let _structure = self.lock_structure();
        for entry in &self.streams {
            let (key, bytes) = entry?;
            let name = String::from_utf8_lossy(&key);
            let record = Self::decode_stream(&name, &bytes)?;
            if let Some(parent) = record.parent
                && parent.stream == stream
                && parent.at < seq
            {
                return Err(StoreError::ForkDependsOnEvents {
                    stream: stream.to_owned(),
                    upto: seq,
                    fork: name.into_owned(),
                    at: parent.at,
                });
            }
        }
        // First the floor, so that no reader looks for the events being removed.
        let start = settled(self.streams.transaction(|streams| {
            let Some(bytes) = streams.get(stream.as_bytes())? else {
                return abort(StoreError::NoSuchStream(stream.to_owned()));
            };
            let mut record = match Self::decode_stream(stream, &bytes) {
                Ok(record) => record,
                Err(error) => return abort(error),
            };
            let start = record.parent.as_ref().map_or(0, |p| p.at).max(record.floor) + 1;
            record.floor = record.floor.max(seq);
            let sealed = match seal(stream.as_bytes(), &record) {
                Ok(sealed) => sealed,
                Err(error) => return abort(error),
            };
            streams.insert(stream.as_bytes(), sealed)?;
            Ok(start)
        }))?;
        let mut dropped = 0;
        let mut batch = sled::Batch::default();
        let mut pending = 0;
        for entry in self
            .events
            .range(seq_key(stream, start.min(seq + 1))..=seq_key(stream, seq))
        {
            let (key, _) = entry?;
            batch.remove(key);
            pending += 1;
            dropped += 1;
            if pending == DROP_BATCH {
                self.events.apply_batch(std::mem::take(&mut batch))?;
                pending = 0;
            }
        }
        self.events.apply_batch(batch)?;
        let mut batch = sled::Batch::default();
        for entry in self
            .snapshots
            .range(seq_key(stream, 0)..seq_key(stream, seq))
        {
            batch.remove(entry?.0);
        }
        self.snapshots.apply_batch(batch)?;
        self.settle(self.durability)?;
        Ok(dropped)
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

impl Log for SledLog {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq> {
        check_name(stream)?;
        let at = self.clock.now();
        // Encode outside the transaction, which sled may run more than once.
        let mut records: Vec<(IVec, IVec)> = Vec::with_capacity(events.len());
        for (seq, event) in (expected + 1..).zip(events) {
            let key = seq_key(stream, seq);
            let value = seal(&key, &EventRef { at, event })?;
            records.push((key.into(), value.into()));
        }
        let head = expected + records.len() as u64;
        let head = settled(
            (&self.streams, &self.events).transaction(|(streams, tree)| {
                let current = match streams.get(stream.as_bytes())? {
                    Some(bytes) => match Self::decode_stream(stream, &bytes) {
                        Ok(record) => Some(record),
                        Err(error) => return abort(error),
                    },
                    None => None,
                };
                let actual = current.as_ref().map_or(0, |r| r.head);
                if actual != expected {
                    return abort(StoreError::Conflict {
                        stream: stream.to_owned(),
                        expected,
                        actual,
                    });
                }
                if records.is_empty() {
                    return Ok(actual);
                }
                let mut record = current.unwrap_or(StreamRecord {
                    head: 0,
                    parent: None,
                    created_at: at,
                    floor: 0,
                });
                record.head = head;
                let sealed = match seal(stream.as_bytes(), &record) {
                    Ok(sealed) => sealed,
                    Err(error) => return abort(error),
                };
                for (key, value) in &records {
                    tree.insert(key, value.clone())?;
                }
                streams.insert(stream.as_bytes(), sealed)?;
                Ok(head)
            }),
        )?;
        if !events.is_empty() {
            self.settle(durability)?;
        }
        Ok(head)
    }

    fn durability(&self) -> Durability {
        self.durability
    }

    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        Ok(self.stream_record(stream)?.map(|r| info(stream, r)))
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        let mut all = Vec::new();
        for entry in &self.streams {
            let (key, bytes) = entry?;
            let name = String::from_utf8_lossy(&key);
            let record = Self::decode_stream(&name, &bytes)?;
            all.push(info(&name, record));
        }
        Ok(all)
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        check_name(name)?;
        let _structure = self.lock_structure();
        let record = StreamRecord {
            head: at,
            parent: Some(ForkPoint {
                stream: parent.to_owned(),
                at,
            }),
            created_at: self.clock.now(),
            floor: 0,
        };
        let sealed = seal(name.as_bytes(), &record)?;
        settled(self.streams.transaction(|streams| {
            if streams.get(name.as_bytes())?.is_some() {
                return abort(StoreError::StreamExists(name.to_owned()));
            }
            let Some(bytes) = streams.get(parent.as_bytes())? else {
                return abort(StoreError::NoSuchStream(parent.to_owned()));
            };
            let source = match Self::decode_stream(parent, &bytes) {
                Ok(source) => source,
                Err(error) => return abort(error),
            };
            if let Err(error) = check_fork_point(parent, at, source.head, source.floor) {
                return abort(error);
            }
            streams.insert(name.as_bytes(), sealed.clone())?;
            Ok(())
        }))?;
        self.settle(self.durability)?;
        Ok(info(name, record))
    }

    fn flush(&self) -> Result<()> {
        self.db.flush()?;
        Ok(())
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
enum SledScan {
    Direct(Scan),
    ReadAhead(ReadAhead),
}

impl SledScan {
    fn new(tree: &Tree, stream: &str, from: Seq, to: Seq) -> Self {
        let scan = Scan {
            tree: tree.clone(),
            stream: stream.to_owned(),
            next: from,
            to,
            range: None,
        };
        if to.saturating_sub(from) < READ_AHEAD_MIN {
            return SledScan::Direct(scan);
        }
        let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD_DEPTH);
        let spawned = std::thread::Builder::new()
            .name("askuser-store-read".to_owned())
            .spawn(move || {
                let mut scan = scan;
                loop {
                    let batch: Vec<Result<Raw>> =
                        std::iter::from_fn(|| scan.next_raw()).take(READ_AHEAD_BATCH).collect();
                    if batch.is_empty() || sender.send(batch).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(thread) => SledScan::ReadAhead(ReadAhead {
                stream: stream.to_owned(),
                receiver: Some(receiver),
                batch: Vec::new().into_iter(),
                thread: Some(thread),
            }),
            // No thread to be had: read on the caller's.
            Err(_) => SledScan::Direct(Scan {
                tree: tree.clone(),
                stream: stream.to_owned(),
                next: from,
                to,
                range: None,
            }),
        }
    }
}

impl Iterator for SledScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            SledScan::Direct(scan) => scan.next(),
            SledScan::ReadAhead(ahead) => ahead.next(),
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
        open_record::<EventRecord>(RecordKind::Event, stream, self.seq, &self.key, &self.bytes).map(
            |record| Recorded {
                seq: self.seq,
                at: record.at,
                event: record.event,
            },
        )
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
                    &format!("the storage engine could not read it: {error}"),
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
