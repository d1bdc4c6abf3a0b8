//! Who waits, as the desk hands it out: the waiting list with its timing,
//! whether the agent still waits (and its one wording), and whether anybody
//! waited when an inquiry finished.

use std::sync::Arc;
use std::time::Duration;

use askuser_app::{Asking, Desk, Liveness, Standing, Timing, Unheard};
use askuser_core::{
    AnswerInput, ClientNote, Command, Input, InquiryId, OnTimeout, Progress, Timeout,
};
use askuser_dialects::Dialect;
use askuser_store::{Log, ManualClock, MemLog, Timestamp};
use askuser_testkit::build::agent;
use serde_json::json;

const START: u64 = 1_000_000;

/// A desk on a memory log at `START`, with stream `s` whose agent attached,
/// holds its lease, and asked a two-question form with a one-minute timeout.
fn asked() -> (Desk, Arc<dyn Log>, Arc<ManualClock>, Command) {
    let clock = ManualClock::new(Timestamp(START));
    let log: Arc<dyn Log> = Arc::new(MemLog::new().with_clock(clock.clone()));
    let mut desk = Desk::new(Arc::clone(&log));
    assert!(
        desk.input("s", &Input::Attach(agent("Claude Code")))
            .unwrap()
            .refusal()
            .is_none()
    );
    log.renew_lease(
        "s",
        "laptop:1:1",
        &agent("Claude Code"),
        Duration::from_secs(6),
    )
    .unwrap();
    let arguments = json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]});
    let call = Dialect::JpForm.parse(&arguments).unwrap();
    let mut request = call.request(InquiryId::new("c1"));
    request.policy.timeout = Some(Timeout {
        after_ms: 60_000,
        on_timeout: OnTimeout::Cancel,
    });
    let asked = desk.request("s", &call, &arguments, request).unwrap();
    (desk, log, clock, asked.showing.unwrap())
}

#[test]
fn the_waiting_list_says_how_long_each_question_waited_and_whether_its_agent_waits() {
    let (mut desk, _log, clock, _) = asked();
    clock.advance(5_000);
    let now = START + 5_000;
    let timing = Timing {
        waited_ms: 5_000,
        started: Timestamp(START),
        left_ms: Some(55_000),
        on_timeout: Some(OnTimeout::Cancel),
    };
    assert_eq!(
        desk.waiting(now).unwrap(),
        [Asking {
            stream: "s".into(),
            inquiry: "c1".into(),
            label: "Assistant".into(),
            question: Some("Apply the migration?".into()),
            progress: Some(Progress { n: 1, m: 2 }),
            since: Timestamp(START),
            timing,
            origin: Some(agent("Claude Code")),
            liveness: Liveness::Waiting,
        }]
    );
    assert_eq!(
        desk.standing("s", &InquiryId::new("c1"), now).unwrap(),
        Standing {
            timing,
            liveness: Liveness::Waiting
        }
    );
    // The lease lapses 6 s after its last renewal: 3 min on, the agent stopped
    // 3 min ago, in the one wording; at the deadline the time is up.
    clock.advance(1_000 + 180_000);
    let later = START + 186_000;
    let listed = desk.waiting(later).unwrap();
    assert_eq!(
        (
            listed[0].liveness,
            listed[0].liveness.words(),
            listed[0].timing.due()
        ),
        (
            Liveness::Stopped {
                ago_ms: Some(180_000)
            },
            Some("the agent stopped 3 min ago".to_owned()),
            true
        )
    );
}

#[test]
fn an_inquiry_finished_after_its_agent_stopped_was_unheard_and_one_before_was_not() {
    let (mut desk, _log, clock, shown) = asked();
    let Command::Prompt(prompt) = shown else {
        panic!("a prompt")
    };
    // While the agent waits, nothing is unheard.
    assert_eq!(desk.unheard("s", &InquiryId::new("c1")).unwrap(), None);
    clock.advance(6_000 + 60_000);
    let yes = Input::from(AnswerInput::new(prompt.at(), json!(true)));
    assert!(desk.input("s", &yes).unwrap().refusal().is_none());
    assert_eq!(
        desk.unheard("s", &InquiryId::new("c1")).unwrap(),
        Some(Unheard::Stopped(60_000))
    );
    assert_eq!(
        Unheard::Stopped(60_000)
            .liveness()
            .and_then(Liveness::words)
            .as_deref(),
        Some("the agent stopped 1 min ago")
    );
}

