//! [`SledLog`]: the durable log, on sled.

use crate::error::Storage as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use askuser_core::{Event, State};
use sled::{Db, IVec, Tree};

mod drop;
mod read_only;
mod repack;
mod seal;
mod sealing;

pub(crate) use seal::{is_sealed, segment_size};
use sealing::Sealer;

use askuser_store::Repacked;

use crate::sled_files::{
    DbIntent, Discarded, OpeningLock, PrivateCopy, check_db_path, prepare_private, settle_private,
};
use crate::sled_legacy::Legacy;
use crate::sled_scan::SledScan;
use askuser_store::Log;
use askuser_store::backend::check_fork_point;
use askuser_store::backend::expect_head;
use askuser_store::backend::{Backend, RecordIter, visit_each};
use askuser_store::block::encode_append;
use askuser_store::codec::{
    STATE_FORMAT, SnapshotRef, StreamRecord, check_name, key_seq, open_record, open_snapshot,
    prefix, seal, seq_key,
};
use askuser_store::{Clock, Durability, ForkPoint, Seq, Snapshot, StreamInfo, SystemClock};
use askuser_store::{RecordKind, Recorded, Result, StoreError};

/// The sled page cache [`SledLog::open`] asks for, in bytes (sled's own default is
/// 1 GiB). A log is mostly appended to and read through once, so a large cache
/// buys little; use [`SledLog::from_config`] to choose another size. sled keeps
/// per-page bookkeeping outside this budget (see the benchmarks' README).
pub const DEFAULT_CACHE_CAPACITY: u64 = 16 << 20;

/// How long opening waits for sled's file lock.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

/// A durable [`Log`] in a sled database directory.
///
/// The layout: an `events` tree keyed by stream name ++ `0x00` ++ sequence number
/// (big-endian `u64`, so a prefix scan is in order) holding blocks of events, each
/// under the key of its first event (see the crate docs; older logs hold one
/// event per key, and both are read); a `streams` tree keyed by name (head, parent
/// stream and fork point, creation time, compaction floor); a `snapshots` tree
/// keyed like `events`. Every value is inside an envelope with a format version and
/// a CRC-32 of the key and payload (see the crate docs).
///
/// An append takes the writers' turn, checks the head, writes the events as one
/// atomic sled batch under sequence numbers past the head, and commits by a
/// compare-and-swap of the stream's record from the head it checked to the new
/// head. The head is the commit point: events past it are invisible, so a crash
/// between the two writes leaves the stream as it was (sled recovers a prefix of its
/// log, so a surviving head implies its events survived), and the next append
/// overwrites the orphans. It lets the turn go once written, and then (with
/// [`Durability::Flush`]) waits for sled's flush before it returns: an append
/// that follows on the stream meanwhile is acknowledged only after a flush of
/// its own, which covers this one's writes too.
///
/// sled lets one process open a database at a time; within the process, share one
/// `SledLog` (it is `Send + Sync`) between threads.
#[doc = include_str!("sled_recovery.md")]
#[derive(Debug)]
pub struct SledLog {
    pub(crate) db: Db,
    pub(crate) events: Tree,
    pub(crate) streams: Tree,
    pub(crate) snapshots: Tree,
    clock: Arc<dyn Clock>,
    durability: Durability,
    /// Held by whoever changes a stream's record and its events (an append, a
    /// fork, dropping compacted events, a repack's batch) until written, not
    /// through the flush: writers take turns. A lock per stream (one of 64
    /// stripes) held through the flush held up every stream hashed to it, and
    /// on two cores parallel writers only met in sled's spin-and-yield loops:
    /// 32 agents on one log measured a p99 of 2.9-4.3× their median with
    /// stripes, 2.1-2.5× with stripes let go before the flush, and 1.7-1.8×
    /// with this one turn (benches/README.md).
    writing: Mutex<()>,
    /// Serializes forks and compactions against each other: a compaction's check
    /// for forks and its change of floor must see no new fork.
    structure: Mutex<()>,
    /// The first format's side records, in a log that has them.
    legacy: Option<Legacy>,
    /// Set when the log was opened read-only: the private copy it reads (dropped
    /// after `db`, so the copy is deleted once sled has let go of it).
    read_only: Option<ReadOnly>,
    /// Set when the log was opened for writing at a path: seals it once `db`
    /// (dropped before it) has let go (see `sled_log/seal.rs`).
    sealer: Option<Sealer>,
}

