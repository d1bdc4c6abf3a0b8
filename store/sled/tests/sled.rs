//! Behaviour particular to the sled log: long reads, reopening, the file lock.

use askuser_store::backend::Backend as _;
use std::time::{Duration, Instant};

use askuser_sled::SledLog;
use askuser_store::replay::ReplayOptions;
use askuser_store::{Durability, Log, StoreError};
use askuser_testkit::{scripted_event, scripted_events};

#[test]
fn a_long_read_dropped_early_releases_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    {
        let log = SledLog::open(&path)
            .unwrap()
            .with_durability(Durability::Buffered);
        let events: Vec<_> = scripted_events(1, 20_000).collect();
        log.append("s", 0, &events).unwrap();
        // A long read, stopped after a few events.
        let mut reader = log.read("s", 1).unwrap();
        for seq in 1..=3 {
            assert_eq!(reader.next().unwrap().unwrap().event, scripted_event(seq));
        }
        drop(reader);
        // A full read sees every event, in order.
        let mut seq = 0;
        for recorded in log.read("s", 1).unwrap() {
            seq += 1;
            let recorded = recorded.unwrap();
            assert_eq!(recorded.seq, seq);
            assert_eq!(recorded.event, scripted_event(seq));
        }
        assert_eq!(seq, 20_000);
        // A reader still open when the log is dropped (just before it).
        let mut reader = log.read("s", 1).unwrap();
        reader.next();
        log.flush().unwrap();
        drop(reader);
    }
    let log = SledLog::open(&path).expect("the database was released");
    let replayed = askuser_store::replay::replay(&log, "s", ReplayOptions::from_start()).unwrap();
    assert_eq!(replayed.applied, 20_000);
}

#[test]
fn a_database_open_elsewhere_is_an_error_after_a_short_wait() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let first = SledLog::open(&path).unwrap();
    let started = Instant::now();
    let error = SledLog::open(&path).map(|_| ()).unwrap_err();
    assert!(matches!(error, StoreError::Locked), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the log is in use by another process; close it and try again"
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
    drop(first);
    SledLog::open(&path).expect("open once the first handle is gone");
}
