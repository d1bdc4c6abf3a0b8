//! Damaged records: each is reported as a corruption error naming its stream and
//! sequence number, never a panic and never a different event, and the rest of the
//! log stays readable.

mod common;

use askuser_store::backend::Backend as _;
use std::path::Path;

use askuser_core::Event;
use askuser_sled::SledLog;
use askuser_store::{Durability, Log, RecordKind, StoreError};
use askuser_testkit::build::answered;
use askuser_testkit::scripted_event;
use serde_json::json;

fn key(stream: &str, seq: u64) -> Vec<u8> {
    let mut key = stream.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&seq.to_be_bytes());
    key
}

fn corrupt_seqs(log: &SledLog, stream: &str) -> Vec<(u64, String)> {
    log.read(stream, 1)
        .unwrap()
        .filter_map(|r| match r {
            Ok(recorded) => {
                assert_eq!(recorded.event, scripted_event(recorded.seq));
                None
            }
            Err(StoreError::Corrupt {
                kind: RecordKind::Event,
                stream: s,
                seq,
                detail,
            }) => {
                assert_eq!(s, stream);
                Some((seq, detail))
            }
            Err(other) => panic!("unexpected error: {other}"),
        })
        .collect()
}

#[test]
fn a_damaged_record_is_named_and_the_rest_of_the_log_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    {
        let log = SledLog::open(&path).unwrap();
        let script: Vec<Event> = (1..=100).map(scripted_event).collect();
        // One event per append, so that each event is a value of its own for the
        // damage below (blocks of several events: the next test).
        for (head, event) in (0..).zip(&script) {
            log.append("s", head, std::slice::from_ref(event)).unwrap();
        }
        log.append("other", 0, &script[..10]).unwrap();
        askuser_store::compact::snapshot_at(&log, "other", 8).unwrap();
        drop(log);
        // Damage records the way a disk, a torn write or a stray tool would.
        let db = common::open_sled_when_released(&path).unwrap();
        let events = db.open_tree("events").unwrap();
        let mut flipped = events.get(key("s", 40)).unwrap().unwrap().to_vec();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x04;
        events.insert(key("s", 40), flipped).unwrap();
        let torn = events.get(key("s", 41)).unwrap().unwrap()[..3].to_vec();
        events.insert(key("s", 41), torn).unwrap();
        let misplaced = events.get(key("s", 61)).unwrap().unwrap();
        events.insert(key("s", 60), misplaced).unwrap();
        let mut future = events.get(key("s", 70)).unwrap().unwrap().to_vec();
        future[0] = 9;
        events.insert(key("s", 70), future).unwrap();
        events.remove(key("s", 80)).unwrap();
        events.remove(key("s", 90)).unwrap();
        events.remove(key("s", 91)).unwrap();
        let snapshots = db.open_tree("snapshots").unwrap();
        let mut snapshot = snapshots.get(key("other", 8)).unwrap().unwrap().to_vec();
        snapshot[20] ^= 0x01;
        snapshots.insert(key("other", 8), snapshot).unwrap();
        db.flush().unwrap();
    }
    let log = SledLog::open(&path).unwrap();
    let damaged = corrupt_seqs(&log, "s");
    let seqs: Vec<u64> = damaged.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(seqs, vec![40, 41, 60, 70, 80, 90]);
    assert!(
        damaged[0].1.contains("checksum mismatch"),
        "{}",
        damaged[0].1
    );
    assert!(
        damaged[1].1.contains("shorter than its header"),
        "{}",
        damaged[1].1
    );
    assert!(
        damaged[2].1.contains("checksum mismatch"),
        "{}",
        damaged[2].1
    );
    assert!(
        damaged[3].1.contains("unknown record format version 9"),
        "{}",
        damaged[3].1
    );
    assert!(
        damaged[4].1.contains("the event is missing"),
        "{}",
        damaged[4].1
    );
    assert!(
        damaged[5].1.contains("events 90 to 91 are missing"),
        "{}",
        damaged[5].1
    );
    // 100 events, 7 damaged or missing: the other 93 read back exactly.
    let readable = log.read("s", 1).unwrap().flatten().count();
    assert_eq!(readable, 93);
    // A replay stops at the first damaged record, naming it.
    match askuser_store::replay::load(&log, "s") {
        Err(StoreError::Corrupt {
            stream, seq: 40, ..
        }) => assert_eq!(stream, "s"),
        other => panic!("expected a corruption error, got {other:?}"),
    }
    assert_eq!(
        askuser_store::replay::load_at(&log, "s", 39).unwrap().seq,
        39
    );
    let message = askuser_store::replay::load(&log, "s")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("corrupt event in stream \"s\" at sequence 40: checksum mismatch"),
        "{message}"
    );
    // A damaged snapshot is named too.
    match askuser_store::replay::load(&log, "other") {
        Err(StoreError::Corrupt {
            kind: RecordKind::Snapshot,
            seq: 8,
            ..
        }) => {}
        other => panic!("expected a snapshot corruption error, got {other:?}"),
    }
    assert_eq!(log.read("other", 1).unwrap().flatten().count(), 10);
}