/// A read-only log's private copy, and what sled's recovery discarded from it.
#[derive(Debug)]
struct ReadOnly {
    origin: PathBuf,
    discarded: Option<Discarded>,
    _copy: PrivateCopy,
}

impl SledLog {
    /// A scan of `stream`'s own events that holds sled's trees, not `self`: it
    /// keeps the database open (and locked) until it is dropped.
    pub(crate) fn scan_detached(&self, stream: &str, from: Seq, to: Seq) -> RecordIter<'static> {
        let scan = SledScan::new(&self.events, stream, from, to);
        match self.legacy.clone() {
            None => Box::new(scan),
            Some(legacy) => {
                let stream = stream.to_owned();
                Box::new(scan.map(move |recorded| recorded.map(|r| legacy.complete(&stream, r))))
            }
        }
    }

    /// Opens (creating if needed) the database in the directory `path`, with
    /// [`Durability::Flush`] appends, the system clock, and a sled cache of
    /// [`DEFAULT_CACHE_CAPACITY`] bytes.
    ///
    /// A log it creates is its user's alone, whatever the umask: the directory
    /// (and any parent it creates) is made 0700 before sled creates a file in
    /// it, and the files sled makes (`conf`, `db`, `snap.*`, blob files) lose
    /// their group and other bits (0600) once it has opened, and again when the
    /// log is sealed. A log whose directory others may enter keeps its modes
    /// ([`open_to_others`](crate::open_to_others) tells whether others can
    /// read it).
    ///
    /// # Errors
    ///
    /// [`StoreError::Locked`] when another process still holds the database after
    /// about a second, [`StoreError::Recovery`] when sled cannot recover it, or a
    /// storage error.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        check_db_path(path, DbIntent::Create)?;
        prepare_private(path)?;
        let opening = OpeningLock::take(path, true, LOCK_PATIENCE)?;
        let log = Self::from_config(
            &sled::Config::new()
                .path(path)
                .cache_capacity(DEFAULT_CACHE_CAPACITY),
        )?;
        settle_private(path);
        drop(opening);
        Ok(log.sealed_on_close(path))
    }

    /// A database in a temporary directory, deleted when the log is dropped.
    ///
    /// # Errors
    ///
    /// A storage error.
    pub fn temporary() -> Result<Self> {
        Self::from_config(
            &sled::Config::new()
                .temporary(true)
                .cache_capacity(DEFAULT_CACHE_CAPACITY),
        )
    }

    /// Opens a database with sled settings of your own (cache size, mode...).
    ///
    /// sled holds a lock on the database file while it is open, and its background
    /// threads may hold it for a moment after the last handle is dropped; opening
    /// retries for up to a second while the lock is taken, then fails with sled's
    /// "could not acquire lock" I/O error (another process has the database).
    ///
    /// sled 0.34 can panic while recovering some damaged files; that panic is caught
    /// and reported as [`StoreError::Recovery`] (the panic message is still printed
    /// by the panic hook).
    ///
    /// # Errors
    ///
    /// As [`SledLog::open`].
    pub fn from_config(config: &sled::Config) -> Result<Self> {
        Self::from_config_within(config, LOCK_PATIENCE)
    }

    /// [`SledLog::open`], waiting at most `patience` for another process's lock;
    /// when `quiet`, sled runs no background thread (it flushes on demand and
    /// never moves pages to free its segments, so a process that only reads
    /// changes no byte).
    pub(crate) fn open_within(
        path: &Path,
        patience: std::time::Duration,
        quiet: bool,
    ) -> Result<Self> {
        let config = sled::Config::new()
            .path(path)
            .cache_capacity(DEFAULT_CACHE_CAPACITY);
        let config = if quiet {
            config.flush_every_ms(None)
        } else {
            config
        };
        prepare_private(path)?;
        let opening = OpeningLock::take(path, true, patience)?;
        let log = Self::from_config_within(&config, patience)?;
        settle_private(path);
        drop(opening);
        Ok(log.sealed_on_close(path))
    }

    fn from_config_within(config: &sled::Config, patience: std::time::Duration) -> Result<Self> {
        let started = std::time::Instant::now();
        let db = loop {
            let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()));
            match opened {
                Ok(Ok(db)) => break db,
                // sled reports a held lock only in the error's text.
                Ok(Err(sled::Error::Io(error)))
                    if error.to_string().contains("could not acquire lock") =>
                {
                    if started.elapsed() >= patience {
                        return Err(StoreError::Locked);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Ok(Err(error)) => return Err(crate::error::storage(error)),
                Err(panic) => {
                    let detail = panic
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "sled panicked".to_owned());
                    return Err(StoreError::Recovery(detail));
                }
            }
        };
        Ok(Self {
            legacy: Legacy::open(&db)?,
            events: db.open_tree("events").storage()?,
            streams: db.open_tree("streams").storage()?,
            snapshots: db.open_tree("snapshots").storage()?,
            db,
            clock: Arc::new(SystemClock),
            durability: Durability::Flush,
            writing: Mutex::new(()),
            structure: Mutex::new(()),
            read_only: None,
            sealer: None,
        })
    }

    /// The same log, with `durability` for
    /// [`Backend::append`](askuser_store::backend::Backend::append).
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
    ///
    /// # Errors
    ///
    /// A storage error.
    pub fn size_on_disk(&self) -> Result<u64> {
        self.db.size_on_disk().storage()
    }

    fn settle(&self, durability: Durability) -> Result<()> {
        if durability == Durability::Flush {
            self.db.flush().storage()?;
        }
        Ok(())
    }

    fn decode_stream(name: &str, bytes: &[u8]) -> Result<StreamRecord> {
        open_record(RecordKind::Stream, name, 0, name.as_bytes(), bytes)
    }

    /// A stream's record, decoded, with its stored bytes (for a compare-and-swap).
    fn stream_entry(&self, name: &str) -> Result<Option<(StreamRecord, IVec)>> {
        match self.streams.get(name.as_bytes()).storage()? {
            Some(bytes) => Ok(Some((Self::decode_stream(name, &bytes)?, bytes))),
            None => Ok(None),
        }
    }

    /// Replaces a stream's record, which must still be `old` (`None`: absent).
    /// Returns whether it was.
    fn swap_stream(&self, name: &str, old: Option<&IVec>, new: &StreamRecord) -> Result<bool> {
        let sealed = seal(name.as_bytes(), new)?;
        Ok(self
            .streams
            .compare_and_swap(name.as_bytes(), old, Some(sealed))
            .storage()?
            .is_ok())
    }

    /// The batch that writes `events` past `expected` as blocks (see
    /// [`askuser_store::block`]), removing what an append that never committed (the process
    /// died between its two writes) left past the head and the new blocks do not
    /// replace.
    fn append_batch(
        &self,
        stream: &str,
        expected: Seq,
        head: Seq,
        at: askuser_store::Timestamp,
        events: &[Event],
    ) -> Result<sled::Batch> {
        let blocks = encode_append(stream, expected + 1, at, events)?;
        let mut batch = sled::Batch::default();
        for entry in self
            .events
            .range(seq_key(stream, expected + 1)..=seq_key(stream, head))
        {
            let (key, _) = entry.storage()?;
            if !blocks.iter().any(|(new, _)| *new == *key) {
                batch.remove(key);
            }
        }
        for (key, value) in blocks {
            batch.insert(key, value);
        }
        Ok(batch)
    }

    fn lock_structure(&self) -> MutexGuard<'_, ()> {
        self.structure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the writers' turn (see `writing`).
    fn lock_writes(&self) -> MutexGuard<'_, ()> {
        self.writing.lock().unwrap_or_else(PoisonError::into_inner)
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

