//! `askuser log replay` of a log of the first format, which kept the lines it
//! sent beside each event: the library's replay check compares what the events
//! re-derive with them, event by event, and names each event that differs.

use std::sync::Arc;

use askuser_rpc::{Desk, Server};
use askuser_sled::SledLog;

const ASK: &str = r#"{"type":"ask","inquiry":"c1","arguments":{"questions":[{"id":"apply","text":"Apply?","answer_type":"boolean"}]}}"#;

/// The prompt line as the first format recorded it (before lines had a `step`).
const PROMPT: &str = r#"{"type":"prompt","inquiry":"c1","question":{"id":"apply","text":"Apply?","context":null,"header":null,"answer_type":"boolean","options":[],"allow_other":false,"schema":null},"progress":null,"prefill":null,"can_back":false,"label":"Assistant"}"#;

/// The prompt line as it is re-derived now: with the `step` lines have since.
fn prompt_now() -> String {
    PROMPT.replace(
        r#""label":"Assistant"}"#,
        r#""label":"Assistant","step":0}"#,
    )
}

const RESULT: &str =
    r#"{"type":"result","inquiry":"c1","result":{"apply":true},"cancelled":false}"#;

/// A log where `c1` was asked and answered, with `lines` recorded beside its
/// two events as the first format's server kept them.
fn recorded_log(dir: &std::path::Path, lines: [&str; 2]) -> SledLog {
    let path = dir.join("log");
    {
        let log: Arc<dyn askuser_app::log::Log> = Arc::new(SledLog::open(&path).unwrap());
        let mut server = Server::new(Desk::new(log), "s").unwrap();
        server.handle_line(ASK);
        let answered = server
            .handle_line(r#"{"type":"answer","inquiry":"c1","question":"apply","value":true}"#);
        assert_eq!(answered[0].to_string(), RESULT);
    }
    {
        let db = sled::open(&path).unwrap();
        db.open_tree("askuser-rpc/calls").unwrap();
        let outputs = db.open_tree("askuser-rpc/outputs").unwrap();
        for (seq, line) in (1_u64..).zip(lines) {
            let mut key = b"s\0".to_vec();
            key.extend_from_slice(&seq.to_be_bytes());
            outputs.insert(key, format!("[{line}]").as_bytes()).unwrap();
        }
        db.flush().unwrap();
    }
    SledLog::open(&path).unwrap()
}

#[test]
fn recorded_lines_the_events_re_derive_match() {
    let dir = tempfile::tempdir().unwrap();
    let log = recorded_log(dir.path(), [PROMPT, RESULT]);
    let report = askuser_rpc::replay(&log, "s").unwrap();
    assert!(report.matches());
    assert_eq!(
        report.to_text(),
        format!(
            "replaying stream \"s\": 3 events from the start\n\
             #1 requested c1 (1 question: apply)\n  -> {}\n\
             #2 answered c1: apply = true\n  -> {RESULT}\n\
             #3 delivered c1\n\
             result of c1: {{\"apply\":true}}\n\
             match: the 2 recorded events re-derive exactly the lines that were sent; \
             1 event had no recorded lines to compare\n",
            prompt_now()
        )
    );
}

#[test]
fn a_recorded_line_the_events_do_not_re_derive_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let tampered = RESULT.replace("true", "false");
    let log = recorded_log(dir.path(), [PROMPT, &tampered]);
    let report = askuser_rpc::replay(&log, "s").unwrap();
    assert!(!report.matches());
    assert_eq!(
        report.to_text(),
        format!(
            "replaying stream \"s\": 3 events from the start\n\
             #1 requested c1 (1 question: apply)\n  -> {}\n\
             #2 answered c1: apply = true\n  -> {RESULT}\n  recorded: {tampered}\n\
             \x20 DIFFERS from what was recorded\n\
             #3 delivered c1\n\
             result of c1: {{\"apply\":true}}\n\
             MISMATCH: 1 of 2 recorded events re-derive lines other than those sent (#2); \
             1 event had no recorded lines to compare\n",
            prompt_now()
        )
    );
}
