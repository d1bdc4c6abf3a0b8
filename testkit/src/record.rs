//! Filling a log with recorded events, for tests and benchmarks.
//!
//! A host never writes an event: it hands a `Session` an `Input`, and the
//! session appends what the engine decided. A test or a benchmark that needs a
//! log already holding events (a fixture, a million events to replay, another
//! process's answer) writes them here, through the backends' own append
//! ([`Backend::append`](askuser_store::backend::Backend::append)), the storage
//! call the conformance suite uses too.

use askuser_core::Event;
use askuser_store::{Log, Result, Seq};

/// Appends `events` to `stream` of `log` as they are, at the head `expected`
/// (0 for a new stream), with the log's own durability; returns the new head.
///
/// ```
/// use askuser_store::{Log, MemLog};
/// use askuser_testkit::build::{requested, db_form};
///
/// let log = MemLog::new();
/// let head = askuser_testkit::record(&log, "s", 0, &[requested("c1", db_form())]).unwrap();
/// assert_eq!(head, 1);
/// assert_eq!(log.info("s").unwrap().head, 1);
/// ```
///
/// # Errors
///
/// As the log's append: a conflict when the head is not `expected`, a storage
/// error.
pub fn record<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    expected: Seq,
    events: &[Event],
) -> Result<Seq> {
    log.append(stream, expected, events)
}
