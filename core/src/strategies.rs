//! Proptest strategies for property-testing form flows (feature `proptest`).
//!
//! - [`Scenario`]: your own inquiry ids, [`Policy`], origin and forms; its
//!   [`inputs`](Scenario::inputs) are what a host and a person might do over
//!   them, as [`Input`]s of every kind, made against the state as it evolves so
//!   that most target what is current (see [`Scenario`] for the mix).
//!   [`arb_moves`] and [`Scenario::play`] are the two halves, for a fuzz target.
//! - [`arb_form`]: arbitrary *valid* forms (every answer type, options with
//!   descriptions, "Other", defaults, and `when` predicates of every operator over
//!   earlier questions).
//! - [`arb_invalid_form`]: a valid form broken by one known mutation.
//! - [`arb_steps`] and [`session_events`], [`arb_events_for`], [`arb_session`]:
//!   [`Event`] sequences for one inquiry (id `"inquiry"`, a one-minute timeout),
//!   for tests of [`State::decide`] and [`State::apply`] themselves.
//!
//! Property-testing your own host: give a [`Scenario`] your ids, policy and form,
//! run each generated input as your host does (decide, record, apply), and assert
//! what must hold whatever a person does. Here: `env` is only ever sent after a
//! yes to `apply`, and replaying the recorded events gives the same state and
//! the same commands.
//!
//! ```
//! use askuser_core::strategies::Scenario;
//! use askuser_core::{Command, OnTimeout, Policy, State, Timeout, parse_form};
//! use proptest::prelude::*;
//! use serde_json::{Value, json};
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Which environment?", "answer_type": "select",
//!      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
//! ]})).unwrap();
//! // Your policy: 30 seconds to answer, then the defaults; your label.
//! let policy = Policy {
//!     label: Some("Deploy bot".into()),
//!     timeout: Some(Timeout { after_ms: 30_000, on_timeout: OnTimeout::Defaults }),
//!     ..Policy::default()
//! };
//! let scenario = Scenario::new(["deploy-1", "deploy-2"], policy)
//!     .with_forms([form.form().clone()]);
//!
//! proptest!(ProptestConfig::with_cases(64), |(inputs in scenario.inputs(30))| {
//!     let (mut state, mut log, mut commands) = (State::new(), Vec::new(), Vec::new());
//!     for input in &inputs {
//!         prop_assert!(["deploy-1", "deploy-2"].contains(&input.inquiry().as_str()));
//!         // Decide, append to your log, apply. A refused input (a stale page, a
//!         // late answer, a reused id) records nothing and changes nothing.
//!         if let Ok(decision) = state.decide_input(input) {
//!             log.extend_from_slice(decision.events());
//!             state.apply_decision(decision, &mut commands);
//!         }
//!     }
//!     for command in &commands {
//!         if let Command::Respond { outcome, .. } = command {
//!             let production = outcome.get("env") == Some(json!("production"));
//!             prop_assert!(!production || outcome.get("apply") == Some(Value::Bool(true)));
//!         }
//!     }
//!     // What replay runs: the recorded events, applied without deciding again.
//!     let (mut replayed, mut again) = (State::new(), Vec::new());
//!     for event in &log {
//!         replayed.apply(event, &mut again);
//!     }
//!     prop_assert_eq!(replayed, state);
//!     prop_assert_eq!(again, commands);
//! });
//! ```

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::answer::Answer;
use crate::command::Command;
use crate::error::Problem;
use crate::event::{
    AnsweredBy, CancelReason, Event, InquiryId, OnTimeout, Origin, Policy, Request, Timeout,
};
use crate::form::{AnswerType, Choice, Form, Question};
use crate::input::{AnswerInput, At, Input};
use crate::reducer::State;
use crate::when::When;

const LABELS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
const TEXTS: [&str; 4] = ["", "weekly run", "x", "a longer answer with spaces"];

