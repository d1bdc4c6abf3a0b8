//! JSON Schemas supplied by a model: checked to stay inside themselves, then compiled.
//!
//! A model's schema never reaches the network or the file system: jsonschema is built
//! without its resolvers, and every `$ref`, `$dynamicRef` and `$recursiveRef` that is
//! not a local fragment (`#...`) is rejected before compiling.

use serde_json::Value;

use crate::error::{FormError, FormErrorKind};
use crate::form::{AnswerType, Question};
use crate::pointer::At;

const REFERENCE_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// How deeply a model's schema may nest.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// Pushes an error for every reference in `schema` that points outside it, and one
/// if it nests deeper than [`MAX_SCHEMA_DEPTH`]. `at` is the schema's location.
pub(crate) fn check_references(schema: &Value, at: &At<'_>, errors: &mut Vec<FormError>) {
    check_at_depth(schema, at, 0, errors);
}

fn check_at_depth(schema: &Value, at: &At<'_>, depth: usize, errors: &mut Vec<FormError>) {
    if depth > MAX_SCHEMA_DEPTH {
        errors.push(FormError::new(
            at.pointer(),
            FormErrorKind::SchemaTooDeep {
                max: MAX_SCHEMA_DEPTH,
            },
        ));
        return;
    }
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let here = at.key(key);
                // A reference keyword's string is checked; anything else under that
                // name (a property called `$ref` inside `properties`, say) is a
                // schema or data like any other, and is walked like any other.
                match value {
                    Value::String(reference)
                        if REFERENCE_KEYWORDS.contains(&key.as_str())
                            && !reference.starts_with('#') =>
                    {
                        errors.push(FormError::new(
                            here.pointer(),
                            FormErrorKind::SchemaExternalRef {
                                reference: reference.clone(),
                            },
                        ));
                    }
                    _ => check_at_depth(value, &here, depth + 1, errors),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_at_depth(item, &at.index(i), depth + 1, errors);
            }
        }
        _ => {}
    }
}

/// Compiles a schema that has passed [`check_references`], with `format` asserted
/// (`"format": "email"` refuses a string that is not an address) whatever the draft.
pub(crate) fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|error| error.to_string())
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
        check_references(&schema, &At::Root.key("s"), &mut errors);
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
    fn a_property_named_ref_is_walked_like_any_other() {
        let mut inner = json!({"$ref": "https://example.com/evil.json"});
        for _ in 0..70 {
            inner = json!({ "items": inner });
        }
        let schema = json!({"properties": {"$ref": {"items": {"$ref": "file:///etc/passwd"}}}});
        let mut errors = Vec::new();
        check_references(&schema, &At::Root, &mut errors);
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "/properties/$ref/items/$ref: \"file:///etc/passwd\" points outside this schema; only local references such as \"#/$defs/name\" are allowed: inline the definition"
            ]
        );
        let mut errors = Vec::new();
        check_references(
            &json!({"properties": {"$ref": inner}}),
            &At::Root,
            &mut errors,
        );
        assert_eq!(
            errors[0].to_string(),
            format!(
                "/properties/$ref{}: nests deeper than 64 levels; flatten it",
                "/items".repeat(63)
            )
        );
    }

    #[test]
    fn formats_are_asserted() {
        let validator = compile(&json!({"type": "string", "format": "email"})).unwrap();
        assert!(validator.is_valid(&json!("ana@example.com")));
        assert!(!validator.is_valid(&json!("not an address")));
    }

    #[test]
    fn a_remote_reference_never_compiles_into_a_fetch() {
        // Even if the reference check were bypassed, the compiler has no resolver.
        assert!(compile(&json!({"$ref": "http://127.0.0.1:9/x.json"})).is_err());
    }

    #[test]
    fn a_deeply_nested_schema_is_an_error_not_a_stack_overflow() {
        let mut schema = json!({"type": "string"});
        for _ in 0..100 {
            schema = json!({ "items": schema });
        }
        let mut errors = Vec::new();
        check_references(&schema, &At::Root, &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].to_string(),
            format!(
                "{}: nests deeper than 64 levels; flatten it",
                "/items".repeat(65)
            )
        );
    }
}
