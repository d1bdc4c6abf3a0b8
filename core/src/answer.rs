//! Answers: a value checked against its question, held compactly.
//!
//! A select answer is held as the index of its option, and a multi-select answer as a
//! set of indices, so recording the common answers allocates nothing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::AnswerError;
use crate::form::{AnswerType, Question};
use crate::json::json_type;
use crate::limits::{MAX_ANSWER_BYTES, MAX_OPTIONS, json_bytes, json_string_bytes};

/// A checked answer to one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The answer to a `boolean` question.
    Bool(bool),
    /// The option at this index of a `select` question.
    Choice(u8),
    /// Free text given to a `select` question that allows "Other".
    Other(String),
    /// The picks of a `multi_select` question.
    Choices(Picks),
    /// The answer to a `text` question.
    Text(String),
    /// The answer to a `schema` question. Boxed, so that every answer (and
    /// every answer slot a state holds, one per question) is the size of a text
    /// rather than of any JSON value: a schema answer is the rare one.
    Json(Box<Value>),
}

/// The picks of a `multi_select` answer: a set of option indices, plus any free text
/// where the question allows "Other".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Picks {
    /// Bit `i` is set when option `i` is picked.
    pub options: OptionSet,
    /// Free-text picks, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<String>,
}

/// A set of option indices (at most [`MAX_OPTIONS`] = 64).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OptionSet(u64);

const _: () = assert!(MAX_OPTIONS <= 64, "OptionSet holds at most 64 options");

impl OptionSet {
    /// Whether option `index` is in the set.
    pub fn contains(self, index: usize) -> bool {
        index < 64 && self.0 & (1 << index) != 0
    }

    /// Adds option `index`; returns false when it was already there (or is past
    /// the 64 a set holds).
    pub fn insert(&mut self, index: usize) -> bool {
        if index >= 64 {
            return false;
        }
        let bit = 1u64 << index;
        let fresh = self.0 & bit == 0;
        self.0 |= bit;
        fresh
    }

    /// The indices in the set, ascending.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..64).filter(move |&i| self.contains(i))
    }

    /// How many options are in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl Answer {
    /// The answer as the JSON value the model receives: a boolean, a label or typed
    /// text, a list of labels (option order, then free text), or the JSON value.
    pub fn to_value(&self, question: &Question) -> Value {
        let choices = question.choices();
        match self {
            Answer::Bool(b) => Value::Bool(*b),
            Answer::Choice(i) => Value::String(
                choices
                    .get(usize::from(*i))
                    .map(|c| c.label.clone())
                    .unwrap_or_default(),
            ),
            Answer::Other(text) | Answer::Text(text) => Value::String(text.clone()),
            Answer::Choices(picks) => Value::Array(
                picks
                    .options
                    .iter()
                    .filter_map(|i| choices.get(i))
                    .map(|c| Value::String(c.label.clone()))
                    .chain(picks.other.iter().cloned().map(Value::String))
                    .collect(),
            ),
            Answer::Json(value) => Value::clone(value),
        }
    }

    /// Whether the answer, as JSON, equals `value`, without building the JSON.
    pub fn equals_value(&self, question: &Question, value: &Value) -> bool {
        let choices = question.choices();
        match (self, value) {
            (Answer::Bool(b), Value::Bool(v)) => b == v,
            (Answer::Choice(i), Value::String(v)) => {
                choices.get(usize::from(*i)).is_some_and(|c| &c.label == v)
            }
            (Answer::Other(text) | Answer::Text(text), Value::String(v)) => text == v,
            (Answer::Choices(picks), Value::Array(items)) => {
                items.len() == picks.options.len() + picks.other.len()
                    && picks
                        .options
                        .iter()
                        .filter_map(|i| choices.get(i))
                        .map(|c| c.label.as_str())
                        .chain(picks.other.iter().map(String::as_str))
                        .zip(items)
                        .all(|(label, item)| item.as_str() == Some(label))
            }
            (Answer::Json(json), v) => **json == *v,
            _ => false,
        }
    }

    /// Whether a multi-select answer includes `value` (an option label or free text).
    pub fn contains_value(&self, question: &Question, value: &Value) -> bool {
        let (Answer::Choices(picks), Value::String(v)) = (self, value) else {
            return false;
        };
        picks
            .options
            .iter()
            .filter_map(|i| question.choices().get(i))
            .any(|c| &c.label == v)
            || picks.other.iter().any(|o| o == v)
    }
}