/// A question's shape before ids and predicates are attached.
#[derive(Debug, Clone)]
struct Shape {
    answer_type: AnswerType,
    options: usize,
    allow_other: bool,
    described: bool,
    with_default: bool,
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    (
        0usize..5,
        1usize..=4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(kind, options, allow_other, described, with_default)| {
            let answer_type = AnswerType::ALL[kind];
            Shape {
                answer_type,
                options,
                allow_other: allow_other && answer_type.has_options(),
                described,
                with_default,
            }
        })
}

fn build_question(index: usize, shape: &Shape) -> Question {
    let mut question = Question::new(
        format!("q{index}"),
        format!("Question number {index}?"),
        shape.answer_type,
    );
    if shape.answer_type.has_options() {
        question.options = Some(
            LABELS[..shape.options]
                .iter()
                .map(|label| {
                    if shape.described {
                        Choice::described(*label, format!("about {label}"))
                    } else {
                        Choice::new(*label)
                    }
                })
                .collect(),
        );
        question.allow_other = shape.allow_other;
    }
    if shape.answer_type == AnswerType::Schema {
        question.schema = Some(json!({"type": "integer", "minimum": 0, "maximum": 9}));
    }
    if shape.with_default {
        question.default = Some(sample_answer(&question, index));
    }
    question
}

/// A valid answer to `question`, chosen by `seed`.
pub fn sample_answer(question: &Question, seed: usize) -> Value {
    let labels: Vec<&str> = question
        .choices()
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    match question.answer_type {
        AnswerType::Boolean => Value::Bool(seed.is_multiple_of(2)),
        AnswerType::Select if question.allow_other && seed % 5 == 4 => json!("something else"),
        AnswerType::Select => json!(labels[seed % labels.len()]),
        AnswerType::MultiSelect => Value::Array(
            labels
                .iter()
                .enumerate()
                .filter(|(i, _)| (seed >> i) & 1 == 1)
                .map(|(_, label)| json!(label))
                .collect(),
        ),
        AnswerType::Text => json!(TEXTS[seed % TEXTS.len()]),
        AnswerType::Schema => json!(seed % 10),
    }
}

/// An answer to `question` that is invalid for it, chosen by `seed`.
pub fn invalid_answer(question: &Question, seed: usize) -> Value {
    match question.answer_type {
        AnswerType::Boolean => [json!("yes"), json!(1), Value::Null][seed % 3].clone(),
        AnswerType::Select if question.allow_other => {
            [json!(true), json!(""), json!([])][seed % 3].clone()
        }
        AnswerType::Select => [json!("not an option"), json!(true), json!([])][seed % 3].clone(),
        AnswerType::MultiSelect => {
            let first = question.choices().first().map_or("x", |c| c.label.as_str());
            [json!([first, first]), json!(first), json!([1])][seed % 3].clone()
        }
        AnswerType::Text => [json!(1), json!(false), json!(["x"])][seed % 3].clone(),
        AnswerType::Schema => [json!(-1), json!("seven"), json!(10)][seed % 3].clone(),
    }
}

/// A predicate over an earlier question, valid for its type, chosen by `seed`.
fn predicate(target: &Question, seed: usize) -> When {
    let id = target.id.clone();
    let value = sample_answer(target, seed);
    let leaf = match (seed / 7) % 4 {
        0 => When::equals(id, value),
        1 => When::not_equals(id, value),
        2 => When::one_of(id, [value, sample_answer(target, seed + 1)]),
        _ if target.answer_type == AnswerType::MultiSelect => When::contains(
            id,
            target.choices()[seed % target.choices().len()]
                .label
                .clone(),
        ),
        _ => When::equals(id, Value::Null),
    };
    match (seed / 31) % 5 {
        0 => When::Not(Box::new(leaf)),
        1 => When::Any(vec![leaf, When::equals(target.id.clone(), Value::Null)]),
        2 => When::All(vec![leaf]),
        _ => leaf,
    }
}

