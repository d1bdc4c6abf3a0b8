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
//!     call: None,
//! });
//! let answer = |question: &str, value| Event::Answered {
//!     inquiry: id.clone(),
//!     question: question.into(),
//!     value,
//!     by: AnsweredBy::User,
//!     remember: false,
//!     note: None,
//! };
//! let head = log.append("session", 0, &[requested, answer("db", json!("PostgreSQL"))])?;
//! assert_eq!(head, 2);
//! let head = log.append("session", head, &[answer("migrate", json!(false))])?;
//!
//! // Another writer that still thinks the head is 2 gets a conflict, and writes nothing.
//! assert!(log.append("session", 2, &[answer("migrate", json!(true))]).is_err());
//!
//! // Replay: the reducer's state at the head, and here the inquiry is complete.
//! let replayed = askuser_store::replay::load(&log, "session")?;
//! assert_eq!(replayed.seq, head);
//! assert!(replayed.state.finished(&id).is_some());
//!
//! // Branch at an earlier question: the fork shares the first event (by reference),
//! // is asked "db" again, and answers it differently.
//! log.fork("session", 1, "what-if")?;
//! log.append("what-if", 1, &[answer("db", json!("SQLite")), answer("migrate", json!(true))])?;
//! let text = askuser_store::transcript(&log, "what-if")?;
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
//! ## The one road: [`Session`]
//!
//! Every host (the JSON-lines server, the terminal, the MCP server, a program
//! embedding askuser) drives a stream through a [`Session`]: it decides each input
//! with the core, appends what was decided at the head it expects, applies it, and
//! returns the commands. Nothing else writes events. After a restart, opening the
//! session replays the stream and the host carries on; the tool result of any
//! finished inquiry can be rendered from the log alone, because each request records
//! the raw tool call ([`askuser_core::ToolCall`]).
//!
//! ```
//! use std::sync::Arc;
//! use askuser_core::{Command, Event, InquiryId};
//! use askuser_llm::Dialect;
//! use askuser_store::{Log, Session, SledLog, replay};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("askuser.db");
//! // A Claude Code AskUserQuestion call, as the model wrote it.
//! let arguments = json!({"questions": [
//!     {"question": "Which database should we use?", "header": "Database",
//!      "options": [{"label": "PostgreSQL", "description": "shared"},
//!                  {"label": "SQLite", "description": "embedded"}], "multiSelect": false},
//!     {"question": "Migrate the data now?", "header": "Migrate",
//!      "options": [{"label": "Yes", "description": "now"},
//!                  {"label": "No", "description": "later"}], "multiSelect": false}]});
//! let call = Dialect::Claude.parse(&arguments)?;
//! let id = InquiryId::new("toolu_01");
//! let answer = |question: &str, value| Event::Answered {
//!     inquiry: id.clone(), question: question.into(), value,
//!     by: Default::default(), remember: false, note: None,
//! };
//!
//! // 1. Open the stream and hand it the request (recorded with the raw call).
//! let log: Arc<dyn Log> = Arc::new(SledLog::open(&path)?);
//! let mut session = Session::open(log.clone(), "chat-42")?;
//! let handled = session.handle(&Event::Requested(call.recorded_request(id.clone(), &arguments)))?;
//! let Command::Prompt(prompt) = &handled.commands[0] else { panic!() };
//! let first = prompt.question().id.clone();
//! session.handle(&answer(&first, json!("SQLite")))?;
//!
//! // 2. The host restarts: reopening replays the stream, and it carries on.
//! drop((session, log));
//! let log: Arc<dyn Log> = Arc::new(SledLog::open(&path)?);
//! let mut session = Session::open(log.clone(), "chat-42")?;
//! let Some(Command::Prompt(prompt)) = session.state().pending(&id) else { panic!() };
//! let handled = session.handle(&answer(&prompt.question().id.clone(), json!("No")))?;
//! assert!(matches!(handled.commands[..], [Command::Respond { .. }]));
//!
//! // 3. The dialect's tool result, rendered from the log alone.
//! let (_, commands) = replay::replay_commands(&*log, "chat-42", Default::default())?;
//! let request = log.read("chat-42", 1)?.next().unwrap()?.event;
//! let Event::Requested(request) = request else { panic!() };
//! let (_, last) = commands.last().unwrap();
//! let result = askuser_llm::render_recorded(request.call.as_ref(), &last[0]);
//! assert_eq!(result, Some(askuser_llm::ToolResult::Success(json!({"answers": {
//!     "Which database should we use?": "SQLite", "Migrate the data now?": "No"}}))));
//! # Ok(())
//! # }
//! ```
//!
//! ## What the log offers
//!
//! [`Log`] is storage only:
//! - **Append with optimistic concurrency**: [`Log::append`] takes the head the caller
//!   expects; a different head is [`StoreError::Conflict`], and the check and the
//!   write are one atomic step. [`Durability`] says when an append returns.
//! - **Streaming reads**: [`Log::read`] and [`Log::read_range`] yield [`Recorded`]
//!   events (sequence number, timestamp, event) one at a time, through forks.
//! - **Streams and forks**: [`Log::streams`] lists them with their heads and parents;
//!   [`Log::fork`] branches a stream after event N by reference.
//! - **Snapshots**: [`Log::snapshots`] lists a stream's own.
//!
//! Functions over any log, each in one place:
//! - [`replay`]: [`replay::load`] (latest snapshot, then the tail),
//!   [`replay::load_at`], [`replay::replay_with`] (every event with the commands it
//!   yields, in constant memory), [`replay::replay_commands`].
//! - [`compact`]: [`compact::snapshot`] saves the state; [`compact::compact`] can
//!   also drop the events it covers (never while a fork still reads them).
//! - [`transcript()`] tells a stream as sentences; [`export::json_lines`] writes it
//!   as JSON lines.
//!
//! ## Records on disk
//!
//! Every value is inside an envelope `[format version: u8][crc32: u32 BE][payload]`;
//! the CRC-32 covers the record's key, the version and the payload. Events are
//! stored in blocks (format 3): the events of one append together, up to 16 KiB
//! (256 events) per sled value, keyed by the block's first sequence number,
//! `MessagePack` with named fields, a form stored once per block, LZ4-compressed.
//! Logs of formats 1 and 2 (one value per event) are still read. A torn, flipped or
//! misplaced value is reported as [`StoreError::Corrupt`] for each event it held,
//! naming the stream, the sequence number and the range of the damaged block, never
//! a panic and never a silently different event, and the rest of the log stays
//! readable. A snapshot also carries the state format ([`STATE_FORMAT`]); one of
//! another format is skipped and the replay starts from an older one or the start.
//!
//! The binary `askuser-store-crashtest` is test support: the crash test runs it as a
//! child process and kills it (see `tests/crash.rs`).

mod backend;
mod block;
mod codec;
pub mod compact;
mod error;
pub mod export;
mod log;
mod memory;
pub mod replay;
mod session;
mod sled_log;
mod sled_scan;
#[doc(hidden)]
pub mod testing;
mod transcript;
mod types;

pub use codec::{MAX_STREAM_NAME, STATE_FORMAT};
#[doc(hidden)]
pub use codec::{decode_event_record, decode_event_value, encode_event_record};
pub use error::{RecordKind, Result, StoreError};
pub use log::{Events, Log};
pub use memory::MemLog;
pub use session::{Caught, Handled, Session, SessionError};
pub use sled_log::{DEFAULT_CACHE_CAPACITY, SledLog};
pub use transcript::transcript;
pub use types::{
    Clock, Durability, ForkPoint, ManualClock, Recorded, Seq, Snapshot, StreamInfo, SystemClock,
    Timestamp,
};
