//! MCP sampling with the official MCP Python SDK: questions whose policy
//! targets the assistant (RFD 028) are answered through the client's
//! `sampling/createMessage` (the SDK's `sampling_callback`), checked by the
//! engine and recorded `by: assistant`. Set `ASKUSER_TEST_PYTHON`.

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use common::{Scratch, replayed_result};
use serde_json::{Value, json};

/// The policy that routes every question to the assistant.
const FOR_THE_ASSISTANT: &str = r#"{"target": "assistant", "exclusive": false}"#;

fn scenario(sampling: bool, calls: &Value) -> Value {
    json!({"env": {"ASKUSER_MCP_POLICY": FOR_THE_ASSISTANT}, "sampling": sampling, "calls": calls})
}

fn limits() -> Value {
    json!({"questions": [
        {"id": "limits", "text": "Resource limits?", "answer_type": "schema",
         "schema": {"type": "object", "properties": {"cpu": {"type": "number"}}, "required": ["cpu"]}}]})
}

/// The events of a stream after its request, in words.
fn events(scratch: &Scratch, stream: &str) -> Vec<String> {
    let report = askuser_rpc::replay(&*scratch.log(), stream).unwrap();
    report
        .events
        .iter()
        // Neither the requests nor the results handed over to the client
        // (`python_resume.rs` checks those).
        .filter(|e| {
            !matches!(
                e.event,
                askuser_core::Event::Requested(_) | askuser_core::Event::Delivered { .. }
            )
        })
        .map(|e| askuser_rpc::describe_event(&e.event))
        .collect()
}

#[test]
fn sampling_answers_the_questions_for_the_assistant() {
    let scratch = Scratch::new();
    let arguments = json!({"questions": [
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"]},
        {"id": "confirm", "text": "Production is live. Apply there now?", "answer_type": "boolean",
         "when": {"question_id": "env", "equals": "production"}},
        {"id": "note", "text": "Anything to add?", "answer_type": "text"}]});
    let out = scratch.drive(
        "sampled",
        None,
        scenario(
            true,
            &json!([{"tool": "ask_user", "arguments": arguments,
                    "samples": ["\"production\"", "```json\ntrue\n```", "run it at night"]}]),
        ),
    );
    let call = &out["calls"][0];
    let expected = json!({"env": "production", "confirm": true, "note": "run it at night"});
    assert_eq!(call["isError"], false);
    assert_eq!(call["structuredContent"], expected);
    // No form was shown to the person.
    assert_eq!(call["rounds"], json!([]));
    let sampled = call["sampled"].as_array().unwrap();
    assert_eq!(sampled.len(), 3);
    let schema = json!({"type": "string", "enum": ["staging", "production"]});
    assert_eq!(
        sampled[0],
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": format!(
                "Which environment?\n\nAnswer with JSON valid against this JSON Schema:\n{schema}")}}],
            "systemPrompt": "You are answering a question that askuser routed to you, the assistant, instead of to the user. Reply with the answer alone, as JSON valid against the JSON Schema given: no prose, no code fence.",
            "maxTokens": 2048,
            "metadata": {"askuser": {"question": "env", "schema": schema}}
        })
    );
    assert_eq!(
        events(&scratch, "sampled"),
        [
            "answered call-1: env = \"production\" (by assistant)",
            "answered call-1: confirm = true (by assistant)",
            "answered call-1: note = \"run it at night\" (by assistant)",
        ]
    );
    assert_eq!(
        replayed_result(&*scratch.log(), "sampled"),
        json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": false})
    );
}

/// A sampled answer that does not fit the schema is refused (recorded as such)
/// and the model is asked again with the reason; three in a row that do not fit
/// fail the call (`backend_error`), never passed to the person.
#[test]
fn a_sampled_answer_that_fails_the_schema_is_refused_and_asked_again() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "refused",
        None,
        scenario(
            true,
            &json!([
                {"tool": "ask_user", "arguments": limits(),
                 "samples": ["{\"mem\": 2}", "{\"cpu\": 1.5}"]},
                {"tool": "ask_user", "arguments": limits(),
                 "samples": ["{\"cpu\": \"two\"}", "\u{1b}[2J{\"cpu\": 1}", "{}"]}
            ]),
        ),
    );
    let fixed = &out["calls"][0];
    assert_eq!(fixed["structuredContent"], json!({"limits": {"cpu": 1.5}}));
    let schema = r#"{"type":"object","properties":{"cpu":{"type":"number"}},"required":["cpu"]}"#;
    assert_eq!(
        fixed["sampled"][1]["messages"][0]["content"]["text"],
        format!(
            "Resource limits?\n\nAnswer with JSON valid against this JSON Schema:\n{schema}\n\nYour last answer was not accepted: does not match the schema: \"cpu\" is a required property"
        )
    );
    let failed = &out["calls"][1];
    assert_eq!(failed["rounds"], json!([]));
    assert_eq!(failed["sampled"].as_array().unwrap().len(), 3);
    assert_eq!(failed["isError"], true);
    assert_eq!(
        failed["text"],
        json!([
            "ask_user: the assistant backend failed to answer. Do not retry this tool call in this turn."
        ])
    );
    // A reply with a terminal escape never reaches the engine; the model is told.
    let third = failed["sampled"][2]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        third.ends_with(
            "\n\nYour last answer was not accepted: the reply has U+001B ESCAPE at character 1; answer in plain text"
        ),
        "{third}"
    );
    assert_eq!(
        events(&scratch, "refused"),
        [
            "refused an answer to call-1: limits (does not match the schema: \"cpu\" is a required property)",
            "answered call-1: limits = {\"cpu\":1.5} (by assistant)",
            "refused an answer to call-5: limits (does not match the schema: at /cpu: \"two\" is not of type \"number\")",
            "refused an answer to call-5: limits (does not match the schema: \"cpu\" is a required property)",
            "cancelled call-5 (backend_error)",
        ]
    );
}

/// A client that offers no sampling: the call fails, saying the questions are
/// for the model itself; nothing is shown to the person.
#[test]
fn without_sampling_the_questions_for_the_assistant_fail_and_say_so() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "unsampled",
        None,
        scenario(false, &json!([{"tool": "ask_user", "arguments": limits()}])),
    );
    let call = &out["calls"][0];
    assert_eq!(call["rounds"], json!([]));
    assert_eq!(call["isError"], true);
    assert_eq!(
        call["text"],
        json!([
            "ask_user: these questions are for you (the assistant), and askuser asks the assistant through the client's sampling (sampling/createMessage), which this client does not offer. Do not retry this tool call in this turn; answer them yourself from what you know."
        ])
    );
    assert_eq!(
        events(&scratch, "unsampled"),
        ["cancelled call-1 (backend_error)"]
    );
}
