//! What a finished inquiry ended with, read from the state: every result command
//! the engine gives is what `State::result` rebuilds afterwards, a snapshot (the
//! state serialized and read back) keeps it, and the oldest is forgotten past
//! `FINISHED_REMEMBERED`.

use askuser_core::strategies::Scenario;
use askuser_core::{
    AnswerInput, CancelReason, Command, Ending, FINISHED_REMEMBERED, Input, InquiryId, OnTimeout,
    Origin, Policy, Request, State, Timeout, parse_form,
};
use proptest::prelude::*;
use serde_json::json;

fn policy() -> Policy {
    Policy {
        timeout: Some(Timeout {
            after_ms: 5_000,
            on_timeout: OnTimeout::Defaults,
        }),
        ..Policy::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every Respond, Fail and EndTurn is the result the state then gives for its
    /// inquiry, before and after a snapshot's round trip.
    #[test]
    fn every_result_is_read_back_from_the_state_and_its_snapshot(
        inputs in Scenario::new(["a", "b", "c", "d"], policy()).inputs(40)
    ) {
        let mut state = State::new();
        let mut results = Vec::new();
        for input in &inputs {
            let mut commands = Vec::new();
            if let Ok(decision) = state.decide(input) {
                state.apply_decision(decision, &mut commands);
            }
            for command in commands {
                let inquiry = match &command {
                    Command::Respond { inquiry, .. }
                    | Command::Fail { inquiry, .. }
                    | Command::EndTurn { inquiry } => inquiry.clone(),
                    _ => continue,
                };
                prop_assert_eq!(state.result(&inquiry), Some(command.clone()));
                prop_assert!(state.pending(&inquiry).is_none());
                results.push((inquiry, command));
            }
        }
        let snapshot = serde_json::to_vec(&state).unwrap();
        let restored: State = serde_json::from_slice(&snapshot).unwrap();
        prop_assert_eq!(&restored, &state);
        for (inquiry, command) in &results {
            prop_assert_eq!(restored.result(inquiry), Some(command.clone()));
            let finished = restored.outcome(inquiry).unwrap();
            prop_assert_eq!(Some(finished.how()), restored.finished(inquiry));
        }
    }
}

fn ask(state: &mut State, id: &str) -> Vec<Command> {
    ask_in_turn(state, id, "")
}

/// Asks `id` in the agent's turn `turn` (`""`: a turn of its own).
fn ask_in_turn(state: &mut State, id: &str, turn: &str) -> Vec<Command> {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
    ]}))
    .unwrap();
    askuser_core::reduce(
        state,
        &Input::Ask(Request {
            inquiry: InquiryId::new(id),
            form: form.form().clone(),
            policy: policy(),
            origin: Origin {
                turn: turn.to_owned(),
                ..Origin::default()
            },
            call: None,
        }),
    )
    .unwrap()
}

/// Each way to finish keeps its own result: answers with their status, a tool
/// error with its reason, or the end of the turn.
#[test]
fn each_way_to_finish_keeps_what_it_sent() {
    let mut state = State::new();
    let id = |name: &str| InquiryId::new(name);
    ask(&mut state, "reply");
    let at = state.at(&id("reply")).unwrap();
    askuser_core::reduce(
        &mut state,
        &Input::Reply {
            at,
            message: Some("later".into()),
        },
    )
    .unwrap();
    let reply = state.outcome(&id("reply")).unwrap();
    assert_eq!(reply.how(), Ending::Replied);
    assert_eq!(reply.outcome().unwrap().message.as_deref(), Some("later"));
    assert!(reply.call().is_none());

    ask(&mut state, "cancel");
    askuser_core::reduce(
        &mut state,
        &Input::Cancel {
            inquiry: id("cancel"),
            reason: CancelReason::BackendError,
            message: Some("the backend is down".into()),
        },
    )
    .unwrap();
    let failed = state.outcome(&id("cancel")).unwrap();
    assert_eq!(failed.how(), Ending::Failed);
    assert_eq!(failed.failure().unwrap().0, &CancelReason::BackendError);
    assert!(failed.outcome().is_none());

    ask(&mut state, "late");
    let at = state.at(&id("late")).unwrap();
    askuser_core::reduce(&mut state, &AnswerInput::new(at, json!(true)).into()).unwrap();
    askuser_core::reduce(
        &mut state,
        &Input::TimeOut {
            inquiry: id("late"),
            message: None,
            fired_at_ms: 0,
        },
    )
    .unwrap();
    let timed_out = state.outcome(&id("late")).unwrap();
    assert_eq!(timed_out.how(), Ending::TimedOut);
    assert_eq!(
        timed_out.outcome().unwrap().timed_out_after_ms(),
        Some(5_000)
    );

    ask(&mut state, "ended");
    askuser_core::reduce(
        &mut state,
        &Input::EndTurn {
            inquiry: id("ended"),
            surface: None,
        },
    )
    .unwrap();
    assert_eq!(
        state.result(&id("ended")),
        Some(Command::EndTurn {
            inquiry: id("ended")
        })
    );
}

