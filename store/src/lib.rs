//! # askuser-store: the event log
//!
//! Every input the askuser engine takes is an [`Event`](askuser_core::Event) appended
//! to a stream of an append-only log. The log is the truth; any state is a replay of
//! it through the core reducer. This crate keeps that log behind the [`Log`] trait,
//! with two implementations that pass one test suite: [`MemLog`] in memory, for
//! embedders, and [`SledLog`], durable, on [sled](https://docs.rs/sled/0.34).
//!
//! ```
//! use askuser_core::{AnsweredBy, Event, InquiryId, Origin, Policy, Request, parse_form};
//! use askuser_store::{Durability, Log, SledLog};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("askuser.db");
//! // Open (or create) a durable log; appends return after sled's flush.
//! let log = SledLog::open(&path)?.with_durability(Durability::Flush);
//!
//! // Append a request and its first answer. `expected` is the head we last saw.
//! let form = parse_form(&json!({"questions": [
//!     {"id": "db", "text": "Which database should we use?", "answer_type": "select",
//!      "options": ["PostgreSQL", "SQLite"]},
//!     {"id": "migrate", "text": "Migrate the data now?", "answer_type": "boolean"},
//! ]}))?;
//! let id = InquiryId::new("call-1");
//! let requested = Event::Requested(Request {
//!     inquiry: id.clone(),
//!     form: form.form().clone(),
//!     policy: Policy::default(),
//!     origin: Origin::default(),
//! });
//! let answer = |question: &str, value| Event::Answered {
//!     inquiry: id.clone(),
//!     question: question.into(),
//!     value,
//!     by: AnsweredBy::User,
//!     remember: false,
//! };
//! let head = log.append("session", 0, &[requested, answer("db", json!("PostgreSQL"))])?;
//! assert_eq!(head, 2);
//! let head = log.append("session", head, &[answer("migrate", json!(false))])?;
//!
//! // Another writer that still thinks the head is 2 gets a conflict, and writes nothing.
//! assert!(log.append("session", 2, &[answer("migrate", json!(true))]).is_err());
//!
//! // Replay: the reducer's state at the head, and here the inquiry is complete.
//! let replayed = log.load("session")?;
//! assert_eq!(replayed.seq, head);
//! assert!(replayed.state.finished("call-1").is_some());
//!
//! // Branch at an earlier question: the fork shares the first event (by reference),
//! // is asked "db" again, and answers it differently.
//! log.fork("session", 1, "what-if")?;
//! log.append("what-if", 1, &[answer("db", json!("SQLite")), answer("migrate", json!(true))])?;
//! let text = log.transcript("what-if")?;
//! assert!(text.contains("Asked \"Which database should we use?\"; the answer was SQLite."));
//!
//! // Read events with their sequence numbers and timestamps, as a streaming iterator.
//! for recorded in log.read("what-if", 1)? {
//!     let recorded = recorded?;
//!     println!("{} {} {:?}", recorded.seq, recorded.at, recorded.event.inquiry());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## What the log offers
//!
//! - **Append with optimistic concurrency**: [`Log::append`] takes the head the caller
//!   expects; a different head is [`StoreError::Conflict`], and the check and the
//!   write are one atomic step. [`Durability`] says when an append returns.
//! - **Streaming reads**: [`Log::read`] yields [`Recorded`] events (sequence number,
//!   timestamp, event) one at a time.
//! - **Streams and forks**: [`Log::streams`] lists them with their heads and parents;
//!   [`Log::fork`] branches a stream after event N by reference.
//! - **Replay**: [`Log::load`] (latest snapshot, then the tail), [`Log::load_at`],
//!   [`Log::replay_with`] (every event with the commands it yields, in constant
//!   memory), [`Log::replay_commands`].
//! - **Compaction**: [`Log::snapshot`] saves the reducer state; [`Log::compact`] can
//!   also drop the events it covers (never while a fork still reads them).
//! - **Transcripts and export**: [`Log::transcript`] tells a stream as sentences;
//!   [`Log::export_json_lines`] writes it as JSON lines.
//!
//! ## Records on disk
//!
//! Values are `MessagePack` with named fields (`rmp_serde`'s named encoding), inside an
//! envelope `[format version: u8][crc32: u32 BE][payload]`; the CRC-32 covers the
//! record's key, the version and the payload. A torn, flipped or misplaced record is
//! reported as [`StoreError::Corrupt`] naming its stream and sequence number, never a
//! panic and never a silently different event, and the rest of the log stays
//! readable. A snapshot also carries the state format ([`STATE_FORMAT`]); one of
//! another format is skipped and the replay starts from an older one or the start.
//!
//! The binary `askuser-store-crashtest` is test support: the crash test runs it as a
//! child process and kills it (see `tests/crash.rs`).

mod backend;
mod codec;
mod error;
mod log;
mod memory;
mod sled_log;
mod sled_scan;
pub mod testing;
mod transcript;
mod types;

pub use codec::{MAX_STREAM_NAME, STATE_FORMAT, decode_event_record, encode_event_record};
pub use error::{RecordKind, Result, StoreError};
pub use log::{CommandsBySeq, Compaction, Events, Log, ReplayOptions, Replayed};
pub use memory::MemLog;
pub use sled_log::{DEFAULT_CACHE_CAPACITY, SledLog};
pub use types::{
    Clock, Durability, ForkPoint, ManualClock, Recorded, Seq, Snapshot, StreamInfo, SystemClock,
    Timestamp,
};
