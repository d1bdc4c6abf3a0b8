//! Measures a 1,000,000-event replay from a cold open: its rate and the process's
//! peak memory (`VmHWM`). Run in release mode, in its own process, so that the peak
//! is the replay's:
//!
//! ```sh
//! cargo run --release -p askuser-benches --example replay_memory -- [replay|read|visit|raw|sled|load]
//! ```
//!
//! A first run builds the database if it is missing (see `askuser_benches::replay_db`)
//! and stops; later runs open it once, so that the peak measured is the replay's alone.

use std::time::Instant;

use askuser_benches::{
    load_from_cold_open, peak_rss_kib, raw_scan_from_cold_open, read_from_cold_open, replay_db,
    replay_db_path, replay_from_cold_open, report, sled_scan_from_cold_open, visit_from_cold_open,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "replay".to_owned());
    // Opening the database to check it would itself raise the peak: check it (and
    // build it if needed) in one run, measure in the next.
    let path = replay_db_path();
    if !path.exists() {
        replay_db()?;
        println!("built the benchmark database; run again to measure");
        return Ok(());
    }
    let before = peak_rss_kib().unwrap_or(0);
    let started = Instant::now();
    let count = match mode.as_str() {
        "replay" => replay_from_cold_open(&path)?,
        "raw" => raw_scan_from_cold_open(&path)?,
        "sled" => sled_scan_from_cold_open(&path)?,
        "load" => load_from_cold_open(&path)?,
        "read" => read_from_cold_open(&path)?,
        "visit" => visit_from_cold_open(&path)?,
        other => {
            return Err(
                format!("unknown mode {other}: replay, read, visit, raw, sled or load").into(),
            );
        }
    };
    report(&mode, count, started.elapsed(), before);
    Ok(())
}
