//! The engine benchmark's shared walk (`reducer/walk`, `benches/engine.rs`) in a
//! plain loop, for an instruction count under callgrind: the bench form's
//! `Requested` and the 12 events of its walk applied to a fresh `State`, N times.
//!
//! ```sh
//! cargo build --release -p askuser-benches --example walk_loop
//! valgrind --tool=callgrind --toggle-collect='walk_loop::walk_once' \
//!     target/release/examples/walk_loop 5000
//! ```
//!
//! `walk_once` is one walk: a new `State`, the 13 events (each after clearing the
//! command buffer), and the state's drop. Divide the count by N.

use std::hint::black_box;
use std::sync::Arc;

use askuser_core::{
    AnsweredBy, Command, Event, InquiryId, Origin, Policy, Request, State, parse_form,
};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let walks: u64 = std::env::args().nth(1).map_or(Ok(5_000), |n| n.parse())?;
    let events = walk_events();
    let mut out: Vec<Command> = Vec::with_capacity(4);
    for _ in 0..walks {
        walk_once(&events, &mut out);
    }
    println!("{walks} walks of {} events", events.len());
    Ok(())
}

#[inline(never)]
fn walk_once(events: &[Event], out: &mut Vec<Command>) {
    let mut state = State::new();
    for event in events {
        out.clear();
        state.apply(black_box(event), out);
    }
    assert!(matches!(out.as_slice(), [Command::Respond { .. }]));
    drop(black_box(state));
}

/// The Requested event and the 12 events of the walk, as `benches/engine.rs`
/// builds them from `benches/data/form.json`.
fn walk_events() -> Vec<Event> {
    let data: Value =
        serde_json::from_str(include_str!("../data/form.json")).expect("form.json is JSON");
    let form = parse_form(&json!({"questions": data["questions"]})).expect("a valid form");
    let inquiry = InquiryId::new("bench");
    let mut events = vec![Event::Requested(Request {
        inquiry: inquiry.clone(),
        form: Arc::clone(form.form()),
        policy: Policy::default(),
        origin: Origin::default(),
        call: None,
    })];
    for step in data["walk"].as_array().expect("a walk") {
        events.push(if step[0] == "back" {
            Event::Back {
                inquiry: inquiry.clone(),
            }
        } else {
            Event::Answered {
                inquiry: inquiry.clone(),
                question: step[1].as_str().expect("a question id").to_owned(),
                value: step[2].clone(),
                by: AnsweredBy::User,
                remember: false,
                note: None,
            }
        });
    }
    events
}