/// The sequence numbers of the blocks of stream `s`, as stored (the first event of
/// each).
fn block_keys(events: &sled::Tree, stream: &str) -> Vec<u64> {
    let mut prefix = stream.as_bytes().to_vec();
    prefix.push(0);
    events
        .scan_prefix(prefix)
        .keys()
        .map(|key| u64::from_be_bytes(key.unwrap()[stream.len() + 1..].try_into().unwrap()))
        .collect()
}

#[test]
fn a_damaged_block_is_named_for_each_event_it_held_and_the_next_block_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let blocks = {
        let log = SledLog::open(&path).unwrap();
        let script: Vec<Event> = (1..=1000).map(scripted_event).collect();
        log.append("s", 0, &script[..750]).unwrap();
        log.append("s", 750, &script[750..]).unwrap();
        log.fork("s", 600, "fork").unwrap();
        drop(log);
        let db = common::open_sled_when_released(&path).unwrap();
        let events = db.open_tree("events").unwrap();
        let blocks = block_keys(&events, "s");
        assert!(blocks.len() >= 5, "{blocks:?}");
        assert!(blocks.contains(&751), "{blocks:?}");
        // Flip a bit in the second block, and tear the fourth.
        let mut flipped = events.get(key("s", blocks[1])).unwrap().unwrap().to_vec();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x08;
        events.insert(key("s", blocks[1]), flipped).unwrap();
        let torn = events.get(key("s", blocks[3])).unwrap().unwrap()[..40].to_vec();
        events.insert(key("s", blocks[3]), torn).unwrap();
        db.flush().unwrap();
        blocks
    };
    let log = SledLog::open(&path).unwrap();
    let damaged = corrupt_seqs(&log, "s");
    let seqs: Vec<u64> = damaged.iter().map(|(seq, _)| *seq).collect();
    let expected: Vec<u64> = (blocks[1]..blocks[2]).chain(blocks[3]..blocks[4]).collect();
    assert_eq!(seqs, expected);
    let (first, last) = (blocks[1], blocks[2] - 1);
    let in_first = usize::try_from(blocks[2] - blocks[1]).unwrap();
    for (_, detail) in &damaged[..in_first] {
        assert!(
            detail.starts_with(&format!(
                "the value holding events {first} to {last} is damaged: checksum mismatch"
            )),
            "{detail}"
        );
    }
    let (first, last) = (blocks[3], blocks[4] - 1);
    let torn = &damaged.last().unwrap().1;
    assert!(
        torn.starts_with(&format!(
            "the value holding events {first} to {last} is damaged: checksum mismatch"
        )),
        "{torn}"
    );
    // Every other event reads back exactly (checked in `corrupt_seqs`).
    let readable = log.read("s", 1).unwrap().flatten().count();
    assert_eq!(readable + damaged.len(), 1000);
    // A read from the middle of a damaged block names only the events asked for.
    let middle = blocks[1] + 2;
    let errors: Vec<u64> = log
        .read_range("s", middle, blocks[2])
        .unwrap()
        .filter_map(|r| match r {
            Err(StoreError::Corrupt { seq, .. }) => Some(seq),
            Ok(_) => None,
            Err(other) => panic!("{other}"),
        })
        .collect();
    assert_eq!(errors, (middle..blocks[2]).collect::<Vec<_>>());
    // The fork reads its parent's events through the damage too.
    let fork_errors = log.read("fork", 1).unwrap().filter(Result::is_err).count();
    let in_fork = expected.iter().filter(|&&seq| seq <= 600).count();
    assert_eq!(fork_errors, in_fork);
    // A replay stops at the first damaged event, naming it.
    match askuser_store::replay::load(&log, "s") {
        Err(StoreError::Corrupt { seq, .. }) => assert_eq!(seq, blocks[1]),
        other => panic!("expected a corruption error, got {other:?}"),
    }
}

