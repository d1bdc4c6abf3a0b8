//! What a person did at a prompt, the [`Prompter`] trait, and a scripted prompter
//! for tests.

use std::collections::VecDeque;
use std::time::Instant;

use askuser_core::{AnswerInput, Input, Outcome, Prompt, Surface};
use serde_json::Value;

use crate::error::TerminalError;

/// What the person did at one prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Answered with this JSON value (a boolean, a label or typed text, a list of
    /// labels, or any JSON value for a schema question).
    Answer(Value),
    /// Answered with this value and a note the person wrote beside it, for the
    /// model (every dialect that carries notes shows it).
    AnswerWithNote {
        /// The answer.
        value: Value,
        /// The note.
        note: String,
    },
    /// Answered with this value and asked to reuse it for the rest of the turn
    /// (uppercase `Y` / `N`); the engine keeps it only where the policy allows.
    Remember(Value),
    /// Went back to the previous answered question.
    Back,
    /// Cancelled the form to reply to the assistant instead, with an optional
    /// message for it.
    Reply {
        /// What the person typed for the assistant, if anything.
        message: Option<String>,
    },
    /// Ended the turn (End Turn, or Ctrl+C).
    EndTurn,
    /// Did not answer in time (the policy's timeout passed without a key): the
    /// policy's `on_timeout` action is taken.
    TimedOut {
        /// The Reply message the person was typing when the time ran out, sent
        /// with the timeout's result.
        message: Option<String>,
    },
}

/// What the person chose on the review of a finished form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Review {
    /// Send the answers.
    Submit,
    /// Change the answer to the question at this index of the form.
    Change(usize),
    /// Cancel the form to reply to the assistant, with an optional message.
    Reply {
        /// What the person typed for the assistant, if anything.
        message: Option<String>,
    },
    /// End the turn.
    EndTurn,
    /// The time ran out on the review: the policy's `on_timeout` action is taken
    /// with every answer recorded.
    TimedOut {
        /// The Reply message the person was typing when the time ran out.
        message: Option<String>,
    },
}

impl Action {
    /// Whether this action answers the question (and so moves the form on).
    pub fn is_answer(&self) -> bool {
        matches!(
            self,
            Action::Answer(_) | Action::Remember(_) | Action::AnswerWithNote { .. }
        )
    }

    /// What this action at `prompt` is for the engine: an answer to what the
    /// prompt shows (remembered for [`Action::Remember`], on a surface that
    /// reviews), Back or a Reply from it, End Turn, or the timeout.
    ///
    /// ```
    /// use askuser_terminal::Action;
    /// # use askuser_core::{Command, Input, InquiryId, Request, State, parse_form, reduce};
    /// # use serde_json::json;
    /// # let form = parse_form(&json!({"questions": [
    /// #     {"id": "ok", "text": "Ok?", "answer_type": "boolean"}]})).unwrap();
    /// # let mut state = State::new();
    /// # let commands = reduce(&mut state, &Input::Ask(Request {
    /// #     inquiry: InquiryId::new("c"), form: form.form().clone(),
    /// #     policy: Default::default(), origin: Default::default(),
    /// #     call: None, })).unwrap();
    /// # let Command::Prompt(prompt) = &commands[0] else { unreachable!() };
    /// assert_eq!(
    ///     Action::Reply { message: Some("use staging".into()) }.to_input(prompt),
    ///     Input::Reply { at: prompt.at(), message: Some("use staging".into()) }
    /// );
    /// ```
    pub fn to_input(&self, prompt: &Prompt) -> Input {
        self.to_input_at(prompt, wall_clock_ms())
    }

    /// [`Action::to_input`], a timeout fired at `now_ms` (milliseconds since the
    /// Unix epoch, by the host's clock: see [`Engine::now_ms`](crate::Engine::now_ms));
    /// [`Action::to_input`] reads the wall clock.
    pub fn to_input_at(&self, prompt: &Prompt, now_ms: u64) -> Input {
        let answer = |value: &Value| AnswerInput::new(prompt.at(), value.clone()).reviewed();
        match self {
            Action::Answer(value) => answer(value).into(),
            Action::Remember(value) => Input::Answer(AnswerInput {
                remember: true,
                ..answer(value)
            }),
            Action::AnswerWithNote { value, note } => {
                answer(value).with_note(Some(note.clone())).into()
            }
            Action::Back => Input::Back(prompt.at()),
            Action::Reply { message } => Input::Reply {
                at: prompt.at(),
                message: message.clone(),
            },
            Action::EndTurn => Input::EndTurn {
                inquiry: prompt.inquiry.clone(),
                surface: Some(Surface::Terminal),
            },
            Action::TimedOut { message } => Input::TimeOut {
                inquiry: prompt.inquiry.clone(),
                message: message.clone(),
                fired_at_ms: now_ms,
            },
        }
    }
}

