//! [`run_inquiry`]: the loop from the engine's commands to a person's actions and
//! back, until the inquiry finishes.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use askuser_core::{
    At, CancelReason, Command, Input, InquiryId, Outcome, Problem, Progress, Prompt, Refusal,
    State, Surface,
};
use serde_json::Value;

use crate::action::{Action, Prompter, Review, Watched};
use crate::elsewhere::{self, Elsewhere};
use crate::error::TerminalError;

/// What [`run_inquiry`] drives: the engine behind a host (its state, its log).
///
/// [`State`] is one (it decides and applies with [`askuser_core::reduce`]);
/// a host with a log implements it over its log, recording what it decides.
pub trait Engine {
    /// Hands the person's `input` to the engine (deciding it, recording it) and
    /// returns its commands.
    ///
    /// # Errors
    /// When the engine refuses the input: an action on something the inquiry no
    /// longer shows is [`Refusal::Stale`].
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, Refusal>;

    /// What another surface recorded for `inquiry` since the person's screen was
    /// last up to date (the last command this engine returned), read from the
    /// host's log: `None` when nothing changed for it. The walk asks before it
    /// records an action the person took on a prompt or a review (all but End
    /// Turn), and again when the engine refuses one: an action taken on a screen
    /// that no longer shows what is current is not recorded; the person is told
    /// what changed ([`Prompter::show_elsewhere`]) and the walk carries on from
    /// [`Elsewhere::commands`]. The default (a [`State`], which no one else
    /// writes): `None`.
    fn elsewhere(&mut self, inquiry: &InquiryId) -> Option<Elsewhere> {
        let _ = inquiry;
        None
    }

    /// Whether the host's log may hold something the person's screen does not
    /// show yet: another process appended to it since the screen was last up
    /// to date. A cheap look (a flag the host's waiter sets when the log wakes
    /// it), taken at least ten times a second while a prompt waits for a key;
    /// when it says yes, the walk asks [`Engine::elsewhere`], and when that
    /// finds the inquiry moved, the prompt is left without a key pressed and
    /// the screen shows the inquiry as it is now (what the person was typing
    /// kept, not sent). The default (a [`State`], which no one else writes):
    /// `false`.
    fn woken(&mut self) -> bool {
        false
    }

    /// How long the person has left to answer what `inquiry` waits on now, when
    /// its policy has a timeout: counted by the host from when the question
    /// started waiting (the time its log recorded the event that put it up), so
    /// every surface shows one deadline. `None` (the default): the prompter
    /// counts its own time limit from when the prompt shows.
    fn time_left(&mut self, inquiry: &InquiryId) -> Option<Duration> {
        let _ = inquiry;
        None
    }

    /// The host's clock now, in milliseconds since the Unix epoch: the time a
    /// timeout the prompter fires carries ([`Input::TimeOut`]), by the same clock
    /// [`Engine::time_left`] counts with. The default reads the wall clock.
    fn now_ms(&mut self) -> u64 {
        crate::action::wall_clock_ms()
    }
}

/// An engine that can only apply: a closure.
struct Applying<F>(F);

impl<F> Engine for Applying<F>
where
    F: FnMut(&Input) -> Result<Vec<Command>, Refusal>,
{
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, Refusal> {
        (self.0)(input)
    }
}

impl Engine for State {
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, Refusal> {
        askuser_core::reduce(self, input)
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
/// [`Action`] into an [`Input`] naming what the prompt showed (see
/// [`Action::to_input`]), passes it to `apply` (which decides it, records it,
/// and returns the commands it yields), and goes on until the inquiry responds,
/// fails, is rejected, ends the turn, or needs the assistant.
///
/// The terminal reviews: with the first answer of a form that calls for a
/// review ([`ValidForm::wants_review`](askuser_core::ValidForm::wants_review)),
/// the engine records that one is wanted, and once every question is answered
/// the person reviews the answers ([`Prompter::review`]), all of them already
/// recorded, so a Reply or End Turn from the review keeps every answer it
/// showed. Submitting sends them; changing an earlier answer goes Back to it, and the
/// answers after it whose questions still apply are given again as they were
/// (not asked again); a question that starts to apply is asked.
///
/// `commands` are the commands the engine gave for the inquiry so far (typically
/// those of its `Requested` event). A [`Command::InvalidAnswer`] is shown with
/// [`Prompter::show_invalid`] and the prompt after it is asked again.
///
/// ```
/// use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
/// use askuser_terminal::{Action, Finish, ScriptedPrompter, run_inquiry};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]})).unwrap();
/// let mut state = State::new();
/// let first = reduce(&mut state, &Input::Ask(Request {
///     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
///     policy: Default::default(), origin: Default::default(), call: None,
/// })).unwrap();
/// // The scripted person submits the review (its default).
/// let mut person = ScriptedPrompter::new([Action::Answer(json!(true))]);
/// let finish = run_inquiry(&mut person, first, |input| reduce(&mut state, input)).unwrap();
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
    F: FnMut(&Input) -> Result<Vec<Command>, Refusal>,
{
    run_with_engine(prompter, commands, &mut Applying(apply))
}

/// [`run_inquiry`] over an [`Engine`].
///
/// ```
/// use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
/// use askuser_terminal::{Action, Finish, Review, ScriptedPrompter, run_with_engine};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "ok", "text": "Proceed?", "answer_type": "boolean"},
///     {"id": "why", "text": "Why?", "answer_type": "text"}]})).unwrap();
/// let mut state = State::new();
/// let first = reduce(&mut state, &Input::Ask(Request {
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
                inquiry,
                outcome,
                step,
            } => walk.review(prompter, engine, &At::review(inquiry, step), &outcome)?,
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
}

