//! # askuser-store: the event log
//!
//! Every input the askuser engine takes is an [`Event`](askuser_core::Event) appended
//! to a stream of an append-only log. The log is the truth; any state is a replay of
//! it through the core reducer. This crate keeps that log behind the [`Log`] trait,
//! with [`MemLog`] in memory, for embedders and tests; the durable logs are crates
//! of their own, passing the same test suite: `askuser-sled` (`SledLog`, on sled,
//! the embedded default, and `SharedSledLog`, one sled database shared by many
//! processes at once) and `askuser-postgres` (`PgLog`, a PostgreSQL database every
//! host of a team shares). `askuser_app::open_log` opens a durable log from a
//! `--db` value. A new backend implements [`Log`] with [`backend::Backend`] and
//! stores what [`codec`] and [`block`] encode.
//!
//! A host writes through a [`Session`], the one road: it decides each input
//! (what it means is the engine's to say), appends what was decided at the head it
//! expects, and applies it. The log itself is for reading, forking and compacting.
//! A stream is named by a [`StreamName`], checked once where a person or a host
//! handed it in; the [`Log`] methods take `&str` and every backend checks it again
//! (a caller may be another process).
//!
//! What a session hands its host can be recorded and checked against the log
//! later, in any process: [`replay::Recording`] keeps the commands of each
//! append (their JSON is stable: see [`Command`](askuser_core::Command)), and
//! [`replay::verify`] re-derives them from the log alone and reports each append
//! that differs.
//!
//! ```
//! use std::sync::Arc;
//! use askuser_core::{AnswerInput, Command, InquiryId, Input, Origin, Policy, Refusal, Request, parse_form};
//! use askuser_store::{Log, MemLog, Session, SessionError};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A log in memory (`askuser_sled::SledLog::open(path)` for one on disk).
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! let mut session = Session::open(Arc::clone(&log), "session")?;
//!
//! // Ask a form, then answer what each prompt shows.
//! let form = parse_form(&json!({"questions": [
//!     {"id": "db", "text": "Which database should we use?", "answer_type": "select",
//!      "options": ["PostgreSQL", "SQLite"]},
//!     {"id": "migrate", "text": "Migrate the data now?", "answer_type": "boolean"},
//! ]}))?;
//! let id = InquiryId::new("call-1");
//! let asked = session.handle(&Input::Ask(Request {
//!     inquiry: id.clone(),
//!     form: form.form().clone(),
//!     policy: Policy::default(),
//!     origin: Origin::default(),
//!     call: None,
//! }))?;
//! let Command::Prompt(db) = &asked.commands[0] else { unreachable!() };
//! let answered = session.handle(&AnswerInput::new(db.at(), json!("PostgreSQL")).into())?;
//! let Command::Prompt(migrate) = &answered.commands[0] else { unreachable!() };
//!
//! // Another surface, still showing the first question, answers it again: refused,
//! // with what is current now; nothing is recorded.
//! let mut other = Session::open(Arc::clone(&log), "session")?;
//! let stale = other.handle(&AnswerInput::new(db.at(), json!("SQLite")).into());
//! assert!(matches!(stale, Err(SessionError::Refused(Refusal::Stale { .. }))));
//!
//! let done = session.handle(&AnswerInput::new(migrate.at(), json!(false)).into())?;
//! assert!(matches!(done.commands[0], Command::Respond { .. }));
//!
//! // Replay: the reducer's state at the head, and here the inquiry is complete.
//! let replayed = askuser_store::replay::load(&*log, "session")?;
//! assert_eq!(replayed.seq, done.seq);
//! assert!(replayed.state.finished(&id).is_some());
//!
//! // Branch at an earlier question: the fork shares the first event (by reference),
//! // is asked "db" again, and answers it differently.
//! log.fork("session", 1, "what-if")?;
//! let mut what_if = Session::open(Arc::clone(&log), "what-if")?;
//! let again = what_if.state().at(&id).expect("the fork asks db again");
//! let answered = what_if.handle(&AnswerInput::new(again, json!("SQLite")).into())?;
//! let Command::Prompt(migrate) = &answered.commands[0] else { unreachable!() };
//! what_if.handle(&AnswerInput::new(migrate.at(), json!(true)).into())?;
//! let text = askuser_store::transcript(&*log, "what-if")?;
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
//! use askuser_core::{AnswerInput, Command, Event, Input, InquiryId};
//! use askuser_dialects::Dialect;
//! use askuser_store::{Log, MemLog, Session, replay};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
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
//!
//! // 1. Open the stream and hand it the request (recorded with the raw call).
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! let mut session = Session::open(log.clone(), "chat-42")?;
//! let handled = session.handle(&Input::Ask(call.recorded_request(id.clone(), &arguments)))?;
//! let Command::Prompt(prompt) = &handled.commands[0] else { panic!() };
//! // An answer names what it answers: the question as shown.
//! session.handle(&AnswerInput::new(prompt.at(), json!("SQLite")).into())?;
//!
//! // 2. The host restarts: reopening replays the stream, and it carries on.
//! drop(session);
//! let mut session = Session::open(log.clone(), "chat-42")?;
//! let Some(Command::Prompt(prompt)) = session.state().pending(&id) else { panic!() };
//! let handled = session.handle(&AnswerInput::new(prompt.at(), json!("No")).into())?;
//! assert!(matches!(handled.commands[..], [Command::Respond { .. }]));
//!
//! // 3. The dialect's tool result, rendered from the log alone.
//! let (_, commands) = replay::replay_commands(&*log, "chat-42", Default::default())?;
//! let request = log.read("chat-42", 1)?.next().unwrap()?.event;
//! let Event::Requested(request) = request else { panic!() };
//! let (_, last) = commands.last().unwrap();
//! let result = askuser_dialects::render_recorded(request.call.as_ref(), &last[0]);
//! assert_eq!(result, Some(askuser_dialects::ToolResult::Success(json!({"answers": {
//!     "Which database should we use?": "SQLite", "Migrate the data now?": "No"}}))));
//! # Ok(())
//! # }
//! ```
//!
//! ## What the log offers
//!
//! [`Log`] is storage only, and a host holding one writes through a [`Session`]:
//! - **Append with optimistic concurrency** (the backend's
//!   [`Backend::append_with`](backend::Backend::append_with), which a session
//!   makes): it takes the head the caller expects; a different head is
//!   [`StoreError::Conflict`], and the check and the write are one atomic step.
//!   [`Durability`] says when an append returns.
//! - **Streaming reads**: [`Log::read`] and [`Log::read_range`] yield [`Recorded`]
//!   events (sequence number, timestamp, event) one at a time, through forks.
//! - **Streams and forks**: [`Log::streams`] lists them with their heads and parents;
//!   [`Log::fork`] branches a stream after event N by reference.
//! - **Snapshots**: [`Log::snapshots`] lists a stream's own.
//! - **Presence**: [`Log::renew_lease`], [`Log::end_lease`] and [`Log::leases`]
//!   keep who waits on which stream, beside the events (see [`presence`]; a
//!   [`PresenceGuard`] holds a lease while a process waits, and records in the
//!   stream when it starts and stops).
//!
//! Functions over any log, each in one place:
//! - [`replay`]: [`replay::load`] (latest snapshot, then the tail),
//!   [`replay::load_at`], [`replay::replay_with`] (every event with the commands it
//!   yields, in constant memory), [`replay::replay_commands`].
//! - [`compact`]: [`compact::snapshot`] saves the state; [`compact::compact`] can
//!   also drop the events it covers (never while a fork still reads them);
//!   [`compact::repack`] rewrites events stored a few at a time (as `serve` appends
//!   them) as full blocks, so they replay at block speed.
//! - [`transcript()`] tells a stream as sentences; [`export::json_lines`] writes it
//!   as JSON lines.
//!
//! ## A finished inquiry's result, after compaction
//!
//! The state keeps what each of the last
//! [`FINISHED_REMEMBERED`](askuser_core::FINISHED_REMEMBERED) inquiries to finish
//! sent ([`State::result`](askuser_core::State::result),
//! [`State::outcome`](askuser_core::State::outcome)), and a snapshot keeps the
//! state: so a host shows or sends a result again from the state alone, even
//! once compaction dropped the events that made it.
//!
//! ```
//! use std::sync::Arc;
//! use askuser_core::{AnswerInput, Command, InquiryId, Input, Request, parse_form};
//! use askuser_store::{Log, MemLog, Session, compact};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! let mut session = Session::open(Arc::clone(&log), "chat-42")?;
//! let form = parse_form(&json!({"questions": [
//!     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))?;
//! let id = InquiryId::new("call-1");
//! let asked = session.handle(&Input::Ask(Request {
//!     inquiry: id.clone(), form: form.form().clone(),
//!     policy: Default::default(), origin: Default::default(), call: None,
//! }))?;
//! let Command::Prompt(prompt) = &asked.commands[0] else { unreachable!() };
//! session.handle(&AnswerInput::new(prompt.at(), json!(true)).into())?;
//!
//! // Snapshot the stream and drop every event it covers.
//! let compaction = compact::compact(&*log, "chat-42", true)?;
//! assert_eq!(compaction.dropped, 2);
//!
//! // A new session starts from the snapshot, and the result is still there.
//! let reopened = Session::open(Arc::clone(&log), "chat-42")?;
//! let Some(Command::Respond { outcome, .. }) = reopened.state().result(&id) else {
//!     panic!("the result is kept")
//! };
//! assert_eq!(outcome.to_json(), json!({"ok": true}));
//! # Ok(())
//! # }
//! ```
//!
//! ## One log for a team
//!
//! The sled log lives in one directory on one machine. When a team's agents run on
//! many machines, every host points at one PostgreSQL database instead: see
//! `askuser-postgres`.
//!
//! ## Records on disk
//!
//! Every value is inside an envelope `[format version: u8][crc32: u32 BE][payload]`;
//! the CRC-32 covers the record's key, the version and the payload ([`codec`]).
//! Events are stored in blocks (format 3, [`block`]): the events of one append
//! together, up to 16 KiB (256 events) per value, keyed by the block's first
//! sequence number, `MessagePack` with named fields, a form stored once per block,
//! LZ4-compressed. Logs of formats 1 and 2 (one value per event) are still read.
//! Every durable backend stores these same values. A torn, flipped or misplaced
//! value is reported as [`StoreError::Corrupt`] for each event it held, naming the
//! stream, the sequence number and the range of the damaged block, never a panic
//! and never a silently different event, and the rest of the log stays readable.
//! A snapshot also carries the state format ([`STATE_FORMAT`]); one of a format
//! this build does not read is skipped and the replay starts from an older one or
//! the start. One of format 1 (before finished inquiries kept what they sent)
//! still reads, and is used only where the events it stands for were dropped.

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

pub mod backend;
pub mod block;
pub mod codec;
pub mod compact;
mod error;
pub mod export;
mod log;
mod memory;
pub mod presence;
pub mod replay;
mod session;
pub mod stories;
mod stream_name;
mod transcript;
mod types;
mod verify;
pub mod words;

pub use codec::{MAX_STREAM_NAME, STATE_FORMAT};
pub use error::{RecordKind, Result, StoreError};
pub use log::{CHANGE_POLL, Events, Log, Version, WAIT_POLL};
pub use memory::MemLog;
pub use presence::{Lease, Leases, Presence, PresenceGuard};
pub use session::{Caught, Handled, Session, SessionError};
pub use stream_name::{IntoStreamName, StreamName, StreamNameError};
pub use transcript::transcript;
pub use types::{
    Clock, Durability, ForkPoint, ManualClock, Recorded, Repacked, Seq, Snapshot, StreamInfo,
    SystemClock, Timestamp,
};
