//! Benchmarks of `askuser-store`: appends (buffered and flushed), a full replay of a
//! 1,000,000-event log from a cold open next to the raw sled scan + `MessagePack`
//! decode of the same records, and a snapshot+tail load.
//!
//! Run: `cargo bench -p askuser-benches --bench store`. The 1M-event database is
//! built on first use (about 15 s) under `$ASKUSER_BENCH_DIR` (default: the system's
//! temporary directory) and reused. Figures: `benches/README.md`.

use std::time::Duration;

use askuser_benches::{
    EVENTS, STREAM, TAIL, bench_dir, load_from_cold_open, raw_scan_from_cold_open, replay_db,
    replay_from_cold_open, single_appends_db,
};
use askuser_core::Event;
use askuser_sled::SledLog;
use askuser_store::{Durability, Log};
use askuser_testkit::scripted_events;
use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

/// Events to append, cycled through (the store does not look inside them).
fn pool() -> Vec<Event> {
    scripted_events(1, 4_000).collect()
}

fn append(c: &mut Criterion) {
    let pool = pool();
    let mut group = c.benchmark_group("append");
    for (name, durability, batch) in [
        ("buffered/1", Durability::Buffered, 1),
        ("buffered/100", Durability::Buffered, 100),
        ("flush/1", Durability::Flush, 1),
        ("flush/100", Durability::Flush, 100),
    ] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let log = SledLog::open(dir.path().join("db"))
            .expect("open")
            .with_durability(durability);
        let mut head = 0;
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let start = usize::try_from(head).unwrap_or(0) % (pool.len() - batch);
                head = askuser_testkit::record(&log, "bench", head, &pool[start..start + batch])
                    .expect("append");
            });
        });
        log.flush().expect("flush");
    }
    group.finish();
}

/// Replay of 1M events appended one at a time, before and after a repack.
fn replay_single_appends(c: &mut Criterion) {
    let path = bench_dir().join("replay-1m-single-appends");
    single_appends_db(&path).expect("the benchmark database");
    let mut group = c.benchmark_group("replay_single_appends");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(EVENTS));
    group.bench_function("before_repack_1m_cold_open", |b| {
        b.iter(|| assert_eq!(replay_from_cold_open(&path).expect("replay"), EVENTS));
    });
    {
        let log = SledLog::open(&path).expect("open");
        let started = std::time::Instant::now();
        let done = askuser_store::compact::repack(&log, STREAM).expect("repack");
        log.flush().expect("flush");
        eprintln!("repacked: {done:?} in {:.1?}", started.elapsed());
    }
    group.bench_function("after_repack_1m_cold_open", |b| {
        b.iter(|| assert_eq!(replay_from_cold_open(&path).expect("replay"), EVENTS));
    });
    group.finish();
}

fn replay(c: &mut Criterion) {
    let path = replay_db().expect("the benchmark database");
    let mut group = c.benchmark_group("replay");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(EVENTS));
    group.bench_function("full_1m_cold_open", |b| {
        b.iter(|| assert_eq!(replay_from_cold_open(&path).expect("replay"), EVENTS));
    });
    group.bench_function("raw_sled_scan_and_decode_1m_cold_open", |b| {
        b.iter(|| assert_eq!(raw_scan_from_cold_open(&path).expect("scan"), EVENTS));
    });
    group.throughput(Throughput::Elements(TAIL));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("snapshot_and_1k_tail_cold_open", |b| {
        b.iter_batched(
            || (),
            |()| assert_eq!(load_from_cold_open(&path).expect("load"), TAIL),
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, append, replay, replay_single_appends);
criterion_main!(benches);