/// The record of a stream that another writer changed between our read and our
/// compare-and-swap (which the writers' turn makes impossible within one log).
fn raced(stream: &str) -> StoreError {
    StoreError::Corrupt {
        kind: RecordKind::Stream,
        stream: stream.to_owned(),
        seq: 0,
        detail: "the stream's record changed during an update (is another log writing it?)"
            .to_owned(),
    }
}

impl Backend for SledLog {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq> {
        self.writable_at(stream, expected + 1)?;
        check_name(stream)?;
        let at = self.clock.now();
        let turn = self.lock_writes();
        let current = self.stream_entry(stream)?;
        let actual = current.as_ref().map_or(0, |(record, _)| record.head);
        expect_head(stream, expected, actual)?;
        if events.is_empty() {
            return Ok(actual);
        }
        let head = expected + events.len() as u64;
        let batch = self.append_batch(stream, expected, head, at, events)?;
        let (mut record, old) = match current {
            Some((record, bytes)) => (record, Some(bytes)),
            None => (
                StreamRecord {
                    head: 0,
                    parent: None,
                    created_at: at,
                    floor: 0,
                },
                None,
            ),
        };
        record.head = head;
        // The events first, invisible past the old head; then the head commits them.
        self.events.apply_batch(batch).storage()?;
        if !self.swap_stream(stream, old.as_ref(), &record)? {
            return Err(raced(stream));
        }
        // Written: the next writer goes on while this one's flush runs.
        drop(turn);
        self.settle(durability)?;
        Ok(head)
    }

