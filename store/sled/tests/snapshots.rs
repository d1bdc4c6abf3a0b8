//! Property: a replay from a snapshot plus the tail equals a replay from the start,
//! in state and in the commands of the tail, over random event sequences (valid
//! and invalid answers, `Back`, `Cancelled`, `TurnEnded`, fresh and repeated inquiry ids,
//! several policies and turns).

mod common;

use std::sync::Arc;

use askuser_core::{AnsweredBy, CancelReason, Command, Event, Form, Policy};
use askuser_sled::SledLog;
use askuser_store::replay::ReplayOptions;
use askuser_store::{Log, MemLog};
use askuser_testkit::d30_form;
use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
enum Step {
    Request {
        id: u8,
        form: u8,
        policy: u8,
        turn: u8,
    },
    Answer {
        id: u8,
        question: u8,
        value: u8,
        assistant: bool,
        remember: bool,
    },
    Back {
        id: u8,
    },
    Cancel {
        id: u8,
        reason: u8,
    },
    TurnEnd {
        id: u8,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (0..6u8, 0..3u8, 0..4u8, 0..3u8)
            .prop_map(|(id, form, policy, turn)| Step::Request { id, form, policy, turn }),
        6 => (0..6u8, 0..8u8, 0..14u8, any::<bool>(), any::<bool>()).prop_map(
            |(id, question, value, assistant, remember)| Step::Answer {
                id, question, value, assistant, remember
            }
        ),
        1 => (0..6u8).prop_map(|id| Step::Back { id }),
        1 => (0..6u8, 0..3u8).prop_map(|(id, reason)| Step::Cancel { id, reason }),
        1 => (0..6u8).prop_map(|id| Step::TurnEnd { id }),
    ]
}

fn forms() -> [Arc<Form>; 3] {
    [db_form(), d30_form(), tags_form()]
}

const QUESTIONS: [&str; 8] = [
    "db", "migrate", "apply", "env", "note", "tags", "comment", "nope",
];

fn value(index: u8) -> Value {
    [
        json!(true),
        json!(false),
        json!("staging"),
        json!("production"),
        json!("PostgreSQL"),
        json!("SQLite"),
        json!("bug"),
        json!(["bug", "docs"]),
        json!(["something else"]),
        json!("some text"),
        json!(42),
        json!(null),
        json!({"k": [1, 2.5, -3]}),
        json!([]),
    ][usize::from(index) % 14]
        .clone()
}

fn policy(index: u8) -> Policy {
    match index {
        0 => Policy::default(),
        1 => assistant_policy(),
        2 => headless_policy(),
        _ => remembering_policy(),
    }
}

/// Ids 0..3 are a fixed pool (so requests repeat ids); 3, 4 and 5 name the
/// latest fresh ids, and a request with id 3 makes a fresh one.
fn events(steps: &[Step]) -> Vec<Event> {
    let forms = forms();
    let mut fresh = 0u32;
    let id = |choice: u8, fresh: u32| -> String {
        match choice {
            0..3 => format!("pool-{choice}"),
            _ => format!("fresh-{}", fresh.saturating_sub(u32::from(choice) - 3)),
        }
    };
    steps
        .iter()
        .map(|step| match *step {
            Step::Request {
                id: choice,
                form,
                policy: p,
                turn,
            } => {
                if choice == 3 {
                    fresh += 1;
                }
                requested_with(
                    &id(choice, fresh),
                    Arc::clone(&forms[usize::from(form)]),
                    policy(p),
                    ["", "t1", "t2"][usize::from(turn)],
                )
            }
            Step::Answer {
                id: choice,
                question,
                value: v,
                assistant,
                remember,
            } => answered_by(
                &id(choice, fresh),
                QUESTIONS[usize::from(question)],
                value(v),
                if assistant {
                    AnsweredBy::Assistant
                } else {
                    AnsweredBy::User
                },
                remember,
            ),
            Step::Back { id: choice } => back(&id(choice, fresh)),
            Step::Cancel { id: choice, reason } => cancelled(
                &id(choice, fresh),
                [
                    CancelReason::UserReply,
                    CancelReason::BackendError,
                    CancelReason::Unknown("host_went_away".into()),
                ][usize::from(reason)]
                .clone(),
            ),
            Step::TurnEnd { id: choice } => turn_ended(&id(choice, fresh)),
        })
        .collect()
}

