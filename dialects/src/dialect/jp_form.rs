//! Dialect `jp-form` (RFD D30): `{"questions": [{id, text, answer_type, options,
//! schema, default, when}]}`, answered as a map of every id to its answer or `null`.

use askuser_core::{Outcome, OutcomeStatus, ValidForm, parse_form};
use serde_json::{Map, Value};

use askuser_core::Problem;

/// Reads `jp-form` arguments with every rule of the core validation; unknown fields
/// are reported.
pub(crate) fn parse(arguments: &Value) -> Result<ValidForm, Vec<Problem>> {
    parse_form(arguments).map_err(|errors| {
        errors
            .0
            .iter()
            .map(|e| Problem::new(e.path.clone(), e.message()))
            .collect()
    })
}

/// `{"apply": true, "env": "production", "note": null}`; after a Reply,
/// `{"cancelled": true, "answered": {...}}`; after a timeout, `{"timed_out": true,
/// "answered": {...}, "filled_by_timeout": {...}, "message": "The user did not
/// answer in time: ..."}`. A Reply's message is `"message"` beside `"cancelled"`.
/// Notes the person wrote beside answers are `{"<id>": "..."}`: under `"notes"`
/// after a Reply or a timeout, and under [`NOTES_KEY`] in a completed form, whose
/// other keys are its question ids (a form that has a question of that id gets
/// the key with one more `_` until it is free).
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    let mut result = outcome.to_json();
    let Value::Object(map) = &mut result else {
        return result;
    };
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        map.insert("message".into(), Value::String(notice));
    }
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
        let key = if outcome.status == OutcomeStatus::Completed {
            free_key(outcome)
        } else {
            "notes".to_owned()
        };
        map.insert(key, Value::Object(notes));
    }
    result
}

/// The key of the notes in a completed `jp-form` result.
pub(crate) const NOTES_KEY: &str = "_notes";

/// [`NOTES_KEY`], with `_` added until no question of the form has it as its id.
fn free_key(outcome: &Outcome) -> String {
    let mut key = NOTES_KEY.to_owned();
    while outcome.form.index_of(&key).is_some() {
        key.push('_');
    }
    key
}
