//! The MCP Python SDK drives elicitation rounds that end before the form is
//! done: every answer given in the rounds is recorded as it comes back and kept
//! (in a decline's cancel marker, in the log of a dismissed form). Set
//! `ASKUSER_TEST_PYTHON` (see `scripts/mcp-venv.sh`).

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use common::{Scratch, accept, messages, migration, replayed_result};
use serde_json::json;

/// A decline keeps every answer given in the rounds, in both protocol
/// generations: those the engine took, and those it had not reached (`note` of
/// round 1, `limits` of round 2, recorded as given ahead as each round came
/// back), in the cancel marker and in the log, before the Reply.
#[test]
fn a_decline_keeps_every_answer_given_in_the_rounds() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let responses = [
            accept(&json!({"apply": true, "note": "tonight"})),
            accept(&json!({"env": "production", "limits": "{\"cpu\": 2}"})),
            json!({"action": "decline"}),
        ];
        let out = scratch.drive(
            "kept",
            None,
            json!({"mode": mode, "calls": [{"tool": "ask_user", "arguments": migration(), "responses": responses}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(
            messages(call),
            [
                "Questions 1\u{2013}2 of 5",
                "Questions 3\u{2013}4 of 5",
                "Question 5 of 5"
            ],
            "{mode}"
        );
        let expected = json!({"cancelled": true, "answered": {
            "apply": true, "env": "production", "note": "tonight", "limits": {"cpu": 2}}});
        assert_eq!(call["isError"], false, "{mode}");
        assert_eq!(call["structuredContent"], expected, "{mode}");
        assert_eq!(call["text"], json!([expected.to_string()]), "{mode}");
        let log = scratch.log();
        let report = askuser_rpc::replay(&*log, "kept").unwrap();
        let events: Vec<String> = report
            .events
            .iter()
            .skip(1)
            .map(|e| askuser_rpc::describe_event(&e.event))
            .collect();
        assert_eq!(
            events,
            [
                "shown call-1: apply, note",
                "answered call-1: apply = true",
                "answered ahead call-1: note = \"tonight\"",
                "shown call-1: env, limits",
                "answered call-1: env = \"production\"",
                "answered ahead call-1: limits = {\"cpu\":2}",
                "shown call-1: confirm",
                "reply call-1",
                "delivered call-1",
            ],
            "{mode}"
        );
        assert_eq!(
            replayed_result(&*log, "kept"),
            json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": true})
        );
        assert_eq!(
            askuser_app::log::transcript(&*log, "kept").unwrap(),
            "Asked \"Apply the proposed migration?\"; the answer was Yes.\nAsked \"Which environment?\"; the answer was production.\nAsked \"Anything the migration should know?\"; the answer was tonight.\nAsked \"Resource limits?\"; the answer was {\"cpu\":2}.\nThe user chose to reply instead of answering \"Production is live. Apply there now?\".\n"
        );
    }
}

/// Dismissing the form (`cancel`) sends nothing, but the answers given in the
/// rounds stay in the log: the transcript lists them as not sent.
#[test]
fn a_dismissed_form_keeps_the_answers_given_in_the_log() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "dismissed",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(),
                          "responses": [accept(&json!({"apply": true, "note": "n"})),
                                        {"action": "cancel"}]}]}),
    );
    assert_eq!(out["calls"][0]["isError"], true);
    let log = scratch.log();
    assert_eq!(
        askuser_app::log::transcript(&*log, "dismissed").unwrap(),
        "Asked \"Apply the proposed migration?\"; the answer was Yes (not sent: the turn ended).\nAsked \"Anything the migration should know?\"; the answer was n (not sent: the turn ended).\nThe user ended the turn while being asked \"Which environment?\".\n"
    );
}
