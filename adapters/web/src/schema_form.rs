//! A generated form for a flat object schema: one labelled input per property
//! (text, a number, Yes/No, or a list for an `enum`), read back into a JSON
//! object that the engine checks against the schema. Any other schema is
//! answered as JSON in a text area.
//!
//! The form decides nothing: a blank field is left out of the object, a number
//! that does not parse is sent as the text typed, and the engine's message says
//! what is wrong; each part of it that names a property is shown beside that
//! property's input.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::answer::Fields;
use crate::pages::esc;

/// The most properties a generated form shows; a larger schema is answered as JSON.
const MAX_FIELDS: usize = 32;

/// The keywords an object schema may have at its top for a generated form: any
/// other (`oneOf`, `if`, `patternProperties`, …) shapes answers a list of inputs
/// cannot express, so the schema is answered as JSON.
const TOP_KEYWORDS: [&str; 9] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
    "$schema",
    "default",
    "examples",
];

/// One property's input.
pub(crate) struct Field<'a> {
    key: &'a str,
    label: &'a str,
    description: Option<&'a str>,
    kind: Kind<'a>,
    required: bool,
}

/// What a property takes.
enum Kind<'a> {
    Text,
    Integer,
    Number,
    Boolean,
    /// One of these values (`enum`).
    Choice(&'a [Value]),
}

/// The inputs for `schema`, when it is an object of scalar properties.
pub(crate) fn flat_fields(schema: &Value) -> Option<Vec<Field<'_>>> {
    let top = schema.as_object()?;
    if top.get("type")?.as_str()? != "object"
        || top.keys().any(|k| !TOP_KEYWORDS.contains(&k.as_str()))
    {
        return None;
    }
    let properties = top.get("properties")?.as_object()?;
    if properties.is_empty() || properties.len() > MAX_FIELDS {
        return None;
    }
    let required: Vec<&str> = match top.get("required") {
        None => Vec::new(),
        Some(list) => list.as_array()?.iter().filter_map(Value::as_str).collect(),
    };
    properties
        .iter()
        .map(|(key, property)| {
            let property = property.as_object()?;
            Some(Field {
                key,
                label: text_of(property, "title").unwrap_or(key),
                description: text_of(property, "description"),
                kind: kind_of(property)?,
                required: required.contains(&key.as_str()),
            })
        })
        .collect()
}

fn text_of<'a>(property: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    property
        .get(name)
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
}

fn kind_of(property: &Map<String, Value>) -> Option<Kind<'_>> {
    if let Some(values) = property.get("enum") {
        let values = values.as_array()?;
        let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
        return (!values.is_empty() && values.len() <= 256 && values.iter().all(scalar))
            .then_some(Kind::Choice(values));
    }
    match property.get("type")?.as_str()? {
        "string" => Some(Kind::Text),
        "integer" => Some(Kind::Integer),
        "number" => Some(Kind::Number),
        "boolean" => Some(Kind::Boolean),
        _ => None,
    }
}

/// The inputs, prefilled from what the person typed (`typed`, after a refusal)
/// or else from `prefill` (an earlier answer, or the question's default); each
/// property named in `error` gets its part of the message beside its input.
pub(crate) fn render(
    fields: &[Field<'_>],
    prefill: Option<&Value>,
    typed: Option<&Fields>,
    error: Option<&str>,
) -> String {
    let mut out = String::new();
    for (n, field) in fields.iter().enumerate() {
        let name = format!("f{n}");
        let typed = typed.and_then(|t| t.get(&name)).map(str::to_owned);
        let given = prefill.and_then(|p| p.get(field.key));
        let own_error = error.and_then(|e| error_for(e, field.key));
        let mut described = Vec::new();
        let _ = write!(
            out,
            "<div class=\"field\">\n<label for=\"{name}\">{}{}</label>\n",
            esc(field.label),
            if field.required { " (required)" } else { "" }
        );
        if let Some(description) = field.description {
            let _ = writeln!(
                out,
                "<p class=\"description\" id=\"{name}-about\">{}</p>",
                esc(description)
            );
            described.push(format!("{name}-about"));
        }
        if own_error.is_some() {
            described.push(format!("{name}-error"));
        }
        let mut attributes = String::new();
        if !described.is_empty() {
            let _ = write!(attributes, " aria-describedby=\"{}\"", described.join(" "));
        }
        if own_error.is_some() {
            attributes.push_str(" aria-invalid=\"true\"");
        }
        out.push_str(&input(field, &name, &attributes, typed, given));
        if let Some(message) = own_error {
            let _ = writeln!(
                out,
                "<p class=\"error\" id=\"{name}-error\">{}</p>",
                esc(&message)
            );
        }
        out.push_str("</div>\n");
    }
    out
}

/// One input: a `<select>` for Yes/No and lists, a text input otherwise.
fn input(
    field: &Field<'_>,
    name: &str,
    attributes: &str,
    typed: Option<String>,
    given: Option<&Value>,
) -> String {
    let options: Vec<(String, String)> = match field.kind {
        Kind::Boolean => vec![("true".into(), "Yes".into()), ("false".into(), "No".into())],
        Kind::Choice(values) => values
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), shown(v)))
            .collect(),
        Kind::Text | Kind::Integer | Kind::Number => {
            let value = typed.unwrap_or_else(|| given.map(shown).unwrap_or_default());
            let mode = match field.kind {
                Kind::Integer => " inputmode=\"numeric\"",
                Kind::Number => " inputmode=\"decimal\"",
                _ => "",
            };
            return format!(
                "<input type=\"text\" id=\"{name}\" name=\"{name}\" value=\"{}\"{mode}{attributes}>\n",
                esc(&value)
            );
        }
    };
    let selected = typed.or_else(|| {
        let given = given?;
        match field.kind {
            Kind::Boolean => given.as_bool().map(|b| b.to_string()),
            Kind::Choice(values) => values
                .iter()
                .position(|v| v == given)
                .map(|i| i.to_string()),
            _ => None,
        }
    });
    let mut out = format!(
        "<select id=\"{name}\" name=\"{name}\"{attributes}>\n<option value=\"\">(no answer)</option>\n"
    );
    for (value, label) in options {
        let mark = if selected.as_deref() == Some(&value) {
            " selected"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<option value=\"{value}\"{mark}>{}</option>",
            esc(&label)
        );
    }
    out.push_str("</select>\n");
    out
}

