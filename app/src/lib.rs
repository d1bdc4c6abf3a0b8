//! # askuser-app: the application layer every surface uses
//!
//! Every surface (the terminal, the JSON-lines server, the MCP server, the web
//! inbox, `askuser answer`) hands what a person or a host did to this crate, which
//! gives it to the engine through the store's [`Session`](askuser_store::Session):
//! one road, one meaning.
//!
//! - [`Desk`]: the one application object per log and the only unit of work: a
//!   session per stream (never handed out), the tool calls of their inquiries
//!   keyed by stream *and* inquiry (an id such as `call-1` recurs in every
//!   stream). Everything enters as an [`askuser_core::Input`]:
//!   [`Desk::request`] asks ([`askuser_core::Input::Ask`]), [`Desk::input`]
//!   acts (an answer names what it answers); both return an [`Outcome`] (taken
//!   or refused, what changed elsewhere first, what is shown now, how the
//!   inquiry ended). [`Desk::catch_up`] is the one catch-up, for what other
//!   processes recorded; [`Desk::open`] opens a log by its location (a sled
//!   directory or a `postgres://` URL).
//! - [`Happened`]: what another surface did, as data made once by the desk (the
//!   one narrator); each surface styles it.
//! - [`pending`]: the two-pass workflow for when no one is at a terminal: the
//!   questions written to a file with what was shown, answered later from the file
//!   or a list, refused when the file no longer matches the log, recorded in one
//!   atomic append.
//! - Naming: [`fork_name`] (a stream's name itself is an
//!   [`askuser_store::StreamName`], the one rule); [`question_deadline`], the one deadline of a question every
//!   surface counts down to; [`files`], files read with a cap, never through a
//!   link.
//! - [`ReadSide`] ([`Desk::view`], [`Desk::read`]): each stream's status,
//!   each inquiry's outcome, the waiting list with the engine's deadline, kept
//!   current from what the sessions apply, never by replaying a stream per request.
//! - Who waits, as data ([`Desk::waiting`], [`Desk::standing`],
//!   [`Desk::unheard`]): each inquiry waiting for a person with its
//!   [`Timing`], and whether its agent still waits ([`Liveness`], worded once
//!   by [`Liveness::words`]), so no surface reads leases or works out timing
//!   for itself.
//! - [`web_inbox`]: whether a web inbox runs on the log, and its link (without
//!   its token), from the presence lease it holds while it serves.
//! - [`watch`]: subscriptions, one [`watch::Watcher`] per opened log waking every
//!   surface whose stream changed or whose agent stopped (its lease lapsed),
//!   woken by the log itself, never by polling it.
//!
//! ```
//! use askuser_app::{Desk, Taken};
//! use askuser_core::{AnswerInput, Command, InquiryId, Input, Refusal};
//! use askuser_dialects::Dialect;
//! use serde_json::json;
//!
//! let mut desk = Desk::memory();
//! let arguments = json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]});
//! let call = Dialect::JpForm.parse(&arguments).unwrap();
//! let asked = desk.request("chat", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
//! let Some(Command::Prompt(first)) = &asked.showing else { panic!() };
//!
//! // Two surfaces show the first question; one answers it.
//! let yes = Input::from(AnswerInput::new(first.at(), json!(true)));
//! assert!(matches!(desk.input("chat", &yes).unwrap().taken, Taken::Recorded { .. }));
//! // The other, still showing it, is refused with what is current now.
//! let again = desk.input("chat", &yes).unwrap();
//! let Some(Refusal::Stale { current, .. }) = again.refusal() else { panic!() };
//! assert_eq!(current.question.as_deref(), Some("env"));
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod attend;
mod deadline;
mod error;
pub mod files;
mod inbox;
mod journal;
mod json;
pub mod location;
pub mod log;
mod naming;
pub mod origin;
pub mod pending;
mod read;
pub mod secret;
mod streams;
pub mod watch;
pub mod web_inbox;

/// What another surface did, as data (the one narrator's facts): the core's
/// type, made by the [`Desk`] for every event it catches up on.
pub use askuser_core::Happened;
pub use askuser_store::stories::{Ended, Entry, Moment, Step, Story, answers_sent};
pub use attend::HeldPresence;
pub use deadline::question_deadline;
pub use error::{AppError, Result};
pub use inbox::{Asking, Liveness, Standing, Timing, Unheard, UnheardOf, ago_words};
pub use journal::{Desk, Followed, Outcome, Taken, parse_recorded};
pub use json::from_str_unique;
pub use location::{is_postgres_url, open_log};
pub use naming::{fork_name, new_stream_name};
pub use read::{Ending, OpenInquiry, ReadSide, Showing, StreamStatus, StreamView, Waiting};
pub use streams::{AgentDay, HeadWaiter, History};
