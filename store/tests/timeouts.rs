//! Time as an input through a [`Session`] on the memory log: the session learns
//! when the log recorded what puts a question up, so an early timeout is refused
//! with the time left, the first one at the deadline is taken, a second surface's
//! is refused as finished, and a replay reaches the same state.

use std::sync::Arc;

use askuser_core::{
    AnswerInput, Command, Input, InquiryId, OnTimeout, Policy, Refusal, State, Timeout,
};
use askuser_store::replay::load;
use askuser_store::{ManualClock, MemLog, Session, SessionError, Timestamp};
use askuser_testkit::build;
use serde_json::json;

/// When the log's clock starts: 2026-01-01T00:00:00Z.
const START: u64 = 1_767_225_600_000;

/// A memory log whose clock moves only when told, and a session asking
/// `call-1` (two questions, 30 s each to answer) at [`START`].
fn asked() -> (Arc<MemLog>, Arc<ManualClock>, Session) {
    let clock = ManualClock::new(Timestamp(START));
    let log = Arc::new(MemLog::new().with_clock(clock.clone()));
    let mut session = Session::open(log.clone(), "s").unwrap();
    let form = build::form(&json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "why", "text": "Why?", "answer_type": "text"}]}));
    let mut request = build::request("call-1", form);
    request.policy = Policy {
        timeout: Some(Timeout {
            after_ms: 30_000,
            on_timeout: OnTimeout::Cancel,
        }),
        ..Policy::default()
    };
    session.handle(&Input::Ask(request)).unwrap();
    (log, clock, session)
}

/// A timeout fired now by `clock`.
fn time_out(clock: &ManualClock) -> Input {
    Input::TimeOut {
        inquiry: InquiryId::new("call-1"),
        message: None,
        fired_at_ms: askuser_store::Clock::now(clock).millis(),
    }
}

fn replayed(log: &MemLog) -> State {
    load(log, "s").unwrap().state
}

#[test]
fn an_early_timeout_is_refused_and_the_first_at_the_deadline_is_taken() {
    let (log, clock, mut session) = asked();
    let id = InquiryId::new("call-1");
    assert_eq!(session.state().deadline(&id), Some(START + 30_000));
    // 12 s in, the person answers: the next question has 30 s from then.
    clock.advance(12_000);
    let at = session.state().at(&id).unwrap();
    session
        .handle(&AnswerInput::new(at, json!(true)).into())
        .unwrap();
    assert_eq!(session.state().deadline(&id), Some(START + 42_000));
    // A surface counting from the first question fires at its deadline: early.
    clock.advance(18_000);
    let early = session.handle(&time_out(&clock)).unwrap_err();
    assert_eq!(
        early.to_string(),
        "inquiry \"call-1\" is not due to time out yet: 12.000 s of its time to answer are left; \
         fire the timeout again at or after its deadline, 1767225642000 ms after the Unix epoch"
    );
    assert!(matches!(
        early,
        SessionError::Refused(Refusal::NotYetDue { .. })
    ));
    assert_eq!(session.head(), 2, "nothing was recorded");
    // At the deadline it is taken and recorded with the time it was fired at.
    clock.advance(12_000);
    let taken = session.handle(&time_out(&clock)).unwrap();
    assert!(matches!(&taken.commands[..], [Command::Respond { .. }]));
    let events = build::events_of(&*log, "s");
    assert_eq!(
        events.last(),
        Some(&build::timed_out_at("call-1", None, START + 42_000))
    );
    assert_eq!(&replayed(&log), session.state());
}

#[test]
fn a_second_surface_firing_after_the_first_is_told_the_inquiry_finished() {
    let (log, clock, mut terminal) = asked();
    let mut inbox = Session::open(log.clone(), "s").unwrap();
    clock.advance(30_000);
    // Both count to the same deadline; the inbox records first.
    inbox.handle(&time_out(&clock)).unwrap();
    let second = terminal.handle(&time_out(&clock)).unwrap_err();
    assert_eq!(
        second.to_string(),
        "inquiry \"call-1\" already finished (timed out); it takes no more input: show how it ended instead (another writer recorded 1 event(s) first)"
    );
    let SessionError::MovedElsewhere { refusal, caught } = second else {
        panic!("the terminal catches up on the inbox's timeout")
    };
    assert!(matches!(refusal, Refusal::InquiryFinished { .. }));
    assert!(matches!(&caught[0].commands[..], [Command::Respond { .. }]));
    assert_eq!(terminal.head(), 2);
    assert_eq!(terminal.state(), inbox.state());
}

/// A session learns the recorded time of what it appends (one input or a
/// batch) and of what it catches up on, so its state is the replay's.
#[test]
fn a_session_keeps_the_recorded_times_a_replay_reads() {
    let (log, clock, mut session) = asked();
    let id = InquiryId::new("call-1");
    let mut other = Session::open(log.clone(), "s").unwrap();
    clock.advance(7_000);
    let at = session.state().at(&id).unwrap();
    session
        .handle_batch(&[
            AnswerInput::new(at, json!(true)).into(),
            Input::WantReview {
                inquiry: id.clone(),
            },
        ])
        .unwrap();
    assert_eq!(session.state().deadline(&id), Some(START + 37_000));
    other.catch_up().unwrap();
    assert_eq!(other.state().deadline(&id), Some(START + 37_000));
    assert_eq!(&replayed(&log), session.state());
    assert_eq!(other.state(), session.state());
}
