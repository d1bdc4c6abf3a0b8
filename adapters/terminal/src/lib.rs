//! # askuser-terminal: the engine's prompts in a terminal
//!
//! The core engine says *what* to ask ([`Command::Prompt`](askuser_core::Command));
//! this crate asks it in the terminal and reports what the person did as an
//! [`Action`]: an answer, Back, Reply (with an optional message), or End Turn.
//!
//! - [`Prompter`] is the seam: [`TerminalPrompter`] is the real terminal,
//!   [`ScriptedPrompter`] replays a list of actions (for tests).
//! - [`run_inquiry`] drives one inquiry through an [`Engine`]: prompt → action →
//!   event → commands, until it finishes with a [`Finish`] (respond, fail, end the
//!   turn, reject, or hand a question to the assistant). An engine that can look
//!   ahead (`&mut State`, or a host's own) gets a review before a form of more
//!   than one question is sent.
//!
//! What the person sees (RFD D30, as issues 14, 19 and 29 changed it): a first
//! line saying who asks and how many questions (`Claude (repo: billing-api) asks
//! you 2 questions`, from the inquiry's label), `[N/M]` before each question
//! when the form has more than one, and the "who's asking" label. A question's
//! context, text and option descriptions are Markdown: bold, emphasis, code,
//! lists, links with their target, code blocks indented and never reflowed, raw
//! HTML shown as text (plain text alone on a plain screen). A yes/no question
//! without a default takes `y` or `n` (Enter alone picks nothing); with one,
//! Enter takes it. When a question is asked again (Back, or a change from the
//! review), its earlier lines are erased, so the new answer replaces the old
//! one on the screen. Back, Reply, End Turn and a note are behind Esc on every prompt (the
//! hint line says so); on that menu a letter only highlights its entry and Enter
//! acts, and any other typing closes it and goes to the answer, so nothing typed
//! can act by accident (Esc then `system` types "system"). Typing filters a
//! select's options (`s` then Enter picks "scala" among go, rust, ruby, scala,
//! bash); digits 1–9 pick at once unless an option's label starts with a digit
//! (a list of versions filters on `1.7`). A text or schema question takes typing
//! at once; a paste keeps its line breaks (LF, CR LF or CR) and never sends, even
//! when the terminal does not bracket it. A multi-select keeps its ticks across
//! the menu, counts them (also those the filter hides), and Ctrl+A / Ctrl+D tick
//! all or none. Alt+N writes a note beside the answer. After Back, the earlier
//! answers come back as prefills. Before the answers are sent the person reviews
//! them (every form of more than one question; a one-question form is sent
//! with its answer); the review is the engine's ([`askuser_core::Event::ReviewWanted`]),
//! so a Reply or End Turn from it keeps every answer it showed, and a change there
//! asks again only what the change gates in. Ctrl+C asks first when answers would
//! be lost (a second Ctrl+C ends the turn). With a policy timeout
//! ([`TerminalPrompter::with_timeout`]) the time left is on the screen from the
//! start, with the bell and a warning in the last 20 seconds; keys do not move
//! the deadline, which a host with a log counts from when the question started
//! waiting ([`Engine::time_left`]), as the web inbox does; the prompt ends with
//! [`Action::TimedOut`] (the engine's `TimedOut` event), carrying the Reply the
//! person was typing, if any. When another surface moves the inquiry while the
//! person is at a prompt ([`Engine::elsewhere`]), the prompt is left without a
//! key pressed as soon as the host's log wakes the walk ([`Engine::woken`],
//! looked at ten times a second), and an action the person took just then is
//! not recorded: the screen says what changed there, keeps what they typed or
//! answered, not sent (in the field, when the question shown next takes it,
//! else in words), and goes on from the inquiry as it is now, or says how it
//! ended and what the assistant got. Labels, answers and
//! the highlighted option's description wrap, never cut; the highlighted row is
//! in reverse video, and with `NO_COLOR` or `TERM=dumb` not one escape byte is
//! written (each question is written before its options, a typed answer's
//! input row last). `$VISUAL`/`$EDITOR` run on the controlling terminal, never on this
//! process's standard streams. Every text from a model or a person is shown
//! through [`askuser_core::text::for_display_line`], so no escape sequence reaches
//! the terminal.
//!
//! Why not inquire: inquire 0.9 reads keys through a crate-private backend (no
//! key of a prompt can be rebound: Ctrl+U/W/A write letters, digits only filter),
//! drops a multi-select's ticks on Esc, and blocks on each key (no countdown). The
//! prompts here are drawn with crossterm, which inquire itself uses.
//!
//! A scripted run against the real reducer:
//!
//! ```
//! use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
//! use askuser_terminal::{Action, Finish, ScriptedPrompter, run_with_engine};
//! use serde_json::json;
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "lang", "text": "Which language?", "answer_type": "select",
//!      "options": ["go", "rust", "ruby", "scala", "bash"]}]})).unwrap();
//! let mut state = State::new();
//! let first = reduce(&mut state, &Input::Ask(Request {
//!     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
//!     policy: Default::default(), origin: Default::default(), call: None,
//! })).unwrap();
//! let mut person = ScriptedPrompter::new([Action::Answer(json!("scala"))]);
//! let Finish::Responded { outcome, .. } = run_with_engine(&mut person, first, &mut state).unwrap()
//! else { panic!("expected a response") };
//! assert_eq!(outcome.to_json(), json!({"lang": "scala"}));
//! ```
//!
//! In a real terminal (this needs one, so it is not run here):
//!
//! ```no_run
//! use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
//! use askuser_terminal::{Finish, TerminalError, TerminalPrompter, run_with_engine};
//! use serde_json::json;
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"}]}))
//!     .expect("a valid form");
//! let mut state = State::new();
//! let first = reduce(&mut state, &Input::Ask(Request {
//!     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
//!     policy: Default::default(), origin: Default::default(), call: None,
//! })).expect("a new inquiry");
//! match run_with_engine(&mut TerminalPrompter::new(), first, &mut state) {
//!     Ok(Finish::Responded { outcome, .. }) => println!("{}", outcome.to_json()),
//!     Ok(Finish::TurnEnded { .. }) => println!("turn ended"),
//!     Ok(other) => println!("{other:?}"),
//!     Err(TerminalError::NotATerminal) => eprintln!("no person can be asked"),
//!     Err(error) => eprintln!("{error}"),
//! }
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod action;
mod asking;
mod clock;
mod editor;
mod elsewhere;
mod error;
mod external;
#[cfg(fuzzing)]
pub mod fuzzing;
mod keys;
mod list;
mod markdown;
mod menu;
mod prompter;
mod render;
mod run;
mod schema_text;
mod screen;
mod stop;

pub use action::{Action, Asked, Prompter, Review, ScriptedPrompter, Watched};
pub use elsewhere::Elsewhere;
pub use error::TerminalError;
pub use prompter::{BELL_VARIABLE, TerminalPrompter};
pub use run::{Engine, Finish, run_inquiry, run_with_engine};
