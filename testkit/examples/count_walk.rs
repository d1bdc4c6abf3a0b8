//! The engine benchmark's walk (`reducer/walk` in `benches/benches/engine.rs`,
//! `walk_loop` in `benches/examples/`) in a plain loop, for an instruction count
//! under callgrind (what `benches/scripts/instructions-check` watches): the bench
//! form's `Requested` and the 12 events of its walk applied to a fresh `State`,
//! N times. Here, beside the test kit, so that the check builds the core, the
//! store and the kit alone. It also prints the loop's wall clock (ns an event,
//! events/s), which `benches/scripts/xstate-side-by-side` sets beside `XState` 5's
//! on the same walk (the count covers `walk_once` alone).
//!
//! ```sh
//! cargo build --release -p askuser-testkit --example count_walk
//! valgrind --tool=callgrind --toggle-collect='count_walk::walk_once' \
//!     target/release/examples/count_walk 2000        # divide by 2,000
//! ```

use std::hint::black_box;
use std::sync::Arc;

use askuser_core::{Command, Event, State, parse_form};
use askuser_testkit::build::{answered, back, requested};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let walks: u64 = std::env::args().nth(1).map_or(Ok(2_000), |n| n.parse())?;
    let events = walk_events()?;
    let mut out: Vec<Command> = Vec::with_capacity(4);
    let started = std::time::Instant::now();
    for _ in 0..walks {
        walk_once(&events, &mut out);
    }
    let elapsed = started.elapsed();
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let per_event = elapsed.as_nanos() as f64 / (walks as f64 * events.len() as f64);
    println!(
        "askuser {walks} walks of {} events: {:.1} ms, {per_event:.0} ns an event, {:.0} events/s",
        events.len(),
        elapsed.as_secs_f64() * 1e3,
        1e9 / per_event
    );
    Ok(())
}

/// The shared benchmark form's request and walk (benches/data/form.json).
fn walk_events() -> Result<Vec<Event>, Box<dyn std::error::Error>> {
    let data: Value = serde_json::from_str(include_str!("../../benches/data/form.json"))?;
    let form = parse_form(&json!({"questions": data["questions"]}))
        .map_err(|problems| format!("the bench form is invalid: {problems:?}"))?;
    let mut events = vec![requested("bench", Arc::clone(form.form()))];
    for step in data["walk"].as_array().ok_or("a walk")? {
        events.push(if step[0] == "back" {
            back("bench")
        } else {
            answered(
                "bench",
                step[1].as_str().ok_or("a question id")?,
                step[2].clone(),
            )
        });
    }
    Ok(events)
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
