//! Through a `Session`, each mistake with an action on something shown is
//! refused as itself (the core's refusal, handed back as it is) and nothing is
//! recorded; only an action on something shown at an earlier step is `Stale`,
//! and an inquiry finished by another writer says how it ended.

use std::sync::Arc;

use askuser_core::{AnswerInput, At, Input, InquiryId, Request, parse_form};
use askuser_store::{MemLog, Session, SessionError};
use serde_json::json;

fn id() -> InquiryId {
    InquiryId::new("c1")
}

fn asked(log: &Arc<MemLog>) -> Session {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
    ]}))
    .unwrap();
    let mut session = Session::open(log.clone(), "s").unwrap();
    session
        .handle(&Input::Ask(Request {
            inquiry: id(),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }))
        .unwrap();
    session
}

/// The code and words `session` refuses `input` with (recording nothing).
fn refused(session: &mut Session, input: impl Into<Input>) -> (&'static str, String) {
    let head = session.log().info("s").unwrap().head;
    let Err(SessionError::Refused(refusal)) = session.handle(&input.into()) else {
        panic!("refused")
    };
    assert_eq!(
        session.log().info("s").unwrap().head,
        head,
        "nothing recorded"
    );
    (refusal.code(), refusal.to_string())
}

fn answer(question: &str, step: u32) -> AnswerInput {
    AnswerInput::new(At::question(id(), question, step), json!(true))
}

#[test]
fn a_session_names_each_mistake_and_records_nothing() {
    let log = Arc::new(MemLog::new());
    let mut session = asked(&log);
    assert_eq!(
        refused(&mut session, answer("nope", 0)),
        (
            "unknown_question",
            "inquiry \"c1\" has no question \"nope\": its form never asks it; act on what it shows now, question \"apply\" (step 0)".to_owned()
        )
    );
    assert_eq!(
        refused(&mut session, answer("env", 0)),
        (
            "unexpected_question",
            "inquiry \"c1\" is asking question \"apply\" (step 0), not \"env\": answer that question, or go back or reply from it".to_owned()
        )
    );
    assert_eq!(
        refused(&mut session, Input::Submit(At::review(id(), 0))),
        (
            "not_in_review",
            "inquiry \"c1\" shows no review to submit or change an answer from: it shows question \"apply\" (step 0); answer that (a review shows once every question is answered, on a surface that asked for one)".to_owned()
        )
    );
    assert_eq!(
        refused(&mut session, answer("apply", 2)),
        (
            "future_step",
            "inquiry \"c1\" never showed question \"apply\" (step 2): it is at step 0; act on what it shows now, question \"apply\" (step 0)".to_owned()
        )
    );
    session.handle(&answer("apply", 0).into()).unwrap();
    assert_eq!(
        refused(&mut session, answer("apply", 0)),
        (
            "stale",
            "inquiry \"c1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)".to_owned()
        )
    );
    session
        .handle(&AnswerInput::new(At::question(id(), "env", 1), json!("staging")).into())
        .unwrap();
    assert_eq!(
        refused(&mut session, answer("env", 1)),
        (
            "inquiry_finished",
            "inquiry \"c1\" already finished (answered); it takes no more input: show how it ended instead".to_owned()
        )
    );
}

#[test]
fn an_inquiry_another_writer_finished_is_refused_with_how_it_ended() {
    let log = Arc::new(MemLog::new());
    let mut late = asked(&log);
    let mut first = Session::open(log.clone(), "s").unwrap();
    first
        .handle(&Input::EndTurn {
            inquiry: id(),
            surface: None,
        })
        .unwrap();
    let Err(SessionError::MovedElsewhere { refusal, caught }) =
        late.handle(&answer("apply", 0).into())
    else {
        panic!("moved elsewhere")
    };
    assert_eq!(caught.len(), 1);
    assert_eq!(
        refusal.to_string(),
        "inquiry \"c1\" already finished (turn ended); it takes no more input: show how it ended instead"
    );
}
