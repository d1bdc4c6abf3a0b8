//! The PostgreSQL counterpart of `replay_memory`: a 1,000,000-event replay through
//! `PgLog` from a fresh connection, its rate and the process's peak memory
//! (`VmHWM`), in its own process:
//!
//! ```sh
//! export ASKUSER_TEST_PG="$(scripts/postgres.sh | tail -n 1)"
//! cargo bench -p askuser-benches --features postgres --bench postgres -- replay   # builds the stream
//! cargo run --release -p askuser-benches --features postgres --example pg_replay_memory -- [replay|load]
//! ```
//!
//! It reads the stream the `postgres` benchmark builds in the schema
//! `askuser_bench_replay`, and stops with a note if it is not there.

use std::time::Instant;

use askuser_benches::{EVENTS, STREAM, TAIL, peak_rss_kib, report};
use askuser_postgres::PgLog;
use askuser_store::Log;
use askuser_store::replay::ReplayOptions;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "replay".to_owned());
    let Ok(url) = std::env::var("ASKUSER_TEST_PG") else {
        println!("ASKUSER_TEST_PG is not set: start a server with scripts/postgres.sh");
        return Ok(());
    };
    let before = peak_rss_kib().unwrap_or(0);
    let started = Instant::now();
    let log = PgLog::connect_in(&url, "askuser_bench_replay")?;
    if log.stream(STREAM)?.map(|info| info.head) != Some(EVENTS) {
        println!("the benchmark stream is missing: run the postgres benchmark's replay first");
        return Ok(());
    }
    let count = match mode.as_str() {
        "replay" => {
            askuser_store::replay::replay(&log, STREAM, ReplayOptions::from_start())?.applied
        }
        "load" => {
            let loaded = askuser_store::replay::load(&log, STREAM)?;
            assert_eq!(loaded.snapshot, Some(EVENTS - TAIL));
            loaded.applied
        }
        other => return Err(format!("unknown mode {other}: replay or load").into()),
    };
    report(
        &format!("postgres {mode}"),
        count,
        started.elapsed(),
        before,
    );
    Ok(())
}