/// Arbitrary valid forms of 1 to `max_questions` questions.
pub fn arb_form_of(max_questions: usize) -> impl Strategy<Value = Form> {
    prop::collection::vec(
        (arb_shape(), any::<usize>(), any::<bool>()),
        1..=max_questions.max(1),
    )
    .prop_map(|specs| {
        let mut questions: Vec<Question> = Vec::with_capacity(specs.len());
        for (index, (shape, seed, gated)) in specs.iter().enumerate() {
            let mut question = build_question(index, shape);
            if *gated && index > 0 {
                let target = &questions[seed % index];
                question.when = Some(predicate(target, *seed));
            }
            questions.push(question);
        }
        Form { questions }
    })
}

/// Arbitrary valid forms of 1 to 6 questions.
pub fn arb_form() -> impl Strategy<Value = Form> {
    arb_form_of(6)
}

/// One way of breaking a valid form; [`arb_invalid_form`] applies one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakage {
    /// Two questions share an id.
    DuplicateId,
    /// A question's text is empty.
    EmptyText,
    /// A question's text has a line break.
    MultiLineText,
    /// A select kind without options, or a plain question with them.
    OptionsMismatch,
    /// A `schema` question without a schema, or another type with one.
    SchemaMismatch,
    /// A `when` that names a later question.
    ForwardReference,
    /// A `when` that names no question.
    UnknownReference,
    /// A default of the wrong type.
    WrongDefault,
}

/// A valid form broken by one [`Breakage`], with the breakage applied.
pub fn arb_invalid_form() -> impl Strategy<Value = (Form, Breakage)> {
    let breakages = prop::sample::select(vec![
        Breakage::DuplicateId,
        Breakage::EmptyText,
        Breakage::MultiLineText,
        Breakage::OptionsMismatch,
        Breakage::SchemaMismatch,
        Breakage::ForwardReference,
        Breakage::UnknownReference,
        Breakage::WrongDefault,
    ]);
    (arb_form_of(5), breakages, any::<usize>()).prop_map(|(mut form, breakage, seed)| {
        let count = form.questions.len();
        let index = seed % count;
        let question = &mut form.questions[index];
        match breakage {
            Breakage::DuplicateId => {
                let copy = Question::new(question.id.clone(), "A twin?", AnswerType::Boolean);
                form.questions.push(copy);
            }
            Breakage::EmptyText => question.text = "  ".into(),
            Breakage::MultiLineText => question.text = "first line\nsecond line".into(),
            Breakage::OptionsMismatch => {
                question.options = if question.answer_type.has_options() {
                    None
                } else {
                    Some(vec![Choice::new("x")])
                };
            }
            Breakage::SchemaMismatch => {
                question.schema = if question.answer_type == AnswerType::Schema {
                    None
                } else {
                    Some(json!({"type": "string"}))
                };
            }
            Breakage::ForwardReference => {
                form.questions[index].when = Some(When::equals("later", true));
                form.questions
                    .push(Question::new("later", "Later?", AnswerType::Boolean));
            }
            Breakage::UnknownReference => question.when = Some(When::equals("nowhere", true)),
            Breakage::WrongDefault => {
                question.default = Some(match question.answer_type {
                    AnswerType::Boolean => json!("yes"),
                    _ => json!({"not": "valid"}),
                });
            }
        }
        (form, breakage)
    })
}

/// Something a person, the assistant, or a confused adapter does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Answer the question being asked with a valid value (seeded).
    Answer(usize),
    /// Answer it with an invalid value (seeded).
    AnswerInvalid(usize),
    /// Answer a question other than the one being asked.
    AnswerWrongQuestion,
    /// Go back.
    Back,
    /// Reply (cancel with the answers so far).
    Reply,
    /// End the turn.
    EndTurn,
    /// A system cancellation.
    SystemCancel,
    /// An event for an inquiry that was never requested.
    UnknownInquiry,
    /// Request the same inquiry again.
    RequestAgain,
    /// The host's clock passed the inquiry's deadline.
    TimedOut,
}

