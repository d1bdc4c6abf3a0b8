//! The validated form the engine walks.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::{Answer, check_answer};
use crate::error::AnswerError;
use crate::form::{Form, Question};
use crate::gate::Gate;
use crate::schema;
use crate::validate::validate;

/// A form that passed validation: schemas compiled, defaults and `when` predicates
/// resolved. Cheap to share (`Arc` inside); compared and serialized as its [`Form`].
#[derive(Debug, Clone)]
pub struct ValidForm(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    form: Arc<Form>,
    compiled: Vec<Compiled>,
}

#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) validator: Option<jsonschema::Validator>,
    pub(crate) default: Option<Answer>,
    pub(crate) gate: Option<Gate>,
}

impl PartialEq for ValidForm {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.form == other.0.form
    }
}

impl Serialize for ValidForm {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.form.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ValidForm {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let form = Form::deserialize(deserializer)?;
        validate(form).map_err(serde::de::Error::custom)
    }
}

impl ValidForm {
    /// Assembles a validated form (only [`validate`] calls this).
    pub(crate) fn from_parts(form: Arc<Form>, compiled: Vec<Compiled>) -> Self {
        Self(Arc::new(Inner { form, compiled }))
    }

    /// The form as submitted.
    pub fn form(&self) -> &Arc<Form> {
        &self.0.form
    }

    /// The questions, in order.
    pub fn questions(&self) -> &[Question] {
        &self.0.form.questions
    }

    /// The question at `index`. Panics if out of range, like slice indexing.
    pub fn question(&self, index: usize) -> &Question {
        &self.0.form.questions[index]
    }

    /// How many questions the form has.
    pub fn len(&self) -> usize {
        self.0.form.questions.len()
    }

    /// Whether the form has no questions (never true for a validated form).
    pub fn is_empty(&self) -> bool {
        self.0.form.questions.is_empty()
    }

    /// The index of the question with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.0.form.questions.iter().position(|q| q.id == id)
    }

    /// Checks a value as an answer to question `index`.
    ///
    /// # Errors
    /// Why the value does not fit the question. Out-of-range indices are rejected as
    /// a type mismatch rather than a panic.
    pub fn check(&self, index: usize, value: &Value) -> Result<Answer, AnswerError> {
        match (self.0.form.questions.get(index), self.0.compiled.get(index)) {
            (Some(question), Some(compiled)) => {
                check_answer(question, compiled.validator.as_ref(), value)
            }
            _ => Err(AnswerError::ExpectedString {
                found: "an answer to a question that does not exist".into(),
            }),
        }
    }

    /// The question's default, as a checked answer.
    pub fn default_answer(&self, index: usize) -> Option<&Answer> {
        self.0.compiled.get(index)?.default.as_ref()
    }

    /// Whether question `index` is asked, given the answers so far (`None` = skipped
    /// or not yet answered).
    pub fn is_asked(&self, index: usize, answers: &[Option<Answer>]) -> bool {
        self.is_asked_with(index, &|k| answers.get(k)?.as_ref())
    }

    /// Whether question `index` is asked, reading answers through `answer_at`.
    pub(crate) fn is_asked_with<'a>(
        &self,
        index: usize,
        answer_at: &dyn Fn(usize) -> Option<&'a Answer>,
    ) -> bool {
        self.0
            .compiled
            .get(index)
            .and_then(|c| c.gate.as_ref())
            .is_none_or(|gate| gate.holds(&self.0.form.questions, answer_at))
    }

    /// The JSON Schema an answer to question `index` must satisfy.
    pub fn answer_schema(&self, index: usize) -> Value {
        self.0
            .form
            .questions
            .get(index)
            .map_or(Value::Bool(false), schema::answer_schema)
    }
}
