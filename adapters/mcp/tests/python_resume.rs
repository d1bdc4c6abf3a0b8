//! An answer given while the call was not waiting reaches the client that calls
//! again: a call whose server went away (here it returned a pending file; a
//! server killed mid-call leaves the log the same way) is answered from another
//! window, and a new server process, given the same call (same tool, same
//! arguments, same stream), returns the recorded result instead of asking
//! again, once: the next identical call is a new question. With the MCP Python
//! SDK (`ASKUSER_TEST_PYTHON`).

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use std::process::Command;

use common::{Scratch, example};
use serde_json::{Value, json};

fn apply() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"}]})
}

/// What a call's result shows the model.
fn result(call: &Value) -> Value {
    json!({"isError": call["isError"], "text": call["text"],
           "structuredContent": call["structuredContent"]})
}

/// One client session (a new server process) making the one call, without forms.
fn call_once(scratch: &Scratch, pending: &std::path::Path) -> Value {
    let out = scratch.drive(
        "resume",
        Some(pending),
        json!({"elicit": false, "calls": [{"tool": "ask_user", "arguments": apply()}]}),
    );
    out["calls"][0].clone()
}

/// The pending result of `call-N`.
fn pending_result(pending: &std::path::Path, inquiry: &str) -> Value {
    let shown = pending.join(format!("askuser-resume-{inquiry}.json"));
    let shown = shown.display();
    let words = format!(
        "Questions pending. User input required.\n\nTo answer, run:\n  askuser answer {shown} --answers '[...]'\n(one answer per question, in order; null for a question that is skipped)\n\nOr fill in each \"answer\" in the file and run:\n  askuser answer {shown}\n\nQuestions saved to: {shown}\n"
    );
    json!({"isError": false,
        "text": [&words],
        "structuredContent": {"status": "pending", "file": shown.to_string(), "instructions": words}})
}

#[test]
fn a_call_made_again_after_its_server_went_away_gets_the_answer_given_meanwhile_once() {
    let scratch = Scratch::new();
    let pending = scratch.dir.path().join("pending");
    std::fs::create_dir(&pending).unwrap();
    let first = call_once(&scratch, &pending);
    assert_eq!(result(&first), pending_result(&pending, "call-1"));

    // Nobody waits on the call now; the person answers in another window.
    let answered = Command::new(example("elsewhere"))
        .arg(scratch.db())
        .arg("resume")
        .arg(r#"[{"answer": true}]"#)
        .output()
        .unwrap();
    assert!(answered.status.success(), "{answered:?}");

    // The host started the server again, and the model calls again.
    let again = call_once(&scratch, &pending);
    assert_eq!(
        result(&again),
        json!({"isError": false, "text": ["{\"apply\":true}"],
               "structuredContent": {"apply": true}})
    );
    assert_eq!(again["rounds"], json!([]));

    // Given once: the same call once more is a new question.
    let third = call_once(&scratch, &pending);
    assert_eq!(result(&third), pending_result(&pending, "call-5"));

    let log = scratch.log();
    let report = askuser_rpc::replay(&*log, "resume").unwrap();
    let words: Vec<String> = (report.events.iter())
        .map(|e| askuser_rpc::describe_event(&e.event))
        .collect();
    assert_eq!(
        words[1..],
        [
            "client noted call-1: no forms",
            "answered call-1: apply = true",
            "delivered call-1",
            &words[4],
            "client noted call-5: no forms",
        ]
    );
    assert!(words[0].starts_with("requested call-1"), "{}", words[0]);
    assert!(words[4].starts_with("requested call-5"), "{}", words[4]);
}