/// Checks `value` against `question` (and its compiled schema, for `schema`
/// questions) and gives the compact answer, or why it does not fit.
pub(crate) fn check_answer(
    question: &Question,
    validator: Option<&jsonschema::Validator>,
    value: &Value,
) -> Result<Answer, AnswerError> {
    match question.answer_type {
        AnswerType::Boolean => match value {
            Value::Bool(b) => Ok(Answer::Bool(*b)),
            other => Err(AnswerError::ExpectedBool {
                found: json_type(other).to_owned(),
            }),
        },
        AnswerType::Select => {
            let Value::String(text) = value else {
                return Err(AnswerError::ExpectedString {
                    found: json_type(value).to_owned(),
                });
            };
            check_string_length(text)?;
            if let Some(index) = question.choices().iter().position(|c| &c.label == text) {
                #[allow(clippy::cast_possible_truncation)] // at most MAX_OPTIONS = 64 options
                return Ok(Answer::Choice(index as u8));
            }
            if !question.allow_other {
                return Err(not_an_option(question, text));
            }
            if text.trim().is_empty() {
                return Err(AnswerError::EmptyOther);
            }
            Ok(Answer::Other(text.clone()))
        }
        AnswerType::MultiSelect => check_picks(question, value).map(Answer::Choices),
        AnswerType::Text => match value {
            Value::String(text) => {
                check_string_length(text)?;
                Ok(Answer::Text(text.clone()))
            }
            other => Err(AnswerError::ExpectedString {
                found: json_type(other).to_owned(),
            }),
        },
        AnswerType::Schema => {
            let bytes = json_bytes(value);
            check_length(bytes)?;
            if let Some(validator) = validator {
                // Sorted, so the message does not depend on the validator's internal
                // (hash) order and replays give the same text.
                let mut messages: Vec<String> = validator
                    .iter_errors(value)
                    .take(64)
                    .map(|error| {
                        let at = error.instance_path().to_string();
                        if at.is_empty() {
                            error.to_string()
                        } else {
                            format!("at {at}: {error}")
                        }
                    })
                    .collect();
                messages.sort();
                messages.dedup();
                messages.truncate(8);
                if !messages.is_empty() {
                    return Err(AnswerError::SchemaViolation {
                        message: messages.join("; "),
                    });
                }
            }
            Ok(Answer::Json(Box::new(value.clone())))
        }
    }
}

fn check_picks(question: &Question, value: &Value) -> Result<Picks, AnswerError> {
    let Value::Array(items) = value else {
        return Err(AnswerError::ExpectedList {
            found: json_type(value).to_owned(),
        });
    };
    let mut picks = Picks::default();
    let mut bytes = 2;
    for (index, item) in items.iter().enumerate() {
        let Value::String(text) = item else {
            return Err(AnswerError::ExpectedLabel {
                index,
                found: json_type(item).to_owned(),
            });
        };
        bytes += json_string_bytes(text) + 1;
        check_length(bytes)?;
        if let Some(option) = question.choices().iter().position(|c| &c.label == text) {
            if !picks.options.insert(option) {
                return Err(AnswerError::DuplicatePick {
                    label: text.clone(),
                });
            }
        } else if let Some(label) = picked_again(question, &picks, text) {
            // `" a "` beside `"a"`: the same option twice, not an unknown one.
            return Err(AnswerError::DuplicatePick {
                label: label.to_owned(),
            });
        } else if !question.allow_other {
            return Err(not_an_option(question, text));
        } else if text.trim().is_empty() {
            return Err(AnswerError::EmptyOther);
        } else if picks.other.contains(text) {
            return Err(AnswerError::DuplicatePick {
                label: text.clone(),
            });
        } else {
            picks.other.push(text.clone());
        }
    }
    Ok(picks)
}

/// The label of an option already picked that `text` names once surrounding white
/// space is trimmed (as a person's typed answer is read).
fn picked_again<'q>(question: &'q Question, picks: &Picks, text: &str) -> Option<&'q str> {
    let trimmed = text.trim();
    question
        .choices()
        .iter()
        .enumerate()
        .find(|&(i, c)| picks.options.contains(i) && c.label.trim() == trimmed)
        .map(|(_, c)| c.label.as_str())
}

/// [`check_length`] of a text answer as a JSON string. A byte takes at most six
/// in JSON (`\u0001`), so a text short enough fits without counting its escapes.
fn check_string_length(text: &str) -> Result<(), AnswerError> {
    if text.len().saturating_mul(6).saturating_add(2) <= MAX_ANSWER_BYTES {
        return Ok(());
    }
    check_length(json_string_bytes(text))
}

fn check_length(bytes: usize) -> Result<(), AnswerError> {
    if bytes > MAX_ANSWER_BYTES {
        return Err(AnswerError::TooLong {
            bytes,
            max: MAX_ANSWER_BYTES,
        });
    }
    Ok(())
}

