//! [`run_inquiry`]: the loop from the engine's commands to a person's actions and
//! back, until the inquiry finishes.

use std::collections::{BTreeMap, VecDeque};

use askuser_core::{
    AnswerType, AnsweredBy, CancelReason, Command, Event, InquiryId, Outcome, Problem, Progress,
    Prompt, Refusal, State, reduce,
};
use serde_json::Value;

use crate::action::{Action, Prompter, Review};
use crate::error::TerminalError;

/// What [`run_inquiry`] drives: the engine behind a host (its state, its log).
///
/// [`State`] is one (it applies with [`reduce`]); a host with a log implements it
/// over its log, recording every event it applies.
pub trait Engine {
    /// Applies `event` (deciding it, recording it) and returns its commands.
    ///
    /// # Errors
    /// When the engine refuses the event.
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, Refusal>;
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
/// turn, or needs the assistant.
///
/// Before the first answer of a form of more than one question (or of a
/// one-question form answered from a list, where one key picks), it records
/// [`Event::ReviewWanted`]: once every question is answered the person reviews
/// the answers ([`Prompter::review`]), all of them already recorded, so a Reply
/// or End Turn from the review keeps every answer it showed. Submitting records
/// [`Event::Submitted`]; changing an earlier answer goes Back to it, and the
/// answers after it whose questions still apply are given again as they were
/// (not asked again); a question that starts to apply is asked.
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
/// // The scripted person submits the review (its default).
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

/// [`run_inquiry`] over an [`Engine`].
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
/// // Answers yes and "tests pass", then on the review changes the first answer:
/// // "tests pass" is kept, not asked again.
/// let mut person = ScriptedPrompter::new([
///     Action::Answer(json!(true)), Action::Answer(json!("tests pass")),
///     Action::Answer(json!(false)),
/// ]).with_reviews([Review::Change(0), Review::Submit]);
/// let finish = run_with_engine(&mut person, first, &mut state).unwrap();
/// let Finish::Responded { outcome, .. } = finish else { panic!("expected a response") };
/// assert_eq!(outcome.to_json(), json!({"ok": false, "why": "tests pass"}));
/// // The first question came back prefilled with the answer it had.
/// assert_eq!(person.asked()[2].prefill, Some(json!(true)));
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
    let mut walk = Walk::default();
    let mut queue: VecDeque<Command> = commands.into_iter().collect();
    while let Some(command) = queue.pop_front() {
        queue = match command {
            Command::Prompt(prompt) => walk.prompt(prompter, engine, prompt)?,
            Command::Review {
                inquiry, outcome, ..
            } => walk.review(prompter, engine, &inquiry, &outcome)?,
            Command::InvalidAnswer { message, .. } => {
                prompter.show_invalid(&message)?;
                continue;
            }
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
        };
    }
    Err(TerminalError::Stalled)
}

/// What one walk through a form remembers between commands.
#[derive(Default)]
struct Walk {
    /// The prompt shown last (the review is drawn under its header).
    last: Option<Prompt>,
    /// Whether [`Event::ReviewWanted`] was recorded.
    review_wanted: bool,
    /// Answers (and their notes) to give again, by question index, after a
    /// change on the review.
    keep: BTreeMap<usize, (Value, Option<String>)>,
}

impl Walk {
    /// Asks `prompt` (or gives its kept answer again); the commands that follow.
    fn prompt<P, E>(
        &mut self,
        prompter: &mut P,
        engine: &mut E,
        prompt: Prompt,
    ) -> Result<VecDeque<Command>, TerminalError>
    where
        P: Prompter + ?Sized,
        E: Engine + ?Sized,
    {
        if let Some((value, note)) = self.keep.remove(&prompt.index)
            && prompt.form.check(prompt.index, &value).is_ok()
        {
            let action = match note {
                Some(note) => Action::AnswerWithNote { value, note },
                None => Action::Answer(value),
            };
            let event = action.to_event(&prompt);
            self.last = Some(prompt);
            return Ok(engine.apply(&event)?.into());
        }
        let action = prompter.ask(&prompt)?;
        if action.is_answer() && !self.review_wanted && wants_review(&prompt) {
            engine.apply(&Event::ReviewWanted {
                inquiry: prompt.inquiry.clone(),
            })?;
            self.review_wanted = true;
        }
        let event = action.to_event(&prompt);
        self.last = Some(prompt);
        Ok(engine.apply(&event)?.into())
    }

