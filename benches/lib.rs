//! Criterion benchmarks for askuser live under `benches/benches/` (`cargo bench -p
//! askuser-benches`); see `README.md` for the figures. This library holds what the
//! benchmarks and the `replay_memory` example share: the 1,000,000-event database
//! they read, and the raw-scan baseline replay is compared with.

use std::path::{Path, PathBuf};
use std::time::Instant;

use std::sync::Arc;

use askuser_core::{Event, parse_form};
use askuser_sled::SledLog;
use askuser_store::replay::ReplayOptions;
use askuser_store::{Durability, Log, StoreError};
use askuser_testkit::build::{answered, back, requested};
use askuser_testkit::scripted_events;
use serde_json::{Value, json};

/// The stream the benchmark database holds.
pub const STREAM: &str = "bench";

/// How many events the replay benchmarks read.
pub const EVENTS: u64 = 1_000_000;

/// The tail a snapshot+tail load replays: the snapshot is at `EVENTS - TAIL`.
pub const TAIL: u64 = 1_000;

/// Where the benchmark database lives: `$ASKUSER_BENCH_DIR`, or `askuser-bench` in
/// the system's temporary directory. It is built once and reused.
pub fn bench_dir() -> PathBuf {
    std::env::var_os("ASKUSER_BENCH_DIR")
        .map_or_else(|| std::env::temp_dir().join("askuser-bench"), PathBuf::from)
}

/// The path of the 1,000,000-event database, building it first if it is missing or
/// incomplete: the scripted walk of RFD D30's form (250,000 inquiries, each a request
/// and three answers), with a snapshot at `EVENTS - TAIL`.
///
/// # Errors
///
/// If the database cannot be built.
pub fn replay_db() -> Result<PathBuf, StoreError> {
    let path = replay_db_path();
    if is_complete(&path) {
        return Ok(path);
    }
    if path.exists() {
        std::fs::remove_dir_all(&path)?;
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let started = Instant::now();
    eprintln!("building the benchmark database at {} ...", path.display());
    let log = SledLog::open(&path)?.with_durability(Durability::Buffered);
    let batch = 1_000;
    let mut head = 0;
    while head < EVENTS {
        let events: Vec<Event> = scripted_events(head + 1, batch).collect();
        head = askuser_testkit::record(&log, STREAM, head, &events)?;
    }
    askuser_store::compact::snapshot_at(&log, STREAM, EVENTS - TAIL)?;
    log.flush()?;
    eprintln!("built in {:.1?}", started.elapsed());
    Ok(path)
}

/// Builds afresh at `path` a log of [`EVENTS`] events in [`STREAM`], appended one
/// at a time as `serve`, `ask` and `answer` append them (each a value of its own
/// until a repack).
///
/// # Errors
///
/// If the database cannot be written.
pub fn single_appends_db(path: &Path) -> Result<(), StoreError> {
    if path.exists() {
        std::fs::remove_dir_all(path)?;
    }
    let started = Instant::now();
    eprintln!(
        "building {} events appended one at a time at {} ...",
        EVENTS,
        path.display()
    );
    let log = SledLog::open(path)?.with_durability(Durability::Buffered);
    for (head, event) in scripted_events(1, EVENTS).enumerate() {
        askuser_testkit::record(&log, STREAM, head as u64, std::slice::from_ref(&event))?;
    }
    log.flush()?;
    eprintln!("built in {:.1?}", started.elapsed());
    Ok(())
}

/// Where [`replay_db`] keeps the benchmark database (it may not exist yet).
pub fn replay_db_path() -> PathBuf {
    bench_dir().join("replay-1m")
}

fn is_complete(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    let Ok(log) = SledLog::open(path) else {
        return false;
    };
    matches!(log.stream(STREAM), Ok(Some(info)) if info.head == EVENTS)
        && log.snapshots(STREAM).is_ok_and(|s| s == [EVENTS - TAIL])
}

/// Replays the whole stream from the first event (no snapshot) through the reducer,
/// from a fresh open of the database; returns how many events were applied.
///
/// # Errors
///
/// If the database cannot be read.
pub fn replay_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    let log = open(path)?;
    let replayed = askuser_store::replay::replay(&log, STREAM, ReplayOptions::from_start())?;
    Ok(replayed.applied)
}

/// Reads the whole stream through the log's own reader (`Log::read_range`: the
/// sled scan, its gap check and its records), from a fresh open, and applies
/// nothing: what a replay costs before the reducer. Returns how many events were
/// read.
///
/// # Errors
///
/// If the database cannot be read or a record is damaged.
pub fn read_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    let log = open(path)?;
    let mut count = 0;
    for recorded in log.read_range(STREAM, 1, EVENTS)? {
        std::hint::black_box(&recorded?);
        count += 1;
    }
    Ok(count)
}

/// Visits the whole stream where the log decodes it (`Log::visit_range`, what a
/// replay reads with), from a fresh open, and applies nothing: the replay's
/// reading alone. Returns how many events were visited.
///
/// # Errors
///
/// If the database cannot be read or a record is damaged.
pub fn visit_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    let log = open(path)?;
    let mut count = 0;
    log.visit_range(STREAM, 1, EVENTS, &mut |recorded| {
        std::hint::black_box(recorded);
        count += 1;
        Ok(())
    })?;
    Ok(count)
}

