//! Small JSON helpers shared by every reader of tool arguments (the core's and the
//! dialects'), so paths and type names read the same in every error message.

use serde_json::Value;

/// Escapes one JSON-pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`).
///
/// ```
/// assert_eq!(askuser_core::json::escape_pointer("a/b~c"), "a~1b~0c");
/// ```
pub fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The JSON type of a value, in words, for messages: `null`, `a boolean`,
/// `a number`, `a string`, `a list` or `an object`.
///
/// ```
/// assert_eq!(askuser_core::json::json_type(&serde_json::json!([1])), "a list");
/// ```
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
