//! Answer values from a UI: what a person picked or typed, as the JSON value an
//! answer carries, with "Other" handled the same way by every surface (the
//! terminal's typed text, the web page's picks and "Other" field, an MCP form's
//! fields, a JSON-lines client's or an answers file's values).

use crate::{AnswerError, AnswerType, Question, ValidForm};
use serde_json::Value;

use crate::json::json_type;

/// What a person gave for one question in some UI.
#[derive(Debug, Clone, PartialEq)]
pub enum UiInput {
    /// Yes or no.
    Bool(bool),
    /// The option at this index (0-based) was picked.
    Pick(usize),
    /// The options at these indices were picked (multi-select).
    Picks(Vec<usize>),
    /// A line of text: an option's label, free text, `yes`/`no`, or JSON for a
    /// schema question.
    Text(String),
    /// Several labels and/or free texts (multi-select).
    List(Vec<String>),
    /// A JSON value, as an RPC client or an answers file gives it.
    Json(Value),
}

/// Why a person's input is not an answer to the question. Show it and ask again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiAnswerError {
    /// The input is of a kind the question does not take.
    #[error("this {answer_type} question takes {expected}, not {found}")]
    WrongKind {
        /// The question's answer type.
        answer_type: AnswerType,
        /// What it takes, in words.
        expected: &'static str,
        /// What was given, in words.
        found: String,
    },
    /// An option index past the end of the options.
    #[error("there is no option {number}; pick 1 to {count}")]
    NoSuchOption {
        /// The 1-based number given.
        number: usize,
        /// How many options there are.
        count: usize,
    },
    /// Text that is not an option, where free text is not allowed.
    #[error("\"{value}\" is not one of the options: {options}")]
    NotAnOption {
        /// What was given.
        value: String,
        /// The options, quoted and comma-separated.
        options: String,
    },
    /// Empty text.
    #[error("the answer is empty; pick an option or type an answer")]
    Empty,
    /// The same option picked twice.
    #[error("\"{label}\" is picked twice; pick each option at most once")]
    DuplicatePick {
        /// The repeated pick.
        label: String,
    },
    /// Text for a schema question that is not JSON (and not a string its schema
    /// takes).
    #[error("the answer is not valid JSON ({reason}); type a JSON value such as {{\"key\": 1}}")]
    NotJson {
        /// The parser's message.
        reason: String,
    },
    /// The value read does not fit the question: a schema answer its schema, a
    /// text answer its limits ([`ValidForm::ui_answer`] checks it).
    #[error(transparent)]
    DoesNotFit(AnswerError),
}

/// The JSON value of what a person gave for `question`, ready for
/// [`AnswerInput::new`](crate::AnswerInput::new).
///
/// "Other" is treated the same for every adapter: a text equal to an option's label
/// (after trimming surrounding whitespace) is that option; any other non-empty text
/// is the person's own answer where the question allows it (`allow_other`), and an
/// error otherwise. The engine still checks the value (a schema answer against its
/// schema, for one).
///
/// ```
/// use askuser_core::{AnswerType, Question, UiInput, ui_answer};
/// use serde_json::json;
///
/// let q = Question::new("db", "Which database?", AnswerType::Select)
///     .with_options(["PostgreSQL", "SQLite"])
///     .with_other(true);
/// assert_eq!(ui_answer(&q, UiInput::Pick(1)), Ok(json!("SQLite")));
/// assert_eq!(ui_answer(&q, UiInput::Text(" SQLite\n".into())), Ok(json!("SQLite")));
/// assert_eq!(ui_answer(&q, UiInput::Text("DynamoDB".into())), Ok(json!("DynamoDB")));
/// ```
///
/// # Errors
/// Why the input does not answer the question, in words for the person.
pub fn ui_answer(question: &Question, input: UiInput) -> Result<Value, UiAnswerError> {
    match question.answer_type {
        AnswerType::Boolean => boolean(question, &input),
        AnswerType::Select => select(question, &input),
        AnswerType::MultiSelect => multi_select(question, &input),
        AnswerType::Text => text(question, input),
        AnswerType::Schema => schema(question, input),
    }
}

