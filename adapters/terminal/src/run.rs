//! [`run_inquiry`]: the loop from the engine's commands to a person's actions and
//! back, until the inquiry finishes.

use std::collections::VecDeque;

use askuser_core::{CancelReason, Command, Event, InquiryId, Outcome, Problem, Refusal};
use serde_json::Value;

use crate::action::Prompter;
use crate::error::TerminalError;

/// How a [`run_inquiry`] loop ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Finish {
    /// Respond to the model with the outcome: the answers, or (after Reply) the
    /// cancel marker and the answers so far. [`Outcome::to_json`] is the `jp-form`
    /// result.
    Responded {
        /// The inquiry.
        inquiry: InquiryId,
        /// What was answered.
        outcome: Outcome,
    },
    /// Respond to the model with a tool error (the engine's policy refused).
    Failed {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why.
        reason: CancelReason,
        /// The text for the model.
        message: String,
    },
    /// The person ended the turn (End Turn or Ctrl+C): send no tool result.
    TurnEnded {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The submitted form was invalid: respond to the model with every problem.
    Rejected {
        /// The inquiry.
        inquiry: InquiryId,
        /// Every problem, each with the path of its field.
        problems: Vec<Problem>,
    },
    /// The engine wants the assistant to answer a question. Get the answer, apply
    /// it as an event, and call [`run_inquiry`] again with the commands it yields.
    AskAssistant {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question's id.
        question: String,
        /// The JSON Schema the answer must satisfy.
        schema: Value,
    },
}

/// Drives one inquiry: shows each [`Command::Prompt`] with `prompter`, turns the
/// [`Action`](crate::Action) into an [`Event`] (see
/// [`Action::to_event`](crate::Action::to_event)), passes it to `apply` (which
/// applies it to the engine, and records it, and returns the commands it yields),
/// and goes on until the inquiry responds, fails, is rejected, ends the turn, or
/// needs the assistant.
///
/// `commands` are the commands the engine gave for the inquiry so far (typically
/// those of its `Requested` event). A [`Command::InvalidAnswer`] is shown with
/// [`Prompter::show_invalid`] and the prompt after it is asked again.
///
/// ```
/// use askuser_core::{Event, InquiryId, Request, State, parse_form, reduce};
/// use askuser_terminal::{Action, Finish, ScriptedPrompter, run_inquiry};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]})).unwrap();
/// let mut state = State::new();
/// let first = reduce(&mut state, &Event::Requested(Request {
///     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
///     policy: Default::default(), origin: Default::default(), call: None,
/// })).unwrap();
/// let mut person = ScriptedPrompter::new([Action::Answer(json!(true))]);
/// let finish = run_inquiry(&mut person, first, |event| reduce(&mut state, event)).unwrap();
/// let Finish::Responded { outcome, .. } = finish else { panic!("expected a response") };
/// assert_eq!(outcome.to_json(), json!({"ok": true}));
/// ```
///
/// # Errors
/// The prompter's errors (no terminal, I/O), [`TerminalError::Engine`] when the
/// engine refuses an event, and [`TerminalError::Stalled`] when the commands run out
/// before the inquiry finishes.
pub fn run_inquiry<P, F>(
    prompter: &mut P,
    commands: impl IntoIterator<Item = Command>,
    mut apply: F,
) -> Result<Finish, TerminalError>
where
    P: Prompter + ?Sized,
    F: FnMut(&Event) -> Result<Vec<Command>, Refusal>,
{
    let mut queue: VecDeque<Command> = commands.into_iter().collect();
    while let Some(command) = queue.pop_front() {
        match command {
            Command::Prompt(prompt) => {
                let action = prompter.ask(&prompt)?;
                queue = apply(&action.to_event(&prompt))?.into();
            }
            Command::InvalidAnswer { message, .. } => prompter.show_invalid(&message)?,
            Command::Respond { inquiry, outcome } => {
                return Ok(Finish::Responded { inquiry, outcome });
            }
            Command::Fail {
                inquiry,
                reason,
                message,
            } => {
                return Ok(Finish::Failed {
                    inquiry,
                    reason,
                    message,
                });
            }
            Command::EndTurn { inquiry } => return Ok(Finish::TurnEnded { inquiry }),
            Command::Reject {
                inquiry, problems, ..
            } => {
                return Ok(Finish::Rejected { inquiry, problems });
            }
            Command::AskAssistant {
                inquiry,
                question,
                schema,
            } => {
                return Ok(Finish::AskAssistant {
                    inquiry,
                    question,
                    schema,
                });
            }
        }
    }
    Err(TerminalError::Stalled)
}
