//! [`Scenario`]: a host's own ids, policy and forms, and what a host and a
//! person might do over them, as [`Input`]s made against the state as it
//! evolves.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;

use crate::answer::Answer;
use crate::command::Command;
use crate::error::Problem;
use crate::event::{AnsweredBy, CancelReason, InquiryId, Origin, Policy, Request, Surface};
use crate::form::{AnswerType, Form, Question};
use crate::input::{AnswerInput, At, Input};
use crate::reducer::State;

use super::forms::{arb_form, invalid_answer, sample_answer};

/// Your own setting for generated [`Input`]s: the inquiry ids your host mints, the
/// [`Policy`] it asks with, its [`Origin`], and the forms it asks (arbitrary valid
/// forms when you give none).
///
/// [`Scenario::inputs`] generates what a host and a person might do over these
/// inquiries, as [`Input`]s of every kind. Each input is made against the state
/// as it evolves ([`Scenario::play`] runs the engine to learn what each inquiry
/// shows), so most of them target what is current: mostly valid answers, some
/// invalid ones, answers ahead, Back, Reply, End Turn, a time out (when the
/// policy has a timeout), a review wanted and submitted; and, a few at a time,
/// what goes wrong between surfaces: a stale page, a late answer after its
/// inquiry finished, a reused id. The inquiries are asked in the order of `ids`,
/// the next one whenever none is open (and now and then beside an open one);
/// once every inquiry has finished, only late inputs follow.
#[derive(Debug, Clone)]
pub struct Scenario {
    ids: Vec<InquiryId>,
    policy: Policy,
    origin: Origin,
    forms: Vec<Arc<Form>>,
}

impl Scenario {
    /// Inquiries named `ids` (in the order they are asked), each asked with
    /// `policy`, from the default [`Origin`] (`ask_user`, no turn) of an asker
    /// that takes results it missed ([`Origin::resumes`]), with arbitrary forms.
    ///
    /// # Panics
    /// If `ids` is empty.
    pub fn new<I>(ids: I, policy: Policy) -> Self
    where
        I: IntoIterator,
        I::Item: Into<InquiryId>,
    {
        let ids: Vec<InquiryId> = ids.into_iter().map(Into::into).collect();
        assert!(!ids.is_empty(), "a scenario needs at least one inquiry id");
        Self {
            ids,
            policy,
            origin: Origin {
                resumes: true,
                ..Origin::default()
            },
            forms: Vec::new(),
        }
    }

    /// Asks these forms: the `k`-th inquiry asks form `k` (cycling through them).
    /// No forms: arbitrary valid forms ([`arb_form`]) in [`Scenario::inputs`], and
    /// one yes/no question in [`Scenario::play`].
    #[must_use]
    pub fn with_forms<F: Into<Arc<Form>>>(mut self, forms: impl IntoIterator<Item = F>) -> Self {
        self.forms = forms.into_iter().map(Into::into).collect();
        self
    }

    /// Asks from `origin` (a tool name, a turn: inquiries of one turn end together
    /// at End Turn).
    #[must_use]
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// The inquiry ids, in the order they are asked.
    pub fn ids(&self) -> &[InquiryId] {
        &self.ids
    }

    /// The policy every inquiry is asked with.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Up to `max_moves` inputs over this scenario's inquiries (see [`Scenario`]),
    /// made from [`arb_moves`] by [`Scenario::play`]; they shrink with the moves.
    pub fn inputs(&self, max_moves: usize) -> impl Strategy<Value = Vec<Input>> + use<> {
        let forms = if self.forms.is_empty() {
            prop::collection::vec(arb_form().prop_map(Arc::new), self.ids.len()).boxed()
        } else {
            Just(self.forms.clone()).boxed()
        };
        let scenario = self.clone();
        (forms, arb_moves(max_moves)).prop_map(move |(forms, moves)| {
            let mut scenario = scenario.clone();
            scenario.forms = forms;
            scenario.play(&moves)
        })
    }

