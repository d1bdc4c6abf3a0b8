//! Replay: a stream folded through the core's apply step, from the latest usable
//! snapshot or from the start. Functions over any [`Log`].
//!
//! Replay only applies: every event recorded in today's format carries its verdict,
//! so no form is validated and no schema consulted again. Events recorded in the
//! first format (before verdicts were recorded) are decided once more as they are
//! read, which is how that format was always replayed.

use askuser_core::{Command, State};

pub use crate::verify::{Check, Recording, Sent, Verification, verify, verify_with};

use crate::error::{Result, StoreError};
use crate::log::Log;
use crate::types::{Recorded, Seq, Snapshot};

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

/// The latest usable snapshot for `stream` at or before event `at`: the stream's
/// own, or an ancestor's up to the branch point. Snapshots of a state format this
/// build does not read are passed over. A snapshot of an older format that still
/// reads (format 1 lacks what finished inquiries sent) is used only where the
/// events it stands for were dropped; while they are kept, the replay reads them
/// instead, so the state it gives is the whole state.
///
/// # Errors
///
/// [`StoreError::NoSuchStream`]; [`StoreError::Corrupt`] for a damaged snapshot; a
/// storage error.
pub fn latest_snapshot<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    at: Seq,
) -> Result<Option<Snapshot>> {
    // (snapshot seq, stream it belongs to, that stream's compaction floor)
    let mut candidates = Vec::new();
    let mut name = stream.to_owned();
    let mut high = at;
    loop {
        let info = log.info(&name)?;
        for seq in log.snapshots(&name)? {
            if seq <= high {
                candidates.push((seq, name.clone(), info.floor));
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
    let mut older = None;
    for (seq, name, floor) in candidates {
        if older.is_some() && seq < floor {
            break; // what is below the floor cannot be replayed from here
        }
        if let Some(snapshot) = log.get_snapshot(&name, seq)? {
            if snapshot.state_format == crate::STATE_FORMAT {
                return Ok(Some(snapshot));
            }
            if floor > 0 && older.is_none() {
                older = Some(snapshot);
            }
        }
    }
    Ok(older)
}

/// Replays `stream` (see [`ReplayOptions`]), calling `each` with every event applied
/// and the commands it yielded. Memory does not grow with the stream's length:
/// events are read one at a time and the command buffer is reused.
///
/// # Errors
///
/// [`StoreError::NoSuchStream`]; [`StoreError::OutOfRange`] if `options.to` is past
/// the head; [`StoreError::Compacted`] if events it needs were dropped;
/// [`StoreError::Corrupt`] at the first damaged record; a storage error.
pub fn replay_with<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    options: ReplayOptions,
    each: &mut dyn FnMut(&Recorded, &[Command]),
) -> Result<Replayed> {
    let (start, to) = bounds(log, stream, options)?;
    fold(log, stream, start, to, each)
}

/// The head `options` replay to (checked against the head), and the snapshot they
/// start from.
fn bounds<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    options: ReplayOptions,
) -> Result<(Option<Snapshot>, Seq)> {
    let info = log.info(stream)?;
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
        latest_snapshot(log, stream, to)?
    };
    Ok((start, to))
}

/// Replays `stream` per `options` for its state alone: the state [`replay_with`]
/// reaches, without building the commands nobody reads
/// ([`State::replay_at`](askuser_core::State::replay_at)).
fn replay_state<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    options: ReplayOptions,
) -> Result<Replayed> {
    let (start, to) = bounds(log, stream, options)?;
    let mut first_format = Vec::new();
    fold_with(log, stream, start, to, &mut |state, recorded| {
        replay_recorded(state, recorded, &mut first_format);
    })
}

/// The state of `stream` at its head: the latest snapshot, then the tail.
///
/// # Errors
///
/// As [`replay_with`].
pub fn load<L: Log + ?Sized>(log: &L, stream: &str) -> Result<Replayed> {
    replay_state(log, stream, ReplayOptions::latest())
}

/// The state of `stream` after event `at` (from the latest snapshot before it).
///
/// # Errors
///
/// As [`replay_with`].
pub fn load_at<L: Log + ?Sized>(log: &L, stream: &str, at: Seq) -> Result<Replayed> {
    replay_state(log, stream, ReplayOptions::latest().to(at))
}

