//! Dialect `jp` (RFD 083): one question, `{"question", "context", "answer_type",
//! "options", "default"}`, answered as `{"answer_type": "select", "answer": "backup"}`.

use askuser_core::{AnswerType, Form, FormError, FormErrorKind, Outcome, Question, validate};
use serde_json::{Map, Value, json};

use askuser_core::json::json_type;

use crate::read::Reader;
use askuser_core::Problem;

/// The id of the one question of a `jp` call (RFD 083's `answer` slot).
pub const QUESTION_ID: &str = "answer";

const FIELDS: [&str; 5] = ["question", "context", "answer_type", "options", "default"];
const TYPES: &str = "one of \"boolean\", \"select\", \"text\"";

/// Reads `jp` arguments into a one-question form.
pub(crate) fn parse(arguments: &Value) -> Result<askuser_core::ValidForm, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error(
            "",
            format!(
                "must be an object with a `question` field, not {}",
                json_type(arguments)
            ),
        );
        return Err(reader.finish());
    };
    reader.unknown_fields(map, "", &FIELDS);
    let text = reader
        .required_string(
            map,
            "",
            "question",
            "`question`, the question to ask, one line",
        )
        .unwrap_or_default();
    let context = reader.optional_string(map, "", "context");
    let answer_type = answer_type(&mut reader, map);
    let options = options(&mut reader, map);
    let mut question = Question::new(QUESTION_ID, text, answer_type);
    question.context = context;
    question.options = options;
    question.default = map.get("default").filter(|v| !v.is_null()).cloned();
    match validate(Form::new(vec![question])) {
        Ok(form) if !reader.has_errors() => Ok(form),
        Ok(_) => Err(reader.finish()),
        Err(errors) => {
            reader.semantic(&errors, translate);
            Err(reader.finish())
        }
    }
}

fn answer_type(reader: &mut Reader, map: &Map<String, Value>) -> AnswerType {
    let found = match map.get("answer_type") {
        None | Some(Value::Null) => return AnswerType::Text,
        Some(Value::String(name)) => match name.as_str() {
            "boolean" => return AnswerType::Boolean,
            "select" => return AnswerType::Select,
            "text" => return AnswerType::Text,
            _ => format!("unknown answer_type `{name}`; use {TYPES}"),
        },
        Some(other) => format!("must be {TYPES}, not {}", json_type(other)),
    };
    reader.error("/answer_type", found);
    // Without a usable type, options and default cannot be judged.
    reader.mark("/options");
    reader.mark("/default");
    AnswerType::Text
}

fn options(reader: &mut Reader, map: &Map<String, Value>) -> Option<Vec<askuser_core::Choice>> {
    let items = match map.get("options")? {
        Value::Null => return None,
        Value::Array(items) => items,
        other => {
            reader.error(
                "/options",
                format!("must be a list of strings, not {}", json_type(other)),
            );
            reader.mark("/default");
            return Some(Vec::new());
        }
    };
    let mut choices = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(label) => choices.push(askuser_core::Choice::new(label.clone())),
            other => {
                reader.error(
                    format!("/options/{i}"),
                    format!("must be a string label, not {}", json_type(other)),
                );
                reader.mark("/default");
                // A placeholder keeps the indices of the later options right.
                choices.push(askuser_core::Choice::new(""));
            }
        }
    }
    Some(choices)
}

/// A core error in `jp`'s own field names and words.
fn translate(error: &FormError) -> Problem {
    let path = match error.path.strip_prefix("/questions/0") {
        Some("/text") => "/question".to_owned(),
        Some(rest) => rest.to_owned(),
        None => String::new(),
    };
    let message = match &error.kind {
        FormErrorKind::UnexpectedOptions { answer_type } => format!(
            "`options` only goes with answer_type \"select\", and this call's answer_type is \"{answer_type}\": remove `options` or set answer_type to \"select\""
        ),
        FormErrorKind::MissingOptions { .. } => {
            "answer_type \"select\" needs `options`: add a list of at least one choice".to_owned()
        }
        FormErrorKind::EmptyOptions { .. } => {
            "is empty; answer_type \"select\" needs at least one choice".to_owned()
        }
        kind => kind.to_string(),
    };
    Problem::new(path, message)
}

