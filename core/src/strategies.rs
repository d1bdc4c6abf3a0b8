//! Proptest strategies for property-testing form flows (feature `proptest`).
//!
//! - [`arb_form`]: arbitrary *valid* forms (every answer type, options with
//!   descriptions, "Other", defaults, and `when` predicates of every operator over
//!   earlier questions).
//! - [`arb_invalid_form`]: a valid form broken by one known mutation.
//! - [`arb_steps`] and [`session_events`]: what a person (or a confused adapter)
//!   might do, made into a concrete event sequence by running the reducer, so the
//!   events answer the question actually being asked most of the time.
//! - [`arb_session`]: a form together with such an event sequence.
//!
//! Property-testing your own form: generate what a person might do with
//! [`arb_events_for`], run the events through the reducer, and assert what must hold
//! whatever they do. Here: the outcome never holds an answer for a question whose
//! `when` is false.
//!
//! ```
//! use askuser_core::strategies::arb_events_for;
//! use askuser_core::{reduce, parse_form, Answer, Command, State};
//! use proptest::prelude::*;
//! use serde_json::json;
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Which environment?", "answer_type": "select",
//!      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
//! ]})).unwrap();
//!
//! proptest!(ProptestConfig::with_cases(64), |(events in arb_events_for(form.form().as_ref().clone(), 20))| {
//!     let mut state = State::new();
//!     for event in &events {
//!         // Inputs that do not fit the state are refused (and change nothing).
//!         for command in reduce(&mut state, event).unwrap_or_default() {
//!             if let Command::Respond { outcome, .. } = command {
//!                 let answers: Vec<Option<Answer>> =
//!                     outcome.answers.iter().map(|s| s.as_ref().map(|s| s.answer.clone())).collect();
//!                 for (index, answer) in answers.iter().enumerate() {
//!                     prop_assert!(answer.is_none() || outcome.form.is_asked(index, &answers));
//!                 }
//!             }
//!         }
//!     }
//! });
//! ```

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::command::Command;
use crate::event::{
    AnsweredBy, CancelReason, Event, InquiryId, OnTimeout, Origin, Policy, Request, Timeout,
};
use crate::form::{AnswerType, Choice, Form, Question};
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
/// invalid answers, Reply, End Turn and stray events mixed in.
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
