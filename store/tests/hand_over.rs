//! The asker's session ([`Session::set_hands_over`]): an input that finishes an
//! inquiry whose asker takes its result records the result handed over in the
//! same append, so a JSON-lines server answering in band writes once where it
//! wrote twice; a late answer records nothing, and a session that is not the
//! asker leaves the result owed.

use std::sync::Arc;

use askuser_core::{AnswerInput, Event, Input, Origin, Refusal, Request};
use askuser_store::replay::load;
use askuser_store::{Log, MemLog, Session, SessionError};
use askuser_testkit::build;
use serde_json::json;

/// A session of stream `s` that asked `call-1`, one yes/no question, for an
/// asker that takes results it missed.
fn asked(log: &Arc<MemLog>) -> Session {
    let mut session = Session::open(log.clone(), "s").unwrap();
    let form = build::form(&json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}));
    let request = Request {
        origin: Origin {
            resumes: true,
            ..Origin::default()
        },
        ..build::request("call-1", form)
    };
    session.handle(&Input::Ask(request)).unwrap();
    session
}

fn yes(session: &Session) -> Input {
    let at = session.state().at(&"call-1".into()).unwrap();
    AnswerInput::new(at, json!(true)).into()
}

fn events(log: &MemLog) -> Vec<Event> {
    (log.read("s", 1).unwrap())
        .map(|recorded| recorded.unwrap().event)
        .collect()
}

#[test]
fn the_answer_and_the_result_handed_over_are_one_append() {
    let log = Arc::new(MemLog::new());
    let mut session = asked(&log);
    let answer = yes(&session);
    let handled = session.set_hands_over(true).handle(&answer).unwrap();
    // One call, one append of two events.
    assert_eq!(handled.seq, 3);
    assert_eq!(
        events(&log)[1..],
        [
            build::answered("call-1", "ok", json!(true)),
            build::delivered("call-1"),
        ]
    );
    assert_eq!(session.state().owed().count(), 0);
    // A restarted asker is owed nothing: the log says it was handed over.
    let replayed = load(&*log, "s").unwrap();
    assert_eq!(replayed.state.owed().count(), 0);
    assert_eq!(&replayed.state, session.state());
}

#[test]
fn a_session_that_is_not_the_asker_leaves_the_result_owed() {
    let log = Arc::new(MemLog::new());
    let mut session = asked(&log);
    let answer = yes(&session);
    let handled = session.handle(&answer).unwrap();
    assert_eq!(handled.seq, 2);
    let owed: Vec<String> = (session.state().owed())
        .map(|(id, _)| id.to_string())
        .collect();
    assert_eq!(owed, ["call-1"]);
}

#[test]
fn an_answer_given_elsewhere_first_hands_nothing_over() {
    let log = Arc::new(MemLog::new());
    let mut asker = asked(&log);
    let answer = yes(&asker);
    // A person answers in the browser first (not the asker: nothing handed over).
    let mut browser = Session::open(log.clone(), "s").unwrap();
    browser.handle(&answer).unwrap();

    let late = asker.set_hands_over(true).handle(&answer);
    let Err(SessionError::MovedElsewhere { refusal, caught }) = late else {
        panic!("{late:?}");
    };
    assert!(
        matches!(refusal, Refusal::InquiryFinished { .. }),
        "{refusal:?}"
    );
    assert_eq!(caught.len(), 1);
    assert_eq!(log.stream("s").unwrap().unwrap().head, 2);
    // Still owed: the asker hands it over as a result it caught up on.
    assert_eq!(asker.state().owed().count(), 1);
}
