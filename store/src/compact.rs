//! Snapshots and compaction: functions over any [`Log`].

use crate::Repacked;
use crate::error::{Result, StoreError};
use crate::log::Log;
use crate::replay::load_at;
use crate::types::Seq;

/// What [`compact`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// The sequence number of the snapshot taken.
    pub snapshot: Seq,
    /// How many events were dropped (0 unless asked to drop).
    pub dropped: u64,
}

/// Saves the state of `stream` at its head as a snapshot; returns its sequence
/// number. (An empty stream has nothing to snapshot: `OutOfRange`.)
///
/// # Errors
///
/// [`StoreError::OutOfRange`] for an empty stream; as [`snapshot_at`].
pub fn snapshot<L: Log + ?Sized>(log: &L, stream: &str) -> Result<Seq> {
    let head = log.info(stream)?.head;
    snapshot_at(log, stream, head)
}

/// Saves the state of `stream` after event `seq` as a snapshot.
///
/// # Errors
///
/// [`StoreError::OutOfRange`] if `seq` is 0 or past the head; as
/// [`load_at`]; a storage error.
pub fn snapshot_at<L: Log + ?Sized>(log: &L, stream: &str, seq: Seq) -> Result<Seq> {
    let info = log.info(stream)?;
    if seq == 0 || seq > info.head {
        return Err(StoreError::OutOfRange {
            stream: info.name,
            seq,
            head: info.head,
        });
    }
    let replayed = load_at(log, stream, seq)?;
    log.put_snapshot(stream, seq, &replayed.state)?;
    Ok(seq)
}

/// Compacts `stream`: snapshots its state at the head and, if `drop_events`, drops
/// the events the snapshot covers (and its older snapshots). Dropping is refused
/// with [`StoreError::ForkDependsOnEvents`] while a fork branches off the stream
/// before the head. After a drop, reading the dropped range is
/// [`StoreError::Compacted`]; loads and replays start from the snapshot.
///
/// # Errors
///
/// As [`snapshot`]; [`StoreError::ForkDependsOnEvents`] when dropping is refused
/// (the snapshot is kept).
pub fn compact<L: Log + ?Sized>(log: &L, stream: &str, drop_events: bool) -> Result<Compaction> {
    let snapshot = snapshot(log, stream)?;
    let dropped = if drop_events {
        log.drop_through(stream, snapshot)?
    } else {
        0
    };
    Ok(Compaction { snapshot, dropped })
}

/// Repacks `stream`: its events stored a few at a time (each step of `serve`,
/// `ask` and `answer` appends one) are rewritten as full blocks, so that a replay
/// reads them at the speed of events appended together. The events, their
/// sequence numbers and times do not change; each run of small values is
/// replaced in one atomic write, so a crash leaves it as it was or repacked. On
/// sled (directly or through its owner); PostgreSQL and memory logs have
/// nothing to repack.
///
/// # Errors
///
/// [`StoreError::NoSuchStream`]; [`StoreError::ReadOnly`]; a storage error.
pub fn repack<L: Log + ?Sized>(log: &L, stream: &str) -> Result<Repacked> {
    // Every log refuses a stream it does not have, whether or not it stores
    // anything to repack.
    log.info(stream)?;
    log.repack(stream)
}
