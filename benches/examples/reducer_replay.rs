//! The reducer's share of a replay, for an instruction count under callgrind: the
//! replay benchmark's events (the scripted walk of RFD D30's form, 250,000 inquiries
//! for 1,000,000 events) built in memory in blocks of 1,000, as the store's block
//! reader hands them out (one `Arc<Form>` per block), and applied to one `State`.
//!
//! ```sh
//! cargo build --release -p askuser-benches --example reducer_replay
//! valgrind --tool=callgrind --toggle-collect='reducer_replay::apply_one' \
//!     target/release/examples/reducer_replay apply 1000000
//! ```
//!
//! `apply_one` is `State::apply` plus clearing the command buffer (dropping the
//! previous event's commands). The mode `build` only builds the events, for a
//! baseline of the whole program's count.

use std::hint::black_box;
use std::sync::Arc;

use askuser_core::{Command, Event, State};
use askuser_testkit::scripted_events;

/// Events per block, as the benchmark database appends them.
const BLOCK: u64 = 1_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "apply".to_owned());
    let count: u64 = args.next().map_or(Ok(1_000_000), |n| n.parse())?;
    let apply = match mode.as_str() {
        "apply" => true,
        "build" => false,
        other => return Err(format!("unknown mode {other}: apply or build").into()),
    };
    let mut state = State::new();
    let mut out: Vec<Command> = Vec::new();
    let mut first = 1;
    let mut applied = 0_u64;
    while first <= count {
        let size = BLOCK.min(count - first + 1);
        let events = block(first, size);
        if apply {
            for event in &events {
                apply_one(&mut state, black_box(event), &mut out);
                applied += 1;
            }
        }
        black_box(&events);
        first += size;
    }
    black_box(&state);
    println!(
        "{mode}: {count} events built, {applied} applied, {} open",
        state.open_inquiries().count()
    );
    Ok(())
}

/// Events `first..first + size`, the requests sharing one fresh `Arc<Form>`.
fn block(first: u64, size: u64) -> Vec<Event> {
    let mut form = None;
    scripted_events(first, size)
        .map(|mut event| {
            if let Event::Requested(request) = &mut event {
                let shared = form.get_or_insert_with(|| Arc::new((*request.form).clone()));
                request.form = Arc::clone(shared);
            }
            event
        })
        .collect()
}

#[inline(never)]
fn apply_one(state: &mut State, event: &Event, out: &mut Vec<Command>) {
    out.clear();
    state.apply(event, out);
}
