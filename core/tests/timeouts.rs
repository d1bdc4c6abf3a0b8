//! Time as an input: a policy's timeout, a surface's `TimeOut` with the time it
//! was fired at, held to the deadline the state learned from the recorded times,
//! and each `on_timeout` action, recorded and replayed exactly.

use askuser_core::strategies::{decide_event, reduce_event};
use askuser_core::{
    AnswerInput, AnsweredBy, Command, Ending, Event, Input, InquiryId, OnTimeout, Origin,
    OutcomeStatus, Policy, Refusal, Request, State, Timeout, parse_form, reduce,
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
        fired_at_ms: None,
    }
}

/// Runs the events, returning the last commands and every event recorded.
fn run(events: &[Event]) -> (State, Vec<Command>, Vec<Event>) {
    let mut state = State::new();
    let mut recorded = Vec::new();
    let mut last = Vec::new();
    for event in events {
        let decision = decide_event(&state, event).expect("accepted");
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
        Some(Ending::TimedOut)
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
    reduce_event(&mut state, &request("c1", None, "")).unwrap();
    let refusal = reduce_event(&mut state, &timed_out("c1")).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "inquiry \"c1\" has no timeout in its policy; it cannot time out"
    );
    assert!(matches!(refusal, Refusal::NoTimeout { .. }));
    reduce_event(&mut state, &request("c2", after(OnTimeout::Cancel), "")).unwrap();
    reduce_event(&mut state, &timed_out("c2")).unwrap();
    assert_eq!(
        reduce_event(&mut state, &timed_out("c2"))
            .unwrap_err()
            .to_string(),
        "inquiry \"c2\" already finished (timed out); it takes no more input: show how it ended instead"
    );
    assert_eq!(
        reduce_event(&mut state, &timed_out("c9"))
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

/// When the log recorded the request in these tests: 2026-01-01T00:00:00Z.
const ASKED_AT: u64 = 1_767_225_600_000;

/// `input` decided and applied as a session does after its append, recorded at
/// `at`; the commands, or the refusal.
fn take_at(state: &mut State, input: &Input, at: u64) -> Result<Vec<Command>, Refusal> {
    let decision = state.decide(input)?;
    let mut out = Vec::new();
    state.apply_decision_at(decision, at, &mut out);
    Ok(out)
}

fn time_out(id: &str, fired_at_ms: u64) -> Input {
    Input::TimeOut {
        inquiry: InquiryId::new(id),
        message: None,
        fired_at_ms,
    }
}

fn ask(id: &str, on_timeout: OnTimeout) -> Input {
    let Event::Requested(request) = request(id, after(on_timeout), "t1") else {
        unreachable!()
    };
    Input::Ask(request)
}

#[test]
fn an_early_timeout_is_refused_with_the_time_left_and_the_deadline_moves_with_the_question() {
    let mut state = State::new();
    take_at(&mut state, &ask("c1", OnTimeout::Cancel), ASKED_AT).unwrap();
    let id = InquiryId::new("c1");
    assert_eq!(state.deadline(&id), Some(ASKED_AT + 60_000));
    let early = take_at(
        &mut state,
        &time_out("c1", ASKED_AT + 15_500),
        ASKED_AT + 15_500,
    );
    assert_eq!(
        early,
        Err(Refusal::NotYetDue {
            inquiry: id.clone(),
            due_at_ms: ASKED_AT + 60_000,
            fired_at_ms: ASKED_AT + 15_500,
        })
    );
    assert_eq!(
        early.unwrap_err().to_string(),
        "inquiry \"c1\" is not due to time out yet: 44.500 s of its time to answer are left; \
         fire the timeout again at or after its deadline, 1767225660000 ms after the Unix epoch"
    );
    // An answer 50 s in puts the next question up: its minute counts from then,
    // so a timeout at the first question's deadline is early for this one.
    let at = state.at(&id).unwrap();
    take_at(
        &mut state,
        &AnswerInput::new(at, json!(true)).into(),
        ASKED_AT + 50_000,
    )
    .unwrap();
    assert_eq!(state.deadline(&id), Some(ASKED_AT + 110_000));
    let refused = take_at(
        &mut state,
        &time_out("c1", ASKED_AT + 60_000),
        ASKED_AT + 60_000,
    );
    assert!(
        matches!(refused, Err(Refusal::NotYetDue { due_at_ms, .. }) if due_at_ms == ASKED_AT + 110_000),
        "{refused:?}"
    );
    // At the deadline it is taken, and recorded with the time it was fired at.
    let decision = state.decide(&time_out("c1", ASKED_AT + 110_000)).unwrap();
    assert_eq!(
        decision.events(),
        [Event::TimedOut {
            inquiry: id.clone(),
            message: None,
            fired_at_ms: Some(ASKED_AT + 110_000),
        }]
    );
    let mut out = Vec::new();
    state.apply_decision_at(decision, ASKED_AT + 110_000, &mut out);
    let (status, _) = answers(&out);
    assert_eq!(status, OutcomeStatus::TimedOut { after_ms: 60_000 });
    assert_eq!(state.deadline(&id), None);
}

#[test]
fn a_second_timeout_is_refused_as_finished() {
    for on_timeout in [OnTimeout::Cancel, OnTimeout::Defaults, OnTimeout::EndTurn] {
        let mut state = State::new();
        take_at(&mut state, &ask("c1", on_timeout), ASKED_AT).unwrap();
        // Two surfaces fire at the deadline: the first is taken.
        let first = time_out("c1", ASKED_AT + 60_000);
        take_at(&mut state, &first, ASKED_AT + 60_001).unwrap();
        let second = take_at(
            &mut state,
            &time_out("c1", ASKED_AT + 60_002),
            ASKED_AT + 60_002,
        );
        let how = match on_timeout {
            OnTimeout::EndTurn => "turn ended",
            _ => "timed out",
        };
        assert_eq!(
            second.unwrap_err().to_string(),
            format!(
                "inquiry \"c1\" already finished ({how}); it takes no more input: show how it ended instead"
            ),
            "{on_timeout:?}"
        );
    }
}

/// A host driving the pure core with no log gives it no recorded time: the
/// state has no deadline, and the first timeout fired is taken whatever its
/// time (the host's clock is all there is); the second is refused.
#[test]
fn with_no_recorded_time_the_first_timeout_is_taken() {
    let mut state = State::new();
    reduce(&mut state, &ask("c1", OnTimeout::Cancel)).unwrap();
    assert_eq!(state.deadline(&InquiryId::new("c1")), None);
    let commands = reduce(&mut state, &time_out("c1", 0)).unwrap();
    assert!(matches!(&commands[..], [Command::Respond { .. }]));
    assert_eq!(
        reduce(&mut state, &time_out("c1", 0))
            .unwrap_err()
            .to_string(),
        "inquiry \"c1\" already finished (timed out); it takes no more input: show how it ended instead"
    );
}

/// The time an inquiry's question was put up is in the state: a snapshot keeps
/// it, a replay at the recorded times reaches the same state, and a snapshot
/// written before the state kept it reads as not known.
#[test]
fn the_time_a_question_was_put_up_is_kept_by_snapshots_and_replays() {
    let mut state = State::new();
    let mut recorded = Vec::new();
    let inputs = [
        (ask("c1", OnTimeout::Defaults), ASKED_AT),
        (ask("c2", OnTimeout::Cancel), ASKED_AT + 5),
    ];
    for (input, at) in &inputs {
        let decision = state.decide(input).unwrap();
        recorded.extend(decision.events().iter().map(|event| (event.clone(), *at)));
        state.apply_decision_at(decision, *at, &mut Vec::new());
    }
    let snapshot = serde_json::to_value(&state).unwrap();
    let restored: State = serde_json::from_value(snapshot.clone()).unwrap();
    assert_eq!(restored, state);
    assert_eq!(
        restored.deadline(&InquiryId::new("c2")),
        Some(ASKED_AT + 60_005)
    );
    let mut replayed = State::new();
    for (event, at) in &recorded {
        replayed.apply_at(event, *at, &mut Vec::new());
    }
    assert_eq!(replayed, state);
    // The same snapshot without the time, as an older build wrote it.
    let text = snapshot
        .to_string()
        .replace(&format!(",\"shown_at\":{ASKED_AT}"), "");
    assert_ne!(text, snapshot.to_string());
    let older: State = serde_json::from_str(&text).unwrap();
    assert_eq!(older.deadline(&InquiryId::new("c1")), None);
    assert_eq!(
        older.deadline(&InquiryId::new("c2")),
        Some(ASKED_AT + 60_005)
    );
}

#[test]
fn a_timed_out_event_written_before_it_carried_its_time_reads_and_writes_the_same() {
    let old = json!({"timed_out": {"inquiry": "c1"}});
    let event: Event = serde_json::from_value(old.clone()).unwrap();
    assert_eq!(event, timed_out("c1"));
    assert_eq!(serde_json::to_value(&event).unwrap(), old);
    let fired = Event::TimedOut {
        inquiry: InquiryId::new("c1"),
        message: None,
        fired_at_ms: Some(ASKED_AT),
    };
    assert_eq!(
        serde_json::to_value(&fired).unwrap(),
        json!({"timed_out": {"inquiry": "c1", "fired_at_ms": ASKED_AT}})
    );
}
