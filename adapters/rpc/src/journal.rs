//! [`Journal`]: the application layer's journal ([`askuser_app::Journal`]) with
//! the protocol lines each recorded event yields. The lines are written after the
//! input was decided, appended (flushed, for a durable log) and applied, so
//! whatever a host has seen is durable.

use std::path::Path;
use std::sync::Arc;

use askuser_app::Followed;
use askuser_app::log::Seq;
use askuser_core::{Command, Event, Input, InquiryId, Refusal, State};
use askuser_dialects::Call;
use serde_json::Value;

use crate::output::command_line;
use askuser_app::Result;

/// What became of an input given to [`Journal::request`] or [`Journal::input`].
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The input was decided and recorded, its last event as `seq`; these are the
    /// commands it yielded and their protocol lines (one per command, in order).
    Recorded {
        /// The last event's sequence number in its stream.
        seq: Seq,
        /// The engine's commands.
        commands: Vec<Command>,
        /// The protocol lines of the commands.
        outputs: Vec<Value>,
    },
    /// The engine refused the input; nothing was recorded.
    Refused(Refusal),
}

/// The application layer's journal, speaking the protocol's lines. Everything
/// else of [`askuser_app::Journal`] (its sessions, states, calls, deadlines) is
/// reached through it (`Deref`).
///
/// ```
/// use askuser_dialects::Dialect;
/// use askuser_rpc::{Journal, Step};
/// use askuser_core::InquiryId;
/// use serde_json::json;
///
/// let mut journal = Journal::memory();
/// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
/// let call = Dialect::Jp.parse(&arguments).unwrap();
/// let step = journal.request("s", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
/// let Step::Recorded { seq, outputs, .. } = step else { panic!() };
/// assert_eq!((seq, outputs[0]["type"].as_str()), (1, Some("prompt")));
/// ```
#[derive(Debug)]
pub struct Journal {
    app: askuser_app::Journal,
}

impl std::ops::Deref for Journal {
    type Target = askuser_app::Journal;

    fn deref(&self) -> &Self::Target {
        &self.app
    }
}

impl std::ops::DerefMut for Journal {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.app
    }
}

impl From<askuser_app::Journal> for Journal {
    fn from(app: askuser_app::Journal) -> Self {
        Self { app }
    }
}

impl Journal {
    /// A journal over `log`.
    pub fn new(log: Arc<dyn askuser_app::log::Log>) -> Self {
        askuser_app::Journal::new(log).into()
    }

    /// A journal in memory (for tests and embedding).
    pub fn memory() -> Self {
        askuser_app::Journal::memory().into()
    }

    /// The durable journal at `location` (see [`askuser_app::Journal::open`]).
    ///
    /// # Errors
    /// The store's error when the log cannot be opened.
    pub fn open(location: &Path) -> Result<Self> {
        Ok(askuser_app::Journal::open(location)?.into())
    }

    /// Records `call` and applies its request (see
    /// [`askuser_app::Journal::request`]), with the lines it yields.
    ///
    /// # Errors
    /// When the log cannot be written.
    pub fn request(
        &mut self,
        stream: &str,
        call: &Call,
        arguments: &Value,
        request: askuser_core::Request,
    ) -> Result<Step> {
        let step = self.app.request(stream, call, arguments, request)?;
        self.lines(stream, step, Some(call))
    }

    /// Hands a host's or a person's `input` to `stream`'s session (see
    /// [`askuser_app::Journal::input`]), with the lines it yields.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn input(&mut self, stream: &str, input: &Input) -> Result<Step> {
        let call = match input.inquiry() {
            Some(inquiry) => self.app.call(stream, inquiry)?,
            None => None,
        };
        let step = self.app.input(stream, input)?;
        self.lines(stream, step, call.as_deref())
    }

    /// The step with the protocol lines of its commands.
    fn lines(
        &mut self,
        stream: &str,
        step: askuser_app::Step,
        call: Option<&Call>,
    ) -> Result<Step> {
        Ok(match step {
            askuser_app::Step::Recorded { seq, commands } => {
                let state = self.app.state(stream)?;
                let outputs = (commands.iter())
                    .map(|command| command_line(command, call, timeout_of(state, command)))
                    .collect();
                Step::Recorded {
                    seq,
                    commands,
                    outputs,
                }
            }
            askuser_app::Step::Refused(refusal) => Step::Refused(refusal),
        })
    }

    /// Applies what other processes recorded in `stream` since this journal last
    /// looked (an answer given in another window, say), and returns the protocol
    /// lines of the commands it yields, in order. A review wanted there while
    /// questions are still to answer yields no command but moves the inquiry's
    /// step: when it is the last thing recorded for its inquiry, the inquiry's
    /// current `prompt` follows, with the step an answer to it names.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn catch_up(&mut self, stream: &str) -> Result<Vec<Value>> {
        let followed = self.app.follow(stream)?;
        let mut lines = Vec::new();
        let mut reviewed: Vec<InquiryId> = Vec::new();
        for Followed { caught, call } in followed {
            reviewed.retain(|inquiry| Some(inquiry) != caught.event.inquiry());
            if let Event::ReviewWanted { inquiry } = &caught.event
                && caught.commands.is_empty()
            {
                reviewed.push(inquiry.clone());
            }
            let state = self.app.state(stream)?;
            lines.extend(
                caught.commands.iter().map(|command| {
                    command_line(command, call.as_deref(), timeout_of(state, command))
                }),
            );
        }
        for inquiry in reviewed {
            lines.extend(self.pending_line(stream, &inquiry)?);
        }
        Ok(lines)
    }

    /// The line an open inquiry of `stream` is waiting on (its current `prompt`,
    /// `review` or `ask_assistant`), rebuilt from the log: what a restarted server
    /// sends again.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn pending_line(&mut self, stream: &str, inquiry: &InquiryId) -> Result<Option<Value>> {
        let call = self.app.call(stream, inquiry)?;
        let state = self.app.state(stream)?;
        Ok(state
            .pending(inquiry)
            .map(|command| command_line(&command, call.as_deref(), timeout_of(state, &command))))
    }
}

/// The policy timeout of a prompt's inquiry, for its line.
fn timeout_of(state: &State, command: &Command) -> Option<askuser_core::Timeout> {
    match command {
        Command::Prompt(prompt) => state.policy(&prompt.inquiry)?.timeout,
        _ => None,
    }
}
