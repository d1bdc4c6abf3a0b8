//! End to end with the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`,
//! pinned, installed by `scripts/test-env`): the request timeout that clients
//! built on it use, reset by the server's progress notifications, and a call the
//! client aborts mid-form. Set `ASKUSER_TEST_TS_SDK` (see `common`).

// The Python helpers of `common` are not used here.
#[allow(dead_code)]
mod common;

use common::Scratch;
use serde_json::{Value, json};

/// Three rounds: `apply` and `note`, then `env`, then `confirm` (production).
fn three_rounds() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "confirm", "text": "Production is live. Apply there now?", "answer_type": "boolean",
         "when": {"question_id": "env", "equals": "production"}},
        {"id": "note", "text": "Anything the migration should know?", "answer_type": "text"}]})
}

fn accept(content: &Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn answers() -> Value {
    json!([
        accept(&json!({"apply": true, "note": "n"})),
        accept(&json!({"env": "production"})),
        accept(&json!({"confirm": true}))
    ])
}

/// A 4 s client timeout that resets on progress completes a three-round form
/// answered at 2.5 s a round (7.5 s in all); the same timeout without the reset
/// ends the call at 4 s, and the client's cancellation ends the inquiry in the
/// log (no further round is asked).
#[test]
fn progress_keeps_a_short_client_timeout_waiting_for_the_person() {
    progress_keeps_a_short_client_timeout(false);
}

/// The same over streamable HTTP (the progress on the call's event stream, the
/// cancellation posted).
#[test]
fn progress_keeps_a_short_client_timeout_waiting_over_http() {
    progress_keeps_a_short_client_timeout(true);
}

fn progress_keeps_a_short_client_timeout(http: bool) {
    let scratch = Scratch::new();
    let drive = if http {
        Scratch::drive_ts_http
    } else {
        Scratch::drive_ts
    };
    let stream_of = |name: &str| {
        if http {
            format!("{name}-1")
        } else {
            name.to_owned()
        }
    };
    let out = drive(
        &scratch,
        "ts",
        json!({"calls": [
            {"tool": "ask_user", "arguments": three_rounds(), "responses": answers(),
             "delay_ms": 2500, "timeout_ms": 4000, "reset_on_progress": true},
            {"tool": "ask_user", "arguments": three_rounds(), "responses": answers(),
             "delay_ms": 2500, "timeout_ms": 4000, "reset_on_progress": false}]}),
    );
    let kept = &out["calls"][0];
    assert_eq!(
        kept["rounds"],
        json!([
            "Questions 1\u{2013}2 of 4",
            "Question 3 of 4",
            "Question 4 of 4"
        ])
    );
    assert_eq!(
        kept["progress"],
        json!([
            [1, "Questions 1\u{2013}2 of 4"],
            [2, "Question 3 of 4"],
            [3, "Question 4 of 4"]
        ])
    );
    assert_eq!(
        kept["structuredContent"],
        json!({"apply": true, "env": "production", "confirm": true, "note": "n"})
    );
    assert!(kept["took_ms"].as_u64().unwrap() > 7000, "{kept}");
    let timed_out = &out["calls"][1];
    assert_eq!(timed_out["error"], "MCP error -32001: Request timed out");
    assert_eq!(
        timed_out["rounds"],
        json!(["Questions 1\u{2013}2 of 4", "Question 3 of 4"])
    );
    let log = scratch.log();
    let transcripts: String = log
        .streams()
        .unwrap()
        .iter()
        .map(|s| askuser_app::log::transcript(&*log, &s.name).unwrap())
        .collect();
    assert!(log.stream(&stream_of("ts")).unwrap().is_some());
    assert_eq!(
        transcripts,
        "Asked \"Apply the proposed migration?\"; the answer was Yes.\nAsked \"Which environment?\"; the answer was production.\nAsked \"Production is live. Apply there now?\"; the answer was Yes.\nAsked \"Anything the migration should know?\"; the answer was n.\n\nAsked \"Apply the proposed migration?\"; the answer was Yes (not sent: client cancelled).\nAsked \"Anything the migration should know?\"; the answer was n (not sent: client cancelled).\nCould not ask \"Which environment?\" (client cancelled).\n"
    );
}

/// The client aborts the call while round 2 is shown: the server asks nothing
/// more and records that the client cancelled.
#[test]
fn a_call_the_client_aborts_ends_in_the_log() {
    a_call_the_client_aborts(false);
}

/// The same over streamable HTTP.
#[test]
fn a_call_the_client_aborts_over_http_ends_in_the_log() {
    a_call_the_client_aborts(true);
}

fn a_call_the_client_aborts(http: bool) {
    let scratch = Scratch::new();
    let drive = if http {
        Scratch::drive_ts_http
    } else {
        Scratch::drive_ts
    };
    let stream = if http { "abort-1" } else { "abort" };
    let out = drive(
        &scratch,
        "abort",
        json!({"calls": [
            {"tool": "ask_user", "arguments": three_rounds(), "responses": answers(),
             "abort_at_round": 2}]}),
    );
    assert_eq!(
        out["calls"][0]["rounds"],
        json!(["Questions 1\u{2013}2 of 4", "Question 3 of 4"])
    );
    assert_eq!(
        out["calls"][0]["error"],
        "MCP error -32001: AbortError: This operation was aborted"
    );
    let log = scratch.log();
    // `note`, given beside `apply` in round 1, is kept too.
    assert_eq!(
        askuser_app::log::transcript(&*log, stream).unwrap(),
        "Asked \"Apply the proposed migration?\"; the answer was Yes (not sent: client cancelled).\nAsked \"Anything the migration should know?\"; the answer was n (not sent: client cancelled).\nCould not ask \"Which environment?\" (client cancelled).\n"
    );
}