/// Arbitrary steps, mostly answers.
pub fn arb_steps(max: usize) -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        10 => any::<usize>().prop_map(Step::Answer),
        2 => any::<usize>().prop_map(Step::AnswerInvalid),
        1 => Just(Step::AnswerWrongQuestion),
        3 => Just(Step::Back),
        1 => Just(Step::Reply),
        1 => Just(Step::EndTurn),
        1 => Just(Step::SystemCancel),
        1 => Just(Step::UnknownInquiry),
        1 => Just(Step::RequestAgain),
        1 => Just(Step::TimedOut),
    ];
    prop::collection::vec(step, 0..=max)
}

/// Turns steps into concrete events for one inquiry of `form` (id `"inquiry"`, the
/// default [`Policy`] with a one-minute timeout that fills in defaults), running the
/// reducer to learn which question is being asked.
/// The first event is always the request.
pub fn session_events(form: &Form, steps: &[Step]) -> Vec<Event> {
    let inquiry = InquiryId::new("inquiry");
    let request = Event::Requested(Request {
        inquiry: inquiry.clone(),
        form: Arc::new(form.clone()),
        policy: Policy {
            timeout: Some(Timeout {
                after_ms: 60_000,
                on_timeout: OnTimeout::Defaults,
            }),
            ..Policy::default()
        },
        origin: Origin::default(),
        call: None,
    });
    let mut state = State::new();
    let _ = crate::reduce(&mut state, &request);
    let mut events = vec![request.clone()];
    for step in steps {
        let current = match state.pending(&inquiry) {
            Some(Command::Prompt(prompt)) => Some(prompt.question().clone()),
            _ => None,
        };
        let answered = |question: &Question, value: Value| Event::Answered {
            inquiry: inquiry.clone(),
            question: question.id.clone(),
            value,
            by: AnsweredBy::User,
            remember: false,
            note: None,
        };
        let event = match (step, &current) {
            (Step::Answer(seed), Some(q)) => answered(q, sample_answer(q, *seed)),
            (Step::AnswerInvalid(seed), Some(q)) => answered(q, invalid_answer(q, *seed)),
            (Step::Answer(_) | Step::AnswerInvalid(_) | Step::AnswerWrongQuestion, _) => {
                Event::Answered {
                    inquiry: inquiry.clone(),
                    question: "no-such-question".into(),
                    value: json!(true),
                    by: AnsweredBy::User,
                    remember: false,
                    note: None,
                }
            }
            (Step::Back, _) => Event::Back {
                inquiry: inquiry.clone(),
            },
            (Step::Reply, _) => Event::Cancelled {
                inquiry: inquiry.clone(),
                reason: CancelReason::UserReply,
                message: None,
            },
            (Step::EndTurn, _) => Event::TurnEnded {
                inquiry: inquiry.clone(),
            },
            (Step::SystemCancel, _) => Event::Cancelled {
                inquiry: inquiry.clone(),
                reason: CancelReason::Unknown("host_shutdown".into()),
                message: None,
            },
            (Step::UnknownInquiry, _) => Event::Back {
                inquiry: InquiryId::new("never-requested"),
            },
            (Step::RequestAgain, _) => request.clone(),
            (Step::TimedOut, _) => Event::TimedOut {
                inquiry: inquiry.clone(),
                message: None,
            },
        };
        // A refused input changes nothing; it is kept, for the property under test.
        let _ = crate::reduce(&mut state, &event);
        events.push(event);
    }
    events
}

