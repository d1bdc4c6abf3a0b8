//! The replay verifier: a recorded session, kept as JSON, re-derives exactly
//! the commands its host was handed; a log tampered with (an answer changed)
//! does not, and the report says which append and how.

use std::sync::Arc;

use askuser_core::{AnswerInput, At, Command, Event, Input, InquiryId, Request, parse_form};
use askuser_store::replay::{Recording, verify};
use askuser_store::{Log, MemLog, Session};
use serde_json::json;

fn id() -> InquiryId {
    InquiryId::new("c1")
}

/// A session of two questions, the first answered with a review wanted, the
/// second answered, the review submitted: its log and what its host recorded.
fn recorded() -> (Arc<MemLog>, Recording) {
    let log = Arc::new(MemLog::new());
    let mut session = Session::open(log.clone(), "s").unwrap();
    let mut recording = Recording::default();
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy?", "answer_type": "boolean"},
        {"id": "why", "text": "Why?", "answer_type": "text"}]}))
    .unwrap();
    let asked = session
        .handle(&Input::Ask(Request {
            inquiry: id(),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }))
        .unwrap();
    recording.handled(&asked);
    for (at, value) in [
        (At::question(id(), "ok", 0), json!(true)),
        (At::question(id(), "why", 2), json!("tests pass")),
    ] {
        let answer = AnswerInput::new(at, value).reviewed();
        recording.handled(&session.handle(&answer.into()).unwrap());
    }
    let Some(Command::Review { .. }) = recording.appends.last().unwrap().commands.last() else {
        panic!("a review")
    };
    let submitted = session.handle(&Input::Submit(At::review(id(), 3))).unwrap();
    recording.handled(&submitted);
    (log, recording)
}

#[test]
fn a_recorded_session_re_derives_the_commands_of_each_append() {
    let (log, recording) = recorded();
    let kept = serde_json::to_string(&recording).unwrap();
    let read: Recording = serde_json::from_str(&kept).unwrap();
    assert_eq!(read, recording);
    let verified = verify(&*log, "s", &read).unwrap();
    assert!(verified.matches());
    // The first answer's append holds two events: the review wanted, the answer.
    let spans: Vec<(u64, u64)> = verified.checks.iter().map(|c| (c.first, c.seq)).collect();
    assert_eq!(spans, [(1, 1), (2, 3), (4, 4), (5, 5)]);
    assert_eq!(
        verified.to_text(),
        "verified stream \"s\": the 4 appends recorded re-derive exactly the commands recorded\n"
    );
}

#[test]
fn a_tampered_log_is_reported_append_by_append() {
    let (log, recording) = recorded();
    // The same events, but the second answer changed: copied into a new log.
    let mut events: Vec<Event> = log
        .read("s", 1)
        .unwrap()
        .map(|recorded| recorded.unwrap().event)
        .collect();
    let Event::Answered { value, .. } = &mut events[3] else {
        panic!("the second answer: {:?}", events[3])
    };
    *value = json!("no reason");
    let tampered = MemLog::new();
    askuser_testkit::record(&tampered, "s", 0, &events).unwrap();
    let verified = verify(&tampered, "s", &recording).unwrap();
    assert!(!verified.matches());
    let form = r#"{"questions":[{"id":"ok","text":"Deploy?","answer_type":"boolean"},{"id":"why","text":"Why?","answer_type":"text"}]}"#;
    let outcome = |why: &str| {
        format!(
            r#"{{"form":{form},"answers":[{{"answer":{{"bool":true}},"by":"user"}},{{"answer":{{"text":"{why}"}},"by":"user"}}],"status":"completed"}}"#
        )
    };
    let review = |why: &str| {
        format!(
            r#"{{"type":"review","inquiry":"c1","outcome":{},"step":3}}"#,
            outcome(why)
        )
    };
    let respond = |why: &str| {
        format!(
            r#"{{"type":"respond","inquiry":"c1","outcome":{}}}"#,
            outcome(why)
        )
    };
    assert_eq!(
        verified.to_text(),
        format!(
            "append #4 DIFFERS:\n  recorded: {}\n  replayed: {}\n\
             append #5 DIFFERS:\n  recorded: {}\n  replayed: {}\n\
             MISMATCH in stream \"s\": 2 of 4 appends recorded re-derive other commands, 0 not in the log\n",
            review("tests pass"),
            review("no reason"),
            respond("tests pass"),
            respond("no reason"),
        )
    );
}
