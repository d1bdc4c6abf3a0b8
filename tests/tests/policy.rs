//! An `ask`'s `policy` and `origin` reach the engine: configured answers, questions
//! for the assistant, a sub-agent, a host with no person present.

use askuser_rpc::{Desk, Server};
use serde_json::{Value, json};

fn ask(extra: &Value) -> String {
    let mut line = json!({"type": "ask", "inquiry": "a", "dialect": "jp",
                          "arguments": {"question": "Deploy now?", "answer_type": "boolean"}});
    for (key, value) in extra.as_object().unwrap() {
        line[key] = value.clone();
    }
    line.to_string()
}

fn serve(lines: &[String]) -> Vec<Value> {
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    lines.iter().flat_map(|l| server.handle_line(l)).collect()
}

#[test]
fn a_configured_answer_is_never_shown() {
    assert_eq!(
        serve(&[ask(
            &json!({"policy": {"static_answers": {"answer": true}}})
        )]),
        [
            json!({"type": "result", "inquiry": "a", "result": {"answer_type": "boolean", "answer": true}, "cancelled": false})
        ]
    );
}

#[test]
fn a_policy_that_does_not_read_is_an_error_naming_it() {
    assert_eq!(
        serve(&[ask(&json!({"policy": {"target": "robot"}}))]),
        [
            json!({"type": "error", "inquiry": "a", "message": "\"policy\" does not read as a policy (unknown variant `robot`, expected `user` or `assistant`); see docs/protocol.md for its fields"})
        ]
    );
}

#[test]
fn a_question_for_the_assistant_is_answered_by_it() {
    let out = serve(&[
        ask(&json!({"policy": {"target": "assistant", "exclusive": false}})),
        json!({"type": "answer", "inquiry": "a", "question": "answer", "value": false, "by": "assistant"}).to_string(),
    ]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["type"], "ask_assistant");
    assert_eq!(out[0]["question"], "answer");
    assert_eq!(
        out[1],
        json!({"type": "result", "inquiry": "a", "result": {"answer_type": "boolean", "answer": false}, "cancelled": false})
    );
}

#[test]
fn an_exclusive_question_for_the_assistant_fails_without_a_retry() {
    let out = serve(&[ask(&json!({"policy": {"target": "assistant"}}))]);
    assert_eq!(
        out,
        [
            json!({"type": "failed", "inquiry": "a", "reason": "assistant_routing_denied",
                "tool_error": "ask_user requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn."})
        ]
    );
}

#[test]
fn end_turn_ends_every_open_inquiry_of_the_turn() {
    let second = ask(&json!({"origin": {"turn": "t1"}})).replace("\"a\"", "\"b\"");
    let out = serve(&[
        ask(&json!({"origin": {"turn": "t1"}})),
        second,
        json!({"type": "end_turn", "inquiry": "a"}).to_string(),
    ]);
    let types: Vec<(&str, &str)> = out
        .iter()
        .map(|l| (l["type"].as_str().unwrap(), l["inquiry"].as_str().unwrap()))
        .collect();
    assert_eq!(
        types,
        [
            ("prompt", "a"),
            ("prompt", "b"),
            ("turn_ended", "a"),
            ("turn_ended", "b")
        ]
    );
}