    /// Turns moves into inputs, running the engine on a state of its own to learn
    /// what each inquiry shows before each move (deterministic: the same moves give
    /// the same inputs). A move with no input to make (a late one before anything
    /// was asked, anything but a late one once every inquiry has finished) makes
    /// none.
    pub fn play(&self, moves: &[Move]) -> Vec<Input> {
        let mut player = Player {
            scenario: self,
            state: State::new(),
            asked: 0,
            shown: Vec::new(),
        };
        moves
            .iter()
            .filter_map(|step| {
                let input = player.input(*step)?;
                player.take(&input);
                Some(input)
            })
            .collect()
    }

    fn request(&self, index: usize, inquiry: InquiryId) -> Request {
        let form = match self.forms.len() {
            0 => Arc::new(Form::new(vec![Question::new(
                "proceed",
                "Proceed?",
                AnswerType::Boolean,
            )])),
            count => Arc::clone(&self.forms[index % count]),
        };
        Request {
            inquiry,
            form,
            policy: self.policy.clone(),
            origin: self.origin.clone(),
            call: None,
        }
    }
}

/// What a host or a person does next, in [`Scenario::play`]: an [`Action`] and the
/// seed that picks the inquiry, the value and the details.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// What is done.
    pub action: Action,
    /// Picks the open inquiry acted on, the answer, the note, the message.
    pub seed: usize,
}

/// The kinds of [`Move`]. Each is made against what its inquiry shows now; one
/// that does not fit it (Submit before the review, an answer ahead with no later
/// question, a time out without a timeout) becomes the answer that does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Ask the next inquiry ([`Input::Ask`]); once every id is used, ask an open
    /// one again (refused: a duplicate id).
    Ask,
    /// The host's parser refused the next call ([`Input::RejectCall`]).
    RejectCall,
    /// A valid answer to what is shown (at the review: Submit), sometimes with a
    /// note, asked to be remembered, or from a surface that reviews.
    Answer,
    /// An answer that does not fit the question (at the review: Back).
    AnswerInvalid,
    /// A valid answer to a later question whose `when` holds ([`Input::AnswerAhead`]).
    AnswerAhead,
    /// The questions from the current one on, shown together ([`Input::Show`]).
    Show,
    /// The client's form came back with nobody at it ([`Input::NoteClient`]).
    NoteClient,
    /// Back from what is shown (refused at the first question).
    Back,
    /// Reply from what is shown, with or without a message.
    Reply,
    /// The host cancels ([`Input::Cancel`]).
    Cancel,
    /// The person ends the turn.
    EndTurn,
    /// The time to answer ran out ([`Input::TimeOut`], fired at one of a few
    /// times: the scenario's engine knows no deadline, so it takes any).
    TimeOut,
    /// The surface will show a review ([`Input::WantReview`]).
    WantReview,
    /// Submit the review shown; before the review, a valid answer from a surface
    /// that reviews.
    Submit,
    /// An answer, Back, Reply or submit from a page that shows an earlier step
    /// (refused as stale).
    Stale,
    /// An input for an inquiry that has finished (or, before any has, one not yet
    /// asked): a surface that lost a race.
    Late,
    /// The asker hands a finished inquiry's result over ([`Input::Deliver`]):
    /// one owed when there is one, else one handed over already or still open
    /// (refused).
    Deliver,
}

/// Arbitrary moves, up to `max`: mostly answers to what is shown, about one in
/// ten a move that ends an inquiry (Reply, Cancel, End Turn, time out), and about
/// one in thirty-five each a stale page and a late input.
pub fn arb_moves(max: usize) -> impl Strategy<Value = Vec<Move>> {
    let action = prop_oneof![
        3 => Just(Action::Ask),
        1 => Just(Action::RejectCall),
        30 => Just(Action::Answer),
        5 => Just(Action::AnswerInvalid),
        4 => Just(Action::AnswerAhead),
        2 => Just(Action::Show),
        1 => Just(Action::NoteClient),
        6 => Just(Action::Back),
        2 => Just(Action::Reply),
        1 => Just(Action::Cancel),
        2 => Just(Action::EndTurn),
        2 => Just(Action::TimeOut),
        2 => Just(Action::WantReview),
        4 => Just(Action::Submit),
        2 => Just(Action::Stale),
        2 => Just(Action::Late),
        1 => Just(Action::Deliver),
    ];
    prop::collection::vec(
        (action, any::<usize>()).prop_map(|(action, seed)| Move { action, seed }),
        0..=max,
    )
}

