//! # askuser-app: the application layer every surface uses
//!
//! Every surface (the terminal, the JSON-lines server, the MCP server, the web
//! inbox, `askuser answer`) hands what a person or a host did to this crate, which
//! gives it to the engine through the store's [`Session`](askuser_store::Session):
//! one road, one meaning.
//!
//! - [`Journal`]: the unit of work over many streams of one log: a session per
//!   stream, the tool calls of their inquiries keyed by stream *and* inquiry (an
//!   id such as `call-1` recurs in every stream), [`Journal::input`] for what a
//!   person or host does ([`askuser_core::Input`]: an answer names what it
//!   answers), [`Journal::follow`] for what other processes recorded, and
//!   [`Journal::open`] to open a log by its location (a sled directory or a
//!   `postgres://` URL).
//! - [`pending`]: the two-pass workflow for when no one is at a terminal: the
//!   questions written to a file with what was shown, answered later from the file
//!   or a list, refused when the file no longer matches the log, recorded in one
//!   atomic append.
//! - Naming: [`fork_name`] (a stream's name itself is an
//!   [`askuser_store::StreamName`], the one rule); [`question_deadline`], the one deadline of a question every
//!   surface counts down to; [`files`], files read with a cap, never through a
//!   link.
//! - [`ReadSide`] ([`Journal::refresh`], [`Journal::read`]): each stream's status,
//!   each inquiry's outcome, the waiting list with the engine's deadline, kept
//!   current from what the sessions apply, never by replaying a stream per request.
//! - [`watch`]: subscriptions, one [`watch::Watcher`] per opened log waking every
//!   surface whose stream changed or whose agent stopped (its lease lapsed),
//!   woken by the log itself, never by polling it.
//!
//! ```
//! use askuser_app::{Journal, Step};
//! use askuser_core::{AnswerInput, Command, InquiryId, Input, Refusal};
//! use askuser_dialects::Dialect;
//! use serde_json::json;
//!
//! let mut journal = Journal::memory();
//! let arguments = json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]});
//! let call = Dialect::JpForm.parse(&arguments).unwrap();
//! let asked = journal.request("chat", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
//! let Step::Recorded { commands, .. } = asked else { panic!() };
//! let Command::Prompt(first) = &commands[0] else { panic!() };
//!
//! // Two surfaces show the first question; one answers it.
//! let yes = Input::from(AnswerInput::new(first.at(), json!(true)));
//! assert!(matches!(journal.input("chat", &yes).unwrap(), Step::Recorded { .. }));
//! // The other, still showing it, is refused with what is current now.
//! let Step::Refused(Refusal::Stale { current, .. }) = journal.input("chat", &yes).unwrap() else {
//!     panic!()
//! };
//! assert_eq!(current.question.as_deref(), Some("env"));
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod deadline;
mod error;
pub mod files;
mod journal;
mod json;
pub mod location;
pub mod log;
mod naming;
pub mod origin;
pub mod pending;
mod read;
pub mod secret;
pub mod watch;

pub use deadline::question_deadline;
pub use error::{AppError, Result};
pub use journal::{Followed, Journal, Step, parse_recorded};
pub use json::from_str_unique;
pub use location::{is_postgres_url, open_log};
pub use naming::{claim_new_stream, fork_name, new_stream_name};
pub use read::{Ending, OpenInquiry, ReadSide, Showing, StreamStatus, StreamView, Waiting};
