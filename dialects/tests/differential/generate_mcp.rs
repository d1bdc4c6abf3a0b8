//! Generated MCP elicitation calls (`elicitation/create` form parameters): a real
//! `requestedSchema` of one to four fields of every kind of the specification
//! (2025-11-25) as in `tests/mcp.rs`, then zero to three mutations of the kinds a
//! server or a model gets wrong: a field left out, `null`, a wrong JSON type, an
//! unknown `type` or `format`, enum values that are not strings, titled options
//! without titles, defaults that are not options, `required` not a list of names,
//! another mode, no fields, blank or repeated values, extra keys.

use serde_json::{Map, Value, json};

use super::generate::Rng;

const NAMES: [&str; 8] = [
    "name", "email", "replicas", "confirm", "region", "size", "tags", "notes",
];
const MESSAGES: [&str; 3] = [
    "Please provide your deployment details",
    "",
    "Plan:\n1. migrate\n2. deploy",
];
const TITLES: [&str; 4] = ["Display name", "Region", "  padded  ", "Deploy now?"];

/// `{const, title}` options (the title sometimes the same as the const).
fn titled(rng: &mut Rng) -> Value {
    let all = [
        ("eu", "Europe"),
        ("us", "us"),
        ("ap", "Asia Pacific"),
        ("sa", "South America"),
    ];
    let count = 1 + rng.below(4);
    let items: Vec<Value> = all[..count]
        .iter()
        .map(|(c, t)| json!({"const": c, "title": t}))
        .collect();
    Value::Array(items)
}

