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
    hosts: &[Host::Mcp, Host::McpEarlier],
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
    hosts: &[Host::Mcp, Host::McpEarlier],
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
    hosts: &[Host::Mcp, Host::McpEarlier],
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
    hosts: &[Host::Mcp, Host::McpEarlier],
    applies: |call| call.get("message").is_none(),
    fix: Some(|call| {
        if let Some(map) = call.as_object_mut() {
            map.insert("message".into(), "Please fill in the form".into());
        }
    }),
    reason: "askuser's published `mcp` schema leaves `message` optional (the fields' titles say what is asked); the SDK requires it",
};

/// A 2025-11-25 multi-select (an `array` field): the SDK 1.17.5 (2025-06-18)
/// refuses it, askuser asks it. Fixed as the single-select of the same options.
pub const MULTI_SELECT: Known = Known {
    name: "a multi-select (2025-11-25)",
    host_accepts: false,
    hosts: &[Host::McpEarlier],
    applies: |call| fields(call).any(|f| f.get("type").and_then(Value::as_str) == Some("array")),
    fix: Some(|call| {
        for f in fields_mut(call) {
            if f.get("type").and_then(Value::as_str) == Some("array") {
                *f = single_select(f);
            }
        }
    }),
    reason: "specification 2025-11-25 added multi-selects; a 2025-06-18 SDK refuses them, and askuser asks what a 2025-11-25 server sends",
};

/// A 2025-11-25 titled single-select (`oneOf`): a 2025-06-18 client passes it
/// through and shows free text, askuser shows the options. Fixed as the legacy
/// `enum` with `enumNames`, which both show as the same options.
pub const TITLED_SELECT: Known = Known {
    name: "a titled single-select (2025-11-25)",
    host_accepts: true,
    hosts: &[Host::McpEarlier],
    applies: |call| fields(call).any(|f| f.contains_key("oneOf")),
    fix: Some(|call| {
        for f in fields_mut(call) {
            if let Some(Value::Array(options)) = f.remove("oneOf") {
                let (values, names) = consts_and_titles(&options);
                f.insert("enum".into(), Value::Array(values));
                f.insert("enumNames".into(), Value::Array(names));
            }
        }
    }),
    reason: "`oneOf` is 2025-11-25's; a 2025-06-18 client keeps it as an unknown key of a string field and shows free text, askuser shows the options the server means",
};

/// The legacy single-select `{type: "string", enum, enumNames}` of a multi-select
/// field's options, with its title and description.
fn single_select(field: &Map<String, Value>) -> Map<String, Value> {
    let items = field.get("items");
    let (values, names) =
        if let Some(options) = items.and_then(|i| i.get("anyOf")).and_then(Value::as_array) {
            consts_and_titles(options)
        } else {
            let values: Vec<Value> = items
                .and_then(|i| i.get("enum"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            (values.clone(), values)
        };
    let mut out = Map::new();
    out.insert("type".into(), "string".into());
    out.insert("enum".into(), Value::Array(values));
    out.insert("enumNames".into(), Value::Array(names));
    for key in ["title", "description"] {
        if let Some(value) = field.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    out
}

/// The `const`s of `{const, title}` options, and their titles (else the const).
fn consts_and_titles(options: &[Value]) -> (Vec<Value>, Vec<Value>) {
    options
        .iter()
        .map(|o| {
            let value = o.get("const").cloned().unwrap_or(Value::Null);
            let title = o.get("title").filter(|t| t.is_string()).cloned();
            (value.clone(), title.unwrap_or(value))
        })
        .unzip()
}

/// A URL-mode request (2025-11-25): a 2025-06-18 SDK knows no `mode` and passes it
/// through, askuser refuses it (it asks for no form). Fixed by dropping `mode`.
pub const URL_MODE: Known = Known {
    name: "a URL-mode request (2025-11-25)",
    host_accepts: true,
    hosts: &[Host::McpEarlier],
    applies: |call| call.get("mode").is_some_and(|m| m != "form"),
    fix: Some(|call| {
        if let Some(map) = call.as_object_mut() {
            map.remove("mode");
        }
    }),
    reason: "a 2025-06-18 SDK ignores the 2025-11-25 `mode`; a request that is not `\"form\"` asks the person to open a URL, no form, and askuser refuses it",
};
