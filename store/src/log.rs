//! The [`Log`] trait: append, read, fork, snapshot, replay, compact, transcript,
//! export.

use std::io::Write;

use askuser_core::{Command, Event, State};

use crate::backend::{Backend, RecordIter};
use crate::error::{RecordKind, Result, StoreError};
use crate::transcript::Transcriber;
use crate::types::{Durability, Recorded, Seq, Snapshot, StreamInfo};

/// How to replay a stream: up to where, and whether snapshots may be used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Replay up to and including this event (default: the head).
    pub to: Option<Seq>,
    /// Start from the first event, ignoring snapshots (default: start from the latest
    /// usable snapshot). Needed to see every command from the beginning.
    pub from_start: bool,
}

impl ReplayOptions {
    /// From the latest snapshot to the head (the default).
    pub fn latest() -> Self {
        Self::default()
    }

    /// From the first event to the head, ignoring snapshots.
    pub fn from_start() -> Self {
        Self {
            to: None,
            from_start: true,
        }
    }

    /// Stops after event `seq` instead of at the head.
    #[must_use]
    pub fn to(mut self, seq: Seq) -> Self {
        self.to = Some(seq);
        self
    }
}

/// The commands a replay yielded, with the sequence number of the event that
/// yielded each list.
pub type CommandsBySeq = Vec<(Seq, Vec<Command>)>;

/// The result of a replay: the reducer state after event `seq`.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The state.
    pub state: State,
    /// The last event it includes (0: none).
    pub seq: Seq,
    /// The snapshot the replay started from, if any.
    pub snapshot: Option<Seq>,
    /// How many events were applied on top of the snapshot (or of the empty state).
    pub applied: u64,
}

/// What [`Log::compact`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// The sequence number of the snapshot taken.
    pub snapshot: Seq,
    /// How many events were dropped (0 unless asked to drop).
    pub dropped: u64,
}

/// An append-only log of engine events, kept in named streams.
///
/// Every input the engine takes is an [`Event`] appended to a stream; the stream is
/// the truth, and a state is a replay of it through the core reducer. Streams are
/// numbered from 1; a stream's *head* is its last sequence number (0 when empty). A
/// stream is created by its first append (with `expected` 0) or by
/// [`Log::fork`].
///
/// Two implementations pass the same test suite: [`MemLog`](crate::MemLog), in
/// memory, for embedders and tests, and [`SledLog`](crate::SledLog), durable, on
/// sled. The trait is object safe (`Box<dyn Log>` works) and sealed: those two are
/// its implementations.
pub trait Log: Backend + Send + Sync {
    /// Appends `events` to `stream`, whose head must be `expected` (optimistic
    /// concurrency): otherwise nothing is written and the result is
    /// [`StoreError::Conflict`] carrying the expected and actual heads. The check and
    /// the write are one atomic step, and the append is all or nothing. Returns the
    /// new head. Appending to a stream that does not exist (with `expected` 0)
    /// creates it. `durability` says when the call returns (see [`Durability`]).
    ///
    /// # Errors
    ///
    /// [`StoreError::Conflict`] when the head is not `expected` (nothing is written);
    /// [`StoreError::InvalidStreamName`]; a storage, encoding or corruption error.
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq>;

    /// The durability [`Log::append`] uses (chosen when the log was opened).
    fn durability(&self) -> Durability;

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

    /// Writes out everything buffered (see [`Durability::Buffered`]).
    ///
    /// # Errors
    ///
    /// A storage error.
    fn flush(&self) -> Result<()>;

