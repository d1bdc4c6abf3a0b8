//! Time as an input: a policy's timeout, the host's `TimedOut` event, and each
//! `on_timeout` action, recorded and replayed exactly.

use askuser_core::{
    AnsweredBy, Command, Event, Finished, InquiryId, OnTimeout, Origin, OutcomeStatus, Policy,
    Refusal, Request, State, Timeout, parse_form, reduce,
};
use serde_json::{Value, json};

/// Five questions: a boolean; a select with a recommended option; a text with a
/// default, asked only when the select is "rust (Recommended)"; a text asked only
/// when it is "go"; a text with no default.
fn form() -> std::sync::Arc<askuser_core::Form> {
    parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply the change?", "answer_type": "boolean"},
        {"id": "lang", "text": "Which language?", "answer_type": "select",
         "options": ["go", "rust (Recommended)", "ruby"]},
        {"id": "edition", "text": "Which edition?", "answer_type": "text", "default": "2024",
         "when": {"question_id": "lang", "equals": "rust (Recommended)"}},
        {"id": "gopath", "text": "Which GOPATH?", "answer_type": "text", "default": "~/go",
         "when": {"question_id": "lang", "equals": "go"}},
        {"id": "why", "text": "Why?", "answer_type": "text"}
    ]}))
    .unwrap()
    .form()
    .clone()
}

fn request(id: &str, timeout: Option<Timeout>, turn: &str) -> Event {
    Event::Requested(Request {
        inquiry: InquiryId::new(id),
        form: form(),
        policy: Policy {
            timeout,
            ..Policy::default()
        },
        origin: Origin {
            turn: turn.into(),
            ..Origin::default()
        },
        call: None,
    })
}

#[allow(clippy::unnecessary_wraps)] // the policy's field is an Option
fn after(on_timeout: OnTimeout) -> Option<Timeout> {
    Some(Timeout {
        after_ms: 60_000,
        on_timeout,
    })
}

fn answer(id: &str, question: &str, value: Value) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(id),
        question: question.into(),
        value,
        by: AnsweredBy::User,
        remember: false,
        note: None,
    }
}

fn timed_out(id: &str) -> Event {
    Event::TimedOut {
        inquiry: InquiryId::new(id),
        message: None,
    }
}

/// Runs the events, returning the last commands and every event recorded.
fn run(events: &[Event]) -> (State, Vec<Command>, Vec<Event>) {
    let mut state = State::new();
    let mut recorded = Vec::new();
    let mut last = Vec::new();
    for event in events {
        let decision = state.decide(event).expect("accepted");
        recorded.push(decision.event().clone());
        last.clear();
        state.apply_decision(decision, &mut last);
    }
    (state, last, recorded)
}

/// Each answer as `(id, value, by)`, in form order; `None` where unanswered.
fn answers(commands: &[Command]) -> (OutcomeStatus, Vec<Option<(Value, AnsweredBy)>>) {
    let [Command::Respond { outcome, .. }] = commands else {
        panic!("expected a response, got {commands:?}");
    };
    let slots = outcome
        .answers
        .iter()
        .enumerate()
        .map(|(index, slot)| {
            slot.as_ref()
                .map(|slot| (slot.answer.to_value(outcome.form.question(index)), slot.by))
        })
        .collect();
    (outcome.status, slots)
}

#[test]
fn defaults_fill_the_remaining_questions_that_apply_regated_in_order() {
    let (state, commands, _) = run(&[
        request("c1", after(OnTimeout::Defaults), "t1"),
        answer("c1", "apply", json!(true)),
        timed_out("c1"),
    ]);
    let (status, slots) = answers(&commands);
    assert_eq!(status, OutcomeStatus::TimedOut { after_ms: 60_000 });
    assert_eq!(
        slots,
        vec![
            Some((json!(true), AnsweredBy::User)),
            Some((json!("rust (Recommended)"), AnsweredBy::Timeout)),
            Some((json!("2024"), AnsweredBy::Timeout)),
            None, // gated off by the filled "lang"
            None, // no default and no recommended option
        ]
    );
    assert_eq!(
        state.finished(&InquiryId::new("c1")),
        Some(Finished::TimedOut)
    );
}