/// One field of the kind `kind` (0..9).
fn field(rng: &mut Rng, kind: usize) -> Value {
    let mut field = match kind {
        0 => json!({"type": "string"}),
        1 => json!({"type": "string", "minLength": 1, "maxLength": 40}),
        2 => json!({"type": "string", "format": rng.pick(&["email", "uri", "date", "date-time"])}),
        3 => json!({"type": rng.pick(&["integer", "number"]), "minimum": 1, "maximum": 9}),
        4 => json!({"type": "boolean"}),
        5 => json!({"type": "string", "enum": ["s", "m", "l"]}),
        6 => json!({"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "m"]}),
        7 => json!({"type": "string", "oneOf": titled(rng)}),
        8 => json!({"type": "array", "items": {"anyOf": titled(rng)}}),
        _ => json!({"type": "array", "items": {"type": "string", "enum": ["web", "db"]}}),
    };
    if rng.chance(50) {
        field["title"] = json!(rng.pick(&TITLES));
    }
    if rng.chance(30) {
        field["description"] = json!(rng.pick(&["Shown to others", "", "Line one\nline two"]));
    }
    if rng.chance(30) {
        let default = match kind {
            0..=2 => json!("me@example.com"),
            3 => json!(2),
            4 => json!(false),
            5 | 6 => json!("s"),
            7 => json!("eu"),
            8 => json!(["eu"]),
            _ => json!(["web"]),
        };
        field["default"] = default;
    }
    field
}

/// A call in the specification's shape, then zero to three mutations.
pub fn call(rng: &mut Rng) -> Value {
    let count = 1 + rng.below(4);
    let start = rng.below(NAMES.len());
    let mut properties = Map::new();
    for i in 0..count {
        let kind = rng.below(10);
        properties.insert(NAMES[(start + i) % NAMES.len()].into(), field(rng, kind));
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if rng.chance(50) {
        let first = NAMES[start];
        schema["required"] = json!([first]);
    }
    let mut call = json!({"message": rng.pick(&MESSAGES), "requestedSchema": schema});
    for _ in 0..rng.below(4) {
        mutate(rng, &mut call);
    }
    call
}

/// One of the call's fields, as an object, if there is one.
fn some_field<'a>(rng: &mut Rng, call: &'a mut Value) -> Option<&'a mut Map<String, Value>> {
    let properties = call
        .get_mut("requestedSchema")?
        .get_mut("properties")?
        .as_object_mut()?;
    if properties.is_empty() {
        return None;
    }
    let at = rng.below(properties.len());
    properties.values_mut().nth(at)?.as_object_mut()
}

/// A value of another JSON type standing for `value`.
fn retyped(rng: &mut Rng, value: &Value) -> Value {
    match value {
        Value::Bool(b) => json!(b.to_string()),
        Value::String(s) if rng.chance(50) => json!(s.len()),
        Value::String(_) => json!(true),
        Value::Array(items) => json!(format!("{} items", items.len())),
        Value::Number(n) => json!(n.to_string()),
        _ => json!(1),
    }
}

/// Applies one mutation, chosen at random, to `call`.
fn mutate(rng: &mut Rng, call: &mut Value) {
    if !call.get("requestedSchema").is_some_and(Value::is_object) {
        return;
    }
    match rng.below(12) {
        0 => top_mutation(rng, call),
        1 | 2 => field_mutation(rng, call),
        3 | 4 => choice_mutation(rng, call),
        5 => {
            if let Some(f) = some_field(rng, call) {
                let default = rng
                    .pick(&[json!("xx"), json!(["xx"]), json!(12), json!("yes")])
                    .clone();
                f.insert("default".into(), default);
            }
        }
        6 => {
            let required = rng
                .pick(&[
                    json!(["name", "unknown"]),
                    json!("name"),
                    json!([1]),
                    json!([]),
                ])
                .clone();
            call["requestedSchema"]["required"] = required;
        }
        7 => {
            if let Some(f) = some_field(rng, call) {
                let (key, value) = rng
                    .pick(&[
                        ("format", json!("phone")),
                        ("format", json!("email")),
                        ("placeholder", json!("e.g. eu")),
                        ("pattern", json!("^[a-z]+$")),
                        ("x-order", json!(1)),
                        ("minLength", json!("1")),
                        ("maximum", json!(100)),
                    ])
                    .clone();
                f.insert(key.into(), value);
            }
        }
        8 => {
            let properties = rng
                .pick(&[
                    json!({}),
                    json!([]),
                    json!({"address": {"type": "object", "properties": {}}}),
                ])
                .clone();
            call["requestedSchema"]["properties"] = properties;
        }
        9 => {
            if let Some(f) = some_field(rng, call) {
                let key = *rng.pick(&["title", "description", "default", "enum", "items"]);
                f.insert(key.into(), Value::Null);
            }
        }
        10 => {
            if let Some(f) = some_field(rng, call) {
                let kind = rng.pick(&["object", "str", "date", "integer", "array"]);
                f.insert("type".into(), json!(kind));
            }
        }
        _ => {}
    }
}

/// The message or the schema's `type` left out, retyped or changed; another mode;
/// extra parameters; not an object at all.
fn top_mutation(rng: &mut Rng, call: &mut Value) {
    let Some(map) = call.as_object_mut() else {
        return;
    };
    match rng.below(7) {
        0 => {
            map.remove("message");
        }
        1 => {
            let message = map.get("message").cloned().unwrap_or(Value::Null);
            map.insert("message".into(), retyped(rng, &message));
        }
        2 => {
            if let Some(Value::Object(schema)) = map.get_mut("requestedSchema") {
                if rng.chance(50) {
                    schema.remove("type");
                } else {
                    schema.insert("type".into(), json!("array"));
                }
            }
        }
        3 => {
            map.insert("mode".into(), json!(rng.pick(&["form", "url"])));
        }
        4 => {
            map.insert("_meta".into(), json!({"progressToken": 1}));
        }
        5 => {
            map.remove("requestedSchema");
        }
        _ => *call = json!("Which region?"),
    }
}

/// A field's key left out, or given another JSON type.
fn field_mutation(rng: &mut Rng, call: &mut Value) {
    let Some(f) = some_field(rng, call) else {
        return;
    };
    let keys: Vec<String> = f.keys().cloned().collect();
    let key = rng.pick(&keys).clone();
    if rng.chance(40) {
        f.remove(&key);
    } else {
        let value = retyped(rng, &f[&key]);
        f.insert(key, value);
    }
}

/// Options that are not what the schema asks: numbers, untitled, blank, repeated,
/// both `enum` and `oneOf`, `enum` items without `"type": "string"`.
fn choice_mutation(rng: &mut Rng, call: &mut Value) {
    let how = rng.below(7);
    let Some(f) = some_field(rng, call) else {
        return;
    };
    match how {
        0 => {
            f.insert("enum".into(), json!([1, 2]));
        }
        1 => {
            f.insert("oneOf".into(), json!([{"const": "eu"}, {"const": "us"}]));
        }
        2 => {
            let blank = rng.pick(&["", " "]);
            f.insert("enum".into(), json!([blank, "m"]));
        }
        3 => {
            f.insert("enum".into(), json!(["s", "s"]));
        }
        4 => {
            f.insert("enumNames".into(), json!([1, "Medium"]));
        }
        5 => {
            f.insert("items".into(), json!({"enum": ["web", "db"]}));
        }
        _ => {
            f.insert("items".into(), json!({"anyOf": [{"const": "web"}]}));
        }
    }
}
