//! The known disagreements between askuser's `mcp` dialect and the MCP TypeScript
//! SDK 1.32.2's elicitation schema (mirrored in `docs/dialects.md`), in the terms
//! of `known.rs`.

use serde_json::{Map, Value};

use super::generate::Host;
use super::known::Known;

/// `properties: {}`: the SDK accepts a form of no fields.
pub const NO_FIELDS: Known = Known {
    name: "no fields",
    host_accepts: true,
    hosts: &[Host::Mcp],
    applies: |call| {
        call.pointer("/requestedSchema/properties")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    },
    fix: None,
    reason: "askuser refuses a `requestedSchema` without fields: there is nothing to ask",
};

/// A default that is no valid answer: the SDK only checks its JSON type.
pub const DEFAULT: Known = Known {
    name: "a default that is no valid answer",
    host_accepts: true,
    hosts: &[Host::Mcp],
    applies: |call| fields(call).any(|f| f.contains_key("default")),
    fix: Some(|call| {
        for f in fields_mut(call) {
            f.remove("default");
        }
    }),
    reason: "the core refuses a default that is not a valid answer (not one of the options, outside `minimum`..`maximum`, not the `format`); the SDK checks only its JSON type",
};

/// A blank or repeated option value.
pub const OPTION_TEXT: Known = Known {
    name: "a blank or repeated option",
    host_accepts: true,
    hosts: &[Host::Mcp],
    applies: |call| {
        fields(call).any(|f| {
            let values = option_values(f);
            values.iter().any(|v| v.trim().is_empty())
                || values
                    .iter()
                    .enumerate()
                    .any(|(i, v)| values[..i].contains(v))
        })
    },
    fix: Some(|call| {
        for f in fields_mut(call) {
            let target = if f.contains_key("enum") {
                f.get_mut("enum")
            } else {
                f.get_mut("items").and_then(|i| i.get_mut("enum"))
            };
            if let Some(Value::Array(values)) = target {
                for (i, value) in values.iter_mut().enumerate() {
                    *value = Value::String(format!("option {i}"));
                }
            }
        }
    }),
    reason: "the core refuses an empty or blank option label and two options with the same label: the answer names the option",
};

/// The call's fields, as objects.
fn fields(call: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    call.pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values)
        .filter_map(Value::as_object)
}

fn fields_mut(call: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    call.pointer_mut("/requestedSchema/properties")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(Map::values_mut)
        .filter_map(Value::as_object_mut)
}

/// The string values of a field's `enum` (or its items' `enum`).
fn option_values(field: &Map<String, Value>) -> Vec<String> {
    let values = field
        .get("enum")
        .or_else(|| field.get("items").and_then(|i| i.get("enum")));
    values
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// No `message`: the SDK requires one.
pub const NO_MESSAGE: Known = Known {
    name: "no message",
    host_accepts: false,
    hosts: &[Host::Mcp],
    applies: |call| call.get("message").is_none(),
    fix: Some(|call| {
        if let Some(map) = call.as_object_mut() {
            map.insert("message".into(), "Please fill in the form".into());
        }
    }),
    reason: "askuser's published `mcp` schema leaves `message` optional (the fields' titles say what is asked); the SDK requires it",
};