/// "Waiting" counts from when the agent first asked, not from the step on
/// show: after the first answer, the wait goes on from the request while the
/// countdown starts again for the next question; a desk that reads the stream
/// fresh, and one that catches up on another writer's request, say the same.
#[test]
fn waiting_counts_from_the_request_whatever_steps_were_taken_since() {
    let (mut desk, log, clock, showing) = asked();
    let mut fresh_desk_before = Desk::new(Arc::clone(&log));
    fresh_desk_before.waiting(START).unwrap();
    clock.advance(5_000);
    let Command::Prompt(prompt) = showing else {
        panic!("{showing:?}")
    };
    let at = prompt.at();
    let answered = desk
        .input("s", &Input::from(AnswerInput::new(at, json!(true))))
        .unwrap();
    assert!(answered.refusal().is_none());
    clock.advance(3_000);
    let now = START + 8_000;
    let timing = Timing {
        waited_ms: 8_000,
        started: Timestamp(START),
        left_ms: Some(57_000),
        on_timeout: Some(OnTimeout::Cancel),
    };
    let of = |desk: &mut Desk| {
        let listed = desk.waiting(now).unwrap();
        (listed[0].question.clone(), listed[0].timing)
    };
    let expected = (Some("Where?".to_owned()), timing);
    assert_eq!(of(&mut desk), expected);
    assert_eq!(of(&mut Desk::new(Arc::clone(&log))), expected);
    assert_eq!(of(&mut fresh_desk_before), expected);
    // A second inquiry asked by this desk, then answered a step: the desk that
    // asked and the one that caught up on it both count from its request.
    let arguments = json!({"questions": [
        {"id": "a", "text": "First?", "answer_type": "boolean"},
        {"id": "b", "text": "Second?", "answer_type": "boolean"}]});
    let call = Dialect::JpForm.parse(&arguments).unwrap();
    let asked = desk
        .request("s", &call, &arguments, call.request(InquiryId::new("c2")))
        .unwrap();
    let Some(Command::Prompt(first)) = asked.showing else {
        panic!("{:?}", asked.showing)
    };
    clock.advance(2_000);
    let yes = Input::from(AnswerInput::new(first.at(), json!(true)));
    assert!(desk.input("s", &yes).unwrap().refusal().is_none());
    clock.advance(1_000);
    let later = now + 3_000;
    let second = |desk: &mut Desk| {
        let listed = desk.waiting(later).unwrap();
        let c2 = listed.iter().find(|w| w.inquiry == "c2").unwrap();
        (c2.question.clone(), c2.timing.started, c2.timing.waited_ms)
    };
    let expected = (Some("Second?".to_owned()), Timestamp(now), 3_000);
    assert_eq!(second(&mut desk), expected);
    assert_eq!(second(&mut fresh_desk_before), expected);
}

/// Asks `inquiry` (one yes/no question) in stream `s` of `desk`, as an MCP call
/// does (its result is owed to the same call made again), notes `notes` on it,
/// and answers it.
fn asked_noted_answered(desk: &mut Desk, inquiry: &str, notes: &[ClientNote]) {
    let arguments = json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"}]});
    let call = Dialect::JpForm.parse(&arguments).unwrap();
    let mut request = call.request(InquiryId::new(inquiry));
    request.origin.resumes = true;
    let asked = desk.request("s", &call, &arguments, request).unwrap();
    for note in notes {
        let noting = Input::NoteClient {
            inquiry: inquiry.into(),
            note: note.clone(),
        };
        assert!(desk.input("s", &noting).unwrap().refusal().is_none());
    }
    let Some(Command::Prompt(prompt)) = asked.showing else {
        panic!("a prompt")
    };
    let yes = Input::from(AnswerInput::new(prompt.at(), json!(true)));
    assert!(desk.input("s", &yes).unwrap().refusal().is_none());
}

#[test]
fn an_answer_to_a_call_its_host_may_have_stopped_unseen_is_unsure_until_taken_again() {
    let (mut desk, _log, _clock, _) = asked();
    let silently = ClientNote::StopsSilently {
        host: "Gemini CLI".into(),
    };
    asked_noted_answered(&mut desk, "c2", std::slice::from_ref(&silently));
    let c2 = InquiryId::new("c2");
    assert_eq!(
        desk.unheard("s", &c2).unwrap(),
        Some(Unheard::Unsure {
            host: "Gemini CLI".into()
        })
    );
    assert_eq!(Unheard::Unsure { host: "x".into() }.liveness(), None);
    // The same call made again took the result: it reached the model.
    let delivered = desk.input(
        "s",
        &Input::Deliver {
            inquiry: c2.clone(),
        },
    );
    assert!(delivered.unwrap().refusal().is_none());
    assert_eq!(desk.unheard("s", &c2).unwrap(), None);

    // A call its model moved on from was not waited for, though its agent was.
    let moved = ClientNote::MovedOn { after_ms: 23_000 };
    asked_noted_answered(&mut desk, "c3", &[silently, moved]);
    assert_eq!(
        desk.unheard("s", &InquiryId::new("c3")).unwrap(),
        Some(Unheard::MovedOn(23_000))
    );
}
