//! # askuser-rpc: the engine for hosts in any language, and its record
//!
//! - [`Server`]: the engine over JSON lines on stdin/stdout (`askuser serve`). A
//!   host sends `ask`, `answer`, `back`, `reply`, `end_turn` and `timed_out`
//!   messages; the server answers with `prompt`, `invalid`, `result`, `failed`,
//!   `turn_ended`, `rejected` and `error` lines. A `prompt` or `review` line
//!   carries the inquiry's `step`; an answer, Back, Reply or submit that names it
//!   is taken only while the inquiry still shows that, else refused with a `stale`
//!   error saying what it shows now (another surface on the shared log moved it
//!   first). A restarted server's `ready` lists the open inquiries and sends each
//!   one's prompt again; before them, the `result` of each inquiry that finished
//!   while no server of the stream was there to hand it over
//!   (`"finished_while_away"`), given once. The full protocol, with an example
//!   session, is in `docs/protocol.md`.
//! - The server holds the application layer's [`Desk`] (the one unit of work;
//!   re-exported here) and renders what it returns as the protocol's lines:
//!   every input is decided, appended (flushed) and applied **before** any line is
//!   written, so whatever a host has seen is durable ([`Desk::defer_flush`]
//!   lets a server record a group of waiting inputs and flush the log once, before
//!   any of their lines is written).
//! - [`replay()`]: re-derives every line of a recorded stream from its events alone
//!   (and, for a log of the first format, compares them with the lines recorded
//!   beside the events).
//!
//! Errors are the application layer's ([`askuser_app::AppError`]); the
//! pending-file workflow is [`askuser_app::pending`].
//!
//! ```
//! use askuser_rpc::{Desk, Server};
//!
//! let input = br#"{"type":"ask","inquiry":"c1","dialect":"jp","arguments":{"question":"Deploy now?","answer_type":"boolean"}}
//! {"type":"answer","inquiry":"c1","question":"answer","value":"yes"}
//! not json
//! "#;
//! let mut output = Vec::new();
//! let mut server = Server::new(Desk::memory(), "session-1").unwrap();
//! server.serve(&input[..], &mut output).unwrap();
//!
//! let lines: Vec<&str> = std::str::from_utf8(&output).unwrap().lines().collect();
//! assert_eq!(lines[0], r#"{"type":"ready","stream":"session-1","protocol":1,"open":[]}"#);
//! assert!(lines[1].starts_with(r#"{"type":"prompt","inquiry":"c1","question":{"id":"answer","text":"Deploy now?""#));
//! assert_eq!(lines[2], r#"{"type":"result","inquiry":"c1","result":{"answer_type":"boolean","answer":true},"cancelled":false}"#);
//! assert_eq!(lines[3], r#"{"type":"error","message":"the line is not JSON (expected ident at line 1 column 2); send one JSON object per line"}"#);
//!
//! // Every accepted message was recorded, and the result handed over; the replay
//! // re-derives the same lines.
//! let report = askuser_rpc::replay(&**server.desk().log(), "session-1").unwrap();
//! assert!(report.matches());
//! assert_eq!(report.events.len(), 3);
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod input;
mod lines;
mod output;
mod replay;
mod server;
mod watch;

pub use askuser_app::Desk;
pub use input::MAX_LINE_BYTES;
#[doc(hidden)]
pub use input::{Ask, INPUT_TYPES, Input, parse_input};
pub use replay::{ReplayReport, ReplayedEvent, describe_event, replay};
#[doc(hidden)]
pub use server::fuzz_read_lines;
pub use server::{PROTOCOL_VERSION, Server};
