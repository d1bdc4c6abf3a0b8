//! A timeout is recorded like any input and replays exactly; records written before
//! policies had a timeout still read.

mod common;

use std::sync::Arc;

use askuser_core::{Event, Input, InquiryId, OnTimeout, Policy, Request, Timeout};
use askuser_store::replay::{ReplayOptions, replay_commands};
use askuser_store::{Log, Session};
use askuser_testkit::build::answer_shown;
use common::{db_form, requested_with, sled};
use serde_json::json;

fn timed_policy(on_timeout: OnTimeout) -> Policy {
    Policy {
        timeout: Some(Timeout {
            after_ms: 30_000,
            on_timeout,
        }),
        ..Policy::default()
    }
}

#[test]
fn a_timeout_recorded_in_sled_replays_to_the_same_commands_after_a_restart() {
    let (log, _dir) = sled();
    let log: Arc<dyn Log> = Arc::new(log);
    let ask = |id: &str, on_timeout| {
        let Event::Requested(request) =
            requested_with(id, db_form(), timed_policy(on_timeout), "t1")
        else {
            unreachable!("a request")
        };
        Input::Ask(request)
    };
    // Fired long after every deadline: the engine takes the first of each.
    let time_out = |id: &str| Input::TimeOut {
        inquiry: InquiryId::new(id),
        message: None,
        fired_at_ms: u64::MAX,
    };
    let mut session = Session::open(Arc::clone(&log), "s").unwrap();
    let mut sent = Vec::new();
    for step in 0..5 {
        let input = match step {
            0 => ask("c1", OnTimeout::Defaults),
            1 => ask("c2", OnTimeout::Cancel),
            2 => answer_shown(session.state(), "c1", json!("SQLite")),
            3 => time_out("c1"),
            _ => time_out("c2"),
        };
        let handled = session.handle(&input).unwrap();
        sent.push((handled.seq, handled.commands));
    }
    let state = session.state().clone();
    drop(session);
    let restarted = Session::open(Arc::clone(&log), "s").unwrap();
    assert_eq!(restarted.state(), &state);
    let (replayed, commands) = replay_commands(&*log, "s", ReplayOptions::from_start()).unwrap();
    assert_eq!(replayed.state, state);
    assert_eq!(commands, sent);
}

#[test]
fn a_request_recorded_before_timeouts_existed_reads_with_no_timeout() {
    // What the store wrote before `Policy.timeout` (MessagePack, named fields).
    let old = json!({"requested": {
        "inquiry": "c1",
        "form": {"questions": [{"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]},
        "policy": {"target": "user", "interactive": true, "exclusive": true,
                   "persistence": "none", "label": "Assistant"},
        "origin": {"tool": "ask_user", "turn": "", "subagent": false}}});
    let mut bytes = Vec::new();
    rmp_serde::encode::write_named(&mut bytes, &old).unwrap();
    let event: Event = rmp_serde::from_slice(&bytes).unwrap();
    let Event::Requested(Request { policy, .. }) = &event else {
        panic!("expected a request, got {event:?}");
    };
    assert_eq!(policy, &Policy::default());
    // And a request without a timeout is written exactly as before.
    let mut again = Vec::new();
    rmp_serde::encode::write_named(&mut again, &event).unwrap();
    let read: serde_json::Value = rmp_serde::from_slice(&again).unwrap();
    assert_eq!(read["requested"]["policy"], old["requested"]["policy"]);
}
