//! `OpenAI` strict function schemas: every object lists all its properties in
//! `required` and sets `additionalProperties: false`; a property that was optional
//! becomes nullable (a model then sends `null` for it, which every dialect reads as
//! absent). A schema holding free-form JSON (an object without `properties`, a
//! value of any type) cannot be said strictly.

use serde_json::{Map, Value, json};

/// The strict form of `schema`, or `None` if some part of it is free-form.
pub(crate) fn strict(schema: &Value) -> Option<Value> {
    let Value::Object(map) = schema else {
        return None;
    };
    let mut out = map.clone();
    if let Some(any_of) = map.get("anyOf").and_then(Value::as_array) {
        let items: Option<Vec<Value>> = any_of.iter().map(strict).collect();
        out.insert("anyOf".into(), Value::Array(items?));
        return Some(Value::Object(out));
    }
    match map.get("type")? {
        Value::String(t) if t == "object" => object(map, &mut out)?,
        Value::String(t) if t == "array" => {
            out.insert("items".into(), strict(map.get("items")?)?);
        }
        _ => {}
    }
    Some(Value::Object(out))
}

fn object(map: &Map<String, Value>, out: &mut Map<String, Value>) -> Option<()> {
    let properties = map.get("properties")?.as_object()?;
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut strict_properties = Map::new();
    for (name, property) in properties {
        let mut property = strict(property)?;
        if !required.contains(&name.as_str()) {
            nullable(&mut property);
        }
        strict_properties.insert(name.clone(), property);
    }
    let all: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
    out.insert("properties".into(), Value::Object(strict_properties));
    out.insert("required".into(), Value::Array(all));
    out.insert("additionalProperties".into(), Value::Bool(false));
    Some(())
}

/// Lets `null` through a schema as well.
fn nullable(schema: &mut Value) {
    if let Some(any_of) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        any_of.push(json!({"type": "null"}));
        return;
    }
    match schema.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            schema["type"] = json!([t, "null"]);
        }
        Some(Value::Array(types)) => types.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.push(Value::Null);
    }
}
