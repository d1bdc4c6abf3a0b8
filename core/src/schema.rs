//! JSON Schemas supplied by a model: checked to stay inside themselves, then compiled.
//!
//! A model's schema never reaches the network or the file system: jsonschema is built
//! without its resolvers, and every `$ref`, `$dynamicRef` and `$recursiveRef` that is
//! not a local fragment (`#...`) is rejected before compiling.

use serde_json::Value;

use crate::error::{FormError, FormErrorKind, escape_pointer};
use crate::form::{AnswerType, Question};

const REFERENCE_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// Pushes an error for every reference in `schema` that points outside it. `path` is
/// the JSON pointer of the schema itself.
pub(crate) fn check_references(schema: &Value, path: &str, errors: &mut Vec<FormError>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let at = format!("{path}/{}", escape_pointer(key));
                if REFERENCE_KEYWORDS.contains(&key.as_str()) {
                    match value {
                        Value::String(reference) if reference.starts_with('#') => {}
                        Value::String(reference) => errors.push(FormError::new(
                            at,
                            FormErrorKind::SchemaExternalRef {
                                reference: reference.clone(),
                            },
                        )),
                        _ => {}
                    }
                } else {
                    check_references(value, &at, errors);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_references(item, &format!("{path}/{i}"), errors);
            }
        }
        _ => {}
    }
}

/// Compiles a schema that has passed [`check_references`].
pub(crate) fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|error| error.to_string())
}

/// The JSON Schema an answer to `question` must satisfy, as given to an assistant
/// that answers through structured output.
pub fn answer_schema(question: &Question) -> Value {
    let labels = || {
        Value::Array(
            question
                .choices()
                .iter()
                .map(|c| Value::String(c.label.clone()))
                .collect(),
        )
    };
    let mut schema = serde_json::Map::new();
    match question.answer_type {
        AnswerType::Boolean => {
            schema.insert("type".into(), "boolean".into());
        }
        AnswerType::Text => {
            schema.insert("type".into(), "string".into());
        }
        AnswerType::Select => {
            schema.insert("type".into(), "string".into());
            if !question.allow_other {
                schema.insert("enum".into(), labels());
            }
        }
        AnswerType::MultiSelect => {
            schema.insert("type".into(), "array".into());
            let mut items = serde_json::Map::new();
            items.insert("type".into(), "string".into());
            if !question.allow_other {
                items.insert("enum".into(), labels());
            }
            schema.insert("items".into(), Value::Object(items));
            schema.insert("uniqueItems".into(), Value::Bool(true));
        }
        AnswerType::Schema => return question.schema.clone().unwrap_or(Value::Bool(true)),
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_local_references_pass() {
        let schema = json!({
            "$defs": {"a": {"type": "string"}},
            "properties": {
                "x": {"$ref": "#/$defs/a"},
                "y": {"$ref": "https://example.com/s.json"},
                "z": {"items": [{"$dynamicRef": "file:///etc/passwd"}]}
            }
        });
        let mut errors = Vec::new();
        check_references(&schema, "/s", &mut errors);
        let paths: Vec<_> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/s/properties/y/$ref",
                "/s/properties/z/items/0/$dynamicRef"
            ]
        );
    }

    #[test]
    fn a_remote_reference_never_compiles_into_a_fetch() {
        // Even if the reference check were bypassed, the compiler has no resolver.
        assert!(compile(&json!({"$ref": "http://127.0.0.1:9/x.json"})).is_err());
    }
}