impl Walk {
    /// Asks `prompt`; the commands that follow.
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
        prompter.set_deadline(deadline(engine, &prompt.inquiry));
        let mut moved = None;
        let watched =
            prompter.ask_watching(&prompt, &mut watch(engine, &prompt.inquiry, &mut moved))?;
        let action = match watched {
            Watched::Done(action) => action,
            Watched::Moved(typed) => {
                let again = Command::Prompt(prompt.clone());
                return Self::woken(prompter, engine, &prompt, typed.as_ref(), moved, again);
            }
        };
        if action != Action::EndTurn
            && let Some(moved) = engine.elsewhere(&prompt.inquiry)
        {
            return Self::caught_up(prompter, &prompt, Some(&action), &moved);
        }
        // The engine records the review the form calls for with the first answer.
        let input = action.to_input_at(&prompt, engine.now_ms());
        let step = Self::record(prompter, engine, &prompt, Some(&action), &input)?;
        let commands = step.into_commands_or(|| Command::Prompt(prompt.clone()));
        self.last = Some(prompt);
        Ok(commands)
    }

    /// Shows the review of `outcome`; the commands that follow.
    fn review<P, E>(
        &mut self,
        prompter: &mut P,
        engine: &mut E,
        at: &At,
        outcome: &Outcome,
    ) -> Result<VecDeque<Command>, TerminalError>
    where
        P: Prompter + ?Sized,
        E: Engine + ?Sized,
    {
        let inquiry = &at.inquiry;
        let prompt = self
            .last
            .clone()
            .filter(|prompt| &prompt.inquiry == inquiry)
            .unwrap_or_else(|| last_prompt(inquiry, outcome));
        let inquiry = inquiry.clone();
        prompter.set_deadline(deadline(engine, &inquiry));
        let mut moved = None;
        let watched =
            prompter.review_watching(&prompt, outcome, &mut watch(engine, &inquiry, &mut moved))?;
        let review = match watched {
            Watched::Done(review) => review,
            Watched::Moved(typed) => {
                let asked_again = Command::Review {
                    inquiry: inquiry.clone(),
                    outcome: outcome.clone(),
                    step: at.step,
                };
                return Self::woken(
                    prompter,
                    engine,
                    &prompt,
                    typed.as_ref(),
                    moved,
                    asked_again,
                );
            }
        };
        // What the person typed that a refusal must not lose.
        let action = match &review {
            Review::Reply { message } => Some(Action::Reply {
                message: message.clone(),
            }),
            Review::TimedOut { message } => Some(Action::TimedOut {
                message: message.clone(),
            }),
            Review::Submit | Review::Change(_) | Review::EndTurn => None,
        };
        if review != Review::EndTurn
            && let Some(moved) = engine.elsewhere(&inquiry)
        {
            return Self::caught_up(prompter, &prompt, action.as_ref(), &moved);
        }
        let input = match review {
            Review::Submit => Input::Submit(at.clone()),
            // One input: the engine goes back to the question and, once it is
            // answered again, gives the later answers again (where they show).
            Review::Change(index) => Input::Change {
                at: at.clone(),
                question: outcome.form.question(index).id.clone(),
            },
            Review::Reply { message } => Input::Reply {
                at: at.clone(),
                message,
            },
            Review::EndTurn => Input::EndTurn {
                inquiry,
                surface: Some(Surface::Terminal),
            },
            Review::TimedOut { message } => Input::TimeOut {
                inquiry,
                message,
                fired_at_ms: engine.now_ms(),
            },
        };
        let step = Self::record(prompter, engine, &prompt, action.as_ref(), &input)?;
        Ok(step.into_commands_or(|| Command::Review {
            inquiry: at.inquiry.clone(),
            outcome: outcome.clone(),
            step: at.step,
        }))
    }

    /// Hands `input`, taken at `asked` (the person's `action`, when it holds
    /// something they typed), to the engine; when the engine refuses it because
    /// another surface moved the inquiry first, catches up instead.
    fn record<P, E>(
        prompter: &mut P,
        engine: &mut E,
        asked: &Prompt,
        action: Option<&Action>,
        input: &Input,
    ) -> Result<Step, TerminalError>
    where
        P: Prompter + ?Sized,
        E: Engine + ?Sized,
    {
        match engine.handle(input) {
            Ok(commands) => Ok(Step::Applied(commands.into())),
            // The host's clock ran ahead of the log's: the person is told, and
            // what they were at is shown again until the deadline.
            Err(Refusal::NotYetDue {
                due_at_ms,
                fired_at_ms,
                ..
            }) => {
                let left = due_at_ms.saturating_sub(fired_at_ms).div_ceil(1000);
                prompter.show_invalid(&format!(
                    "The time to answer is not up yet: {left} s left by the log's clock, so the question is still open"
                ))?;
                Ok(Step::NotYetDue)
            }
            Err(refusal) => match input
                .inquiry()
                .and_then(|inquiry| engine.elsewhere(inquiry))
            {
                Some(moved) => Ok(Step::CaughtUp(Self::caught_up(
                    prompter, asked, action, &moved,
                )?)),
                None => Err(refusal.into()),
            },
        }
    }

    /// The prompt `asked` was left without a key pressed, as another surface
    /// moved the inquiry (`moved`, found by the watch), with what the person
    /// was typing (`typed`): catches up. `again` asks the same thing again,
    /// should the engine, asked once more, know of no change after all (a
    /// prompter that left without the watch saying so).
    fn woken<P, E>(
        prompter: &mut P,
        engine: &mut E,
        asked: &Prompt,
        typed: Option<&Action>,
        moved: Option<Elsewhere>,
        again: Command,
    ) -> Result<VecDeque<Command>, TerminalError>
    where
        P: Prompter + ?Sized,
        E: Engine + ?Sized,
    {
        match moved.or_else(|| engine.elsewhere(&asked.inquiry)) {
            Some(moved) => Self::caught_up(prompter, asked, typed, &moved),
            None => Ok(VecDeque::from([again])),
        }
    }

    /// Tells the person what another surface did while they were at `asked`,
    /// keeps their answer in the next prompt's field where it fits, and returns
    /// the commands of the inquiry as it is now.
    fn caught_up<P>(
        prompter: &mut P,
        asked: &Prompt,
        action: Option<&Action>,
        moved: &Elsewhere,
    ) -> Result<VecDeque<Command>, TerminalError>
    where
        P: Prompter + ?Sized,
    {
        let mut commands: VecDeque<Command> = moved.commands.iter().cloned().collect();
        let carried = match (action, commands.front_mut()) {
            (Some(action), Some(Command::Prompt(next))) => elsewhere::carry(action, asked, next),
            _ => false,
        };
        prompter.show_elsewhere(&elsewhere::lines(moved, action, carried))?;
        Ok(commands)
    }
}

