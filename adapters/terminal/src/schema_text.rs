//! A schema question's JSON Schema told in words, above its input: the fields
//! with their types, enums, limits and which are required, instead of one raw
//! JSON line. Bounded: nested fields to [`MAX_DEPTH`] levels, at most
//! [`MAX_LINES`] lines, every text made safe for one line.

use askuser_core::schema_takes_string as takes_string;
use askuser_core::text::for_display_line;
use serde_json::{Map, Value};

/// How deep nested objects are described.
pub(crate) const MAX_DEPTH: usize = 3;

/// The most lines a description takes.
pub(crate) const MAX_LINES: usize = 24;

/// The longest a single described value (an enum member, a pattern) is shown.
const MAX_VALUE_CHARS: usize = 40;

/// The lines describing `schema`.
pub(crate) fn describe(schema: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let object = schema.get("properties").and_then(Value::as_object);
    match object {
        Some(properties) => {
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            lines.push(format!(
                "Answer with a JSON object{}:",
                if closed { " (no other fields)" } else { "" }
            ));
            fields(schema, properties, 1, &mut lines);
        }
        None if takes_string(schema) && schema.get("type").is_some() => {
            lines.push(format!(
                "Answer with {} (type it as it is, no quotes needed)",
                summary(schema)
            ));
        }
        None => lines.push(format!("Answer with JSON: {}", summary(schema))),
    }
    if lines.len() > MAX_LINES {
        let more = lines.len() - (MAX_LINES - 1);
        lines.truncate(MAX_LINES - 1);
        lines.push(format!("  … and {more} more lines"));
    }
    lines
}

fn fields(schema: &Value, properties: &Map<String, Value>, depth: usize, lines: &mut Vec<String>) {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let indent = "  ".repeat(depth);
    for (name, field) in properties {
        // Counted past the cut (for "… and N more lines"), but not without end.
        if lines.len() > 10 * MAX_LINES {
            return;
        }
        let mut line = format!("{indent}{}: {}", shown(name), summary(field));
        if required.contains(&name.as_str()) {
            line.push_str(" (required)");
        }
        if let Some(description) = field.get("description").and_then(Value::as_str) {
            line.push_str(" — ");
            line.push_str(&shown(description));
        }
        lines.push(line);
        if depth < MAX_DEPTH
            && let Some(inner) = field.get("properties").and_then(Value::as_object)
        {
            fields(field, inner, depth + 1, lines);
        }
    }
}

fn shown(text: &str) -> String {
    let safe = for_display_line(text);
    if safe.chars().count() <= MAX_VALUE_CHARS {
        return safe.into_owned();
    }
    let mut cut: String = safe.chars().take(MAX_VALUE_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn value(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\"{}\"", shown(text)),
        other => shown(&other.to_string()),
    }
}

fn type_name(name: &str) -> &str {
    match name {
        "string" => "text",
        "array" => "list",
        other => other,
    }
}

/// One schema in a few words: `integer, 1 to 100`, `one of "a", "b"`, `list of
/// text, at most 3`.
fn summary(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let listed: Vec<String> = values.iter().take(10).map(value).collect();
        let more = if values.len() > 10 { ", …" } else { "" };
        return format!("one of {}{more}", listed.join(", "));
    }
    if let Some(constant) = schema.get("const") {
        return format!("exactly {}", value(constant));
    }
    let mut parts = vec![match schema.get("type") {
        Some(Value::String(t)) => type_name(t).to_owned(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(type_name)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema.get("properties").is_some() => "object".to_owned(),
        _ => "any JSON value".to_owned(),
    }];
    if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
        parts[0] = format!("list of {}", summary(items));
    }
    parts.extend(limits(schema));
    parts.join(", ")
}

fn limits(schema: &Value) -> Vec<String> {
    let number = |key: &str| {
        schema
            .get(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    let mut parts = Vec::new();
    match (number("minimum"), number("maximum")) {
        (Some(low), Some(high)) => parts.push(format!("{low} to {high}")),
        (Some(low), None) => parts.push(format!("at least {low}")),
        (None, Some(high)) => parts.push(format!("at most {high}")),
        (None, None) => {}
    }
    if let Some(low) = number("exclusiveMinimum") {
        parts.push(format!("more than {low}"));
    }
    if let Some(high) = number("exclusiveMaximum") {
        parts.push(format!("less than {high}"));
    }
    for (low, high, unit) in [
        ("minLength", "maxLength", "characters"),
        ("minItems", "maxItems", "items"),
    ] {
        match (number(low), number(high)) {
            (Some(low), Some(high)) => parts.push(format!("{low} to {high} {unit}")),
            (Some(low), None) => parts.push(format!("at least {low} {unit}")),
            (None, Some(high)) => parts.push(format!("at most {high} {unit}")),
            (None, None) => {}
        }
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(format!("matching {}", shown(pattern)));
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        parts.push(format!("format {}", shown(format)));
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        parts.push("no repeats".to_owned());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_list_their_fields() {
        let schema = json!({
            "type": "object",
            "properties": {
                "percent": {"type": "integer", "minimum": 1, "maximum": 100},
                "pause_minutes": {"type": "integer", "minimum": 0, "description": "between steps"},
                "mode": {"enum": ["fast", "safe"]},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 3},
                "owner": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}},
                          "required": ["email"]}
            },
            "required": ["percent"],
            "additionalProperties": false
        });
        assert_eq!(
            describe(&schema),
            [
                "Answer with a JSON object (no other fields):",
                "  percent: integer, 1 to 100 (required)",
                "  pause_minutes: integer, at least 0 — between steps",
                "  mode: one of \"fast\", \"safe\"",
                "  tags: list of text, at most 20 characters, at most 3 items",
                "  owner: object",
                "    email: text, format email (required)",
            ]
        );
    }

    #[test]
    fn strings_and_other_values() {
        let branch = json!({"type": "string", "pattern": "^[a-z-]+$", "maxLength": 40});
        assert!(takes_string(&branch));
        assert_eq!(
            describe(&branch),
            [
                "Answer with text, at most 40 characters, matching ^[a-z-]+$ (type it as it is, no quotes needed)"
            ]
        );
        assert_eq!(
            describe(&json!({"type": ["integer", "null"], "exclusiveMinimum": 0})),
            ["Answer with JSON: integer or null, more than 0"]
        );
        assert_eq!(describe(&json!({})), ["Answer with JSON: any JSON value"]);
        assert!(!takes_string(&json!({"type": "integer"})));
        assert!(takes_string(&json!({"enum": ["a", 1]})));
    }

    #[test]
    fn hostile_and_huge_schemas_stay_bounded() {
        let properties: Map<String, Value> = (0..50)
            .map(|i| (format!("f{i}\u{1b}[2J"), json!({"type": "string"})))
            .collect();
        let lines = describe(&json!({"properties": properties}));
        assert_eq!(lines.len(), MAX_LINES);
        assert_eq!(lines[1], "  f0\\u{1b}[2J: text");
        assert_eq!(lines[MAX_LINES - 1], "  … and 28 more lines");
    }
}