/// Loads the stream's state from its snapshot and the tail, from a fresh open.
///
/// # Errors
///
/// If the database cannot be read.
///
/// # Panics
///
/// If the load does not start from the benchmark database's snapshot.
pub fn load_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    let log = open(path)?;
    let replayed = askuser_store::replay::load(&log, STREAM)?;
    assert_eq!(replayed.snapshot, Some(EVENTS - TAIL));
    Ok(replayed.applied)
}

/// The sled cache capacity the benchmarks open the database with, in bytes:
/// `$ASKUSER_BENCH_CACHE_MIB` MiB if set, else `SledLog::open`'s default.
pub fn cache_capacity() -> Option<u64> {
    std::env::var("ASKUSER_BENCH_CACHE_MIB")
        .ok()
        .and_then(|mib| mib.parse::<u64>().ok())
        .map(|mib| mib << 20)
}

fn sled_config(path: &Path) -> sled::Config {
    let config = sled::Config::new().path(path);
    match cache_capacity() {
        Some(bytes) => config.cache_capacity(bytes),
        None => config.cache_capacity(askuser_sled::DEFAULT_CACHE_CAPACITY),
    }
}

fn open(path: &Path) -> Result<SledLog, StoreError> {
    SledLog::from_config(&sled_config(path))
}

/// The baseline: a raw sled prefix scan of the same values, each decoded by the
/// store's own decoder (`askuser_store::codec::decode_event_value`: the checksum and the
/// events of each block), single-threaded, with no gap check and no reducer, from
/// a fresh open. Returns how many events were decoded.
///
/// # Errors
///
/// If the database cannot be read.
///
/// # Panics
///
/// If an event does not decode.
pub fn raw_scan_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    scan_values(path, |first, value| {
        let mut count = 0;
        for event in askuser_store::codec::decode_event_value(STREAM, first, value) {
            std::hint::black_box(&event.expect("an event"));
            count += 1;
        }
        count
    })
}

/// sled's error as the store's, as the sled log reports it.
fn storage(error: sled::Error) -> StoreError {
    StoreError::Storage(Box::new(askuser_sled::SledError(error)))
}

/// Opens the database at `path` (a fresh `sled::Db`) and hands each stored value of
/// the benchmark stream, with the sequence number of its first event, to `visit`;
/// returns the sum of what `visit` returns.
fn scan_values(path: &Path, mut visit: impl FnMut(u64, &[u8]) -> u64) -> Result<u64, StoreError> {
    let db = sled_config(path).open().map_err(storage)?;
    let events = db.open_tree("events").map_err(storage)?;
    let mut prefix = STREAM.as_bytes().to_vec();
    prefix.push(0);
    let mut count = 0;
    for entry in events.scan_prefix(&prefix) {
        let (key, value) = entry.map_err(storage)?;
        let first = u64::from_be_bytes(key[prefix.len()..].try_into().expect("a key"));
        count += visit(first, &value);
    }
    Ok(count)
}

/// sled alone: a prefix scan of the same values from a fresh open, nothing decoded.
/// Returns how many values (blocks) were read.
///
/// # Errors
///
/// If the database cannot be read.
pub fn sled_scan_from_cold_open(path: &Path) -> Result<u64, StoreError> {
    scan_values(path, |_, value| {
        std::hint::black_box(value);
        1
    })
}

/// Prints what a memory example measured: `count` events in `elapsed`, the rate,
/// and the peak resident memory now against `before_kib` (its peak before the run).
pub fn report(label: &str, count: u64, elapsed: std::time::Duration, before_kib: u64) {
    let peak = peak_rss_kib().unwrap_or(0);
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let (rate, peak, before) = (
        count as f64 / elapsed.as_secs_f64(),
        peak as f64 / 1024.0,
        before_kib as f64 / 1024.0,
    );
    println!(
        "{label}: {count} events in {elapsed:.3?} ({rate:.0} events/s); \
         peak RSS {peak:.1} MiB (before: {before:.1} MiB)"
    );
}

/// The process's peak resident set size so far (`VmHWM`), in KiB, on Linux.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The shared benchmark form and walk (benches/data/form.json, a copy of
/// shared/bench/form.json).
///
/// # Panics
/// When the file shipped with the benchmarks is not JSON (a bug).
pub fn bench_data() -> Value {
    serde_json::from_str(include_str!("data/form.json")).expect("form.json is JSON")
}

/// The benchmark form's questions as `jp-form` tool arguments.
pub fn form_arguments() -> Value {
    json!({"questions": bench_data()["questions"]})
}

/// The Requested event and the 12 events of the walk, as the engine benchmark
/// and the `walk_loop` example both run them.
///
/// # Panics
/// When the shipped form or walk is malformed (a bug).
pub fn walk_events() -> Vec<Event> {
    let data = bench_data();
    let form = parse_form(&form_arguments()).expect("the bench form is valid");
    let inquiry = "bench";
    let mut events = vec![requested(inquiry, Arc::clone(form.form()))];
    for step in data["walk"].as_array().expect("a walk") {
        events.push(if step[0] == "back" {
            back(inquiry)
        } else {
            answered(
                inquiry,
                step[1].as_str().expect("a question id"),
                step[2].clone(),
            )
        });
    }
    events
}
