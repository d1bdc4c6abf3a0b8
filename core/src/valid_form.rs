//! The validated form the engine walks.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::{Answer, check_answer};
use crate::error::AnswerError;
use crate::form::{AnswerType, Form, Question};
use crate::gate::Gate;
use crate::schema;

/// A form that passed validation: defaults and `when` predicates resolved, schemas
/// compiled when first needed. Cheap to share (`Arc` inside); compared and serialized
/// as its [`Form`].
///
/// Two ways make one: [`validate`](crate::validate) checks every rule (what deciding
/// a request does), and the engine rebuilds a form it decided earlier (applying a
/// recorded request, loading a snapshot) without checking it again, so replaying a
/// log never depends on the validator. A schema is compiled the first time an answer
/// is checked against it. What is resolved, converted and compiled is kept with the
/// shared [`Form`] (see there), so every inquiry of one `Arc<Form>`, in any state,
/// derives it once.
#[derive(Debug, Clone)]
pub struct ValidForm(Arc<Form>);

/// What the engine derives from a form's questions, one entry per question,
/// filled the first time it is needed and kept with the form. A cache: a clone
/// starts empty, and it never tells two forms apart.
#[derive(Default)]
pub(crate) struct Derived(OnceLock<Box<[Compiled]>>);

impl Clone for Derived {
    /// Empty: a clone's questions may be changed before it is used.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Derived {
    /// Always equal: what is derived from the questions says nothing new.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Derived")
    }
}

#[derive(Debug)]
pub(crate) struct Compiled {
    /// The compiled schema of a `schema` question (or why it does not compile),
    /// filled when first needed.
    pub(crate) validator: OnceLock<Result<jsonschema::Validator, String>>,
    pub(crate) default: Option<Answer>,
    pub(crate) gate: Option<Gate>,
}

impl Compiled {
    /// The parts of a checked question; `validator` is its compiled schema, if any.
    pub(crate) fn new(
        validator: Option<jsonschema::Validator>,
        default: Option<Answer>,
        gate: Option<Gate>,
    ) -> Self {
        let cell = OnceLock::new();
        if let Some(validator) = validator {
            let _ = cell.set(Ok(validator));
        }
        Self {
            validator: cell,
            default,
            gate,
        }
    }
}

impl PartialEq for ValidForm {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Serialize for ValidForm {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ValidForm {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A serialized form was validated before it was written (snapshots hold only
        // decided forms); rebuilding it does not check it again.
        Ok(ValidForm::decided(Arc::new(Form::deserialize(
            deserializer,
        )?)))
    }
}

impl ValidForm {
    /// Assembles a validated form (only [`validate`] calls this). A form the
    /// engine already derived keeps what it derived: the same, from the same
    /// questions.
    pub(crate) fn from_parts(form: Arc<Form>, compiled: Vec<Compiled>) -> Self {
        let _ = form.derived.0.set(compiled.into_boxed_slice());
        Self(form)
    }

    /// Rebuilds a form that was validated when it was decided, without checking it
    /// again: `when` predicates are resolved and defaults converted (once per
    /// shared form, when first needed), and schemas are compiled only if an
    /// answer is checked.
    pub(crate) fn decided(form: Arc<Form>) -> Self {
        Self(form)
    }

    /// What is derived from question `index`, derived for every question the
    /// first time.
    fn compiled(&self, index: usize) -> Option<&Compiled> {
        self.0.derived.0.get_or_init(|| derive(&self.0)).get(index)
    }

    /// The form as submitted.
    pub fn form(&self) -> &Arc<Form> {
        &self.0
    }

    /// The questions, in order.
    pub fn questions(&self) -> &[Question] {
        &self.0.questions
    }

    /// The question at `index`. Panics if out of range, like slice indexing.
    pub fn question(&self, index: usize) -> &Question {
        &self.0.questions[index]
    }

    /// How many questions the form has.
    pub fn len(&self) -> usize {
        self.0.questions.len()
    }

    /// Whether the form has no questions (never true for a validated form).
    pub fn is_empty(&self) -> bool {
        self.0.questions.is_empty()
    }

    /// The index of the question with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.0.questions.iter().position(|q| q.id == id)
    }