#[test]
fn a_damaged_stream_record_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    {
        let log = SledLog::open(&path).unwrap();
        log.append("s", 0, &[scripted_event(1)]).unwrap();
        log.append("t", 0, &[scripted_event(1)]).unwrap();
        drop(log);
        let db = common::open_sled_when_released(&path).unwrap();
        let streams = db.open_tree("streams").unwrap();
        let mut record = streams.get("s").unwrap().unwrap().to_vec();
        record[6] ^= 0x80;
        streams.insert("s", record).unwrap();
        db.flush().unwrap();
    }
    let log = SledLog::open(&path).unwrap_or_else(|e| panic!("{e:?}"));
    match log.stream("s") {
        Err(StoreError::Corrupt {
            kind: RecordKind::Stream,
            stream,
            ..
        }) => assert_eq!(stream, "s"),
        other => panic!("expected a corruption error, got {other:?}"),
    }
    assert!(matches!(
        log.append("s", 1, &[scripted_event(2)]),
        Err(StoreError::Corrupt { .. })
    ));
    assert_eq!(log.info("t").unwrap().head, 1);
    assert!(log.streams().is_err());
}

const EVENTS: u64 = 2000;
const MARKED: u64 = 1000;
const MARKER: &str = "FLIP-ME-0123456789abcdef";

fn expected(seq: u64) -> Event {
    if seq == MARKED {
        answered(&format!("i{}", (seq - 1) / 4), "note", json!(MARKER))
    } else {
        scripted_event(seq)
    }
}

/// A database of 2000 events, the 1000th carrying a marker to find on disk.
fn marked_database(path: &Path) {
    let log = SledLog::from_config(&quiet(path))
        .unwrap()
        .with_durability(Durability::Buffered);
    for seq in 1..=EVENTS {
        log.append("s", seq - 1, &[expected(seq)]).unwrap();
    }
    log.flush().unwrap();
}

/// sled settings without the background flush thread, so that the layout of the
/// file is the same on every run.
fn quiet(path: &Path) -> sled::Config {
    sled::Config::new().path(path).flush_every_ms(None)
}

fn copy_dir(from: &Path, to: &Path) {
    askuser_testkit::copy_dir(from, to).unwrap();
}

/// Every place the marker is stored in the data file (sled's log holds old copies).
fn marker_offsets(data: &[u8]) -> Vec<usize> {
    data.windows(MARKER.len())
        .enumerate()
        .filter(|(_, window)| *window == MARKER.as_bytes())
        .map(|(offset, _)| offset)
        .collect()
}

/// What became of one damaged copy.
#[derive(Debug)]
enum Outcome {
    /// It opened: the sequence numbers reported corrupt, and how many events read
    /// back (each checked to be exactly the event appended).
    Opened { corrupt: Vec<u64>, read: u64 },
    /// sled could not recover it (reported as an error, not a panic).
    Refused,
}