impl ValidForm {
    /// What a person gave for question `index`, read as [`ui_answer`] reads it
    /// and checked against the question, with the one rule every surface (the
    /// terminal, the web inbox) applies to text typed for a schema question:
    ///
    /// 1. text that is JSON the schema accepts is that value (`42`, `{"a": 1}`);
    /// 2. otherwise, where the schema takes a string (its `type` is or includes
    ///    `"string"`, or its `enum` or `const` holds one), the text trimmed is
    ///    that string, so a branch name or `123` for a string needs no quotes;
    /// 3. otherwise the first reason it fails: not JSON, or the schema's words.
    ///
    /// ```
    /// use askuser_core::{UiInput, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "branch", "text": "Branch?", "answer_type": "schema", "schema": {"type": "string"}},
    ///     {"id": "replicas", "text": "Replicas?", "answer_type": "schema", "schema": {"type": "integer"}},
    /// ]})).unwrap();
    /// let typed = |index, text: &str| form.ui_answer(index, UiInput::Text(text.into()));
    /// assert_eq!(typed(0, "123"), Ok(json!("123")));
    /// assert_eq!(typed(0, " my-branch "), Ok(json!("my-branch")));
    /// assert_eq!(typed(0, "\"quoted\""), Ok(json!("quoted")));
    /// assert_eq!(typed(1, "3"), Ok(json!(3)));
    /// assert_eq!(
    ///     typed(1, "three").unwrap_err().to_string(),
    ///     "the answer is not valid JSON (expected ident at line 1 column 2); type a JSON value such as {\"key\": 1}"
    /// );
    /// ```
    ///
    /// # Errors
    /// Why the input is not an answer to the question, in words for the person.
    pub fn ui_answer(&self, index: usize, input: UiInput) -> Result<Value, UiAnswerError> {
        let question = self.question(index);
        let value = match (question.answer_type, input) {
            (AnswerType::Schema, UiInput::Text(text)) => return self.schema_text(index, &text),
            (_, input) => ui_answer(question, input)?,
        };
        self.check(index, &value)
            .map_err(UiAnswerError::DoesNotFit)?;
        Ok(value)
    }

    /// Text typed for schema question `index`, by the rule of [`Self::ui_answer`].
    fn schema_text(&self, index: usize, text: &str) -> Result<Value, UiAnswerError> {
        let text = text.trim();
        let takes_string = (self.question(index).schema.as_ref()).is_some_and(schema_takes_string);
        let string = Value::String(text.to_owned());
        match serde_json::from_str::<Value>(text) {
            Ok(value) => match self.check(index, &value) {
                Ok(_) => Ok(value),
                Err(_) if takes_string && self.check(index, &string).is_ok() => Ok(string),
                Err(error) => Err(UiAnswerError::DoesNotFit(error)),
            },
            Err(_) if takes_string => {
                self.check(index, &string)
                    .map_err(UiAnswerError::DoesNotFit)?;
                Ok(string)
            }
            Err(error) => Err(UiAnswerError::NotJson {
                reason: error.to_string(),
            }),
        }
    }
}

/// Whether an answer to a question with `schema` may be a string: its `type` is
/// or includes `"string"`, or its `enum` / `const` holds a string.
pub fn schema_takes_string(schema: &Value) -> bool {
    let typed = match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    };
    let listed = schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.iter().any(Value::is_string));
    typed || listed || schema.get("const").is_some_and(Value::is_string)
}

fn wrong(question: &Question, expected: &'static str, input: &UiInput) -> UiAnswerError {
    let found = match input {
        UiInput::Bool(_) => "yes or no".to_owned(),
        UiInput::Pick(_) => "an option number".to_owned(),
        UiInput::Picks(_) => "option numbers".to_owned(),
        UiInput::Text(_) => "text".to_owned(),
        UiInput::List(_) => "a list".to_owned(),
        UiInput::Json(value) => json_type(value).to_owned(),
    };
    UiAnswerError::WrongKind {
        answer_type: question.answer_type,
        expected,
        found,
    }
}