    /// [`Log::append_with`] with the log's own [`Log::durability`].
    ///
    /// # Errors
    ///
    /// As [`Log::append_with`].
    fn append(&self, stream: &str, expected: Seq, events: &[Event]) -> Result<Seq> {
        self.append_with(stream, expected, events, self.durability())
    }

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
        let from = from.max(1);
        let mut parts = Vec::new();
        let mut name = stream.to_owned();
        let mut high = to;
        let mut first = true;
        while from <= high {
            let info = self.info(&name)?;
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

    /// The latest usable snapshot for `stream` at or before event `at`: the stream's
    /// own, or an ancestor's up to the branch point. Snapshots of a state format this
    /// build does not read are passed over.
    ///
    /// # Errors
    ///
    /// [`StoreError::NoSuchStream`]; [`StoreError::Corrupt`] for a damaged snapshot; a
    /// storage error.
    fn latest_snapshot(&self, stream: &str, at: Seq) -> Result<Option<Snapshot>> {
        let mut candidates = Vec::new();
        let mut name = stream.to_owned();
        let mut high = at;
        loop {
            let info = self.info(&name)?;
            for seq in self.snapshot_seqs(&name)? {
                if seq <= high {
                    candidates.push((seq, name.clone()));
                }
            }
            match info.parent {
                Some(parent) if high > 0 => {
                    high = high.min(parent.at);
                    name = parent.stream;
                }
                _ => break,
            }
        }
        candidates.sort_by_key(|candidate| std::cmp::Reverse(candidate.0));
        for (seq, name) in candidates {
            if let Some(snapshot) = self.get_snapshot(&name, seq)? {
                return Ok(Some(snapshot));
            }
        }
        Ok(None)
    }

    /// Replays `stream` through the core reducer (see [`ReplayOptions`]), calling
    /// `each` with every event applied and the commands it yielded. Memory does not
    /// grow with the stream's length: events are read one at a time and the command
    /// buffer is reused.
    ///
    /// # Errors
    ///
    /// [`StoreError::NoSuchStream`]; [`StoreError::OutOfRange`] if `options.to` is past
    /// the head; [`StoreError::Compacted`] if events it needs were dropped;
    /// [`StoreError::Corrupt`] at the first damaged record; a storage error.
    fn replay_with(
        &self,
        stream: &str,
        options: ReplayOptions,
        each: &mut dyn FnMut(&Recorded, &[Command]),
    ) -> Result<Replayed> {
        let info = self.info(stream)?;
        let to = options.to.unwrap_or(info.head);
        if to > info.head {
            return Err(StoreError::OutOfRange {
                stream: info.name,
                seq: to,
                head: info.head,
            });
        }
        let start = if options.from_start {
            None
        } else {
            self.latest_snapshot(stream, to)?
        };
        fold(self, stream, start, to, each)
    }

    /// The state of `stream` at its head: the latest snapshot, then the tail.
    ///
    /// # Errors
    ///
    /// As [`Log::replay_with`].
    fn load(&self, stream: &str) -> Result<Replayed> {
        self.replay_with(stream, ReplayOptions::latest(), &mut |_, _| {})
    }

    /// The state of `stream` after event `at` (from the latest snapshot before it).
    ///
    /// # Errors
    ///
    /// As [`Log::replay_with`].
    fn load_at(&self, stream: &str, at: Seq) -> Result<Replayed> {
        self.replay_with(stream, ReplayOptions::latest().to(at), &mut |_, _| {})
    }

    /// Replays `stream` per `options`, returning the state without the commands.
    ///
    /// # Errors
    ///
    /// As [`Log::replay_with`].
    fn replay(&self, stream: &str, options: ReplayOptions) -> Result<Replayed> {
        self.replay_with(stream, options, &mut |_, _| {})
    }

    /// Replays `stream` per `options`, collecting the commands each event yielded,
    /// by sequence number. (This list grows with the stream; for a long stream,
    /// [`Log::replay_with`] streams them.)
    ///
    /// # Errors
    ///
    /// As [`Log::replay_with`].
    fn replay_commands(
        &self,
        stream: &str,
        options: ReplayOptions,
    ) -> Result<(Replayed, CommandsBySeq)> {
        let mut all = Vec::new();
        let replayed = self.replay_with(stream, options, &mut |recorded, commands| {
            all.push((recorded.seq, commands.to_vec()));
        })?;
        Ok((replayed, all))
    }

    /// Saves the state of `stream` at its head as a snapshot; returns its sequence
    /// number. (An empty stream has nothing to snapshot: `OutOfRange`.)
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfRange`] for an empty stream; as [`Log::snapshot_at`].
    fn snapshot(&self, stream: &str) -> Result<Seq> {
        let head = self.info(stream)?.head;
        self.snapshot_at(stream, head)
    }

    /// Saves the state of `stream` after event `seq` as a snapshot.
    ///
    /// # Errors
    ///
    /// [`StoreError::OutOfRange`] if `seq` is 0 or past the head; as [`Log::load_at`];
    /// a storage error.
    fn snapshot_at(&self, stream: &str, seq: Seq) -> Result<Seq> {
        let info = self.info(stream)?;
        if seq == 0 || seq > info.head {
            return Err(StoreError::OutOfRange {
                stream: info.name,
                seq,
                head: info.head,
            });
        }
        let replayed = self.load_at(stream, seq)?;
        self.put_snapshot(stream, seq, &replayed.state)?;
        Ok(seq)
    }

    /// Compacts `stream`: snapshots its state at the head and, if `drop_events`,
    /// drops the events the snapshot covers (and its older snapshots). Dropping is
    /// refused with [`StoreError::ForkDependsOnEvents`] while a fork branches off the
    /// stream before the head. After a drop, reading the dropped range is
    /// [`StoreError::Compacted`]; loads and replays start from the snapshot.
    ///
    /// # Errors
    ///
    /// As [`Log::snapshot`]; [`StoreError::ForkDependsOnEvents`] when dropping is
    /// refused (the snapshot is kept).
    fn compact(&self, stream: &str, drop_events: bool) -> Result<Compaction> {
        let snapshot = self.snapshot(stream)?;
        let dropped = if drop_events {
            self.drop_through(stream, snapshot)?
        } else {
            0
        };
        Ok(Compaction { snapshot, dropped })
    }

    /// A readable summary of what was asked and answered in `stream`, one sentence
    /// per line (`Asked "Which database?"; the answer was PostgreSQL.`): the text an
    /// agent puts into a compacted conversation. Events dropped by compaction are
    /// summarized by a note.
    ///
    /// # Errors
    ///
    /// As [`Log::replay_with`].
    fn transcript(&self, stream: &str) -> Result<String> {
        let info = self.info(stream)?;
        let mut start: Option<Snapshot> = None;
        loop {
            let mut transcriber = Transcriber::new(start.as_ref());
            let result = fold(self, stream, start.clone(), info.head, &mut |r, c| {
                transcriber.observe(r, c);
            });
            match result {
                Ok(replayed) => return Ok(transcriber.finish(&replayed.state)),
                Err(StoreError::Compacted { floor, .. })
                    if start.as_ref().is_none_or(|s| s.seq < floor) =>
                {
                    match self.latest_snapshot(stream, floor)? {
                        Some(snapshot) if snapshot.seq >= floor => start = Some(snapshot),
                        _ => {
                            return Err(StoreError::Compacted {
                                stream: stream.to_owned(),
                                floor,
                            });
                        }
                    }
                }
                Err(other) => return Err(other),
            }
        }
    }

    /// Writes the events of `stream` as JSON lines, one event per line:
    /// `{"stream":"s","seq":1,"at":"2025-01-01T00:00:00.000Z","event":{...}}`.
    /// Returns how many lines were written.
    ///
    /// # Errors
    ///
    /// As [`Log::read`]; [`StoreError::Corrupt`] at the first damaged record;
    /// [`StoreError::Io`] if writing fails.
    fn export_json_lines(&self, stream: &str, out: &mut dyn Write) -> Result<u64> {
        let info = self.info(stream)?;
        let mut count = 0;
        for recorded in self.read(stream, info.floor + 1)? {
            let recorded = recorded?;
            let line = serde_json::json!({
                "stream": stream,
                "seq": recorded.seq,
                "at": recorded.at.to_string(),
                "event": recorded.event,
            });
            serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
            count += 1;
        }
        Ok(count)
    }
}

/// Folds the events `start.seq+1..=to` of `stream` onto `start` (or the empty state).
fn fold<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    start: Option<Snapshot>,
    to: Seq,
    each: &mut dyn FnMut(&Recorded, &[Command]),
) -> Result<Replayed> {
    let (mut state, from, snapshot) = match start {
        Some(snapshot) => (snapshot.state, snapshot.seq, Some(snapshot.seq)),
        None => (State::default(), 0, None),
    };
    let mut commands = Vec::new();
    let mut applied = 0;
    let mut seq = from;
    if from < to {
        for recorded in log.read_range(stream, from + 1, to)? {
            let recorded = recorded?;
            commands.clear();
            state.apply(&recorded.event, &mut commands);
            each(&recorded, &commands);
            seq = recorded.seq;
            applied += 1;
        }
    }
    Ok(Replayed {
        state,
        seq,
        snapshot,
        applied,
    })
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
                    return Some(Err(StoreError::Corrupt {
                        kind: RecordKind::Event,
                        stream: segment.stream.clone(),
                        seq: recorded.seq,
                        detail: format!("read out of order (expected sequence {})", segment.next),
                    }));
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
