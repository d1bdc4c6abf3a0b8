//! The [`Log`] trait: storage only, as a host holds it. Read a range of a stream
//! (through forks) as an iterator, list streams, fork, snapshots, wait for a
//! change. Appending is the backend's ([`Backend::append_with`]): a host writes
//! through a [`Session`](crate::Session), which appends only what the engine
//! decided.
//! Replay, compaction, transcripts and export are functions over any log
//! ([`crate::replay`], [`crate::compact`], [`crate::transcript`], [`crate::export`]).

use std::time::{Duration, Instant};

use askuser_core::AgentOrigin;

use crate::backend::{Backend, RecordIter};
use crate::error::{RecordKind, Result, StoreError};
use crate::presence::Leases;
use crate::types::{Recorded, Seq, StreamInfo};

/// An append-only log of engine events, kept in named streams.
///
/// Every input the engine decides is recorded as [`Event`](askuser_core::Event)s appended to a stream
/// (by a [`Session`](crate::Session)); the stream is the truth, and a state is a
/// replay of it through the core's apply step. Streams are
/// numbered from 1; a stream's *head* is its last sequence number (0 when empty). A
/// stream is created by its first append (with `expected` 0) or by
/// [`Log::fork`].
///
/// The trait has no writer of events: appending is [`Backend::append_with`], the
/// storage call a backend implements, which the store's
/// [`Session`](crate::Session) makes (and what copies recorded events: a salvage,
/// the conformance suite). A test (`tests/tests/event_literals.rs`) fails if a
/// crate outside the store calls it.
///
/// The implementations pass the same test suite (`askuser-testkit`'s):
/// [`MemLog`](crate::MemLog), in memory, for embedders and tests; `SledLog` and
/// `SharedSledLog` (crate `askuser-sled`), durable, on sled, for one process or
/// many; and `PgLog` (crate `askuser-postgres`), in a PostgreSQL database that
/// many hosts share. The trait is object safe (`Box<dyn Log>` works). A new
/// backend implements it with [`Backend`] (see [`crate::backend`]).
pub trait Log: Backend + Send + Sync {
    /// What the log knows about `stream`, or `None` if there is no such stream.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`] if the stream's record is damaged.
    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>>;

    /// Every stream, in name order, with its head and parent.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`] if a stream's record is damaged.
    fn streams(&self) -> Result<Vec<StreamInfo>>;

    /// Creates the stream `name` as a branch of `parent` after its event `at`: the
    /// new stream's first `at` events are the parent's (by reference, not copied),
    /// its head is `at`, and its own events follow from `at + 1`. Replaying it gives
    /// the parent's state at `at`, then its own events. This is how a session
    /// branches at an earlier question.
    ///
    /// # Errors
    ///
    /// [`StoreError::StreamExists`]; [`StoreError::NoSuchStream`] for the parent;
    /// [`StoreError::OutOfRange`] if `at` is past the parent's head;
    /// [`StoreError::Compacted`] if it is before the parent's compaction floor;
    /// [`StoreError::InvalidStreamName`]; a storage error.
    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo>;

    /// Writes out everything buffered (see [`Durability::Buffered`](crate::Durability::Buffered)).
    ///
    /// # Errors
    ///
    /// A storage error.
    fn flush(&self) -> Result<()>;

    /// [`Log::stream`], with a missing stream as [`StoreError::NoSuchStream`].
    ///
    /// # Errors
    ///
    /// [`StoreError::NoSuchStream`], or as [`Log::stream`].
    fn info(&self, stream: &str) -> Result<StreamInfo> {
        self.stream(stream)?
            .ok_or_else(|| StoreError::NoSuchStream(stream.to_owned()))
    }