    /// Shows the review of `outcome`; the commands that follow.
    fn review<P, E>(
        &mut self,
        prompter: &mut P,
        engine: &mut E,
        inquiry: &InquiryId,
        outcome: &Outcome,
    ) -> Result<VecDeque<Command>, TerminalError>
    where
        P: Prompter + ?Sized,
        E: Engine + ?Sized,
    {
        self.review_wanted = true;
        let prompt = self
            .last
            .clone()
            .filter(|prompt| &prompt.inquiry == inquiry)
            .unwrap_or_else(|| last_prompt(inquiry, outcome));
        let inquiry = inquiry.clone();
        let event = match prompter.review(&prompt, outcome)? {
            Review::Submit => Event::Submitted { inquiry },
            Review::Change(index) => {
                self.keep = later_answers(outcome, index);
                return back_to(engine, &inquiry, index);
            }
            Review::Reply { message } => Event::Cancelled {
                inquiry,
                reason: CancelReason::UserReply,
                message,
            },
            Review::EndTurn => Event::TurnEnded { inquiry },
            Review::TimedOut { message } => Event::TimedOut { inquiry, message },
        };
        Ok(engine.apply(&event)?.into())
    }
}

/// Whether the answers to `prompt`'s form are reviewed before they are sent:
/// forms of more than one question, and one-question forms answered from a list
/// (where a single key picks, so a slip would be sent at once).
fn wants_review(prompt: &Prompt) -> bool {
    prompt.form.len() > 1
        || matches!(
            prompt.question().answer_type,
            AnswerType::Boolean | AnswerType::Select | AnswerType::MultiSelect
        )
}

/// The person's answers (with their notes) after question `index`, to give
/// again unchanged.
fn later_answers(outcome: &Outcome, index: usize) -> BTreeMap<usize, (Value, Option<String>)> {
    let questions = outcome.form.questions();
    outcome
        .answers
        .iter()
        .enumerate()
        .skip(index + 1)
        .filter_map(|(at, slot)| {
            let slot = slot.as_ref().filter(|slot| slot.by == AnsweredBy::User)?;
            Some((
                at,
                (slot.answer.to_value(&questions[at]), slot.note.clone()),
            ))
        })
        .collect()
}

/// A prompt for the last question of `outcome`'s form, to head a review shown
/// before any prompt of this walk (an inquiry resumed at its review).
fn last_prompt(inquiry: &InquiryId, outcome: &Outcome) -> Prompt {
    let count = outcome.form.len();
    Prompt {
        inquiry: inquiry.clone(),
        form: outcome.form.clone(),
        index: count.saturating_sub(1),
        progress: (count > 1).then_some(Progress { n: count, m: count }),
        prefill: None,
        prefill_note: None,
        can_back: true,
        label: None,
        step: 0,
    }
}

/// Goes Back until the prompt is at or before question `index`; returns the
/// commands of the last Back.
fn back_to<E: Engine + ?Sized>(
    engine: &mut E,
    inquiry: &InquiryId,
    index: usize,
) -> Result<VecDeque<Command>, TerminalError> {
    let back = Event::Back {
        inquiry: inquiry.clone(),
    };
    let mut commands: VecDeque<Command> = engine.apply(&back)?.into();
    loop {
        let at = commands.iter().find_map(|command| match command {
            Command::Prompt(p) if p.can_back => Some(p.index),
            _ => None,
        });
        match at {
            Some(at) if at > index => commands = engine.apply(&back)?.into(),
            _ => return Ok(commands),
        }
    }
}