    fn durability(&self) -> Durability {
        self.durability
    }

    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        Ok(self.scan_detached(stream, from, to))
    }

    fn visit_own(
        &self,
        stream: &str,
        from: Seq,
        to: Seq,
        visit: &mut dyn FnMut(Result<&Recorded>) -> Result<()>,
    ) -> Result<()> {
        if self.legacy.is_some() {
            // The first format's records are completed as they are read.
            return visit_each(self.scan_detached(stream, from, to), visit);
        }
        SledScan::new(&self.events, stream, from, to).visit(visit)
    }

    fn legacy_outputs(&self, stream: &str, seq: Seq) -> Result<Option<Vec<serde_json::Value>>> {
        let Some(legacy) = &self.legacy else {
            return Ok(None);
        };
        let Some(bytes) = legacy.outputs.get(seq_key(stream, seq)).storage()? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                kind: RecordKind::Event,
                stream: stream.to_owned(),
                seq,
                detail: format!("the output lines recorded beside the event do not decode: {e}"),
            })
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        self.writable_at(stream, Seq::MAX)?;
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
        self.snapshots.insert(key, value).storage()?;
        self.settle(self.durability)
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        let key = seq_key(stream, seq);
        let Some(bytes) = self.snapshots.get(&key).storage()? else {
            return Ok(None);
        };
        open_snapshot(stream, seq, &key, &bytes)
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        let mut seqs = Vec::new();
        for entry in self.snapshots.scan_prefix(prefix(stream)) {
            let (key, _) = entry.storage()?;
            seqs.extend(key_seq(&key));
        }
        Ok(seqs)
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        self.writable_at(stream, 0)?;
        let _structure = self.lock_structure();
        for entry in &self.streams {
            let (key, bytes) = entry.storage()?;
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
        let start = {
            let _turn = self.lock_writes();
            let Some((mut record, old)) = self.stream_entry(stream)? else {
                return Err(StoreError::NoSuchStream(stream.to_owned()));
            };
            let start = record.parent.as_ref().map_or(0, |p| p.at).max(record.floor) + 1;
            record.floor = record.floor.max(seq);
            if !self.swap_stream(stream, Some(&old), &record)? {
                return Err(raced(stream));
            }
            start
        };
        let dropped = self.drop_events(stream, start, seq)?;
        let mut batch = sled::Batch::default();
        for entry in self
            .snapshots
            .range(seq_key(stream, 0)..seq_key(stream, seq))
        {
            batch.remove(entry.storage()?.0);
        }
        self.snapshots.apply_batch(batch).storage()?;
        self.settle(self.durability)?;
        Ok(dropped)
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    fn repack(&self, stream: &str) -> Result<Repacked> {
        self.repack_stream(stream)
    }
}

impl Log for SledLog {
    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        Ok(self.stream_entry(stream)?.map(|(r, _)| info(stream, r)))
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        let mut all = Vec::new();
        for entry in &self.streams {
            let (key, bytes) = entry.storage()?;
            let name = String::from_utf8_lossy(&key);
            let record = Self::decode_stream(&name, &bytes)?;
            all.push(info(&name, record));
        }
        Ok(all)
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        self.writable_at(name, Seq::MAX)?;
        check_name(name)?;
        let _structure = self.lock_structure();
        let turn = self.lock_writes();
        if self.streams.get(name.as_bytes()).storage()?.is_some() {
            return Err(StoreError::StreamExists(name.to_owned()));
        }
        let Some((source, _)) = self.stream_entry(parent)? else {
            return Err(StoreError::NoSuchStream(parent.to_owned()));
        };
        check_fork_point(parent, at, source.head, source.floor)?;
        let record = StreamRecord {
            head: at,
            parent: Some(ForkPoint {
                stream: parent.to_owned(),
                at,
            }),
            created_at: self.clock.now(),
            floor: 0,
        };
        if !self.swap_stream(name, None, &record)? {
            return Err(StoreError::StreamExists(name.to_owned()));
        }
        drop(turn);
        self.settle(self.durability)?;
        Ok(info(name, record))
    }

    fn flush(&self) -> Result<()> {
        self.settle(Durability::Flush)
    }
}
