//! A `when` predicate resolved to question indices, evaluated without allocating.

use serde_json::Value;

use crate::answer::Answer;
use crate::form::Question;
use crate::when::When;

/// A validated `when` predicate; each leaf holds the index of the earlier question it
/// reads. A question that was skipped (or not yet answered) reads as `null`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Gate {
    Equals(usize, Value),
    NotEquals(usize, Value),
    OneOf(usize, Vec<Value>),
    Contains(usize, Value),
    All(Vec<Gate>),
    Any(Vec<Gate>),
    Not(Box<Gate>),
}

impl Gate {
    /// Whether the predicate holds; `answer_at(k)` gives the answer to question `k`.
    pub(crate) fn holds<'a>(
        &self,
        questions: &[Question],
        answer_at: &dyn Fn(usize) -> Option<&'a Answer>,
    ) -> bool {
        let equals = |index: usize, value: &Value| match answer_at(index) {
            None => value.is_null(),
            Some(answer) => questions
                .get(index)
                .is_some_and(|q| answer.equals_value(q, value)),
        };
        match self {
            Gate::Equals(index, value) => equals(*index, value),
            Gate::NotEquals(index, value) => !equals(*index, value),
            Gate::OneOf(index, values) => values.iter().any(|value| equals(*index, value)),
            Gate::Contains(index, value) => answer_at(*index)
                .zip(questions.get(*index))
                .is_some_and(|(answer, q)| answer.contains_value(q, value)),
            Gate::All(gates) => gates.iter().all(|g| g.holds(questions, answer_at)),
            Gate::Any(gates) => gates.iter().any(|g| g.holds(questions, answer_at)),
            Gate::Not(gate) => !gate.holds(questions, answer_at),
        }
    }
}

impl Gate {
    /// Resolves a `when` predicate of question `own` without checking it: the form was
    /// validated when it was decided, so this only maps ids to indices. A reference
    /// that does not resolve to an earlier question (never the case for a decided
    /// form) reads as a skipped question.
    pub(crate) fn resolve(questions: &[Question], own: usize, when: &When) -> Gate {
        let index = |id: &str| {
            questions[..own.min(questions.len())]
                .iter()
                .position(|q| q.id == id)
                .unwrap_or(usize::MAX)
        };
        let all = |items: &[When]| {
            items
                .iter()
                .map(|item| Gate::resolve(questions, own, item))
                .collect()
        };
        match when {
            When::Equals { question_id, value } => Gate::Equals(index(question_id), value.clone()),
            When::NotEquals { question_id, value } => {
                Gate::NotEquals(index(question_id), value.clone())
            }
            When::Contains { question_id, value } => {
                Gate::Contains(index(question_id), value.clone())
            }
            When::OneOf {
                question_id,
                values,
            } => Gate::OneOf(index(question_id), values.clone()),
            When::All(items) => Gate::All(all(items)),
            When::Any(items) => Gate::Any(all(items)),
            When::Not(inner) => Gate::Not(Box::new(Gate::resolve(questions, own, inner))),
        }
    }
}
