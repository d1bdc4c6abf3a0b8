//! Arbitrary forms: valid ones of every answer type and predicate, and valid
//! ones broken by one known mutation; answers that fit a question or do not.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::form::{AnswerType, Choice, Form, Question};
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
        Form::new(questions)
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