/// Up to `max_steps` events against your own `form` (see [`session_events`]): the
/// request first, then mostly valid answers to whatever is being asked, with Back,
/// invalid answers, Reply, End Turn and stray events mixed in. Most events after
/// the first few arrive once the inquiry has finished: to test a host, generate
/// [`Input`]s with a [`Scenario`] instead.
///
/// ```
/// use askuser_core::strategies::arb_events_for;
/// use askuser_core::{reduce, parse_form, Answer, Command, State};
/// use proptest::prelude::*;
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
///     {"id": "env", "text": "Which environment?", "answer_type": "select",
///      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
/// ]})).unwrap();
///
/// proptest!(ProptestConfig::with_cases(64), |(events in arb_events_for(form.form().as_ref().clone(), 20))| {
///     let mut state = State::new();
///     for event in &events {
///         // The outcome never holds an answer for a question whose `when` is false.
///         for command in reduce(&mut state, event).unwrap_or_default() {
///             if let Command::Respond { outcome, .. } = command {
///                 let answers: Vec<Option<Answer>> =
///                     outcome.answers.iter().map(|s| s.as_ref().map(|s| s.answer.clone())).collect();
///                 for (index, answer) in answers.iter().enumerate() {
///                     prop_assert!(answer.is_none() || outcome.form.is_asked(index, &answers));
///                 }
///             }
///         }
///     }
/// });
/// ```
pub fn arb_events_for(form: Form, max_steps: usize) -> impl Strategy<Value = Vec<Event>> {
    arb_steps(max_steps).prop_map(move |steps| session_events(&form, &steps))
}

/// A valid form and up to 40 events against it (see [`session_events`]).
pub fn arb_session() -> impl Strategy<Value = (Form, Vec<Event>)> {
    (arb_form(), arb_steps(40)).prop_map(|(form, steps)| {
        let events = session_events(&form, &steps);
        (form, events)
    })
}

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
    /// `policy`, from the default [`Origin`] (`ask_user`, no turn), with arbitrary
    /// forms.
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
            origin: Origin::default(),
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
            0 => Arc::new(Form {
                questions: vec![Question::new("proceed", "Proceed?", AnswerType::Boolean)],
            }),
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
    /// Back from what is shown (refused at the first question).
    Back,
    /// Reply from what is shown, with or without a message.
    Reply,
    /// The host cancels ([`Input::Cancel`]).
    Cancel,
    /// The person ends the turn.
    EndTurn,
    /// The deadline passed ([`Input::TimeOut`]).
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
        6 => Just(Action::Back),
        2 => Just(Action::Reply),
        1 => Just(Action::Cancel),
        2 => Just(Action::EndTurn),
        2 => Just(Action::TimeOut),
        2 => Just(Action::WantReview),
        4 => Just(Action::Submit),
        2 => Just(Action::Stale),
        2 => Just(Action::Late),
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
            },
            Action::EndTurn => Input::EndTurn {
                inquiry: id.clone(),
            },
            Action::TimeOut if timeout => Input::TimeOut {
                inquiry: id.clone(),
                message: MESSAGES[pick(seed, 2, MESSAGES.len())].map(str::to_owned),
            },
            Action::WantReview => Input::WantReview {
                inquiry: id.clone(),
            },
            Action::Answer | Action::Submit | Action::AnswerInvalid if reviewing => {
                if action == Action::AnswerInvalid {
                    Input::Back(at)
                } else {
                    Input::Submit(at)
                }
            }
            Action::AnswerInvalid => self.answer(id, at, seed, false)?,
            Action::AnswerAhead => self
                .ahead(id, seed)
                .or_else(|| self.answer(id, at.clone(), seed, true))?,
            Action::Show => self.show(id).or_else(|| self.answer(id, at, seed, true))?,
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
            },
            1 if self.scenario.policy.timeout.is_some() => Input::TimeOut {
                inquiry: (*id).clone(),
                message: None,
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
            && self.scenario.ids.get(self.asked) == Some(input.inquiry())
        {
            self.asked += 1;
        }
        let _ = crate::reduce_input(&mut self.state, input);
        if let Some(at) = self.state.at(input.inquiry())
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
