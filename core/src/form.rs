//! The form model: what a model submits, before validation.
//!
//! A [`Form`] is a list of [`Question`]s. Its serde shape reads the `jp-form` tool
//! arguments directly (`{"questions": [{"id", "text", "answer_type", ...}]}`); to
//! collect *every* problem of a model-supplied value at once, use
//! [`parse_form`](crate::parse_form) instead of `serde_json::from_value`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::valid_form::Derived;
use crate::when::When;

/// A form: the questions of one `ask_user` call, in the order they are asked.
///
/// Build one with [`Form::new`] (or read it with [`parse_form`](crate::parse_form)
/// or serde). The engine keeps what it derives from the questions (each `when`
/// predicate resolved to question indices, each default converted, each schema
/// compiled) with the form the first time it walks it, so every inquiry and
/// every state that shares one `Arc<Form>` derives it once. A clone starts
/// without it; compared, serialized and shown, a form is its questions alone.
/// Change the questions of a form before the engine uses it, never after (a form
/// taken back out of its `Arc` keeps what was derived from its old questions):
/// build a new one instead.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Form {
    /// The questions, in order. A `when` predicate may only name an earlier one.
    pub questions: Vec<Question>,
    /// What the engine derived from the questions, once (see above).
    #[serde(skip)]
    pub(crate) derived: Derived,
}

impl Form {
    /// A form of these questions, in the order they are asked.
    pub fn new(questions: Vec<Question>) -> Self {
        Self {
            questions,
            derived: Derived::default(),
        }
    }
}

impl From<Vec<Question>> for Form {
    fn from(questions: Vec<Question>) -> Self {
        Self::new(questions)
    }
}

#[allow(clippy::missing_fields_in_debug)] // the cache is left out on purpose, as before it
impl fmt::Debug for Form {
    /// The questions alone (what was derived from them says nothing new).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Form")
            .field("questions", &self.questions)
            .finish()
    }
}

/// One question of a [`Form`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The question's id, unique within its form; the key of its answer in the result.
    pub id: String,
    /// The question itself, one line.
    pub text: String,
    /// Optional multi-line context, shown above the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Optional short label (a tab or chip title in some interfaces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// What kind of answer the question takes.
    #[serde(default)]
    pub answer_type: AnswerType,
    /// The choices of a `select` or `multi_select` question; absent for every other type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<Choice>>,
    /// Whether a `select` or `multi_select` question also takes free text ("Other").
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_other: bool,
    /// The JSON Schema a `schema` answer must satisfy; absent for every other type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// A value to prefill the prompt with; it must be a valid answer to the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Ask this question only when the predicate holds; otherwise its answer is `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<When>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

impl Question {
    /// A question with the given id, text and answer type and nothing else set.
    pub fn new(id: impl Into<String>, text: impl Into<String>, answer_type: AnswerType) -> Self {
        Self {
            id: id.into(),
            text: text.into(),
            context: None,
            header: None,
            answer_type,
            options: None,
            allow_other: false,
            schema: None,
            default: None,
            when: None,
        }
    }

    /// Sets the options (for `select` and `multi_select`).
    #[must_use]
    pub fn with_options<I, C>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<Choice>,
    {
        self.options = Some(options.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the `when` predicate.
    #[must_use]
    pub fn with_when(mut self, when: When) -> Self {
        self.when = Some(when);
        self
    }

    /// Sets the default (prefilled) answer.
    #[must_use]
    pub fn with_default(mut self, default: Value) -> Self {
        self.default = Some(default);
        self
    }

    /// Sets the JSON Schema (for `schema`).
    #[must_use]
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Sets the context shown above the question.
    #[must_use]
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }

    /// Sets the short header.
    #[must_use]
    pub fn with_header(mut self, header: impl Into<String>) -> Self {
        self.header = Some(header.into());
        self
    }

    /// Allows (or forbids) a free-text "Other" answer on a select kind.
    #[must_use]
    pub fn with_other(mut self, allow_other: bool) -> Self {
        self.allow_other = allow_other;
        self
    }

    /// The option labels quoted and comma-separated (`"staging", "production"`), as
    /// messages about a wrong answer list them.
    pub fn quoted_labels(&self) -> String {
        self.choices()
            .iter()
            .map(|c| format!("\"{}\"", c.label))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The options, or an empty slice for types that take none.
    pub fn choices(&self) -> &[Choice] {
        self.options.as_deref().unwrap_or_default()
    }
}

/// The kind of answer a question takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    /// Yes or no: a JSON boolean.
    Boolean,
    /// One of the options (or free text where `allow_other` is set): a JSON string.
    Select,
    /// Any number of distinct options: a JSON array of strings.
    MultiSelect,
    /// Free text: a JSON string. The default when `answer_type` is absent.
    #[default]
    Text,
    /// Any JSON value valid against the question's `schema`.
    Schema,
}

impl AnswerType {
    /// Every answer type, in documentation order.
    pub const ALL: [AnswerType; 5] = [
        AnswerType::Boolean,
        AnswerType::Select,
        AnswerType::MultiSelect,
        AnswerType::Text,
        AnswerType::Schema,
    ];

    /// The name used in tool arguments (`"multi_select"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            AnswerType::Boolean => "boolean",
            AnswerType::Select => "select",
            AnswerType::MultiSelect => "multi_select",
            AnswerType::Text => "text",
            AnswerType::Schema => "schema",
        }
    }

    /// The answer type with this name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the type takes `options`.
    pub fn has_options(self) -> bool {
        matches!(self, AnswerType::Select | AnswerType::MultiSelect)
    }
}

impl fmt::Display for AnswerType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One option of a select kind: a label and an optional description.
///
/// In JSON an option is either a plain string (the label) or
/// `{"label": "...", "description": "..."}`; one without a description is written
/// back as a plain string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Choice {
    /// What the person picks, and what the answer holds.
    pub label: String,
    /// An optional explanation shown beside the label.
    pub description: Option<String>,
}

impl Choice {
    /// An option with a label and no description.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            description: None,
        }
    }

    /// An option with a label and a description.
    pub fn described(label: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            description: Some(description.into()),
        }
    }
}

impl From<&str> for Choice {
    fn from(label: &str) -> Self {
        Choice::new(label)
    }
}

impl From<String> for Choice {
    fn from(label: String) -> Self {
        Choice::new(label)
    }
}

#[derive(Serialize)]
struct ChoiceObject<'a> {
    label: &'a str,
    description: &'a str,
}

impl Serialize for Choice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.description {
            None => serializer.serialize_str(&self.label),
            Some(description) => ChoiceObject {
                label: &self.label,
                description,
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Choice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ChoiceVisitor)
    }
}

/// Reads a plain label or a `{"label", "description"}` object without buffering.
struct ChoiceVisitor;

impl<'de> serde::de::Visitor<'de> for ChoiceVisitor {
    type Value = Choice;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an option label or a {\"label\", \"description\"} object")
    }

    fn visit_str<E: serde::de::Error>(self, label: &str) -> Result<Choice, E> {
        Ok(Choice::new(label))
    }

    fn visit_string<E: serde::de::Error>(self, label: String) -> Result<Choice, E> {
        Ok(Choice::new(label))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Choice, A::Error> {
        let mut label = None;
        let mut description = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "label" => label = Some(map.next_value::<String>()?),
                "description" => description = map.next_value::<Option<String>>()?,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        let label = label.ok_or_else(|| serde::de::Error::missing_field("label"))?;
        Ok(Choice { label, description })
    }
}