const MESSAGES: [Option<&str>; 4] = [
    None,
    Some("not now, ask me after lunch"),
    Some("two lines\r\nfrom a browser"),
    Some("   "),
];
const NOTES: [Option<&str>; 4] = [None, Some("only after 6pm"), None, Some("a\r\nb")];

/// `seed` cut into independent small choices.
fn pick(seed: usize, salt: u32, count: usize) -> usize {
    seed.rotate_left(salt * 7) % count.max(1)
}

/// When a generated timeout is fired, in milliseconds since the Unix epoch: the
/// scenario's engine applies with no recorded time, so it has no deadline to
/// hold a timeout to and takes any (see [`Input::TimeOut`]); a host replaying
/// the inputs on a log with a clock holds them to its own deadlines.
fn fired_at(seed: usize) -> u64 {
    [0, 60_000, 1_767_225_600_000][pick(seed, 5, 3)]
}

/// Plays moves against a state of its own.
struct Player<'a> {
    scenario: &'a Scenario,
    state: State,
    /// How many of the scenario's ids have been used.
    asked: usize,
    /// Every place an inquiry showed, for stale and late inputs.
    shown: Vec<At>,
}

impl Player<'_> {
    fn input(&self, step: Move) -> Option<Input> {
        let open: Vec<&InquiryId> = self.state.open_inquiries().collect();
        let (action, seed) = (step.action, step.seed);
        if action == Action::Deliver {
            return self.deliver(&open, seed);
        }
        if action == Action::Late {
            return self.late(seed).or_else(|| {
                let id = open.get(pick(seed, 1, open.len()))?;
                self.stale(id, seed)
            });
        }
        let fresh = self.scenario.ids.get(self.asked).cloned();
        if let Some(id) = fresh.clone().filter(|_| open.is_empty()) {
            return Some(if action == Action::RejectCall {
                rejected(id)
            } else {
                Input::Ask(self.scenario.request(self.asked, id))
            });
        }
        let id = (*open.get(pick(seed, 1, open.len()))?).clone();
        Some(match action {
            Action::Ask | Action::RejectCall => {
                let reuse = fresh.is_none();
                let id = if reuse { id } else { fresh? };
                match action {
                    Action::RejectCall => rejected(id),
                    _ => Input::Ask(self.scenario.request(self.asked, id)),
                }
            }
            Action::Stale => self.stale(&id, seed)?,
            other => self.on_current(&id, other, seed)?,
        })
    }

    /// One of the questions of `id` the person answered (chosen by `seed`),
    /// for a change from the review; `None` every other seed, so that Back
    /// from the review is generated too.
    fn answered_by_person(&self, id: &InquiryId, seed: usize) -> Option<String> {
        if pick(seed, 4, 2) == 0 {
            return None;
        }
        let form = self.state.form(id)?;
        let answered: Vec<usize> = (self.state.answers(id)?.iter().enumerate())
            .filter(|(_, slot)| {
                slot.as_ref()
                    .is_some_and(|slot| slot.by == AnsweredBy::User)
            })
            .map(|(index, _)| index)
            .collect();
        let index = *answered.get(pick(seed, 5, answered.len().max(1)))?;
        Some(form.question(index).id.clone())
    }

    /// An input on what inquiry `id` shows now.
    fn on_current(&self, id: &InquiryId, action: Action, seed: usize) -> Option<Input> {
        let at = self.state.at(id)?;
        let reviewing = at.question.is_none();
        let timeout = self.state.policy(id)?.timeout.is_some();
        Some(match action {
            Action::Back => Input::Back(at),
            Action::Reply => Input::Reply {
                at,
                message: MESSAGES[pick(seed, 2, MESSAGES.len())].map(str::to_owned),
            },
            Action::Cancel => Input::Cancel {
                inquiry: id.clone(),
                reason: [
                    CancelReason::BackendError,
                    CancelReason::Unknown("host_shutdown".into()),
                ][pick(seed, 2, 2)]
                .clone(),
                message: MESSAGES[pick(seed, 3, MESSAGES.len())].map(str::to_owned),
            },
            Action::EndTurn => Input::EndTurn {
                inquiry: id.clone(),
                surface: [
                    None,
                    Some(Surface::Terminal),
                    Some(Surface::Web),
                    Some(Surface::Host),
                ][pick(seed, 2, 4)],
            },
            Action::TimeOut if timeout => Input::TimeOut {
                inquiry: id.clone(),
                message: MESSAGES[pick(seed, 2, MESSAGES.len())].map(str::to_owned),
                fired_at_ms: fired_at(seed),
            },
            Action::WantReview => Input::WantReview {
                inquiry: id.clone(),
            },
            Action::Answer | Action::Submit | Action::AnswerInvalid if reviewing => {
                if action != Action::AnswerInvalid {
                    Input::Submit(at)
                } else if let Some(question) = self.answered_by_person(id, seed) {
                    Input::Change { at, question }
                } else {
                    Input::Back(at)
                }
            }
            Action::AnswerInvalid => self.answer(id, at, seed, false)?,
            Action::AnswerAhead => self
                .ahead(id, seed)
                .or_else(|| self.answer(id, at.clone(), seed, true))?,
            Action::Show => self.show(id).or_else(|| self.answer(id, at, seed, true))?,
            Action::NoteClient => Input::NoteClient {
                inquiry: id.clone(),
                note: crate::ClientNote::NoPerson {
                    action: crate::FormAction::Cancel,
                    after_ms: seed as u64 % 500,
                },
            },
            Action::Submit => match self.answer(id, at, seed, true)? {
                Input::Answer(answer) => Input::Answer(answer.reviewed()),
                other => other,
            },
            _ => self.answer(id, at, seed, true)?,
        })
    }

    /// An answer to the question `at` shows, valid or not, by whoever it waits on.
    fn answer(&self, id: &InquiryId, at: At, seed: usize, valid: bool) -> Option<Input> {
        let form = self.state.form(id)?;
        let question = form.question(form.index_of(at.question.as_deref()?)?);
        let value = if valid {
            sample_answer(question, seed)
        } else {
            invalid_answer(question, seed)
        };
        let by = match self.state.pending(id)? {
            Command::AskAssistant { .. } => AnsweredBy::Assistant,
            _ => AnsweredBy::User,
        };
        let mut answer = AnswerInput::new(at, value)
            .by(by)
            .with_note(NOTES[pick(seed, 3, NOTES.len())].map(str::to_owned));
        answer.remember = pick(seed, 4, 3) == 0;
        if pick(seed, 5, 3) == 0 {
            answer = answer.reviewed();
        }
        Some(Input::Answer(answer))
    }

    /// A valid answer to a later question of `id` whose `when` holds now.
    fn ahead(&self, id: &InquiryId, seed: usize) -> Option<Input> {
        let Some(Command::Prompt(prompt)) = self.state.pending(id) else {
            return None;
        };
        let answers: Vec<Option<Answer>> = self
            .state
            .answers(id)?
            .iter()
            .map(|slot| slot.as_ref().map(|slot| slot.answer.clone()))
            .collect();
        let form = &prompt.form;
        let later: Vec<usize> = (prompt.index + 1..form.len())
            .filter(|&index| form.is_asked(index, &answers))
            .collect();
        let question = form.question(*later.get(pick(seed, 6, later.len()))?);
        Some(Input::AnswerAhead {
            inquiry: id.clone(),
            question: question.id.clone(),
            value: sample_answer(question, seed),
        })
    }

    /// The questions of `id` from the one shown on, shown together.
    fn show(&self, id: &InquiryId) -> Option<Input> {
        let Some(Command::Prompt(prompt)) = self.state.pending(id) else {
            return None;
        };
        let questions = prompt.form.questions()[prompt.index..]
            .iter()
            .map(|question| question.id.clone())
            .collect();
        Some(Input::Show {
            inquiry: id.clone(),
            questions,
        })
    }

    /// An answer, Back, Reply or submit from a page of `id` showing an earlier
    /// step (or, if it never showed another, what it shows now as the other kind).
    fn stale(&self, id: &InquiryId, seed: usize) -> Option<Input> {
        let current = self.state.at(id)?;
        let earlier: Vec<&At> = self
            .shown
            .iter()
            .filter(|at| at.inquiry == *id && **at != current)
            .collect();
        let at = match earlier.get(pick(seed, 7, earlier.len())) {
            Some(at) => (*at).clone(),
            None if current.question.is_none() => At::question(
                id.clone(),
                self.state.form(id)?.question(0).id.clone(),
                current.step,
            ),
            None => At::review(id.clone(), current.step),
        };
        Some(self.taken_on(at, seed))
    }

    /// A result handed over: of an inquiry whose result is owed, else of one
    /// that finished or is open (refused); `None` before anything was asked.
    fn deliver(&self, open: &[&InquiryId], seed: usize) -> Option<Input> {
        let owed: Vec<&InquiryId> = self.state.owed().map(|(id, _)| id).collect();
        let used = &self.scenario.ids[..self.asked];
        let id = match owed.get(pick(seed, 1, owed.len())) {
            Some(id) => (*id).clone(),
            None => used
                .get(pick(seed, 1, used.len()))
                .or_else(|| open.first().copied())?
                .clone(),
        };
        Some(Input::Deliver { inquiry: id })
    }

    /// An input for an inquiry that has finished, from the last place it showed;
    /// before any has, for an id not asked yet.
    fn late(&self, seed: usize) -> Option<Input> {
        let used = &self.scenario.ids[..self.asked];
        let finished: Vec<&InquiryId> = used
            .iter()
            .filter(|id| self.state.at(id).is_none())
            .collect();
        let Some(id) = finished.get(pick(seed, 1, finished.len())) else {
            let unasked = self.scenario.ids.get(self.asked)?;
            return Some(self.taken_on(At::question(unasked.clone(), "q0", 0), seed));
        };
        let at = self
            .shown
            .iter()
            .rev()
            .find(|at| at.inquiry == **id)
            .cloned()
            .unwrap_or_else(|| At::question((*id).clone(), "q0", 0));
        Some(match pick(seed, 8, 6) {
            0 => Input::EndTurn {
                inquiry: (*id).clone(),
                surface: Some(Surface::Terminal),
            },
            1 if self.scenario.policy.timeout.is_some() => Input::TimeOut {
                inquiry: (*id).clone(),
                message: None,
                fired_at_ms: fired_at(seed),
            },
            _ => self.taken_on(at, seed),
        })
    }

    /// An answer, Back, Reply or submit taken on `at`, whatever it shows now.
    fn taken_on(&self, at: At, seed: usize) -> Input {
        match (pick(seed, 9, 4), &at.question) {
            (0, Some(_)) => Input::Answer(AnswerInput::new(at, json!(true))),
            (1, _) => Input::Back(at),
            (2, _) => Input::Reply { at, message: None },
            (_, None) => Input::Submit(at),
            (_, Some(question)) => {
                let value = self
                    .state
                    .form(&at.inquiry)
                    .and_then(|form| Some(form.question(form.index_of(question)?)))
                    .map_or(json!("late"), |question| sample_answer(question, seed));
                Input::Answer(AnswerInput::new(at, value))
            }
        }
    }

    /// Hands `input` to the engine, and notes what its inquiry shows next.
    fn take(&mut self, input: &Input) {
        if matches!(input, Input::Ask(_) | Input::RejectCall { .. })
            && self.scenario.ids.get(self.asked) == input.inquiry()
        {
            self.asked += 1;
        }
        let _ = crate::reduce(&mut self.state, input);
        if let Some(at) = input.inquiry().and_then(|inquiry| self.state.at(inquiry))
            && !self.shown.contains(&at)
        {
            self.shown.push(at);
        }
    }
}

/// A call the host's parser refused, for inquiry `id`.
fn rejected(inquiry: InquiryId) -> Input {
    Input::RejectCall {
        inquiry,
        tool: "ask_user".into(),
        problems: vec![Problem {
            path: "/questions".into(),
            message: "must be a list of questions".into(),
        }],
    }
}