    /// The events of `stream` from sequence number `from` (1 for all) to the head as
    /// it is now, as a streaming iterator: records are read and decoded one at a
    /// time. A fork's first events come from its parent. A record that fails its
    /// checksum or is missing is yielded as [`StoreError::Corrupt`] and the iterator
    /// goes on with the next one.
    ///
    /// # Errors
    ///
    /// [`StoreError::NoSuchStream`]; [`StoreError::Compacted`] if `from` is at or before
    /// a compaction floor; a storage error. Damaged records are yielded by the iterator.
    fn read(&self, stream: &str, from: Seq) -> Result<Events<'_>> {
        let head = self.info(stream)?.head;
        self.read_range(stream, from, head)
    }

    /// The events of `stream` with sequence numbers in `from..=to`, like
    /// [`Log::read`]. `to` may not be past the head.
    ///
    /// # Errors
    ///
    /// As [`Log::read`], and [`StoreError::OutOfRange`] if `to` is past the head.
    fn read_range(&self, stream: &str, from: Seq, to: Seq) -> Result<Events<'_>> {
        let parts = own_parts(self, stream, from, to)?;
        let mut segments = Vec::with_capacity(parts.len());
        for (name, low, high) in parts {
            let records = self.scan_own(&name, low, high)?;
            segments.push(Segment {
                stream: name,
                next: low,
                to: high,
                records,
                held: None,
            });
        }
        segments.reverse();
        Ok(Events { segments })
    }

    /// The events of `stream` in `from..=to`, as [`Log::read_range`] yields
    /// them, each handed to `visit` where the backend decoded it
    /// ([`Backend::visit_own`]): what a replay reads with. It stops at the first
    /// problem, which it returns: a damaged or missing record (as
    /// [`Log::read_range`] would yield it), or the first error `visit` returns.
    ///
    /// # Errors
    ///
    /// As [`Log::read_range`]; the first damaged or missing record; the first
    /// error `visit` returns.
    fn visit_range(
        &self,
        stream: &str,
        from: Seq,
        to: Seq,
        visit: &mut dyn FnMut(&Recorded) -> Result<()>,
    ) -> Result<()> {
        for (name, low, high) in own_parts(self, stream, from, to)? {
            let mut next = low;
            self.visit_own(&name, low, high, &mut |record| {
                let recorded = record?;
                if recorded.seq != next {
                    return Err(if recorded.seq > next && recorded.seq <= high {
                        missing_error(&name, (next, recorded.seq - 1))
                    } else {
                        out_of_order(&name, recorded.seq, next)
                    });
                }
                next += 1;
                visit(recorded)
            })?;
            if next <= high {
                return Err(missing_error(&name, (next, high)));
            }
        }
        Ok(())
    }

    /// Waits until the head of `stream` is past `seq` (the stream may not exist
    /// yet), or `timeout` passes; returns the head then (0 for no stream), which is
    /// not past `seq` when the time ran out. This is how a process sees an input
    /// recorded by another ([`Session::wait`](crate::Session::wait) catches up
    /// with it).
    ///
    /// A `askuser_sled::SharedSledLog` is woken by the append itself,
    /// whichever process makes it; `PgLog` by PostgreSQL's `LISTEN`/`NOTIFY` (an
    /// append on any machine wakes it within a round trip of its commit); the other
    /// logs look at the head every [`WAIT_POLL`].
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`] if the stream's record is damaged.
    fn wait_past(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let head = self.stream(stream)?.map_or(0, |info| info.head);
            let left = deadline.map_or(WAIT_POLL, |d| d.saturating_duration_since(Instant::now()));
            if head > seq || left.is_zero() {
                return Ok(head);
            }
            std::thread::sleep(left.min(WAIT_POLL));
        }
    }

    /// As [`Log::wait_past`], for a watcher beside a writer of its own process:
    /// returns at once when `stream`'s head is past `seq`, else when another
    /// process appends to it or `timeout` passes (or sooner: the caller looks
    /// at the head it is given), with the head then. What this process appends
    /// meanwhile, through any connection, does not end the wait, so a process
    /// that writes and watches one stream is not woken by its own writes.
    ///
    /// A log may go by the head it read in its last wait rather than read it
    /// again, while it has heard of no other process's append since (`PgLog`
    /// does, for a few seconds, so that a watcher waiting in slices sends the
    /// database nothing while nothing happens): what this process appended
    /// since that read may then not end the wait at once either. A watcher
    /// passes the head it holds, its own appends included.
    ///
    /// A `askuser_sled::SharedSledLog` tells processes apart (its owner knows
    /// each client's process), and `PgLog` its own connections from the others
    /// (a notification names the server process that sent it); the other logs
    /// end it at any append, as [`Log::wait_past`] does.
    ///
    /// # Errors
    ///
    /// As [`Log::wait_past`].
    fn wait_for_others(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        self.wait_past(stream, seq, timeout)
    }

    /// The log's [`Version`] now: a fingerprint of every stream's name, head,
    /// parent and compaction floor, which every append, fork and compaction of any
    /// stream moves.
    ///
    /// # Errors
    ///
    /// As [`Log::streams`].
    fn version(&self) -> Result<Version> {
        Ok(Version::of(&self.streams()?))
    }

    /// Waits until the log's [`Version`] is no longer `since` (an append, fork or
    /// compaction of any stream, by any process), or `timeout` passes; returns the
    /// version then, which is `since` when the time ran out with nothing changed.
    /// This is how a surface that shows many streams (the web inbox) notices a
    /// change anywhere without polling; a `since` that is not the current version
    /// (say [`Version::default`]) returns at once.
    ///
    /// A `askuser_sled::SharedSledLog` is woken by any append, fork or
    /// compaction, whichever process makes it (an owner too old to know the request
    /// is polled instead, every [`CHANGE_POLL`]); `PgLog` by PostgreSQL's
    /// `LISTEN`/`NOTIFY` on the log's channel, for any stream; the other logs look
    /// at the version every [`CHANGE_POLL`].
    ///
    /// # Errors
    ///
    /// As [`Log::streams`].
    fn wait_changed(&self, since: Version, timeout: Duration) -> Result<Version> {
        poll_changed(self, since, timeout)
    }

    /// The sequence numbers of the snapshots `stream` holds itself, ascending (a
    /// fork can also use its ancestors' snapshots up to its branch point).
    ///
    /// # Errors
    ///
    /// [`StoreError::NoSuchStream`], or a storage error.
    fn snapshots(&self, stream: &str) -> Result<Vec<Seq>> {
        self.info(stream)?;
        self.snapshot_seqs(stream)
    }

    /// Takes or renews `holder`'s presence lease on `stream` (see
    /// [`crate::presence`]): it lasts `ttl` after now, on the log's clock, unless
    /// renewed again. Returns whether the log keeps presence; the default keeps
    /// none and returns `false`, and [`Log::leases`] then reports none.
    ///
    /// # Errors
    ///
    /// [`StoreError::BadLease`] for a holder id or origin that does not fit; a
    /// storage error.
    fn renew_lease(
        &self,
        stream: &str,
        holder: &str,
        origin: &AgentOrigin,
        ttl: Duration,
    ) -> Result<bool> {
        let _ = (stream, holder, origin, ttl);
        Ok(false)
    }

    /// Ends `holder`'s lease on `stream` now (a clean stop); nothing if it holds
    /// none. The default does nothing.
    ///
    /// # Errors
    ///
    /// A storage error.
    fn end_lease(&self, stream: &str, holder: &str) -> Result<()> {
        let _ = (stream, holder);
        Ok(())
    }

    /// Every presence lease the log knows (live, ended and expired), with the
    /// log's time now; `None` when it keeps no presence (the default), which a
    /// reader shows as unknown.
    ///
    /// # Errors
    ///
    /// A storage error.
    fn leases(&self) -> Result<Option<Leases>> {
        Ok(None)
    }

    /// The presence leases on `stream` alone (live, ended and expired), with
    /// the log's time now: what [`Log::leases`] holds for that stream, without
    /// reading every other (a log shared by hundreds of waiting processes
    /// answers this with a few leases rather than hundreds). `None` when the
    /// log keeps no presence. The default filters [`Log::leases`].
    ///
    /// # Errors
    ///
    /// A storage error.
    fn leases_on(&self, stream: &str) -> Result<Option<Leases>> {
        Ok(self.leases()?.map(|leases| leases.on(stream)))
    }
}

/// How often [`Log::wait_past`] looks at the head, in a log that is not woken by its
/// storage.
pub const WAIT_POLL: Duration = Duration::from_millis(5);

/// How often [`Log::wait_changed`] looks at the log's version, in a log that is
/// not woken by its storage (each look lists every stream, so less often than
/// [`WAIT_POLL`]).
pub const CHANGE_POLL: Duration = Duration::from_millis(50);

/// [`Log::wait_changed`] by looking at [`Log::version`] every [`CHANGE_POLL`]: for a
/// backend that has no way to be woken by a change (re-exported as
/// [`backend::poll_changed`](crate::backend::poll_changed)).
///
/// # Errors
///
/// As [`Log::version`].
pub fn poll_changed<L: Log + ?Sized>(
    log: &L,
    since: Version,
    timeout: Duration,
) -> Result<Version> {
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let now = log.version()?;
        let left = deadline.map_or(CHANGE_POLL, |d| d.saturating_duration_since(Instant::now()));
        if now != since || left.is_zero() {
            return Ok(now);
        }
        std::thread::sleep(left.min(CHANGE_POLL));
    }
}

/// The version of a whole log (see [`Log::version`]): an opaque fingerprint of
/// every stream's name, head, parent and compaction floor, independent of their
/// order. Two versions are equal when nothing was appended, forked or compacted
/// between them (up to a 64-bit hash's collisions). The fingerprint is the same in
/// every process and build, so a version read through one process may be waited on
/// through another. [`Version::default`] is the version of no log at all, not of
/// an empty one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Version(u64);

impl Version {
    /// The version of a log holding `streams`.
    #[must_use]
    pub fn of(streams: &[StreamInfo]) -> Self {
        // A stable hash of each stream (FNV-1a, then a finalizer that spreads its
        // bits), summed so that the order of the list does not matter; 1 more so
        // that an empty log is not the default.
        let sum = streams.iter().fold(1_u64, |sum, info| {
            let mut hash = Fnv::default();
            hash.write(info.name.as_bytes());
            hash.write(&[0xff]);
            hash.write(&info.head.to_le_bytes());
            hash.write(&info.floor.to_le_bytes());
            if let Some(parent) = &info.parent {
                hash.write(parent.stream.as_bytes());
                hash.write(&[0xff]);
                hash.write(&parent.at.to_le_bytes());
            }
            sum.wrapping_add(mix(hash.0))
        });
        Self(sum)
    }

    /// The version as a number, for a backend that sends it over a wire.
    pub fn to_wire(self) -> u64 {
        self.0
    }

    /// A version sent by [`Version::to_wire`].
    pub fn from_wire(value: u64) -> Self {
        Self(value)
    }
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The finalizer of `SplitMix64`.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The events of a stream, read lazily and in order (see [`Log::read`]).
///
/// Checks that the sequence numbers have no gaps: a record missing from storage is
/// yielded as [`StoreError::Corrupt`] (once per gap) before the iterator goes on.
pub struct Events<'a> {
    /// The parts still to read, the current one last.
    segments: Vec<Segment<'a>>,
}

struct Segment<'a> {
    stream: String,
    next: Seq,
    to: Seq,
    records: RecordIter<'a>,
    held: Option<Recorded>,
}

impl Iterator for Events<'_> {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let segment = self.segments.last_mut()?;
            if segment.next > segment.to {
                self.segments.pop();
                continue;
            }
            let item = match segment.held.take() {
                Some(held) => Some(Ok(held)),
                None => segment.records.next(),
            };
            match item {
                Some(Ok(recorded)) if recorded.seq == segment.next => {
                    segment.next += 1;
                    return Some(Ok(recorded));
                }
                Some(Ok(recorded)) if recorded.seq > segment.next && recorded.seq <= segment.to => {
                    let missing = (segment.next, recorded.seq - 1);
                    segment.next = recorded.seq;
                    segment.held = Some(recorded);
                    return Some(Err(missing_error(&segment.stream, missing)));
                }
                Some(Ok(recorded)) => {
                    // Out of order or out of range: storage returned a record it should
                    // not have. Report it rather than yield a different event.
                    return Some(Err(out_of_order(
                        &segment.stream,
                        recorded.seq,
                        segment.next,
                    )));
                }
                Some(Err(error)) => {
                    if let StoreError::Corrupt { seq, .. } = &error
                        && *seq >= segment.next
                    {
                        segment.next = seq + 1;
                    }
                    return Some(Err(error));
                }
                None => {
                    let missing = (segment.next, segment.to);
                    segment.next = segment.to + 1;
                    return Some(Err(missing_error(&segment.stream, missing)));
                }
            }
        }
    }
}

/// The parts of `from..=to` of `stream` that each stream of its line holds
/// itself (a fork's first events are its parent's), oldest first: `(stream,
/// first, last)`.
fn own_parts<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    from: Seq,
    to: Seq,
) -> Result<Vec<(String, Seq, Seq)>> {
    let from = from.max(1);
    let mut parts = Vec::new();
    let mut name = stream.to_owned();
    let mut high = to;
    let mut first = true;
    while from <= high {
        let info = log.info(&name)?;
        if first && high > info.head {
            return Err(StoreError::OutOfRange {
                stream: name,
                seq: high,
                head: info.head,
            });
        }
        first = false;
        if from <= info.floor {
            return Err(StoreError::Compacted {
                stream: name,
                floor: info.floor,
            });
        }
        let inherited = info.parent.as_ref().map_or(0, |p| p.at);
        let low = from.max(inherited + 1);
        if low <= high {
            parts.push((name.clone(), low, high));
        }
        match info.parent {
            Some(parent) if from <= inherited => {
                name = parent.stream;
                high = inherited;
            }
            _ => break,
        }
    }
    parts.reverse();
    Ok(parts)
}

/// A record storage returned out of order or out of range (`expected`: the
/// sequence number wanted): reported rather than read as a different event.
fn out_of_order(stream: &str, seq: Seq, expected: Seq) -> StoreError {
    StoreError::Corrupt {
        kind: RecordKind::Event,
        stream: stream.to_owned(),
        seq,
        detail: format!("read out of order (expected sequence {expected})"),
    }
}

fn missing_error(stream: &str, (first, last): (Seq, Seq)) -> StoreError {
    let detail = if first == last {
        "the event is missing (the stream's head is past it)".to_owned()
    } else {
        format!("events {first} to {last} are missing (the stream's head is past them)")
    };
    StoreError::Corrupt {
        kind: RecordKind::Event,
        stream: stream.to_owned(),
        seq: first,
        detail,
    }
}