/// The `jp` result: `{"answer_type": "<type>", "answer": <value>}`; after a Reply,
/// RFD D30's cancel marker `{"cancelled": true, "answered": {...}}`.
///
/// After a timeout: `{"answer_type", "answer" (the filled answer or null),
/// "timed_out": true, "message": "The user did not answer in time: ..."}`. A note
/// the person wrote beside the answer is `"note"`.
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    if outcome.is_cancelled() {
        return outcome.to_json();
    }
    let answer_type = outcome
        .form
        .questions()
        .first()
        .map_or("text", |q| q.answer_type.name());
    let answer = outcome.get(QUESTION_ID).unwrap_or(Value::Null);
    let mut result = json!({ "answer_type": answer_type, "answer": answer });
    let Value::Object(map) = &mut result else {
        return result;
    };
    if let Some(note) = super::notice::note(outcome, 0) {
        map.insert("note".into(), Value::String(note.to_owned()));
    }
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        map.insert("timed_out".into(), Value::Bool(true));
        map.insert("message".into(), Value::String(notice));
    }
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::Dialect;

    /// The single problem of a call, as `path: message`.
    fn problem(arguments: &serde_json::Value) -> String {
        let rejection = Dialect::Jp.parse(arguments).unwrap_err();
        assert_eq!(rejection.errors.len(), 1, "{rejection:?}");
        rejection.errors[0].to_string()
    }

    #[test]
    fn each_rfd_083_rule_has_its_own_words() {
        // `question` missing or empty.
        assert_eq!(
            problem(&json!({"answer_type": "text"})),
            "/question: is required: add `question`, the question to ask, one line"
        );
        assert_eq!(
            problem(&json!({"question": ""})),
            "/question: is empty; write the question as one line"
        );
        // `question` contains a newline.
        assert_eq!(
            problem(&json!({"question": "Apply?\nIt rewrites config."})),
            "/question: must be a single line; put the extra lines in `context`"
        );
        // select with options missing or empty.
        assert_eq!(
            problem(&json!({"question": "Which?", "answer_type": "select"})),
            "/options: answer_type \"select\" needs `options`: add a list of at least one choice"
        );
        assert_eq!(
            problem(&json!({"question": "Which?", "answer_type": "select", "options": []})),
            "/options: is empty; answer_type \"select\" needs at least one choice"
        );
        // options on a non-select.
        assert_eq!(
            problem(&json!({"question": "Ok?", "answer_type": "boolean", "options": ["y"]})),
            "/options: `options` only goes with answer_type \"select\", and this call's answer_type is \"boolean\": remove `options` or set answer_type to \"select\""
        );
        // default of the wrong type.
        assert_eq!(
            problem(&json!({"question": "Ok?", "answer_type": "boolean", "default": "yes"})),
            "/default: is not a valid answer to this question (expected true or false, got a string): fix it or remove `default`"
        );
        // default not among the options.
        assert_eq!(
            problem(
                &json!({"question": "Which?", "answer_type": "select", "options": ["backup", "abort"], "default": "overwrite"})
            ),
            "/default: is not a valid answer to this question (\"overwrite\" is not one of the options: \"backup\", \"abort\"): fix it or remove `default`"
        );
    }

    #[test]
    fn a_reply_gives_rfd_d30_s_cancel_marker() {
        use askuser_core::{Outcome, OutcomeStatus};
        let call = Dialect::Jp.parse(&json!({"question": "Ok?"})).unwrap();
        let outcome = Outcome {
            form: call.form().clone(),
            answers: vec![None].into(),
            status: OutcomeStatus::Cancelled,
            message: None,
        };
        assert_eq!(
            call.render(&outcome),
            json!({"cancelled": true, "answered": {}})
        );
    }
}
