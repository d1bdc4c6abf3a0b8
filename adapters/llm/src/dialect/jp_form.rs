//! Dialect `jp-form` (RFD D30): `{"questions": [{id, text, answer_type, options,
//! schema, default, when}]}`, answered as a map of every id to its answer or `null`.

use askuser_core::{Outcome, ValidForm, parse_form};
use serde_json::Value;

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
/// answer in time: ..."}`.
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    let mut result = outcome.to_json();
    if let (Some(notice), Value::Object(map)) =
        (super::notice::timeout(outcome, texts), &mut result)
    {
        map.insert("message".into(), Value::String(notice));
    }
    result
}
