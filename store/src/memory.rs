//! [`MemLog`]: the log in memory.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use std::time::Duration;

use askuser_core::{AgentOrigin, Event, State};

use crate::backend::{Backend, RecordIter};
use crate::codec::{STATE_FORMAT, check_name};
use crate::error::{Result, StoreError, expect_head};
use crate::log::Log;
use crate::presence::{LeaseTable, Leases};
use crate::types::{
    Clock, Durability, ForkPoint, Recorded, Seq, Snapshot, StreamInfo, SystemClock, Timestamp,
};

/// How many events a reader copies out per lock acquisition.
const CHUNK: usize = 256;

/// A [`Log`] held in memory: for embedders that keep no files, and for tests.
/// Nothing survives the process; [`Durability`] is accepted and ignored.
///
/// Readers take the lock for a chunk of events at a time, so a long read never
/// blocks appends for long and a thread may append while it iterates.
#[derive(Debug)]
pub struct MemLog {
    inner: RwLock<Inner>,
    clock: Arc<dyn Clock>,
    durability: Durability,
    leases: LeaseTable,
}

#[derive(Debug, Default)]
struct Inner {
    streams: BTreeMap<String, Stream>,
}

#[derive(Debug)]
struct Stream {
    head: Seq,
    parent: Option<ForkPoint>,
    created_at: Timestamp,
    floor: Seq,
    events: BTreeMap<Seq, (Timestamp, Event)>,
    snapshots: BTreeMap<Seq, (u32, Snapshot)>,
}

impl Stream {
    fn info(&self, name: &str) -> StreamInfo {
        StreamInfo {
            name: name.to_owned(),
            head: self.head,
            parent: self.parent.clone(),
            created_at: self.created_at,
            floor: self.floor,
        }
    }
}

impl Default for MemLog {
    fn default() -> Self {
        Self::new()
    }
}

impl MemLog {
    /// An empty log, stamping records with the system clock.
    pub fn new() -> Self {
        Self {
            inner: RwLock::default(),
            clock: Arc::new(SystemClock),
            durability: Durability::Flush,
            leases: LeaseTable::new(),
        }
    }

