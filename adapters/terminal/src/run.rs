//! [`run_inquiry`]: the loop from the engine's commands to a person's actions and
//! back, until the inquiry finishes.

use std::collections::{BTreeMap, VecDeque};

use askuser_core::{
    CancelReason, Command, Event, InquiryId, Outcome, OutcomeStatus, Problem, Prompt, Refusal,
    State, reduce,
};
use serde_json::Value;

use crate::action::{Action, Prompter, Review};
use crate::error::TerminalError;

/// What [`run_inquiry`] drives: the engine behind a host (its state, its log).
///
/// [`State`] is one (it applies with [`reduce`] and looks ahead on a copy); a
/// host with a log implements it over its log. Looking ahead lets the person
/// review a form of more than one question before it is sent.
pub trait Engine {
    /// Applies `event` (deciding it, recording it) and returns its commands.
    ///
    /// # Errors
    /// When the engine refuses the event.
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, Refusal>;

    /// The commands `event` would yield, without applying or recording it;
    /// `None` when this engine cannot tell.
    fn preview(&mut self, event: &Event) -> Option<Vec<Command>> {
        let _ = event;
        None
    }
}

/// An engine that can only apply: a closure.
struct Applying<F>(F);

impl<F> Engine for Applying<F>
where
    F: FnMut(&Event) -> Result<Vec<Command>, Refusal>,
{
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, Refusal> {
        (self.0)(event)
    }
}

impl Engine for State {
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, Refusal> {
        reduce(self, event)
    }

    fn preview(&mut self, event: &Event) -> Option<Vec<Command>> {
        reduce(&mut self.clone(), event).ok()
    }
}

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
/// [`Action`] into an [`Event`] (see [`Action::to_event`]), passes it to `apply`
/// (which applies it to the engine, records it, and returns the commands it
/// yields), and goes on until the inquiry responds, fails, is rejected, ends the
/// turn, or needs the assistant. With no way to look ahead there is no review:
/// [`run_with_engine`] has one.
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
    apply: F,
) -> Result<Finish, TerminalError>
where
    P: Prompter + ?Sized,
    F: FnMut(&Event) -> Result<Vec<Command>, Refusal>,
{
    run_with_engine(prompter, commands, &mut Applying(apply))
}

