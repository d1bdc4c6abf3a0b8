//! Reading a dialect's JSON arguments field by field, collecting every problem.

use askuser_core::json::{escape_pointer, json_type};
use askuser_core::{FormError, FormErrors, Problem};
use serde_json::{Map, Value};

/// Collects the problems of one call: structural ones found while reading, then the
/// core's semantic ones translated into the dialect's paths. A path whose structural
/// problem was reported is "broken": semantic errors at or under it are dropped, as
/// they would only repeat it.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    errors: Vec<Problem>,
    broken: Vec<String>,
}

impl Reader {
    /// Records a problem and marks its path broken.
    pub(crate) fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
        let path = path.into();
        self.broken.push(path.clone());
        self.errors.push(Problem::new(path, message));
    }

    /// Marks a path broken without reporting anything (its cause is reported elsewhere).
    pub(crate) fn mark(&mut self, path: impl Into<String>) {
        self.broken.push(path.into());
    }

    /// Whether any problem was recorded.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Reports every field of `map` not in `known`.
    pub(crate) fn unknown_fields(&mut self, map: &Map<String, Value>, path: &str, known: &[&str]) {
        for key in map.keys() {
            if !known.contains(&key.as_str()) {
                self.errors.push(Problem::new(
                    format!("{path}/{}", escape_pointer(key)),
                    format!(
                        "unknown field `{key}`; remove it (known fields: {})",
                        known.join(", ")
                    ),
                ));
            }
        }
    }

    /// A required string field; `what` says what to add when it is missing.
    pub(crate) fn required_string(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
        what: &str,
    ) -> Option<String> {
        let message = match map.get(field) {
            Some(Value::String(s)) => return Some(s.clone()),
            None | Some(Value::Null) => format!("is required: add {what}"),
            Some(other) => format!("must be a string, not {}", json_type(other)),
        };
        self.error(format!("{path}/{field}"), message);
        None
    }

    /// An optional string field (`null` counts as absent).
    pub(crate) fn optional_string(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
    ) -> Option<String> {
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.error(
                    format!("{path}/{field}"),
                    format!("must be a string, not {}", json_type(other)),
                );
                None
            }
        }
    }

    /// An optional boolean field (`null` counts as absent, and absent is false).
    pub(crate) fn optional_bool(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
    ) -> bool {
        match map.get(field) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.error(
                    format!("{path}/{field}"),
                    format!("must be true or false, not {}", json_type(other)),
                );
                false
            }
        }
    }

    /// A string field in a host's own words: `missing` when it is absent or `null`
    /// (`None` makes the field optional), `wrong` (given the JSON type found, in
    /// words) when it is not a string.
    pub(crate) fn host_string(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
        missing: Option<&str>,
        wrong: impl FnOnce(&'static str) -> String,
    ) -> Option<String> {
        let message = match (map.get(field), missing) {
            (Some(Value::String(s)), _) => return Some(s.clone()),
            (None | Some(Value::Null), None) => return None,
            (None | Some(Value::Null), Some(missing)) => missing.to_owned(),
            (Some(other), _) => wrong(json_type(other)),
        };
        self.error(format!("{path}/{field}"), message);
        None
    }

    /// An optional boolean field in a host's own words (`null` and absent are
    /// false); `wrong` is given the JSON type found, in words.
    pub(crate) fn host_bool(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
        wrong: impl FnOnce(&'static str) -> String,
    ) -> bool {
        match map.get(field) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.error(format!("{path}/{field}"), wrong(json_type(other)));
                false
            }
        }
    }

    /// Adds the core's semantic errors, each translated by `translate` into the
    /// dialect's path and words; those under a broken path are dropped.
    pub(crate) fn semantic(
        &mut self,
        errors: &FormErrors,
        translate: impl Fn(&FormError) -> Problem,
    ) {
        for error in &errors.0 {
            let error = translate(error);
            if !self.is_broken(&error.path) && !self.errors.contains(&error) {
                self.errors.push(error);
            }
        }
    }

    fn is_broken(&self, path: &str) -> bool {
        self.broken.iter().any(|b| {
            path.strip_prefix(b.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }

    /// Every problem, ordered by question (argument-level problems first), then by
    /// field in the order the fields are documented (unknown fields last).
    pub(crate) fn finish(mut self) -> Vec<Problem> {
        self.errors.sort_by_key(|e| order(&e.path));
        self.errors
    }
}

/// The fields in the order their problems are listed.
const FIELD_ORDER: [&str; 16] = [
    "",
    "id",
    "question",
    "text",
    "context",
    "header",
    "type",
    "answer_type",
    "options",
    "allow_other",
    "multiSelect",
    "multiple",
    "isOther",
    "schema",
    "default",
    "when",
];

/// Where a problem at `path` is listed: by question, then by field.
fn order(path: &str) -> (Option<usize>, usize) {
    let (question, rest) = match path.strip_prefix("/questions/") {
        Some(rest) => {
            let (index, field) = rest.split_once('/').unwrap_or((rest, ""));
            (index.parse().ok(), field)
        }
        None => (None, path.strip_prefix('/').unwrap_or(path)),
    };
    let field = rest.split('/').next().unwrap_or_default();
    let rank = FIELD_ORDER
        .iter()
        .position(|f| *f == field)
        .unwrap_or(FIELD_ORDER.len());
    (question, rank)
}
