//! MCP rounds: a tool call's arguments and the client's elicitation results
//! through the walk, on a log in memory, for clients with full and with limited
//! forms. From bytes: either JSON (`[arguments, result, result, …]`, each
//! result an `ElicitResult` as a client sends it, for any dialect), or a form
//! built from bytes (`jp-form`) answered field by field from the bytes left,
//! right and wrong values alike, with `decline` and `cancel` among them.
//! Never a panic; every round is one rmcp sends as an elicitation; every round
//! recorded derives again from the log (`check_rounds`).

#![no_main]

mod common;

use std::collections::VecDeque;

use askuser_dialects::Dialect;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

/// A value for a field of `schema` from byte `b`: of the field's type (an
/// option, a set of options, a number, a text), or now and then of another.
fn field_value(schema: &Value, b: u8) -> Value {
    if b & 0xc0 == 0xc0 {
        return [
            json!(null),
            json!(""),
            json!(12),
            json!("yes"),
            json!([]),
            json!({}),
            json!(-1.5),
            json!("{\"name\":\"x\"}"),
        ][usize::from(b) % 8]
            .clone();
    }
    let b = usize::from(b);
    let options = |items: &Value| -> Vec<Value> {
        let list = items
            .get("enum")
            .or_else(|| items.get("oneOf"))
            .and_then(Value::as_array);
        list.map(|l| {
            l.iter()
                .map(|o| o.get("const").cloned().unwrap_or_else(|| o.clone()))
                .collect()
        })
        .unwrap_or_default()
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => Value::Bool(b & 1 == 1),
        Some("integer") => json!(b % 12),
        Some("number") => json!(b as f64 / 4.0),
        Some("array") => {
            let all = options(schema.get("items").unwrap_or(&Value::Null));
            Value::Array(
                all.into_iter()
                    .enumerate()
                    .filter(|(i, _)| b >> (i % 6) & 1 == 1)
                    .map(|(_, o)| o)
                    .collect(),
            )
        }
        _ => {
            let all = options(schema);
            if !all.is_empty() && b & 0x20 == 0 {
                all[b % all.len()].clone()
            } else {
                [
                    json!("own answer"),
                    json!("3"),
                    json!("{\"name\":\"x\"}"),
                    json!("[\"o1\"]"),
                    json!("  "),
                ][b % 5]
                    .clone()
            }
        }
    }
}

/// A client's result for a round's `requestedSchema`, from the bytes left.
fn respond(schema: &Value, bytes: &mut VecDeque<u8>) -> Option<Value> {
    let action = bytes.pop_front()?;
    match action {
        0xff => return Some(json!({"action": "decline"})),
        0xfe => return Some(json!({"action": "cancel"})),
        0xfd => return Some(json!({"action": "accept"})),
        _ => {}
    }
    let mut content = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, field) in properties.into_iter().flatten() {
        let b = bytes.pop_front().unwrap_or(0);
        if b == 0xbf {
            continue; // left out
        }
        content.insert(name.clone(), field_value(field, b));
    }
    if action & 0x80 != 0 {
        content.insert("unknown".to_owned(), json!(true));
    }
    Some(json!({"action": "accept", "content": content}))
}

fn check(walked: &askuser_mcp::fuzzing::Walked) {
    assert_eq!(
        walked.unsendable, None,
        "a round rmcp cannot send: {:?}",
        walked.rounds
    );
    assert_eq!(
        walked.rounds_derive,
        Ok(()),
        "a recorded round does not derive again: {:?}",
        walked.rounds
    );
    serde_json::to_value(&walked.result).expect("the result serializes");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let limited = mode & 1 == 1;
    if mode & 2 == 2 {
        let Ok(Value::Array(values)) = serde_json::from_slice::<Value>(rest) else {
            return;
        };
        let Some((arguments, results)) = values.split_first() else {
            return;
        };
        let dialect = Dialect::ALL[usize::from(mode >> 2) % Dialect::ALL.len()];
        let mut results = results.iter().cloned();
        let walked =
            askuser_mcp::fuzzing::rounds(dialect, arguments, limited, &mut |_| results.next());
        check(&walked);
        return;
    }
    let Some((&length, rest)) = rest.split_first() else {
        return;
    };
    let (head, tail) = rest.split_at((3 * (1 + usize::from(length) % 8)).min(rest.len()));
    if head.is_empty() {
        return;
    }
    let form = common::form_from(head);
    let arguments = serde_json::to_value(&form).expect("a form serializes");
    let mut bytes: VecDeque<u8> = tail.iter().copied().collect();
    let walked =
        askuser_mcp::fuzzing::rounds(Dialect::JpForm, &arguments, limited, &mut |schema| {
            respond(schema, &mut bytes)
        });
    check(&walked);
});