/// [`run_inquiry`] over an [`Engine`]. When the engine can look ahead
/// ([`Engine::preview`]) and the answer to a form of more than one question would
/// send it, the person first reviews every answer ([`Prompter::review`]):
/// submitting applies the answer; changing an earlier one goes back to it (Back
/// events, so the later answers come back as prefills), and the held last answer
/// is the prefill when its question is asked again.
///
/// ```
/// use askuser_core::{Event, InquiryId, Request, State, parse_form, reduce};
/// use askuser_terminal::{Action, Finish, Review, ScriptedPrompter, run_with_engine};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "ok", "text": "Proceed?", "answer_type": "boolean"},
///     {"id": "why", "text": "Why?", "answer_type": "text"}]})).unwrap();
/// let mut state = State::new();
/// let first = reduce(&mut state, &Event::Requested(Request {
///     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
///     policy: Default::default(), origin: Default::default(), call: None,
/// })).unwrap();
/// // Answers yes and "tests pass", then on the review changes the first answer.
/// let mut person = ScriptedPrompter::new([
///     Action::Answer(json!(true)), Action::Answer(json!("tests pass")),
///     Action::Answer(json!(false)), Action::Answer(json!("tests pass")),
/// ]).with_reviews([Review::Change(0)]);
/// let finish = run_with_engine(&mut person, first, &mut state).unwrap();
/// let Finish::Responded { outcome, .. } = finish else { panic!("expected a response") };
/// assert_eq!(outcome.to_json(), json!({"ok": false, "why": "tests pass"}));
/// // The second time, "tests pass" came back as the prefill.
/// assert_eq!(person.asked()[3].prefill, Some(json!("tests pass")));
/// ```
///
/// # Errors
/// As [`run_inquiry`].
pub fn run_with_engine<P, E>(
    prompter: &mut P,
    commands: impl IntoIterator<Item = Command>,
    engine: &mut E,
) -> Result<Finish, TerminalError>
where
    P: Prompter + ?Sized,
    E: Engine + ?Sized,
{
    let mut queue: VecDeque<Command> = commands.into_iter().collect();
    let mut held: BTreeMap<usize, Value> = BTreeMap::new();
    while let Some(command) = queue.pop_front() {
        match command {
            Command::Prompt(mut prompt) => {
                if let Some(value) = held.remove(&prompt.index)
                    && let Ok(answer) = prompt.form.check(prompt.index, &value)
                {
                    prompt.prefill = Some(answer);
                }
                let action = prompter.ask(&prompt)?;
                let event = action.to_event(&prompt);
                queue = match reviewed(prompter, engine, &prompt, &action, &event)? {
                    Reviewed::Apply(event) => engine.apply(&event)?.into(),
                    Reviewed::Again(value) => {
                        held.insert(prompt.index, value);
                        VecDeque::from([Command::Prompt(prompt)])
                    }
                    Reviewed::BackTo(index, value) => {
                        held.insert(prompt.index, value);
                        back_to(engine, &prompt, index)?
                    }
                };
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

/// What to do with an action once the review (if any) is done.
enum Reviewed {
    /// Apply this event.
    Apply(Event),
    /// Ask the same prompt again, prefilled with this held answer.
    Again(Value),
    /// Go back to the question at this index, holding this answer.
    BackTo(usize, Value),
}

/// Reviews the form when `action` is the answer that would send it.
fn reviewed<P, E>(
    prompter: &mut P,
    engine: &mut E,
    prompt: &Prompt,
    action: &Action,
    event: &Event,
) -> Result<Reviewed, TerminalError>
where
    P: Prompter + ?Sized,
    E: Engine + ?Sized,
{
    let (Action::Answer(value) | Action::Remember(value)) = action else {
        return Ok(Reviewed::Apply(event.clone()));
    };
    if prompt.form.len() < 2 {
        return Ok(Reviewed::Apply(event.clone()));
    }
    let outcome = engine.preview(event).and_then(|commands| {
        commands.into_iter().find_map(|command| match command {
            Command::Respond { outcome, .. } if outcome.status == OutcomeStatus::Completed => {
                Some(outcome)
            }
            _ => None,
        })
    });
    let Some(outcome) = outcome else {
        return Ok(Reviewed::Apply(event.clone()));
    };
    let inquiry = prompt.inquiry.clone();
    Ok(match prompter.review(prompt, &outcome)? {
        Review::Submit => Reviewed::Apply(event.clone()),
        Review::Change(index) if index >= prompt.index => Reviewed::Again(value.clone()),
        Review::Change(index) => Reviewed::BackTo(index, value.clone()),
        Review::Reply { message } => Reviewed::Apply(Action::Reply { message }.to_event(prompt)),
        Review::EndTurn => Reviewed::Apply(Event::TurnEnded { inquiry }),
        Review::TimedOut => Reviewed::Apply(Event::TimedOut { inquiry }),
    })
}

/// Goes Back until the prompt is at or before question `index`; returns the
/// commands of the last Back.
fn back_to<E: Engine + ?Sized>(
    engine: &mut E,
    prompt: &Prompt,
    index: usize,
) -> Result<VecDeque<Command>, TerminalError> {
    let back = Event::Back {
        inquiry: prompt.inquiry.clone(),
    };
    let mut commands = VecDeque::from([Command::Prompt(prompt.clone())]);
    for _ in 0..prompt.form.len() {
        let at = commands.iter().find_map(|command| match command {
            Command::Prompt(p) if p.can_back => Some(p.index),
            _ => None,
        });
        match at {
            Some(at) if at > index => commands = engine.apply(&back)?.into(),
            _ => break,
        }
    }
    Ok(commands)
}