/// What became of an event the walk recorded.
enum Step {
    /// Recorded: the commands it yielded.
    Applied(VecDeque<Command>),
    /// Refused, as another surface had moved the inquiry: the commands of the
    /// inquiry as it is now (the person was told).
    CaughtUp(VecDeque<Command>),
    /// A timeout refused as not due yet (the person was told): what was shown
    /// is shown again.
    NotYetDue,
}

impl Step {
    /// The commands that follow; `again` (what was shown) after a timeout the
    /// engine did not take yet.
    fn into_commands_or(self, again: impl FnOnce() -> Command) -> VecDeque<Command> {
        match self {
            Step::Applied(commands) | Step::CaughtUp(commands) => commands,
            Step::NotYetDue => VecDeque::from([again()]),
        }
    }
}

/// The watch a prompt looks at while it waits for a key: whether another
/// surface moved `inquiry` (the engine woken, and a change for it found), the
/// change kept in `moved` for the walk.
fn watch<'a, E: Engine + ?Sized>(
    engine: &'a mut E,
    inquiry: &'a InquiryId,
    moved: &'a mut Option<Elsewhere>,
) -> impl FnMut() -> bool + 'a {
    move || {
        if moved.is_none() && engine.woken() {
            *moved = engine.elsewhere(inquiry);
        }
        moved.is_some()
    }
}

/// The moment the prompt for `inquiry` times out, from the engine's time left.
fn deadline<E: Engine + ?Sized>(engine: &mut E, inquiry: &InquiryId) -> Option<Instant> {
    engine.time_left(inquiry).map(|left| Instant::now() + left)
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
