//! The read side: statuses, outcomes and the waiting list, kept current from what
//! the journal's sessions apply.

use std::sync::Arc;

use askuser_app::{Desk, Ending, Showing, StreamStatus, Taken};
use askuser_core::{AnswerInput, Command, Input, InquiryId, OnTimeout, Timeout};
use askuser_dialects::Dialect;
use askuser_store::{Log, MemLog};
use serde_json::{Value, json};

/// Asks `arguments` (jp-form) as `inquiry` of `stream`; the first prompt's
/// command.
fn ask(journal: &mut Desk, stream: &str, inquiry: &str, arguments: &Value) -> Command {
    let call = Dialect::JpForm.parse(arguments).expect("a valid call");
    let mut request = call.request(InquiryId::new(inquiry));
    request.policy.label = Some(format!("agent of {stream}"));
    request.policy.timeout = Some(Timeout {
        after_ms: 60_000,
        on_timeout: OnTimeout::Cancel,
    });
    let Taken::Recorded { mut commands, .. } = journal
        .request(stream, &call, arguments, request)
        .unwrap()
        .taken
    else {
        panic!("asked")
    };
    commands.remove(0)
}

fn answer(journal: &mut Desk, stream: &str, shown: &Command, value: Value) -> Vec<Command> {
    let Command::Prompt(prompt) = shown else {
        panic!("a prompt: {shown:?}")
    };
    let input = Input::from(AnswerInput::new(prompt.at(), value));
    let Taken::Recorded { commands, .. } = journal.input(stream, &input).unwrap().taken else {
        panic!("answered")
    };
    commands
}

fn two_questions() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]})
}

#[test]
fn two_streams_one_finished_one_waiting() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    // First sight of a stream before anything is asked: none in the log.
    assert!(journal.view("deploy").unwrap().is_none());

    let first = ask(&mut journal, "deploy", "c1", &two_questions());
    // Seen now: every later step is handed to the read side, no replay.
    journal.view("deploy").unwrap().unwrap();
    let second = answer(&mut journal, "deploy", &first, json!(true));
    let view = journal.view("deploy").unwrap().unwrap();
    assert_eq!(view.status(), StreamStatus::Waiting { inquiries: 1 });
    assert_eq!(view.head(), 2);
    let Showing::Question { id, text, progress } = &view.open()[0].showing else {
        panic!("{:?}", view.open()[0].showing)
    };
    assert_eq!((id.as_str(), text.as_str()), ("env", "Where?"));
    assert_eq!(progress.map(|p| (p.n, p.m)), Some((2, 2)));
    let done = answer(&mut journal, "deploy", &second[0], json!("staging"));
    assert!(matches!(done[0], Command::Respond { .. }));

    // Another process asks in a second stream; this journal follows it.
    let mut other = Desk::new(Arc::clone(&log));
    ask(&mut other, "review", "c1", &two_questions());
    journal.catch_up("review").unwrap();

    let deploy = journal.view("deploy").unwrap().unwrap();
    assert_eq!(
        deploy.status(),
        StreamStatus::Finished(Some(Ending::Answered))
    );
    assert_eq!(deploy.status().words(), "answered");
    assert!(deploy.open().is_empty());
    let c1 = InquiryId::new("c1");
    // How it ended and what it sent are the engine's to keep, with its call.
    let state = journal.state("deploy").unwrap();
    let Some(Command::Respond { outcome, .. }) = state.result(&c1) else {
        panic!("{:?}", state.result(&c1))
    };
    assert_eq!(outcome.to_json(), json!({"apply": true, "env": "staging"}));
    let record = state.outcome(&c1).unwrap();
    assert_eq!(record.call().unwrap().dialect, "jp-form");

    let review = journal.view("review").unwrap().unwrap();
    assert_eq!(
        review.status().words(),
        "open: 1 inquiry waits for an answer"
    );
    let at = log
        .read_range("review", 1, 1)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .at;
    assert_eq!(review.last_activity(), Some(at));

    let engine_deadline = journal.deadline("review", &InquiryId::new("c1")).unwrap();
    let waiting = journal.read().waiting();
    assert_eq!(waiting.len(), 1);
    let only = &waiting[0];
    assert_eq!(only.stream, "review");
    assert_eq!(only.open.inquiry, InquiryId::new("c1"));
    assert_eq!(only.open.label.as_deref(), Some("agent of review"));
    assert_eq!(only.since, Some(at));
    assert_eq!(only.deadline.unwrap().millis(), at.millis() + 60_000);
    assert_eq!(only.deadline, engine_deadline);
    // The "deploy" stream was replayed once, when first seen (empty then); the
    // "review" stream once, when first asked about; nothing since.
    assert_eq!(journal.read().replays(), 2);
}