fn boolean(question: &Question, input: &UiInput) -> Result<Value, UiAnswerError> {
    const EXPECTED: &str = "yes or no";
    let text = match input {
        UiInput::Bool(b) | UiInput::Json(Value::Bool(b)) => return Ok(Value::Bool(*b)),
        UiInput::Text(text) | UiInput::Json(Value::String(text)) => text,
        _ => return Err(wrong(question, EXPECTED, input)),
    };
    match text.trim().to_lowercase().as_str() {
        "y" | "yes" | "true" => Ok(Value::Bool(true)),
        "n" | "no" | "false" => Ok(Value::Bool(false)),
        _ => Err(wrong(question, EXPECTED, input)),
    }
}

/// The option index of `number` (0-based), checked.
fn option_at(question: &Question, index: usize) -> Result<Value, UiAnswerError> {
    question
        .choices()
        .get(index)
        .map(|c| Value::String(c.label.clone()))
        .ok_or(UiAnswerError::NoSuchOption {
            number: index.saturating_add(1),
            count: question.choices().len(),
        })
}

/// One typed text resolved to an option's label or, where allowed, free text.
fn resolve(question: &Question, text: &str) -> Result<String, UiAnswerError> {
    let choices = question.choices();
    if let Some(choice) = choices.iter().find(|c| c.label == text) {
        return Ok(choice.label.clone());
    }
    let trimmed = text.trim();
    if let Some(choice) = choices.iter().find(|c| c.label.trim() == trimmed) {
        return Ok(choice.label.clone());
    }
    if !question.allow_other {
        return Err(UiAnswerError::NotAnOption {
            value: trimmed.to_owned(),
            options: question.quoted_labels(),
        });
    }
    if trimmed.is_empty() {
        return Err(UiAnswerError::Empty);
    }
    Ok(trimmed.to_owned())
}

fn select(question: &Question, input: &UiInput) -> Result<Value, UiAnswerError> {
    const EXPECTED: &str = "one option";
    match input {
        UiInput::Pick(index) => option_at(question, *index),
        UiInput::Text(text) | UiInput::Json(Value::String(text)) => {
            resolve(question, text).map(Value::String)
        }
        UiInput::List(items) if items.len() == 1 => resolve(question, &items[0]).map(Value::String),
        UiInput::Picks(indices) if indices.len() == 1 => option_at(question, indices[0]),
        _ => Err(wrong(question, EXPECTED, input)),
    }
}

