//! The replay's own work on one thread, for an instruction count under callgrind
//! (what `benches/scripts/instructions-check` watches): the replay benchmark's
//! events (the scripted walk of RFD D30's form, as `replay_memory` reads them
//! from sled) encoded in memory into the store's blocks, appends of 1,000 events
//! as the benchmark database holds them, then each block opened and checked
//! (`BlockReader`), its events decoded and applied for the state (`replay_recorded`), as the
//! sled log's scan and `askuser_store::replay` do (on one thread), without sled,
//! so the count is exact from run to run.
//!
//! ```sh
//! cargo build --release -p askuser-testkit --example count_replay
//! valgrind --tool=callgrind --toggle-collect='count_replay::replay' \
//!     target/release/examples/count_replay 100000      # divide by 100,000
//! ```

use std::hint::black_box;

use askuser_core::{Command, State};
use askuser_store::Timestamp;
use askuser_store::block::{BlockReader, BlockWriter};
use askuser_store::replay::replay_recorded;
use askuser_testkit::scripted_events;

/// Events per append, as the benchmark database was written.
const APPEND: u64 = 1_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: u64 = std::env::args().nth(1).map_or(Ok(100_000), |n| n.parse())?;
    let mut blocks = Vec::new();
    let mut first = 1;
    while first <= count {
        let size = APPEND.min(count - first + 1);
        let mut writer = BlockWriter::new("bench", first);
        for (offset, event) in scripted_events(first, size).enumerate() {
            writer.push(Timestamp(1_700_000_000_000 + first + offset as u64), &event)?;
        }
        blocks.extend(writer.finish());
        first += size;
    }
    let (applied, state) = replay(&blocks);
    assert_eq!(applied, count, "every event decodes");
    println!(
        "{applied} events in {} blocks replayed, {} open",
        blocks.len(),
        state.open_inquiries().count()
    );
    Ok(())
}

/// Opens every block, decodes its events and applies them to a new state.
#[inline(never)]
fn replay(blocks: &[(Vec<u8>, Vec<u8>)]) -> (u64, State) {
    let mut state = State::new();
    let mut out: Vec<Command> = Vec::new();
    let mut applied = 0;
    for (key, value) in blocks {
        let first = askuser_store::codec::key_seq(key).expect("a key");
        let mut reader =
            BlockReader::open(key, first, black_box(value.as_slice())).expect("a block");
        while let Some((_, recorded)) = reader.next_event() {
            let recorded = recorded.expect("an event");
            replay_recorded(&mut state, &recorded, &mut out);
            applied += 1;
        }
    }
    (applied, state)
}