/// How a prompt shown while the walk watches the host's log ended
/// ([`Prompter::ask_watching`], [`Prompter::review_watching`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Watched<T> {
    /// The person acted: their [`Action`] (or [`Review`]).
    Done(T),
    /// Another surface moved the inquiry while the prompt waited for a key (the
    /// watch said so): the prompt was left without a key pressed, and what the
    /// person was typing there is kept, not sent, as the action it would have
    /// been (an answer's text, a Reply's message), if they typed anything.
    Moved(Option<Action>),
}

/// The wall clock, in milliseconds since the Unix epoch (0 before it).
pub(crate) fn wall_clock_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Something that can put a [`Prompt`] to a person and report what they did.
///
/// [`TerminalPrompter`](crate::TerminalPrompter) is the real terminal;
/// [`ScriptedPrompter`] replays a fixed list of actions.
pub trait Prompter {
    /// Shows `prompt` and waits for the person's [`Action`].
    ///
    /// # Errors
    /// When the terminal cannot be used ([`TerminalError::NotATerminal`], I/O).
    fn ask(&mut self, prompt: &Prompt) -> Result<Action, TerminalError>;

    /// Tells the person their last answer was not accepted, and why. The same
    /// prompt is asked again next.
    ///
    /// # Errors
    /// When writing to the terminal fails.
    fn show_invalid(&mut self, message: &str) -> Result<(), TerminalError>;

    /// Shows every answer of a form about to be sent (`outcome`, as it would be
    /// sent, after the last answer to `prompt`) and asks whether to submit it or
    /// change an answer. The default submits at once.
    ///
    /// # Errors
    /// When the terminal cannot be used.
    fn review(&mut self, prompt: &Prompt, outcome: &Outcome) -> Result<Review, TerminalError> {
        let _ = (prompt, outcome);
        Ok(Review::Submit)
    }

    /// Tells the person, in `lines` already written for them (safe to show),
    /// that another surface moved the inquiry while they were at the last
    /// prompt: what it did, what became of their own action, and how the
    /// inquiry ended if it did. The prompt or result that follows is the
    /// inquiry as it is now. The default shows nothing.
    ///
    /// # Errors
    /// When writing to the terminal fails.
    fn show_elsewhere(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        let _ = lines;
        Ok(())
    }

