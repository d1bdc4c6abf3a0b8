//! # askuser-core: the pure inquiry engine
//!
//! An LLM agent's `ask_user` tool call becomes a [`Form`] of typed questions. This
//! crate walks such a form as an event-sourced state machine. What a host or a
//! person does is an [`Input`] (ask a form, answer what was shown, Back, reply,
//! end the turn); the engine **decides** it ([`State::decide`], the one public
//! decision) into the [`Event`]s a log records, and **applying** those events
//! yields [`Command`]s (show this prompt, ask the assistant, respond with this
//! result, end the turn, reject the call). It reads no clock, file, socket,
//! environment variable or random source: adapters pass every fact in, inside
//! the inputs, and act on the commands. Replaying the same events always gives the
//! same states and commands.
//!
//! ```
//! use askuser_core::{AnswerInput, Command, Event, Input, InquiryId, Request, State, parse_form};
//! use serde_json::json;
//!
//! // The model's tool arguments (RFD D30's migration form), validated.
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Which environment?", "answer_type": "select",
//!      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
//! ]})).expect("a valid form");
//!
//! let mut state = State::new();
//! let id = InquiryId::new("call-1");
//! let ask = Input::Ask(Request {
//!     inquiry: id.clone(),
//!     form: form.form().clone(),
//!     policy: Default::default(), // ask_user's: a person is there, exclusive
//!     origin: Default::default(),
//!     call: None,
//! });
//!
//! // 1. Decide: pure, the state is only borrowed. The decision names the events to
//! //    record (here the request; an invalid call would be `Event::Rejected`).
//! let decision = state.decide(&ask).expect("a new inquiry id");
//! let recorded: Vec<Event> = decision.events().to_vec(); // 2. append these to your log
//! // 3. Apply: moves the state and yields the commands. Replaying `recorded` later
//! //    with `state.apply(&event, ..)` gives the same commands, without validating.
//! let mut commands = Vec::new();
//! state.apply_decision(decision, &mut commands);
//! let Command::Prompt(prompt) = &commands[0] else { panic!("expected a prompt") };
//! assert_eq!(prompt.question().text, "Apply the proposed migration?");
//! assert_eq!(prompt.progress.map(|p| p.to_string()).as_deref(), Some("[1/2]"));
//!
//! // The person says no to what the prompt showed (`prompt.at()` names it): `env`
//! // is gated off and the form completes at once. `reduce` decides and applies in
//! // one call, for hosts that keep no log.
//! let no = AnswerInput::new(prompt.at(), json!(false)).into();
//! let commands = askuser_core::reduce(&mut state, &no).expect("the question being asked");
//! let Command::Respond { outcome, .. } = &commands[0] else { panic!("expected a response") };
//! assert_eq!(outcome.to_json(), json!({"apply": false, "env": null}));
//!
//! // A host misusing the engine is refused, and nothing changes.
//! let refused = askuser_core::reduce(&mut state, &Input::EndTurn { inquiry: id, surface: None });
//! assert_eq!(
//!     refused.unwrap_err().to_string(),
//!     "inquiry \"call-1\" already finished (answered); it takes no more input: show how it ended instead"
//! );
//! ```
//!
//! That refusal tells a late surface to show the recorded result: the state keeps
//! it ([`State::outcome`], for the last [`FINISHED_REMEMBERED`] inquiries to
//! finish), with the tool call to render the dialect's result from, and a snapshot
//! holds it, so it is there after a compaction dropped the events.
//!
//! ```
//! # use askuser_core::{AnswerInput, Command, Ending, Input, InquiryId, Request, State, ToolCall, parse_form};
//! # use serde_json::json;
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
//! ]})).unwrap();
//! let id = InquiryId::new("call-1");
//! let mut state = State::new();
//! let call = ToolCall { dialect: "jp".into(), arguments: json!({"question": "Apply?"}) };
//! askuser_core::reduce(&mut state, &Input::Ask(Request {
//!     inquiry: id.clone(), form: form.form().clone(), policy: Default::default(),
//!     origin: Default::default(), call: Some(call.clone()),
//! })).unwrap();
//! let at = state.at(&id).unwrap();
//! let sent = askuser_core::reduce(&mut state, &AnswerInput::new(at, json!(true)).into()).unwrap();
//!
//! // A snapshot: the state serialized, and read back after a restart.
//! let snapshot = serde_json::to_string(&state).unwrap();
//! let restored: State = serde_json::from_str(&snapshot).unwrap();
//! let finished = restored.outcome(&id).expect("among the last to finish");
//! assert_eq!(finished.how(), Ending::Answered);
//! assert_eq!(finished.outcome().unwrap().to_json(), json!({"apply": true}));
//! assert_eq!(finished.call(), Some(&call));
//! // The result command itself, as applying the answer gave it.
//! assert_eq!(restored.result(&id), Some(sent[0].clone()));
//! assert!(matches!(restored.result(&id), Some(Command::Respond { .. })));
//! ```
//!
//! The pieces:
//! - [`form`]: the model ([`Form`], [`Question`], [`AnswerType`], [`Choice`]) and
//!   [`when`] predicates; [`parse_form`] reads tool arguments and reports every
//!   problem at once; [`validate`] checks a typed form into a [`ValidForm`].
//! - [`Answer`]: a value checked against its question, held compactly.
//! - [`Input`], [`Event`] and [`Command`]: what comes in, what is recorded, what
//!   goes out. [`State::decide`] decides an input (pure: validation, policy, who
//!   may answer, whether what it was taken on is still shown) into the events to
//!   record or a [`Refusal`]; [`State::apply`] applies a recorded event
//!   (infallible, no validation: what replay runs); [`reduce`] does both. No
//!   event is ever handed in: the engine records only what it decided.
//! - [`limits`]: the size limits, as named constants.
//! - [`json`]: JSON-pointer escaping and JSON type names, shared by dialect readers.
//! - [`text`]: hostile text made safe to show a person ([`text::for_display`]).
//! - [`ui_answer`]: what a person picked or typed in a UI ([`UiInput`]), read into
//!   the answer value every surface records ("Other" the same everywhere);
//!   [`ValidForm::ui_answer`] also checks it, with the one rule for text typed
//!   for a schema question (JSON the schema accepts, else the text itself where
//!   the schema takes a string).
//! - [`State::asking`] and [`State::still_shows`]: whether an action taken on
//!   something shown still stands, for a surface that must know before it builds
//!   the input; only the core builds a [`Refusal`].
//! - `strategies` (feature `proptest`): generators of forms, and a `Scenario` of
//!   your own inquiry ids, policy and forms whose generated [`Input`]s (answers
//!   valid and not, answers ahead, Back, Reply, End Turn, time outs, reviews,
//!   stale and late actions) mostly target what is current: its module docs show
//!   a host's property test.

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

