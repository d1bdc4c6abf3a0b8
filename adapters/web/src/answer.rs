//! What a question's form sends, read into the answer the engine checks.

use askuser_core::{AnswerType, Prompt};
use serde_json::Value;

use crate::schema_form;

/// A form's fields, as sent (a name may repeat: the ticks of a multi-select).
#[derive(Clone)]
pub(crate) struct Fields(pub(crate) Vec<(String, String)>);

impl Fields {
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A text field, trimmed; `None` when blank.
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    }
}

/// The answer a question's form gives: `true`/`false`, a label (or the "Other"
/// text), a list of labels, or text; a schema answer is JSON, or the text itself
/// where it is not JSON, or the object a generated form's inputs say (the
/// engine checks it against the schema either way).
pub(crate) fn value_from(prompt: &Prompt, fields: &Fields) -> Result<Value, String> {
    let question = prompt.question();
    let label = |index: &str| {
        index
            .parse::<usize>()
            .ok()
            .and_then(|n| question.choices().get(n))
            .map(|c| Value::String(c.label.clone()))
    };
    match question.answer_type {
        AnswerType::Boolean => match fields.get("answer") {
            Some("true") => Ok(Value::Bool(true)),
            Some("false") => Ok(Value::Bool(false)),
            _ => Err("choose Yes or No".into()),
        },
        AnswerType::Select => match fields.get("answer") {
            Some("other") => fields
                .text("other")
                .map(Value::String)
                .ok_or_else(|| "type your own answer, or choose an option".into()),
            Some(index) => label(index).ok_or_else(|| "choose one of the options".into()),
            None => Err("choose one of the options".into()),
        },
        AnswerType::MultiSelect => {
            let mut picked: Vec<Value> = fields.all("pick").filter_map(label).collect();
            picked.extend(fields.text("other").map(Value::String));
            Ok(Value::Array(picked))
        }
        AnswerType::Text => Ok(Value::String(
            fields.get("answer").unwrap_or_default().to_owned(),
        )),
        AnswerType::Schema => {
            if let Some(inputs) = question.schema.as_ref().and_then(schema_form::flat_fields) {
                return Ok(schema_form::read(&inputs, fields));
            }
            let text = fields.get("answer").unwrap_or_default();
            Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())))
        }
    }
}
