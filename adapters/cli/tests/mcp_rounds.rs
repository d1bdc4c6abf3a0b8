//! `askuser log replay` on an MCP session's stream: the elicitation rounds
//! recorded (`shown`) are derived again from the events before each and
//! compared; one recorded with another grouping is a mismatch (exit 6).

mod common;

use std::sync::Arc;

use askuser_app::log::Log;
use askuser_core::CancelReason;
use askuser_sled::SledLog;
use askuser_testkit::build::{answered, answered_ahead, cancelled, requested, shown};
use common::Scratch;
use serde_json::json;

/// Records RFD D30's migration form asked in rounds over MCP and declined in the
/// second, with `second` as the second round's questions.
fn record(scratch: &Scratch, second: &[&str]) {
    let form = askuser_core::parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Anything the migration should know?", "answer_type": "text"}
    ]}))
    .unwrap();
    let id = "call-1";
    let log: Arc<dyn Log> = Arc::new(SledLog::open(scratch.db()).unwrap());
    let events = [
        requested(id, form.form().clone()),
        shown(id, &["apply", "note"]),
        answered(id, "apply", json!(true)),
        answered_ahead(id, "note", json!("tonight")),
        shown(id, second),
        cancelled(id, CancelReason::UserReply),
    ];
    askuser_testkit::record(&*log, "s", 0, &events).unwrap();
}

#[test]
fn log_replay_derives_the_mcp_rounds_and_reports_one_that_differs() {
    let scratch = Scratch::new();
    record(&scratch, &["env"]);
    let run = scratch.run_db(&["log", "replay", "s"], "");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(
        run.stdout.ends_with(
            "rounds: the 2 elicitation rounds recorded are derived again from the events before each\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("{\"cancelled\":true,\"answered\":{\"apply\":true,\"note\":\"tonight\"}}"),
        "{}",
        run.stdout
    );

    let tampered = Scratch::new();
    record(&tampered, &["env", "note"]);
    let run = tampered.run_db(&["log", "replay", "s"], "");
    assert_eq!((run.code, run.stderr.as_str()), (6, ""));
    assert!(
        run.stdout.ends_with(
            "rounds: MISMATCH: 1 of the 2 elicitation rounds recorded differ from the rounds derived\n  #5 call-1: shown [env, note], derived [env]\n"
        ),
        "{}",
        run.stdout
    );
}