fn commands_after<L: Log>(log: &L, options: ReplayOptions, after: u64) -> Vec<(u64, Vec<Command>)> {
    let (_, commands) = askuser_store::replay::replay_commands(log, "s", options).unwrap();
    commands
        .into_iter()
        .filter(|(seq, _)| *seq > after)
        .collect()
}

fn check<L: Log>(log: &L, events: &[Event], cut: u64, second: u64) {
    let len = events.len() as u64;
    log.append("s", 0, events).unwrap();
    let full = askuser_store::replay::replay(log, "s", ReplayOptions::from_start()).unwrap();
    assert_eq!(full.seq, len);
    askuser_store::compact::snapshot_at(log, "s", cut).unwrap();
    // The snapshot is the state at `cut`.
    let at_cut =
        askuser_store::replay::replay(log, "s", ReplayOptions::from_start().to(cut)).unwrap();
    let snapshot = askuser_store::replay::latest_snapshot(log, "s", cut)
        .unwrap()
        .unwrap();
    assert_eq!(snapshot.state, at_cut.state);
    // Snapshot + tail == the full replay, in state and in the tail's commands.
    let loaded = askuser_store::replay::load(log, "s").unwrap();
    assert_eq!(loaded.snapshot, Some(cut));
    assert_eq!(loaded.applied, len - cut);
    assert_eq!(loaded.state, full.state);
    assert_eq!(
        commands_after(log, ReplayOptions::latest(), cut),
        commands_after(log, ReplayOptions::from_start(), cut)
    );
    // From a second, later snapshot, and up to a point between them.
    if second > cut {
        askuser_store::compact::snapshot_at(log, "s", second).unwrap();
        assert_eq!(
            askuser_store::replay::load(log, "s").unwrap().state,
            full.state
        );
        let middle = cut + (second - cut) / 2;
        assert_eq!(
            askuser_store::replay::load_at(log, "s", middle)
                .unwrap()
                .state,
            askuser_store::replay::replay(log, "s", ReplayOptions::from_start().to(middle))
                .unwrap()
                .state
        );
    }
    // Compaction that drops the covered events gives the same state, and the log goes on.
    askuser_store::compact::compact(log, "s", true).unwrap();
    assert_eq!(
        askuser_store::replay::load(log, "s").unwrap().state,
        full.state
    );
    log.append("s", len, &events[..1]).unwrap();
    let mut expected = full.state.clone();
    expected.apply(&events[0], &mut Vec::new());
    assert_eq!(
        askuser_store::replay::load(log, "s").unwrap().state,
        expected
    );
}

fn scenario() -> impl Strategy<Value = (Vec<Event>, u64, u64)> {
    prop::collection::vec(step(), 1..60).prop_flat_map(|steps| {
        let len = steps.len() as u64;
        (Just(events(&steps)), 1..=len, 1..=len)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn snapshot_and_tail_equal_a_full_replay_in_memory((events, cut, second) in scenario()) {
        check(&MemLog::new(), &events, cut, second);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn snapshot_and_tail_equal_a_full_replay_on_sled((events, cut, second) in scenario()) {
        let log = SledLog::temporary().unwrap().with_durability(askuser_store::Durability::Buffered);
        check(&log, &events, cut, second);
    }
}

#[test]
fn the_generator_reaches_open_finished_and_remembered_states() {
    // A fixed walk through the generator's vocabulary: the snapshot must carry open
    // inquiries with prefills, finished ones, and remembered answers.
    let steps = [
        Step::Request {
            id: 3,
            form: 0,
            policy: 3,
            turn: 1,
        },
        Step::Answer {
            id: 3,
            question: 0,
            value: 4,
            assistant: false,
            remember: true,
        },
        Step::Answer {
            id: 3,
            question: 1,
            value: 0,
            assistant: false,
            remember: false,
        },
        Step::Request {
            id: 3,
            form: 0,
            policy: 3,
            turn: 1,
        },
        Step::Request {
            id: 0,
            form: 2,
            policy: 0,
            turn: 1,
        },
        Step::Answer {
            id: 0,
            question: 5,
            value: 7,
            assistant: false,
            remember: false,
        },
        Step::Back { id: 0 },
        Step::Request {
            id: 1,
            form: 1,
            policy: 1,
            turn: 1,
        },
    ];
    let events = events(&steps);
    let log = MemLog::new();
    check(&log, &events, 6, 8);
    let state = askuser_store::replay::load(&log, "s").unwrap().state;
    assert!(state.open_inquiries().count() >= 2, "{state:?}");
}
