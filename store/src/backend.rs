//! For log backends: the storage primitives each [`Log`](crate::Log) implements
//! beside the trait's own required methods, appending among them
//! ([`Backend::append_with`]: only the store's [`Session`](crate::Session), a
//! backend's own code and the conformance suite append; a host writes through a
//! session). [`Log`](crate::Log)'s provided methods (reading
//! through forks, waiting, snapshots) and the functions over any log (replay,
//! compaction, transcripts) are built on them.
//!
//! A backend (`askuser-sled`, `askuser-postgres`, or another) implements
//! [`Backend`] and [`Log`](crate::Log), stores what [`crate::codec`] and [`crate::block`]
//! encode, and passes the conformance suite of `askuser-testkit`. The helpers here
//! are the checks every backend makes the same way.

use std::sync::Arc;

use askuser_core::{Event, State};

pub use crate::error::expect_head;
pub use crate::log::poll_changed;
pub use crate::memory::check_fork_point;

use crate::error::Result;
use crate::types::{Clock, Durability, Recorded, Seq, Snapshot};

/// An iterator over stored records, boxed so that the log traits stay usable as
/// `dyn Log`.
pub type RecordIter<'a> = Box<dyn Iterator<Item = Result<Recorded>> + Send + 'a>;

/// Hands each of `records` to `visit`, stopping at the first `Err` it returns:
/// [`Backend::visit_own`] over an iterator of records, for a backend that
/// overrides it and reads some ranges through one.
///
/// # Errors
///
/// The first error `visit` returns.
pub fn visit_each(
    records: impl IntoIterator<Item = Result<Recorded>>,
    visit: &mut dyn FnMut(Result<&Recorded>) -> Result<()>,
) -> Result<()> {
    for record in records {
        match record {
            Ok(recorded) => visit(Ok(&recorded))?,
            Err(error) => visit(Err(error))?,
        }
    }
    Ok(())
}

/// The storage primitives of a log, which [`Log`](crate::Log) builds on.
pub trait Backend {
    /// Appends `events` to `stream` as they are, undecided: a host never calls it
    /// (it records through a [`Session`](crate::Session), which appends only what
    /// the engine decided, one input at a time or as one batch,
    /// [`Session::handle_batch`](crate::Session::handle_batch)); it is the
    /// storage call a backend implements, and what copies recorded events (a
    /// salvage, the conformance suite) use.
    ///
    /// `stream`'s head must be `expected` (optimistic
    /// concurrency): otherwise nothing is written and the result is
    /// [`StoreError::Conflict`](crate::StoreError::Conflict) carrying the expected
    /// and actual heads. The check and the write are one atomic step, and the
    /// append is all or nothing. Returns the new head. Appending to a stream that
    /// does not exist (with `expected` 0) creates it. `durability` says when the
    /// call returns (see [`Durability`]).
    ///
    /// # Errors
    ///
    /// [`StoreError::Conflict`](crate::StoreError::Conflict) when the head is not
    /// `expected` (nothing is written);
    /// [`StoreError::InvalidStreamName`](crate::StoreError::InvalidStreamName); a
    /// storage, encoding or corruption error.
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq>;

    /// The durability [`Backend::append`] uses (chosen when the log was opened),
    /// and a [`Session`](crate::Session) starts with.
    fn durability(&self) -> Durability;

    /// [`Backend::append_with`] with the log's own [`Backend::durability`].
    ///
    /// # Errors
    ///
    /// As [`Backend::append_with`].
    fn append(&self, stream: &str, expected: Seq, events: &[Event]) -> Result<Seq> {
        self.append_with(stream, expected, events, self.durability())
    }

    /// The events stored in `stream` itself with sequence numbers in `from..=to`, in
    /// order. The caller has checked the range against the stream's metadata; a
    /// missing record is reported by the caller, a record that does not decode is
    /// yielded as an error and the scan goes on.
    ///
    /// **What a record must carry**: every event in `from..=to` exactly once, in
    /// order, none outside the bounds; its own sequence number; the time the
    /// append that wrote it was recorded ([`Clock`] of the log); the event as it
    /// was appended; and `decided: true` for every event written by
    /// [`Backend::append_with`] (only a store of the first format, which recorded
    /// inputs undecided, yields `false`). A record marked undecided is decided
    /// again as it is replayed: a refused answer then loses its error and its
    /// prompt. The conformance suite's `a_refused_answer_replays_the_same`,
    /// `records_read_back_marked_decided` and `ranges_read_exactly_their_bounds`
    /// check it.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>>;

    /// [`Backend::scan_own`], each record handed to `visit` as it is read rather
    /// than yielded: what a replay reads with ([`Log::visit_range`](crate::Log::visit_range)).
    /// Stops at the first `Err` `visit` returns, and returns it. The default
    /// reads [`Backend::scan_own`]; a backend that decodes records in batches
    /// overrides it to hand them over where they are decoded (the sled log: a
    /// cold replay of a million events spent a tenth of its time moving records
    /// through an iterator's layers).
    ///
    /// # Errors
    ///
    /// As [`Backend::scan_own`], and the first error `visit` returns.
    fn visit_own(
        &self,
        stream: &str,
        from: Seq,
        to: Seq,
        visit: &mut dyn FnMut(Result<&Recorded>) -> Result<()>,
    ) -> Result<()> {
        visit_each(self.scan_own(stream, from, to)?, visit)
    }

    /// Stores a snapshot of `stream` at `seq` (replacing one already there).
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()>;

    /// The snapshot of `stream` at `seq`; `None` if there is none or it holds a state
    /// format this build does not read.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>>;

    /// The sequence numbers of `stream`'s own snapshots, ascending.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>>;

    /// Drops `stream`'s own events up to `seq` and its snapshots before `seq`, and
    /// records `seq` as the stream's floor. The caller has taken the snapshot at
    /// `seq`; the backend checks forks atomically with the change.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64>;

    /// The clock the log stamps records with.
    fn clock(&self) -> &Arc<dyn Clock>;

    /// Rewrites `stream`'s events stored a few at a time as full blocks (see
    /// [`crate::compact::repack`]); a log that stores no small values does nothing.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn repack(&self, _stream: &str) -> Result<crate::Repacked> {
        Ok(crate::Repacked::default())
    }

    /// The output lines the first format recorded beside event `seq` of `stream`
    /// (its JSON-lines server's sidecar), if there are any.
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`](crate::StoreError::Corrupt) for a damaged record.
    fn legacy_outputs(&self, _stream: &str, _seq: Seq) -> Result<Option<Vec<serde_json::Value>>> {
        Ok(None)
    }
}
