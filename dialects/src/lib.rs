//! # askuser-dialects: the LLM boundary
//!
//! A model reaches askuser through a tool call, and agents' ask-user tools differ.
//! This crate speaks eight of them ([`Dialect`]): it reads a call's arguments into a
//! validated core form (or a [`Rejection`] listing every problem, with the text to
//! send back to the model), renders the engine's outcome as that dialect's tool
//! result, publishes each dialect's tool [`definition()`] in the Anthropic, `OpenAI` and
//! MCP shapes. (What a person picked or typed in a UI is read into an answer by
//! the core's [`ui_answer`](askuser_core::ui_answer), so every surface treats
//! "Other" the same way.)
//!
//! ```
//! use askuser_core::{reduce, AnswerInput, Command, InquiryId, Input, State};
//! use askuser_dialects::{Dialect, ToolResult};
//! use serde_json::json;
//!
//! // Claude Code's AskUserQuestion call.
//! let dialect = Dialect::from_name("claude").expect("a known dialect");
//! let call = dialect.parse(&json!({"questions": [{
//!     "question": "Which features?", "header": "Features", "multiSelect": true,
//!     "options": [{"label": "Auth"}, {"label": "API"}, {"label": "Admin"}],
//! }]})).expect("a valid call");
//!
//! // Walk it through the engine; the person picks two options.
//! let mut state = State::new();
//! let id = InquiryId::new("toolu_01");
//! let commands = reduce(&mut state, &Input::Ask(call.request(id))).unwrap();
//! let Command::Prompt(prompt) = &commands[0] else { panic!("expected a prompt") };
//! // The answer names what it answers: question "q1" as shown.
//! let answer = AnswerInput::new(prompt.at(), json!(["Admin", "Auth"]));
//! let commands = reduce(&mut state, &answer.into()).unwrap();
//!
//! // The tool result, in the dialect's shape.
//! assert_eq!(
//!     call.tool_result(&commands[0]),
//!     Some(ToolResult::Success(json!({"answers": {"Which features?": "Auth, Admin"}})))
//! );
//!
//! // A malformed call is rejected with every problem and what to change.
//! let rejection = dialect
//!     .parse(&json!({"questions": [{"question": "Which?", "header": 7,
//!                                   "options": []}]}))
//!     .unwrap_err();
//! assert_eq!(rejection.tool_error_text(), "\
//! AskUserQuestion: the call was not run. Fix these 2 problems and call the tool again:
//! - /questions/0/header: must be a string, not a number
//! - /questions/0/options: has 0 options; AskUserQuestion takes 1 to 4: add options");
//! ```
//!
//! The pieces:
//! - [`Dialect`]: `jp`, `jp-form`, `claude`, `pi`, `opencode`, `codex`, `gemini`;
//!   [`Dialect::parse`] gives a [`Call`]; [`Dialect::detect`] picks the dialect from
//!   a call's shape ([`DetectError`] when it cannot).
//! - [`Call`]: the form, [`Call::request`] for the engine, [`Call::render`] and
//!   [`Call::tool_result`] for the model.
//! - [`Rejection`]: what was wrong with a call, each [`Problem`](askuser_core::Problem) with its field.
//! - [`definition()`], [`Provider`]: tool definitions.

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod call;
pub mod definition;
pub mod dialect;
mod read;
mod rejection;
mod schemas;
mod strict;

pub use call::{Call, ToolResult, rejection_text, render_recorded};
pub use definition::{Provider, definition};
pub use dialect::{DetectError, Dialect};
pub use rejection::{MAX_LINE_CHARS, MAX_LISTED_ERRORS, Rejection};