fn multi_select(question: &Question, input: &UiInput) -> Result<Value, UiAnswerError> {
    const EXPECTED: &str = "a list of options";
    let picked: Vec<String> = match input {
        UiInput::Picks(indices) => indices
            .iter()
            .map(|&i| option_at(question, i).map(|v| v.as_str().unwrap_or_default().to_owned()))
            .collect::<Result<_, _>>()?,
        UiInput::Pick(index) => vec![
            option_at(question, *index)?
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ],
        UiInput::List(items) => items
            .iter()
            .map(|item| resolve(question, item))
            .collect::<Result<_, _>>()?,
        UiInput::Text(text) | UiInput::Json(Value::String(text)) => vec![resolve(question, text)?],
        UiInput::Json(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => resolve(question, text),
                _ => Err(wrong(question, EXPECTED, input)),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(wrong(question, EXPECTED, input)),
    };
    for (i, label) in picked.iter().enumerate() {
        if picked[..i].contains(label) {
            return Err(UiAnswerError::DuplicatePick {
                label: label.clone(),
            });
        }
    }
    Ok(Value::Array(
        picked.into_iter().map(Value::String).collect(),
    ))
}

fn text(question: &Question, input: UiInput) -> Result<Value, UiAnswerError> {
    match input {
        UiInput::Text(text) | UiInput::Json(Value::String(text)) => Ok(Value::String(text)),
        other => Err(wrong(question, "text", &other)),
    }
}

fn schema(question: &Question, input: UiInput) -> Result<Value, UiAnswerError> {
    match input {
        UiInput::Json(value) => Ok(value),
        UiInput::Bool(b) => Ok(Value::Bool(b)),
        UiInput::Text(text) => {
            serde_json::from_str(&text).map_err(|error| UiAnswerError::NotJson {
                reason: error.to_string(),
            })
        }
        other => Err(wrong(question, "a JSON value", &other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Choice;
    use serde_json::json;

    fn select_q(other: bool) -> Question {
        Question::new("env", "Which environment?", AnswerType::Select)
            .with_options(["staging", "production"])
            .with_other(other)
    }

    fn multi_q() -> Question {
        Question::new("f", "Which features?", AnswerType::MultiSelect)
            .with_options([Choice::described("auth", "OAuth2"), Choice::new("api")])
            .with_other(true)
    }

    fn message(result: Result<Value, UiAnswerError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn a_label_is_the_option_and_other_text_is_custom_only_where_allowed() {
        assert_eq!(
            ui_answer(&select_q(false), UiInput::Pick(0)),
            Ok(json!("staging"))
        );
        assert_eq!(
            ui_answer(&select_q(false), UiInput::Text("production".into())),
            Ok(json!("production"))
        );
        assert_eq!(
            message(ui_answer(&select_q(false), UiInput::Text("dev".into()))),
            "\"dev\" is not one of the options: \"staging\", \"production\""
        );
        assert_eq!(
            ui_answer(&select_q(true), UiInput::Text(" dev \n".into())),
            Ok(json!("dev"))
        );
        assert_eq!(
            message(ui_answer(&select_q(true), UiInput::Text("  ".into()))),
            "the answer is empty; pick an option or type an answer"
        );
        assert_eq!(
            message(ui_answer(&select_q(true), UiInput::Pick(2))),
            "there is no option 3; pick 1 to 2"
        );
        assert_eq!(
            message(ui_answer(&select_q(true), UiInput::Bool(true))),
            "this select question takes one option, not yes or no"
        );
    }

    #[test]
    fn multi_select_resolves_each_item_and_rejects_repeats() {
        assert_eq!(
            ui_answer(&multi_q(), UiInput::Picks(vec![1, 0])),
            Ok(json!(["api", "auth"]))
        );
        assert_eq!(
            ui_answer(
                &multi_q(),
                UiInput::List(vec!["auth".into(), "GraphQL".into()])
            ),
            Ok(json!(["auth", "GraphQL"]))
        );
        assert_eq!(
            ui_answer(&multi_q(), UiInput::Json(json!(["api "]))),
            Ok(json!(["api"]))
        );
        assert_eq!(
            message(ui_answer(
                &multi_q(),
                UiInput::List(vec!["api".into(), " api".into()])
            )),
            "\"api\" is picked twice; pick each option at most once"
        );
        assert_eq!(
            message(ui_answer(&multi_q(), UiInput::Json(json!([1])))),
            "this multi_select question takes a list of options, not a list"
        );
    }

    #[test]
    fn booleans_text_and_schema_answers() {
        let b = Question::new("ok", "Proceed?", AnswerType::Boolean);
        assert_eq!(ui_answer(&b, UiInput::Text("Yes".into())), Ok(json!(true)));
        assert_eq!(ui_answer(&b, UiInput::Json(json!(false))), Ok(json!(false)));
        assert_eq!(
            message(ui_answer(&b, UiInput::Text("maybe".into()))),
            "this boolean question takes yes or no, not text"
        );
        let t = Question::new("dir", "Target directory?", AnswerType::Text);
        assert_eq!(
            ui_answer(&t, UiInput::Text("/tmp/output".into())),
            Ok(json!("/tmp/output"))
        );
        assert_eq!(
            message(ui_answer(&t, UiInput::Pick(0))),
            "this text question takes text, not an option number"
        );
        let s = Question::new("cfg", "Config?", AnswerType::Schema).with_schema(json!({}));
        assert_eq!(
            ui_answer(&s, UiInput::Text("{\"a\": 1}".into())),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            message(ui_answer(&s, UiInput::Text("{oops".into()))),
            "the answer is not valid JSON (key must be a string at line 1 column 2); type a JSON value such as {\"key\": 1}"
        );
    }
}
