//! Dialect `jp-form` (RFD D30): `{"questions": [{id, text, answer_type, options,
//! schema, default, when}]}`, answered as a map of every id to its answer or `null`.

use askuser_core::{Outcome, OutcomeStatus, ValidForm, parse_form};
use serde_json::{Map, Value};

use crate::rejection::FieldError;

/// Reads `jp-form` arguments with every rule of the core validation; unknown fields
/// are reported.
pub(crate) fn parse(arguments: &Value) -> Result<ValidForm, Vec<FieldError>> {
    parse_form(arguments).map_err(|errors| {
        errors
            .0
            .iter()
            .map(|e| FieldError::new(e.path.clone(), e.message()))
            .collect()
    })
}

/// `{"apply": true, "env": "production", "note": null}`; after a Reply,
/// `{"cancelled": true, "answered": {...}}`; after a timeout, `{"timed_out": true,
/// "answered": {...}, "filled_by_timeout": {...}, "message": "The user did not
/// answer in time: ..."}`. A Reply's message is `"message"` beside `"cancelled"`;
/// after a Reply or a timeout, notes the person wrote are `"notes": {"<id>": "..."}`
/// (a completed form's keys are its question ids, so it carries no notes).
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    let mut result = outcome.to_json();
    let Value::Object(map) = &mut result else {
        return result;
    };
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        map.insert("message".into(), Value::String(notice));
    }
    // A completed form's keys are its question ids: there is no place for notes.
    if outcome.status != OutcomeStatus::Completed {
        let notes: Map<String, Value> = outcome
            .form
            .questions()
            .iter()
            .enumerate()
            .filter_map(|(index, question)| {
                let note = super::notice::note(outcome, index)?;
                Some((question.id.clone(), Value::String(note.to_owned())))
            })
            .collect();
        if !notes.is_empty() {
            map.insert("notes".into(), Value::Object(notes));
        }
    }
    result
}