/// Only the last `FINISHED_REMEMBERED` results are kept.
#[test]
fn the_oldest_result_is_forgotten() {
    let mut state = State::new();
    for n in 0..=FINISHED_REMEMBERED {
        let name = format!("q{n}");
        ask(&mut state, &name);
        askuser_core::reduce(
            &mut state,
            &Input::EndTurn {
                inquiry: InquiryId::new(&name),
                surface: None,
            },
        )
        .unwrap();
    }
    assert!(state.outcome(&InquiryId::new("q0")).is_none());
    assert!(state.was_requested(&InquiryId::new("q0")));
    assert!(state.outcome(&InquiryId::new("q1")).is_some());
}

/// A snapshot of state format 1 kept only how an inquiry finished: it still
/// loads, and says how, but has no result to rebuild.
#[test]
fn a_snapshot_of_the_first_state_format_still_loads() {
    let mut state = State::new();
    ask(&mut state, "ended");
    askuser_core::reduce(
        &mut state,
        &Input::EndTurn {
            inquiry: InquiryId::new("ended"),
            surface: None,
        },
    )
    .unwrap();
    let mut snapshot = serde_json::to_value(&state).unwrap();
    let record = &mut snapshot["inquiries"]["ended"]["finished"];
    assert!(record.is_object(), "{snapshot}");
    *record = json!("turn_ended");
    let old: State = serde_json::from_value(snapshot).unwrap();
    let id = InquiryId::new("ended");
    assert_eq!(old.finished(&id), Some(Ending::TurnEnded));
    assert_eq!(old.result(&id), None);
    assert!(old.outcome(&id).unwrap().outcome().is_none());
}

#[test]
fn every_ending_has_one_name_in_words_and_keeps_its_name_in_snapshots() {
    let endings = [
        (Ending::Answered, "answered", "completed"),
        (Ending::Replied, "replied", "cancelled"),
        (Ending::TimedOut, "timed out", "timed_out"),
        (Ending::TurnEnded, "turn ended", "turn_ended"),
        (Ending::Failed, "failed", "failed"),
        (Ending::Rejected, "rejected", "rejected"),
    ];
    for (ending, words, stored) in endings {
        assert_eq!(ending.words(), words);
        // A snapshot of state format 1 kept the bare status by these names.
        assert_eq!(serde_json::to_value(ending).unwrap(), json!(stored));
        assert_eq!(
            serde_json::from_value::<Ending>(json!(stored)).unwrap(),
            ending
        );
    }
    let id = InquiryId::new("c1");
    assert_eq!(
        Ending::of(&Command::EndTurn {
            inquiry: id.clone()
        }),
        Some(Ending::TurnEnded)
    );
    assert_eq!(
        Ending::of(&Command::Fail {
            inquiry: id,
            reason: CancelReason::NoPromptBackend,
            message: String::new(),
        }),
        Some(Ending::Failed)
    );
}

/// Where a person ended a turn is recorded on the event, kept with every
/// inquiry of the turn it finished (through a snapshot), and told by the
/// narrator; an event written before it said where reads as not known, and a
/// turn the time to answer ended was ended nowhere.
#[test]
fn the_end_of_a_turn_says_where_it_was_ended() {
    use askuser_core::{Event, Happened, Surface};

    let id = |name: &str| InquiryId::new(name);
    let mut state = State::new();
    ask_in_turn(&mut state, "first", "turn-1");
    ask_in_turn(&mut state, "second", "turn-1");
    let input = Input::EndTurn {
        inquiry: id("first"),
        surface: Some(Surface::Terminal),
    };
    let decision = state.decide(&input).unwrap();
    let event = decision.events()[0].clone();
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"turn_ended": {"inquiry": "first", "surface": "terminal"}})
    );
    let mut commands = Vec::new();
    state.apply_decision(decision, &mut commands);
    let happened = Happened::of(&event, &commands, None);
    assert_eq!(
        happened,
        Some(Happened::TurnEnded {
            inquiry: id("first"),
            surface: Some(Surface::Terminal)
        })
    );
    let restored: State = serde_json::from_value(serde_json::to_value(&state).unwrap()).unwrap();
    for inquiry in ["first", "second"] {
        let finished = restored.outcome(&id(inquiry)).unwrap();
        assert_eq!(finished.how(), Ending::TurnEnded);
        assert_eq!(finished.turn_ended_in(), Some(Surface::Terminal));
    }
    assert_eq!(Surface::Terminal.words(), "in the terminal");

    let old: Event = serde_json::from_value(json!({"turn_ended": {"inquiry": "first"}})).unwrap();
    assert_eq!(
        old,
        Event::TurnEnded {
            inquiry: id("first"),
            surface: None
        }
    );
}