    /// Sets when the prompts asked next time out: at `deadline`, the moment
    /// the host counts from when the question started waiting
    /// ([`Engine::time_left`](crate::Engine::time_left)), never moved by keys.
    /// `None`: the prompter counts its own time limit from when a prompt shows.
    /// The default ignores it.
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        let _ = deadline;
    }

    /// [`Prompter::ask`], looking at `watch` while it waits for a key (at least
    /// ten times a second): when `watch` says the inquiry moved elsewhere, the
    /// prompt ends at once with [`Watched::Moved`] and what the person was
    /// typing, so the screen shows the inquiry as it is now without a key
    /// pressed. The default asks without looking.
    ///
    /// # Errors
    /// As [`Prompter::ask`].
    fn ask_watching(
        &mut self,
        prompt: &Prompt,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Action>, TerminalError> {
        let _ = watch;
        self.ask(prompt).map(Watched::Done)
    }

    /// [`Prompter::review`], looking at `watch` as [`Prompter::ask_watching`]
    /// does. The default reviews without looking.
    ///
    /// # Errors
    /// As [`Prompter::review`].
    fn review_watching(
        &mut self,
        prompt: &Prompt,
        outcome: &Outcome,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Review>, TerminalError> {
        let _ = watch;
        self.review(prompt, outcome).map(Watched::Done)
    }
}

impl<P: Prompter + ?Sized> Prompter for &mut P {
    fn ask(&mut self, prompt: &Prompt) -> Result<Action, TerminalError> {
        (**self).ask(prompt)
    }

    fn show_invalid(&mut self, message: &str) -> Result<(), TerminalError> {
        (**self).show_invalid(message)
    }

    fn review(&mut self, prompt: &Prompt, outcome: &Outcome) -> Result<Review, TerminalError> {
        (**self).review(prompt, outcome)
    }

    fn show_elsewhere(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        (**self).show_elsewhere(lines)
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        (**self).set_deadline(deadline);
    }

    fn ask_watching(
        &mut self,
        prompt: &Prompt,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Action>, TerminalError> {
        (**self).ask_watching(prompt, watch)
    }

    fn review_watching(
        &mut self,
        prompt: &Prompt,
        outcome: &Outcome,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Review>, TerminalError> {
        (**self).review_watching(prompt, outcome, watch)
    }
}

/// One prompt a [`ScriptedPrompter`] was asked, as it saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The question's id.
    pub question: String,
    /// The prompt's prefill as JSON.
    pub prefill: Option<Value>,
    /// Whether Back was offered.
    pub can_back: bool,
    /// The `[N/M]` progress, if shown.
    pub progress: Option<String>,
}

/// A [`Prompter`] that answers from a queue of [`Action`]s and records what it was
/// asked, for tests of code that drives prompts.
///
/// ```
/// use askuser_terminal::{Action, ScriptedPrompter};
/// use serde_json::json;
///
/// let prompter = ScriptedPrompter::new([Action::Answer(json!(true)), Action::EndTurn]);
/// assert_eq!(prompter.remaining(), 2);
/// assert!(prompter.asked().is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScriptedPrompter {
    script: VecDeque<Action>,
    reviews: VecDeque<Review>,
    asked: Vec<Asked>,
    invalid: Vec<String>,
    elsewhere: Vec<String>,
}

impl ScriptedPrompter {
    /// A prompter that gives these actions, in order, one per prompt.
    pub fn new(script: impl IntoIterator<Item = Action>) -> Self {
        Self {
            script: script.into_iter().collect(),
            reviews: VecDeque::new(),
            asked: Vec::new(),
            invalid: Vec::new(),
            elsewhere: Vec::new(),
        }
    }

    /// Gives these choices, in order, one per review (after them, or without
    /// them, a review submits).
    #[must_use]
    pub fn with_reviews(mut self, reviews: impl IntoIterator<Item = Review>) -> Self {
        self.reviews = reviews.into_iter().collect();
        self
    }

    /// Adds an action at the end of the script.
    pub fn push(&mut self, action: Action) {
        self.script.push_back(action);
    }

    /// How many actions are left.
    pub fn remaining(&self) -> usize {
        self.script.len()
    }

    /// Every prompt asked so far, in order.
    pub fn asked(&self) -> &[Asked] {
        &self.asked
    }

    /// Every message passed to [`Prompter::show_invalid`], in order.
    pub fn invalid_messages(&self) -> &[String] {
        &self.invalid
    }

    /// Every line passed to [`Prompter::show_elsewhere`], in order.
    pub fn elsewhere_lines(&self) -> &[String] {
        &self.elsewhere
    }
}

impl Prompter for ScriptedPrompter {
    fn ask(&mut self, prompt: &Prompt) -> Result<Action, TerminalError> {
        let question = prompt.question().id.clone();
        self.asked.push(Asked {
            question: question.clone(),
            prefill: prompt.prefill_value(),
            can_back: prompt.can_back,
            progress: prompt.progress.map(|p| p.to_string()),
        });
        self.script
            .pop_front()
            .ok_or(TerminalError::ScriptExhausted { question })
    }

    fn show_invalid(&mut self, message: &str) -> Result<(), TerminalError> {
        self.invalid.push(message.to_owned());
        Ok(())
    }

    fn review(&mut self, _: &Prompt, _: &Outcome) -> Result<Review, TerminalError> {
        Ok(self.reviews.pop_front().unwrap_or(Review::Submit))
    }

    fn show_elsewhere(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        self.elsewhere.extend_from_slice(lines);
        Ok(())
    }

    /// Looks at `watch` once, as a person who pressed no key yet: when it says
    /// the inquiry moved, the prompt ends with [`Watched::Moved`] (nothing
    /// typed) and the script is kept for the prompts after it.
    fn ask_watching(
        &mut self,
        prompt: &Prompt,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Action>, TerminalError> {
        if watch() {
            return Ok(Watched::Moved(None));
        }
        self.ask(prompt).map(Watched::Done)
    }

    /// As [`ScriptedPrompter::ask_watching`], for a review.
    fn review_watching(
        &mut self,
        prompt: &Prompt,
        outcome: &Outcome,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Review>, TerminalError> {
        if watch() {
            return Ok(Watched::Moved(None));
        }
        self.review(prompt, outcome).map(Watched::Done)
    }
}