/// Flips one bit in each stored copy of the marked record (one copy per trial) and
/// reopens.
fn flip_each_copy(original: &Path, scratch: &Path) -> Vec<Outcome> {
    let data = std::fs::read(original.join("db")).unwrap();
    let offsets = marker_offsets(&data);
    assert!(!offsets.is_empty(), "the marker is not in the data file");
    let mut trials = Vec::new();
    for (trial, offset) in offsets.into_iter().enumerate() {
        let copy = scratch.join(format!("trial-{trial}"));
        copy_dir(original, &copy);
        let mut damaged = data.clone();
        damaged[offset + 4] ^= 0x01;
        std::fs::write(copy.join("db"), &damaged).unwrap();
        let log = match SledLog::open(&copy) {
            Ok(log) => log,
            Err(StoreError::Recovery(_)) => {
                trials.push(Outcome::Refused);
                continue;
            }
            Err(StoreError::Storage(error))
                if matches!(
                    error.downcast_ref::<askuser_sled::SledError>(),
                    Some(askuser_sled::SledError(sled::Error::Corruption { .. }))
                ) =>
            {
                trials.push(Outcome::Refused);
                continue;
            }
            Err(other) => panic!("unexpected error: {other}"),
        };
        let mut corrupt = Vec::new();
        let mut read = 0;
        for recorded in log.read("s", 1).unwrap() {
            match recorded {
                Ok(recorded) => {
                    assert_eq!(recorded.event, expected(recorded.seq), "a different event");
                    read += 1;
                }
                Err(StoreError::Corrupt { stream, seq, .. }) => {
                    assert_eq!(stream, "s");
                    corrupt.push(seq);
                }
                Err(other) => panic!("unexpected error: {other}"),
            }
        }
        if !corrupt.is_empty() {
            assert!(matches!(
                askuser_store::replay::load(&log, "s"),
                Err(StoreError::Corrupt { .. })
            ));
        }
        trials.push(Outcome::Opened { corrupt, read });
    }
    trials
}

#[test]
fn a_bit_flipped_in_the_database_file_is_reported_for_that_record() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    marked_database(&original);
    // Reopening makes sled write a snapshot: the records are now behind it, and sled
    // checks each page it reads against its own CRC. (sled may move pages while it
    // recovers; a second reopen puts those moves behind a snapshot too.)
    drop(SledLog::from_config(&quiet(&original)).unwrap());
    drop(SledLog::from_config(&quiet(&original)).unwrap());
    let trials = flip_each_copy(&original, dir.path());
    let mut detected = 0;
    for trial in &trials {
        match trial {
            // The flip hit an old copy sled no longer uses: nothing changed.
            Outcome::Opened { corrupt, read } if corrupt.is_empty() && *read == EVENTS => {}
            // The page holding the record is reported, record by record, naming the
            // damaged one, and the rest of the log reads back.
            Outcome::Opened { corrupt, read } if corrupt.contains(&MARKED) => {
                assert!(corrupt.len() <= 64, "{} records lost", corrupt.len());
                assert_eq!(*read + corrupt.len() as u64, EVENTS);
                detected += 1;
            }
            // sled moved the page while it recovered and the flip hit the moved copy,
            // which it reads when it opens: it refuses the file, with an error.
            Outcome::Refused => detected += 1,
            other @ Outcome::Opened { .. } => {
                panic!("unexpected outcome: {other:?} (all: {trials:?})")
            }
        }
    }
    assert!(detected > 0, "no flip reached the live record: {trials:?}");
}

#[test]
fn a_bit_flipped_in_the_unsnapshotted_tail_truncates_the_log_consistently() {
    // sled treats a damaged message in the part of its log written since it was
    // opened as a torn write: recovery stops there. What survives is a prefix of
    // the log (the streams' heads with it), never a different event; or sled fails
    // to recover the file, which is reported as an error.
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    marked_database(&original);
    for trial in flip_each_copy(&original, dir.path()) {
        // No gap was reported, so what reads back is events 1..=read, each exactly
        // as appended (checked in `flip_each_copy`).
        if let Outcome::Opened { corrupt, read } = trial {
            assert!(corrupt.is_empty(), "{corrupt:?}");
            assert!(read <= EVENTS);
        }
    }
}