#[test]
fn cancel_responds_with_the_answers_so_far() {
    let (_, commands, _) = run(&[
        request("c1", after(OnTimeout::Cancel), "t1"),
        answer("c1", "apply", json!(false)),
        answer("c1", "lang", json!("go")),
        timed_out("c1"),
    ]);
    let (status, slots) = answers(&commands);
    assert_eq!(status, OutcomeStatus::TimedOut { after_ms: 60_000 });
    assert_eq!(
        slots,
        vec![
            Some((json!(false), AnsweredBy::User)),
            Some((json!("go"), AnsweredBy::User)),
            None,
            None,
            None
        ]
    );
}

#[test]
fn end_turn_ends_the_turn_and_only_that_turn() {
    let (state, commands, _) = run(&[
        request("c1", after(OnTimeout::EndTurn), "t1"),
        request("c2", None, "t1"),
        request("c3", None, ""),
        timed_out("c1"),
    ]);
    assert_eq!(
        commands,
        vec![
            Command::EndTurn {
                inquiry: InquiryId::new("c1")
            },
            Command::EndTurn {
                inquiry: InquiryId::new("c2")
            },
        ]
    );
    assert_eq!(
        state.open_inquiries().collect::<Vec<_>>(),
        vec![&InquiryId::new("c3")]
    );
}

#[test]
fn timed_out_is_refused_without_a_timeout_or_once_finished() {
    let mut state = State::new();
    reduce(&mut state, &request("c1", None, "")).unwrap();
    let refusal = reduce(&mut state, &timed_out("c1")).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "inquiry \"c1\" has no timeout in its policy; it cannot time out"
    );
    assert!(matches!(refusal, Refusal::NoTimeout { .. }));
    reduce(&mut state, &request("c2", after(OnTimeout::Cancel), "")).unwrap();
    reduce(&mut state, &timed_out("c2")).unwrap();
    assert_eq!(
        reduce(&mut state, &timed_out("c2"))
            .unwrap_err()
            .to_string(),
        "inquiry \"c2\" is already finished; it takes no more events"
    );
    assert_eq!(
        reduce(&mut state, &timed_out("c9"))
            .unwrap_err()
            .to_string(),
        "no inquiry \"c9\" was requested; send the request first"
    );
}

#[test]
fn a_timeout_is_recorded_and_replays_to_the_same_state_and_commands() {
    for on_timeout in [OnTimeout::Cancel, OnTimeout::Defaults, OnTimeout::EndTurn] {
        let (state, commands, recorded) = run(&[
            request("c1", after(on_timeout), "t1"),
            answer("c1", "apply", json!(true)),
            timed_out("c1"),
        ]);
        // The log round-trips through JSON and replays without deciding.
        let json = serde_json::to_string(&recorded).unwrap();
        let read: Vec<Event> = serde_json::from_str(&json).unwrap();
        assert_eq!(read, recorded);
        let mut replayed = State::new();
        let mut last = Vec::new();
        for event in &read {
            last.clear();
            replayed.apply(event, &mut last);
        }
        assert_eq!((replayed, last), (state, commands), "{on_timeout:?}");
    }
}

#[test]
fn a_policy_written_before_timeouts_reads_as_no_timeout_and_is_written_the_same() {
    let old = json!({"target": "user", "interactive": true, "exclusive": true,
                     "persistence": "none", "label": "Assistant"});
    let policy: Policy = serde_json::from_value(old.clone()).unwrap();
    assert_eq!(policy, Policy::default());
    assert_eq!(serde_json::to_value(&policy).unwrap(), old);
    let timed = Policy {
        timeout: after(OnTimeout::Defaults),
        ..Policy::default()
    };
    assert_eq!(
        serde_json::to_value(&timed).unwrap()["timeout"],
        json!({"after_ms": 60_000, "on_timeout": "defaults"})
    );
}
