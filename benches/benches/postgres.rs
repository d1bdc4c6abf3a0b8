//! Benchmarks of the PostgreSQL log (`PgLog`), the counterparts of `store.rs`'s:
//! appends (buffered and flushed, 1 and 100 events) and a full replay of a
//! 1,000,000-event stream from a fresh connection, plus a snapshot+tail load.
//!
//! Run against the server of `ASKUSER_TEST_PG` (start the project's private one
//! with `scripts/postgres.sh`):
//!
//! ```sh
//! export ASKUSER_TEST_PG="$(scripts/postgres.sh | tail -n 1)"
//! cargo bench -p askuser-benches --features postgres --bench postgres
//! ```
//!
//! Without `ASKUSER_TEST_PG` it prints a note and measures nothing. The 1M-event
//! stream is built on first use in the schema `askuser_bench_replay` and reused;
//! the appends write to a schema of their own, dropped at the end. Figures:
//! `benches/README.md`.

use std::time::{Duration, Instant};

use askuser_benches::{EVENTS, STREAM, TAIL};
use askuser_core::Event;
use askuser_postgres::PgLog;
use askuser_store::replay::ReplayOptions;
use askuser_store::{Durability, Log, StoreError};
use askuser_testkit::scripted_events;
use criterion::{BatchSize, Criterion, SamplingMode, Throughput};

/// The schema holding the 1M-event replay stream (kept between runs).
const REPLAY_SCHEMA: &str = "askuser_bench_replay";

fn append(c: &mut Criterion, url: &str) {
    let schema = format!("askuser_bench_append_{}", std::process::id());
    let pool: Vec<Event> = scripted_events(1, 4_000).collect();
    let mut group = c.benchmark_group("postgres_append");
    for (name, durability, batch) in [
        ("buffered/1", Durability::Buffered, 1),
        ("buffered/100", Durability::Buffered, 100),
        ("flush/1", Durability::Flush, 1),
        ("flush/100", Durability::Flush, 100),
    ] {
        let log = PgLog::connect_in(url, &schema)
            .expect("connect")
            .with_durability(durability);
        let stream = name.replace('/', "-");
        let mut head = 0;
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let start = usize::try_from(head).unwrap_or(0) % (pool.len() - batch);
                head = askuser_testkit::record(&log, &stream, head, &pool[start..start + batch])
                    .expect("append");
            });
        });
        log.flush().expect("flush");
    }
    group.finish();
    drop_schema(url, &schema);
}

fn replay(c: &mut Criterion, url: &str) {
    build_replay_stream(url).expect("the benchmark stream");
    let mut group = c.benchmark_group("postgres_replay");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(EVENTS));
    group.bench_function("full_1m_fresh_connection", |b| {
        b.iter(|| {
            let log = PgLog::connect_in(url, REPLAY_SCHEMA).expect("connect");
            let replayed = askuser_store::replay::replay(&log, STREAM, ReplayOptions::from_start())
                .expect("replay");
            assert_eq!(replayed.applied, EVENTS);
        });
    });
    group.throughput(Throughput::Elements(TAIL));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("snapshot_and_1k_tail_fresh_connection", |b| {
        b.iter_batched(
            || (),
            |()| {
                let log = PgLog::connect_in(url, REPLAY_SCHEMA).expect("connect");
                let loaded = askuser_store::replay::load(&log, STREAM).expect("load");
                assert_eq!(
                    (loaded.snapshot, loaded.applied),
                    (Some(EVENTS - TAIL), TAIL)
                );
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// The 1M-event stream of `store.rs`'s replay database, in [`REPLAY_SCHEMA`],
/// built (in buffered appends of 1,000 events) if it is missing or incomplete.
fn build_replay_stream(url: &str) -> Result<(), StoreError> {
    let log = PgLog::connect_in(url, REPLAY_SCHEMA)?.with_durability(Durability::Buffered);
    let complete = matches!(log.stream(STREAM)?, Some(info) if info.head == EVENTS)
        && log.snapshots(STREAM)? == [EVENTS - TAIL];
    if complete {
        return Ok(());
    }
    drop(log);
    drop_schema(url, REPLAY_SCHEMA);
    let log = PgLog::connect_in(url, REPLAY_SCHEMA)?.with_durability(Durability::Buffered);
    let started = Instant::now();
    eprintln!("building the 1M-event stream in schema {REPLAY_SCHEMA} ...");
    let mut head = 0;
    while head < EVENTS {
        let events: Vec<Event> = scripted_events(head + 1, 1_000).collect();
        head = askuser_testkit::record(&log, STREAM, head, &events)?;
    }
    askuser_store::compact::snapshot_at(&log, STREAM, EVENTS - TAIL)?;
    log.flush()?;
    eprintln!("built in {:.1?}", started.elapsed());
    Ok(())
}

fn drop_schema(url: &str, schema: &str) {
    let dropped = postgres::Client::connect(url, postgres::NoTls).and_then(|mut client| {
        client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
    });
    if let Err(error) = dropped {
        eprintln!("could not drop the schema {schema}: {error}");
    }
}

fn main() {
    let Some(url) = std::env::var("ASKUSER_TEST_PG")
        .ok()
        .filter(|url| !url.trim().is_empty())
    else {
        println!(
            "ASKUSER_TEST_PG is not set: no PostgreSQL benchmark was run. Start a server with \
             scripts/postgres.sh and run\n    export ASKUSER_TEST_PG=\"$(scripts/postgres.sh | tail -n 1)\""
        );
        return;
    };
    let mut criterion = Criterion::default().configure_from_args();
    append(&mut criterion, &url);
    replay(&mut criterion, &url);
    criterion.final_summary();
}