    /// The same log, stamping records with `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn read_lock(&self) -> RwLockReadGuard<'_, Inner> {
        // No code panics while holding the lock, so a poisoned lock's data is whole.
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_lock(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Backend for MemLog {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        _durability: Durability,
    ) -> Result<Seq> {
        check_name(stream)?;
        let at = self.clock.now();
        let mut inner = self.write_lock();
        let actual = inner.streams.get(stream).map_or(0, |s| s.head);
        expect_head(stream, expected, actual)?;
        if events.is_empty() {
            return Ok(actual);
        }
        let entry = inner
            .streams
            .entry(stream.to_owned())
            .or_insert_with(|| Stream {
                head: 0,
                parent: None,
                created_at: at,
                floor: 0,
                events: BTreeMap::new(),
                snapshots: BTreeMap::new(),
            });
        for event in events {
            entry.head += 1;
            entry.events.insert(entry.head, (at, event.clone()));
        }
        Ok(entry.head)
    }

    fn durability(&self) -> Durability {
        self.durability
    }

    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        Ok(Box::new(MemScan {
            log: self,
            stream: stream.to_owned(),
            next: from,
            to,
            buffer: VecDeque::new(),
        }))
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        let taken_at = self.clock.now();
        let mut inner = self.write_lock();
        let entry = inner
            .streams
            .get_mut(stream)
            .ok_or_else(|| StoreError::NoSuchStream(stream.to_owned()))?;
        let snapshot = Snapshot {
            seq,
            taken_at,
            state: state.clone(),
            state_format: STATE_FORMAT,
        };
        entry.snapshots.insert(seq, (STATE_FORMAT, snapshot));
        Ok(())
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        let inner = self.read_lock();
        Ok(inner
            .streams
            .get(stream)
            .and_then(|s| s.snapshots.get(&seq))
            .filter(|(format, _)| *format == STATE_FORMAT)
            .map(|(_, snapshot)| snapshot.clone()))
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        let inner = self.read_lock();
        Ok(inner
            .streams
            .get(stream)
            .map(|s| s.snapshots.keys().copied().collect())
            .unwrap_or_default())
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        let mut inner = self.write_lock();
        if let Some((fork, at)) = inner.streams.iter().find_map(|(name, s)| {
            s.parent
                .as_ref()
                .filter(|p| p.stream == stream && p.at < seq)
                .map(|p| (name.clone(), p.at))
        }) {
            return Err(StoreError::ForkDependsOnEvents {
                stream: stream.to_owned(),
                upto: seq,
                fork,
                at,
            });
        }
        let entry = inner
            .streams
            .get_mut(stream)
            .ok_or_else(|| StoreError::NoSuchStream(stream.to_owned()))?;
        let kept_events = entry.events.split_off(&(seq + 1));
        let dropped = std::mem::replace(&mut entry.events, kept_events).len();
        let kept_snapshots = entry.snapshots.split_off(&seq);
        entry.snapshots = kept_snapshots;
        entry.floor = entry.floor.max(seq);
        Ok(dropped as u64)
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

impl Log for MemLog {
    fn renew_lease(
        &self,
        stream: &str,
        holder: &str,
        origin: &AgentOrigin,
        ttl: Duration,
    ) -> Result<bool> {
        check_name(stream)?;
        self.leases
            .renew(stream, holder, origin, ttl, self.clock.now())?;
        Ok(true)
    }

    fn end_lease(&self, stream: &str, holder: &str) -> Result<()> {
        self.leases.end(stream, holder, self.clock.now());
        Ok(())
    }

    fn leases(&self) -> Result<Option<Leases>> {
        Ok(Some(self.leases.read(self.clock.now())))
    }

    fn leases_on(&self, stream: &str) -> Result<Option<Leases>> {
        Ok(Some(self.leases.read_on(stream, self.clock.now())))
    }

    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        Ok(self.read_lock().streams.get(stream).map(|s| s.info(stream)))
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        Ok(self
            .read_lock()
            .streams
            .iter()
            .map(|(name, s)| s.info(name))
            .collect())
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        check_name(name)?;
        let created_at = self.clock.now();
        let mut inner = self.write_lock();
        if inner.streams.contains_key(name) {
            return Err(StoreError::StreamExists(name.to_owned()));
        }
        let source = inner
            .streams
            .get(parent)
            .ok_or_else(|| StoreError::NoSuchStream(parent.to_owned()))?;
        check_fork_point(parent, at, source.head, source.floor)?;
        let stream = Stream {
            head: at,
            parent: Some(ForkPoint {
                stream: parent.to_owned(),
                at,
            }),
            created_at,
            floor: 0,
            events: BTreeMap::new(),
            snapshots: BTreeMap::new(),
        };
        let info = stream.info(name);
        inner.streams.insert(name.to_owned(), stream);
        Ok(info)
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }
}

/// `Ok` when a fork point `at` is within the parent (whose head is `head`) and
/// not before its compaction floor `floor`.
///
/// # Errors
///
/// [`StoreError::OutOfRange`] past the head; [`StoreError::Compacted`] before the
/// floor.
pub fn check_fork_point(parent: &str, at: Seq, head: Seq, floor: Seq) -> Result<()> {
    if at > head {
        return Err(StoreError::OutOfRange {
            stream: parent.to_owned(),
            seq: at,
            head,
        });
    }
    if at < floor {
        return Err(StoreError::Compacted {
            stream: parent.to_owned(),
            floor,
        });
    }
    Ok(())
}

/// Reads a stream's own events a chunk at a time.
struct MemScan<'a> {
    log: &'a MemLog,
    stream: String,
    next: Seq,
    to: Seq,
    buffer: VecDeque<Recorded>,
}

impl Iterator for MemScan<'_> {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buffer.is_empty() && self.next <= self.to {
            let inner = self.log.read_lock();
            if let Some(stream) = inner.streams.get(&self.stream) {
                self.buffer
                    .extend(stream.events.range(self.next..=self.to).take(CHUNK).map(
                        |(seq, (at, event))| Recorded {
                            seq: *seq,
                            at: *at,
                            event: event.clone(),
                            decided: true,
                        },
                    ));
            }
            self.next = self.buffer.back().map_or(self.to + 1, |r| r.seq + 1);
        }
        self.buffer.pop_front().map(Ok)
    }
}
