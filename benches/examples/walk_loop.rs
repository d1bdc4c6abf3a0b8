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

use askuser_benches::walk_events;
use askuser_core::{Command, Event, State};

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