/// Replays `stream` per `options`, collecting the commands each event yielded, by
/// sequence number. (This list grows with the stream; for a long stream,
/// [`replay_with`] streams them.)
///
/// # Errors
///
/// As [`replay_with`].
pub fn replay_commands<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    options: ReplayOptions,
) -> Result<(Replayed, CommandsBySeq)> {
    let mut all = Vec::new();
    let replayed = replay_with(log, stream, options, &mut |recorded, commands| {
        all.push((recorded.seq, commands.to_vec()));
    })?;
    Ok((replayed, all))
}

/// Applies one recorded event to `state`, appending its commands to `out`: apply
/// alone for today's format, decide then apply for the first format's events.
/// Either way at the time the log recorded it ([`Recorded::at`]), from which an
/// inquiry with a timeout counts its deadline
/// ([`State::deadline`](askuser_core::State::deadline)).
pub fn apply_recorded(state: &mut State, recorded: &Recorded, out: &mut Vec<Command>) {
    let at = recorded.at.millis();
    if recorded.decided {
        state.apply_at(&recorded.event, at, out);
    } else {
        // The first format recorded inputs, and its reducer ignored those that did
        // not fit: a refused one yields nothing here either.
        state.apply_first_format_at(&recorded.event, at, out);
    }
}

/// [`apply_recorded`] for the state alone, as [`replay`] and [`load`] apply:
/// the same state, without the prompts nobody reads
/// ([`State::replay_at`](askuser_core::State::replay_at)). `scratch` holds the
/// commands of a first-format event, which is decided again as it is applied;
/// reuse it.
pub fn replay_recorded(state: &mut State, recorded: &Recorded, scratch: &mut Vec<Command>) {
    if recorded.decided {
        state.replay_at(&recorded.event, recorded.at.millis());
    } else {
        scratch.clear();
        apply_recorded(state, recorded, scratch);
    }
}

/// Folds the events `start.seq+1..=to` of `stream` onto `start` (or the empty state).
pub(crate) fn fold<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    start: Option<Snapshot>,
    to: Seq,
    each: &mut dyn FnMut(&Recorded, &[Command]),
) -> Result<Replayed> {
    let mut commands = Vec::new();
    fold_with(log, stream, start, to, &mut |state, recorded| {
        commands.clear();
        apply_recorded(state, recorded, &mut commands);
        each(recorded, &commands);
    })
}

/// Folds the events `start.seq+1..=to` of `stream` onto `start` (or the empty
/// state) with `apply`, reading them where the log decodes them
/// ([`Log::visit_range`]); stops at the first damaged or missing record.
fn fold_with<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    start: Option<Snapshot>,
    to: Seq,
    apply: &mut dyn FnMut(&mut State, &Recorded),
) -> Result<Replayed> {
    let (mut state, from, snapshot) = match start {
        Some(snapshot) => (snapshot.state, snapshot.seq, Some(snapshot.seq)),
        None => (State::default(), 0, None),
    };
    let mut applied = 0;
    let mut seq = from;
    if from < to {
        log.visit_range(stream, from + 1, to, &mut |recorded| {
            apply(&mut state, recorded);
            seq = recorded.seq;
            applied += 1;
            Ok(())
        })?;
    }
    Ok(Replayed {
        state,
        seq,
        snapshot,
        applied,
    })
}

/// The output lines the first format's JSON-lines server recorded beside event
/// `seq` of `stream`, if the log has them: what `askuser log replay` compares its
/// re-derived lines with, for a log written in that format.
///
/// # Errors
///
/// A storage error, or [`StoreError::Corrupt`] if the recorded lines do not decode.
pub fn legacy_outputs<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    seq: Seq,
) -> Result<Option<Vec<serde_json::Value>>> {
    log.legacy_outputs(stream, seq)
}

/// Replays `stream` per `options`, returning the state without the commands.
///
/// # Errors
///
/// As [`replay_with`].
pub fn replay<L: Log + ?Sized>(log: &L, stream: &str, options: ReplayOptions) -> Result<Replayed> {
    replay_state(log, stream, options)
}