fn not_an_option(question: &Question, text: &str) -> AnswerError {
    AnswerError::NotAnOption {
        value: text.to_owned(),
        options: question.quoted_labels(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn select(allow_other: bool) -> Question {
        Question::new("env", "Which environment?", AnswerType::Select)
            .with_options(["staging", "production"])
            .with_other(allow_other)
    }

    /// A schema answer's JSON is boxed, so an answer is the size of a text (32
    /// bytes on 64-bit targets, not the 72 of a `Value` with `preserve_order`),
    /// and the answer slots of a ten-question form (640 bytes) stay within
    /// glibc's per-thread cache (1,032 bytes): the reducer walk's instruction
    /// count (benches/README.md) depends on it.
    #[test]
    fn an_answer_is_the_size_of_a_text() {
        assert_eq!(std::mem::size_of::<Answer>(), 32);
        assert_eq!(std::mem::size_of::<Option<crate::command::Slot>>(), 64);
        let value = json!({"a": [1, 2]});
        let question = Question::new("q", "Q?", AnswerType::Schema);
        let answer = check_answer(&question, None, &value).expect("a schema answer");
        assert_eq!(answer, Answer::Json(Box::new(value.clone())));
        assert_eq!(answer.to_value(&question), value);
        assert!(answer.equals_value(&question, &value));
        assert_eq!(
            serde_json::to_value(&answer).expect("serializes"),
            json!({"json": {"a": [1, 2]}})
        );
    }

    #[test]
    fn a_select_answer_is_its_option_index_and_renders_as_the_label() {
        let q = select(false);
        let answer = check_answer(&q, None, &json!("production")).unwrap();
        assert_eq!(answer, Answer::Choice(1));
        assert_eq!(answer.to_value(&q), json!("production"));
        assert!(answer.equals_value(&q, &json!("production")));
        assert!(!answer.equals_value(&q, &json!("staging")));
    }

    #[test]
    fn free_text_is_other_only_where_allowed() {
        assert_eq!(
            check_answer(&select(false), None, &json!("dev"))
                .unwrap_err()
                .to_string(),
            "\"dev\" is not one of the options: \"staging\", \"production\""
        );
        assert_eq!(
            check_answer(&select(true), None, &json!("dev")).unwrap(),
            Answer::Other("dev".into())
        );
        assert_eq!(
            check_answer(&select(true), None, &json!("  ")).unwrap_err(),
            AnswerError::EmptyOther
        );
    }

    #[test]
    fn multi_select_picks_render_in_option_order_and_reject_repeats() {
        let q = Question::new("f", "Which?", AnswerType::MultiSelect)
            .with_options(["auth", "api", "admin"]);
        let answer = check_answer(&q, None, &json!(["admin", "auth"])).unwrap();
        assert_eq!(answer.to_value(&q), json!(["auth", "admin"]));
        assert!(answer.contains_value(&q, &json!("admin")));
        assert!(!answer.contains_value(&q, &json!("api")));
        assert_eq!(
            check_answer(&q, None, &json!(["api", "api"]))
                .unwrap_err()
                .to_string(),
            "\"api\" is picked twice; pick each option at most once"
        );
        assert_eq!(
            check_answer(&q, None, &json!(["api", 3]))
                .unwrap_err()
                .to_string(),
            "item 1 is a number; every item must be an option label"
        );
    }

    #[test]
    fn types_are_checked() {
        let b = Question::new("b", "Ok?", AnswerType::Boolean);
        assert_eq!(
            check_answer(&b, None, &json!("yes"))
                .unwrap_err()
                .to_string(),
            "expected true or false, got a string"
        );
        let t = Question::new("t", "Name?", AnswerType::Text);
        assert_eq!(
            check_answer(&t, None, &json!(5)).unwrap_err().to_string(),
            "expected a string, got a number"
        );
        let long = "x".repeat(MAX_ANSWER_BYTES + 1);
        assert_eq!(
            check_answer(&t, None, &json!(long)).unwrap_err(),
            AnswerError::TooLong {
                bytes: MAX_ANSWER_BYTES + 3,
                max: MAX_ANSWER_BYTES
            }
        );
        // Counted as written: each U+0001 is six bytes (`\u0001`) in JSON.
        let escaped = "\u{1}".repeat(MAX_ANSWER_BYTES / 6 + 1);
        assert_eq!(
            check_answer(&t, None, &json!(escaped)).unwrap_err(),
            AnswerError::TooLong {
                bytes: (MAX_ANSWER_BYTES / 6 + 1) * 6 + 2,
                max: MAX_ANSWER_BYTES
            }
        );
    }
}
