//! A generated form for a flat object schema: one labelled input per property
//! (text, a number, Yes/No, or a list for an `enum`), read back into a JSON
//! object that the engine checks against the schema. Any other schema is
//! answered as JSON in a text area.
//!
//! The form decides nothing: a blank field is left out of the object, a number
//! that does not parse is sent as the text typed, and the engine's message says
//! what is wrong; each part of it that names a property is shown beside that
//! property's input.

use maud::{Markup, html};
use serde_json::{Map, Value};

use crate::answer::Fields;
use crate::markdown::{self, Flow};
use crate::pages::shown;

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
/// The first input is focused.
pub(crate) fn render(
    fields: &[Field<'_>],
    prefill: Option<&Value>,
    typed: Option<&Fields>,
    error: Option<&str>,
) -> Markup {
    html! {
        @for (n, field) in fields.iter().enumerate() {
            @let name = format!("f{n}");
            @let own_error = error.and_then(|e| error_for(e, field.key));
            @let described: Vec<String> = (field.description.map(|_| format!("{name}-about")).into_iter())
                .chain(own_error.as_ref().map(|_| format!("{name}-error")))
                .collect();
            div.field {
                label for=(name) {
                    (shown(field.label))
                    @if field.required { " (required)" }
                }
                @if let Some(description) = field.description {
                    p.description id=(format!("{name}-about")) {
                        (markdown::render(description, Flow::Inline))
                    }
                }
                (input(field, &Input {
                    name: &name,
                    described: (!described.is_empty()).then(|| described.join(" ")),
                    invalid: own_error.is_some(),
                    first: n == 0,
                }, typed.and_then(|t| t.get(&name)), prefill.and_then(|p| p.get(field.key))))
                @if let Some(message) = &own_error {
                    p.error id=(format!("{name}-error")) role="alert" { (shown(message)) }
                }
            }
        }
    }
}

/// What an input carries besides its value.
struct Input<'a> {
    /// Its name and id.
    name: &'a str,
    /// The ids of what describes it (its description, its error).
    described: Option<String>,
    /// Whether the engine refused what it holds.
    invalid: bool,
    /// The form's first input, focused.
    first: bool,
}

/// One input: a `<select>` for Yes/No and lists, a text input otherwise.
fn input(field: &Field<'_>, at: &Input<'_>, typed: Option<&str>, given: Option<&Value>) -> Markup {
    let invalid = at.invalid.then_some("true");
    let options: Vec<(String, String)> = match field.kind {
        Kind::Boolean => vec![("true".into(), "Yes".into()), ("false".into(), "No".into())],
        Kind::Choice(values) => values
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), shown_value(v)))
            .collect(),
        Kind::Text | Kind::Integer | Kind::Number => {
            let value =
                typed.map_or_else(|| given.map(shown_value).unwrap_or_default(), str::to_owned);
            let mode = match field.kind {
                Kind::Integer => Some("numeric"),
                Kind::Number => Some("decimal"),
                _ => None,
            };
            return html! {
                input #(at.name) type="text" name=(at.name) value=(shown(&value))
                    inputmode=[mode] aria-describedby=[&at.described] aria-invalid=[invalid]
                    autofocus[at.first];
            };
        }
    };
    let selected = typed.map(str::to_owned).or_else(|| {
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
    html! {
        select #(at.name) name=(at.name) aria-describedby=[&at.described]
            aria-invalid=[invalid] autofocus[at.first] {
            option value="" { "(no answer)" }
            @for (value, label) in &options {
                option value=(value) selected[selected.as_deref() == Some(value)] { (shown(label)) }
            }
        }
    }
}

/// A value as a person reads it: a string as itself, anything else as JSON.
fn shown_value(value: &Value) -> String {
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

/// The parts of the engine's message (`does not match the schema: A; B`), or
/// the message itself when it is not the schema's.
fn parts(message: &str) -> Vec<&str> {
    match message.strip_prefix("does not match the schema: ") {
        Some(body) => body.split("; ").collect(),
        None => vec![message],
    }
}

/// What a part of the engine's message says about property `key`, in the
/// words shown beside its input: the rest of a part at its JSON pointer
/// (`at /key: …`), or its `required` complaint; `None` when it is about
/// something else.
fn part_for<'a>(part: &'a str, key: &str) -> Option<&'a str> {
    let pointer = format!("at /{}: ", key.replace('~', "~0").replace('/', "~1"));
    let required = format!("{} is a required property", Value::String(key.to_owned()));
    match part.strip_prefix(pointer.as_str()) {
        Some(rest) => Some(rest),
        None => (part == required).then_some("required: give an answer"),
    }
}

/// The parts of the engine's message about property `key` ([`part_for`]).
fn error_for(message: &str, key: &str) -> Option<String> {
    let found: Vec<&str> = (parts(message).into_iter())
        .filter_map(|part| part_for(part, key))
        .collect();
    (!found.is_empty()).then(|| found.join("; "))
}

/// The parts of the engine's message that no input of `fields` shows beside
/// it (a property the form has no input for, the object as a whole), to be
/// shown once below the inputs; `None` when each part is beside its field.
pub(crate) fn unplaced_error(fields: &[Field<'_>], message: &str) -> Option<String> {
    let rest: Vec<&str> = (parts(message).into_iter())
        .filter(|part| {
            fields
                .iter()
                .all(|field| part_for(part, field.key).is_none())
        })
        .collect();
    match rest.len() {
        0 => None,
        _ if message.starts_with("does not match the schema: ") => {
            Some(format!("does not match the schema: {}", rest.join("; ")))
        }
        _ => Some(rest.join("; ")),
    }
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
        let html = render(&fields, None, None, None).into_string();
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
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"}, "count": {"type": "integer"}}});
        let fields = flat_fields(&schema).expect("flat");
        assert_eq!(unplaced_error(&fields, message), None);
        assert_eq!(
            unplaced_error(
                &fields,
                &format!("{message}; at : {{}} has too few properties")
            ),
            Some("does not match the schema: at : {} has too few properties".to_owned())
        );
        assert_eq!(
            unplaced_error(&fields, "choose Yes or No").as_deref(),
            Some("choose Yes or No")
        );
    }
}