/// A value as a person reads it: a string as itself, anything else as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The object the inputs say: blank inputs left out, numbers parsed (or kept as
/// the text typed, for the engine to refuse with its reason), Yes/No as
/// booleans, a list's pick as its value.
pub(crate) fn read(fields: &[Field<'_>], sent: &Fields) -> Value {
    let mut object = Map::new();
    for (n, field) in fields.iter().enumerate() {
        let raw = sent.get(&format!("f{n}")).unwrap_or_default();
        if raw.trim().is_empty() {
            continue;
        }
        let value = match field.kind {
            Kind::Text => Value::String(raw.to_owned()),
            Kind::Integer | Kind::Number => match serde_json::from_str::<Value>(raw.trim()) {
                Ok(number @ Value::Number(_)) => number,
                _ => Value::String(raw.to_owned()),
            },
            Kind::Boolean => match raw {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => Value::String(other.to_owned()),
            },
            Kind::Choice(values) => match raw.parse::<usize>().ok().and_then(|i| values.get(i)) {
                Some(value) => value.clone(),
                None => Value::String(raw.to_owned()),
            },
        };
        object.insert(field.key.to_owned(), value);
    }
    Value::Object(object)
}

/// The parts of the engine's message about property `key`: those at its JSON
/// pointer (`at /key: …`) and its `required` complaint.
fn error_for(message: &str, key: &str) -> Option<String> {
    let pointer = format!("at /{}: ", key.replace('~', "~0").replace('/', "~1"));
    let required = format!("{} is a required property", Value::String(key.to_owned()));
    let body = message
        .strip_prefix("does not match the schema: ")
        .unwrap_or(message);
    let parts: Vec<&str> = body
        .split("; ")
        .filter_map(|part| match part.strip_prefix(pointer.as_str()) {
            Some(rest) => Some(rest),
            None => (part == required).then_some("required: give an answer"),
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(pairs: &[(&str, &str)]) -> Fields {
        Fields(
            pairs
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
        )
    }

    #[test]
    fn a_flat_object_gets_one_input_per_property_and_reads_back_typed_values() {
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "title": "Your name"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "ok": {"type": "boolean"},
            "size": {"enum": ["S", "M", 3]}
        }});
        let fields = flat_fields(&schema).expect("flat");
        let html = render(&fields, None, None, None);
        assert!(
            html.contains("<label for=\"f0\">Your name (required)</label>"),
            "{html}"
        );
        let value = read(
            &fields,
            &sent(&[
                ("f0", "Ada"),
                ("f1", " 7 "),
                ("f2", "x"),
                ("f3", "false"),
                ("f4", "2"),
            ]),
        );
        assert_eq!(
            value,
            json!({"name": "Ada", "count": 7, "ratio": "x", "ok": false, "size": 3})
        );
        assert_eq!(read(&fields, &sent(&[("f0", "  ")])), json!({}));
    }

    #[test]
    fn nested_or_combined_schemas_are_answered_as_json() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "object"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}}),
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "oneOf": [], "properties": {"a": {"type": "string"}}}),
            json!({"type": "string"}),
            json!(true),
        ] {
            assert!(flat_fields(&schema).is_none(), "{schema}");
        }
    }

    #[test]
    fn the_engine_message_is_split_beside_each_property() {
        let message = "does not match the schema: \"name\" is a required property; at /count: \"x\" is not of type \"integer\"";
        assert_eq!(
            error_for(message, "count").as_deref(),
            Some("\"x\" is not of type \"integer\"")
        );
        assert_eq!(
            error_for(message, "name").as_deref(),
            Some("required: give an answer")
        );
        assert_eq!(error_for(message, "other"), None);
    }
}
