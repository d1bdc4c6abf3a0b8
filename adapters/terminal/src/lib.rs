//! # askuser-terminal: the engine's prompts in a terminal
//!
//! The core engine says *what* to ask ([`Command::Prompt`](askuser_core::Command));
//! this crate asks it in the terminal with [inquire] and reports what the person
//! did as an [`Action`]: an answer, Back, Reply, or End Turn (Ctrl+C is End Turn).
//!
//! - [`Prompter`] is the seam: [`InquirePrompter`] is the real terminal,
//!   [`ScriptedPrompter`] replays a list of actions (for tests).
//! - [`run_inquiry`] drives one inquiry: prompt → action → event → commands, until
//!   it finishes with a [`Finish`] (respond, fail, end the turn, reject, or hand a
//!   question to the assistant).
//! - [`render`] and [`menu`] are the pure parts, tested exactly: the header line,
//!   the context shown above it, the entries and their keys, and turning a pick
//!   into the JSON answer.
//!
//! What the person sees (RFD D30): `[N/M]` before each prompt when the form has
//! more than one question, and the "who's asking" label. Boolean and select
//! questions are one list whose entries carry keys: `y) Yes`, `n) No`, or
//! `1) staging — <description>`, ..., `o) Other (type your answer)`, then
//! `b) Back` (not on the first answered question), `r) Reply`, `s) End Turn`.
//! Text and schema questions first show `[Answer / Back / Reply / End Turn]`; a
//! schema answer is JSON, checked against the schema on Enter. A multi-select's
//! Esc opens `[Keep answering / Back / Reply / End Turn]`.
//!
//! The pure parts:
//!
//! ```
//! use askuser_core::{AnswerType, Choice, Progress, Question};
//! use askuser_terminal::{Action, menu, render};
//! use serde_json::json;
//!
//! assert_eq!(
//!     render::header_line(Some(Progress { n: 2, m: 3 }), Some("Assistant"), None, "Which environment?"),
//!     "[2/3] Assistant asks: Which environment?"
//! );
//!
//! let env = Question::new("env", "Which environment?", AnswerType::Select)
//!     .with_options([Choice::described("staging", "safe to try"), Choice::new("production")])
//!     .with_other(true);
//! let entries = menu::select_entries(&env, true);
//! let lines: Vec<String> = entries.iter().map(ToString::to_string).collect();
//! assert_eq!(lines, [
//!     "1) staging — safe to try", "2) production", "o) Other (type your answer)",
//!     "b) Back", "r) Reply", "s) End Turn",
//! ]);
//!
//! // Typing `2` (then Enter) picks production.
//! let picked = menu::match_key(&entries, "2").unwrap();
//! assert_eq!(
//!     menu::resolve(entries[picked].pick, &env),
//!     menu::Next::Done(Action::Answer(json!("production")))
//! );
//! ```
//!
//! In a real terminal (this needs a TTY, so it is not run here):
//!
//! ```no_run
//! use askuser_core::{Event, InquiryId, Request, State, parse_form, reduce};
//! use askuser_terminal::{Finish, InquirePrompter, TerminalError, run_inquiry};
//! use serde_json::json;
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"}]}))
//!     .expect("a valid form");
//! let mut state = State::new();
//! let first = reduce(&mut state, &Event::Requested(Request {
//!     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
//!     policy: Default::default(), origin: Default::default(), call: None,
//! })).expect("a new inquiry");
//! match run_inquiry(&mut InquirePrompter::new(), first, |e| reduce(&mut state, e)) {
//!     Ok(Finish::Responded { outcome, .. }) => println!("{}", outcome.to_json()),
//!     Ok(Finish::TurnEnded { .. }) => println!("turn ended"),
//!     Ok(other) => println!("{other:?}"),
//!     Err(TerminalError::NotATerminal) => eprintln!("no person can be asked"),
//!     Err(error) => eprintln!("{error}"),
//! }
//! ```

mod action;
mod error;
pub mod menu;
mod prompter;
pub mod render;
mod run;

pub use action::{Action, Asked, Prompter, ScriptedPrompter};
pub use error::TerminalError;
pub use prompter::InquirePrompter;
pub use run::{Finish, run_inquiry};