pub mod answer;
pub mod command;
mod decide;
mod decide_input;
pub mod error;
pub mod event;
mod finished;
pub mod form;
mod gate;
mod happened;
pub mod input;
mod inquiry;
pub mod json;
pub mod limits;
mod parse;
mod pointer;
mod reducer;
mod schema;
mod shown;
#[cfg(feature = "proptest")]
pub mod strategies;
mod table;
pub mod text;
mod ui_answer;
mod used;
mod valid_form;
mod validate;
pub mod when;

pub use answer::{Answer, OptionSet, Picks};
pub use command::{Command, Outcome, OutcomeStatus, Progress, Prompt, Slot};
pub use decide::Decision;
pub use error::{AnswerError, FormError, FormErrorKind, FormErrors, Problem, Refusal};
pub use event::{
    AgentOrigin, AnsweredBy, CancelReason, ClientNote, Event, FormAction, InquiryId, OnTimeout,
    Origin, Persistence, Policy, Request, Surface, Target, Timeout, ToolCall,
};
pub use finished::{Ending, FinishedInquiry};
pub use form::{AnswerType, Choice, Form, Question};
pub use happened::Happened;
pub use input::{AnswerInput, At, Input, normalize_line_breaks};
pub use parse::{ParseOptions, parse_form, parse_form_with};
pub use reducer::{FINISHED_REMEMBERED, State, reduce};
pub use schema::answer_schema;
pub use ui_answer::{UiAnswerError, UiInput, schema_takes_string, ui_answer};
pub use valid_form::ValidForm;
pub use validate::validate;
pub use when::When;