#[test]
fn a_stream_recorded_before_the_process_is_replayed_once() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut before = Desk::new(Arc::clone(&log));
    let first = ask(&mut before, "old", "c1", &two_questions());
    before
        .input(
            "old",
            &Input::EndTurn {
                inquiry: InquiryId::new("c1"),
                surface: None,
            },
        )
        .unwrap();
    drop(first);
    ask(&mut before, "old", "c2", &two_questions());

    let mut journal = Desk::new(Arc::clone(&log));
    // A surface follows a stream (its session opened), then reads its view.
    journal.catch_up("old").unwrap();
    for _ in 0..3 {
        let view = journal.view("old").unwrap().unwrap();
        assert_eq!(view.status().words(), "open: 1 inquiry waits for an answer");
        assert_eq!(view.status().words(), "open: 1 inquiry waits for an answer");
        let finished = journal
            .state("old")
            .unwrap()
            .finished(&InquiryId::new("c1"));
        assert_eq!(finished, Some(askuser_core::Ending::TurnEnded));
    }
    // Ended elsewhere: caught up, not replayed.
    before
        .input(
            "old",
            &Input::EndTurn {
                inquiry: InquiryId::new("c2"),
                surface: None,
            },
        )
        .unwrap();
    journal.catch_up("old").unwrap();
    let view = journal.view("old").unwrap().unwrap();
    assert_eq!(
        view.status(),
        StreamStatus::Finished(Some(Ending::TurnEnded))
    );
    assert_eq!(view.status().words(), "turn ended");
    assert_eq!(journal.read().replays(), 1);
}

#[test]
fn an_inbox_open_all_day_keeps_the_engines_latest_results_and_no_copy() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    let one = json!({"questions": [
        {"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]});
    let first = ask(&mut journal, "busy", "c0", &one);
    journal.view("busy").unwrap().unwrap();
    answer(&mut journal, "busy", &first, json!(true));
    let last = askuser_core::FINISHED_REMEMBERED;
    for n in 1..=last {
        let shown = ask(&mut journal, "busy", &format!("c{n}"), &one);
        answer(&mut journal, "busy", &shown, json!(n.is_multiple_of(2)));
    }
    let view = journal.view("busy").unwrap().unwrap();
    assert_eq!(
        view.status(),
        StreamStatus::Finished(Some(Ending::Answered))
    );
    assert_eq!(journal.read().replays(), 1);
    // The engine keeps the latest FINISHED_REMEMBERED results; the oldest is let go.
    let state = journal.state("busy").unwrap();
    assert_eq!(state.result(&InquiryId::new("c0")), None);
    let Some(Command::Respond { outcome, .. }) = state.result(&InquiryId::new(format!("c{last}")))
    else {
        panic!("the latest result is kept")
    };
    assert_eq!(outcome.to_json(), json!({"ok": last.is_multiple_of(2)}));
}

/// A process attaching to a stream (or detaching) while its question waits
/// moves no question: what the question waits since, and its deadline, stay the
/// question's, whether the read side saw the attach applied or replayed it.
#[test]
fn an_agent_attaching_later_moves_no_question_s_deadline() {
    let clock = askuser_store::ManualClock::new(askuser_store::Timestamp(1_000));
    let log: Arc<dyn Log> = Arc::new(MemLog::new().with_clock(clock.clone()));
    let mut journal = Desk::new(Arc::clone(&log));
    ask(&mut journal, "s", "c1", &two_questions());
    journal.view("s").unwrap().unwrap();
    clock.advance(30_000);
    let mut other = askuser_store::Session::open(Arc::clone(&log), "s").unwrap();
    other
        .handle(&askuser_core::Input::Attach(askuser_core::AgentOrigin {
            host: Some("Claude Code".into()),
            ..askuser_core::AgentOrigin::default()
        }))
        .unwrap();
    journal.catch_up("s").unwrap();
    let seen = journal.view("s").unwrap().unwrap();
    assert_eq!(seen.head(), 2);
    assert_eq!(seen.last_activity(), Some(askuser_store::Timestamp(1_000)));
    let deadline = journal.deadline("s", &InquiryId::new("c1")).unwrap();
    assert_eq!(deadline, Some(askuser_store::Timestamp(61_000)));
    // A journal that first sees the stream now replays it: the same.
    let mut fresh = Desk::new(Arc::clone(&log));
    let replayed = fresh.view("s").unwrap().unwrap();
    assert_eq!(
        replayed.last_activity(),
        Some(askuser_store::Timestamp(1_000))
    );
}