    /// Checks a value as an answer to question `index`, against its schema too.
    ///
    /// # Errors
    /// Why the value does not fit the question. Out-of-range indices are rejected as
    /// a type mismatch rather than a panic.
    pub fn check(&self, index: usize, value: &Value) -> Result<Answer, AnswerError> {
        match (self.0.questions.get(index), self.compiled(index)) {
            (Some(question), Some(compiled)) => {
                let validator = match &question.schema {
                    Some(schema) if question.answer_type == AnswerType::Schema => {
                        match compiled.validator.get_or_init(|| schema::compile(schema)) {
                            Ok(validator) => Some(validator),
                            Err(reason) => {
                                return Err(AnswerError::SchemaViolation {
                                    message: format!(
                                        "the question's schema does not compile: {reason}"
                                    ),
                                });
                            }
                        }
                    }
                    _ => None,
                };
                check_answer(question, validator, value)
            }
            _ => Err(AnswerError::ExpectedString {
                found: "an answer to a question that does not exist".into(),
            }),
        }
    }

    /// Converts an answer that was checked when it was decided into its compact form,
    /// without consulting the schema: what applying a recorded answer does. `None`
    /// when the value does not even have the question's shape (never the case for a
    /// decided answer).
    pub(crate) fn convert(&self, index: usize, value: &Value) -> Option<Answer> {
        check_answer(self.0.questions.get(index)?, None, value).ok()
    }

    /// The question's default, as a checked answer.
    pub fn default_answer(&self, index: usize) -> Option<&Answer> {
        self.compiled(index)?.default.as_ref()
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
        self.compiled(index)
            .and_then(|c| c.gate.as_ref())
            .is_none_or(|gate| gate.holds(&self.0.questions, answer_at))
    }

    /// Whether a surface that offers a review shows one before this form's
    /// answers are sent: forms of more than one question. A one-question form
    /// is sent with its answer, on every surface: the answer is the whole form,
    /// and a review would only show it again. The one rule every surface
    /// follows, applied by [`State::decide`](crate::State::decide).
    pub fn wants_review(&self) -> bool {
        self.len() > 1
    }

    /// The JSON Schema an answer to question `index` must satisfy.
    pub fn answer_schema(&self, index: usize) -> Value {
        self.0
            .questions
            .get(index)
            .map_or(Value::Bool(false), schema::answer_schema)
    }
}

/// Resolves each `when` predicate and converts each default of a decided form,
/// without checking it again (see [`ValidForm::decided`]).
fn derive(form: &Form) -> Box<[Compiled]> {
    form.questions
        .iter()
        .enumerate()
        .map(|(index, question)| Compiled {
            validator: OnceLock::new(),
            default: question
                .default
                .as_ref()
                .and_then(|value| check_answer(question, None, value).ok()),
            gate: question
                .when
                .as_ref()
                .map(|when| Gate::resolve(&form.questions, index, when)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::Question;
    use crate::when::When;

    /// Where a decided form's derived parts are, if they were derived.
    fn derived(form: &ValidForm) -> Option<*const Compiled> {
        form.0.derived.0.get().map(|parts| parts.as_ptr())
    }

    /// The gates and defaults are derived once per shared form, whatever number
    /// of inquiries and states use it; a clone derives its own.
    #[test]
    fn what_a_form_derives_is_kept_with_the_shared_form() {
        let form = Arc::new(Form::new(vec![
            Question::new("a", "A?", AnswerType::Boolean),
            Question::new("b", "B?", AnswerType::Text).with_when(When::equals("a", true)),
        ]));
        let first = ValidForm::decided(Arc::clone(&form));
        assert_eq!(derived(&first), None, "derived when first needed");
        assert!(first.is_asked(1, &[Some(Answer::Bool(true)), None]));
        assert!(!first.is_asked(1, &[Some(Answer::Bool(false)), None]));
        let second = ValidForm::decided(Arc::clone(&form));
        assert!(derived(&first).is_some());
        assert_eq!(derived(&second), derived(&first));
        let copy = ValidForm::decided(Arc::new(Form::clone(&form)));
        assert_eq!(derived(&copy), None);
        assert_eq!(copy, first, "compared as its questions");
        assert_eq!(
            format!("{:?}", Form::new(Vec::new())),
            "Form { questions: [] }"
        );
    }
}
