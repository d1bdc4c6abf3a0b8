//! `salvage`: every record that can still be read goes into a new log, and the report
//! says exactly what was lost; the damaged log is not changed.

mod common;

use askuser_sled::SledLog;
use askuser_store::backend::Backend as _;
use askuser_store::{Log, StoreError};
use askuser_testkit::scripted_event;

fn key(stream: &str, seq: u64) -> Vec<u8> {
    let mut key = stream.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&seq.to_be_bytes());
    key
}

#[test]
fn damaged_records_are_left_behind_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("damaged");
    {
        let log = SledLog::open(&from).unwrap();
        // One event per append: a value each (what `serve` writes).
        for seq in 1..=50 {
            log.append("s", seq - 1, &[scripted_event(seq)]).unwrap();
            if seq <= 10 {
                log.append("t", seq - 1, &[scripted_event(seq)]).unwrap();
            }
        }
        log.fork("s", 20, "f").unwrap();
        for seq in 21..=25 {
            log.append("f", seq - 1, &[scripted_event(seq)]).unwrap();
        }
        drop(log);
        let db = common::open_sled_when_released(&from).unwrap();
        let events = db.open_tree("events").unwrap();
        let mut flipped = events.get(key("s", 7)).unwrap().unwrap().to_vec();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x10;
        events.insert(key("s", 7), flipped).unwrap();
        events.remove(key("s", 30)).unwrap();
        events.remove(key("s", 31)).unwrap();
        events.remove(key("s", 50)).unwrap();
        events.remove(key("t", 10)).unwrap();
        let streams = db.open_tree("streams").unwrap();
        let mut record = streams.get("f").unwrap().unwrap().to_vec();
        record[6] ^= 0x80;
        streams.insert("f", record).unwrap();
        db.flush().unwrap();
    }
    let to = dir.path().join("salvaged");
    let report = askuser_sled::salvage(&from, &to).unwrap();
    assert_eq!(
        report.to_string(),
        "Stream \"f\": 5 events copied, head 25; lost events 1-20; \
         its record was damaged, so its fork point is lost.\n\
         Stream \"s\": 46 events copied, head 49 (was 50); lost events 7, 30-31, 50.\n\
         Stream \"t\": 9 events copied, head 9 (was 10); lost events 10.\n\
         25 events lost in all.\n"
    );
    assert_eq!(report.lost_events(), 25);
    let log = SledLog::open(&to).unwrap();
    let readable = |stream: &str| log.read(stream, 1).unwrap().flatten().count();
    assert_eq!((readable("s"), readable("t"), readable("f")), (46, 9, 5));
    // A gap reads as missing, naming the event.
    let gap = log.read("s", 7).unwrap().next().unwrap().unwrap_err();
    assert_eq!(
        gap.to_string(),
        "corrupt event in stream \"s\" at sequence 7: the event is missing (the stream's head is past it)"
    );
    // The salvaged stream can be appended to again at its new head.
    assert_eq!(log.append("t", 9, &[scripted_event(10)]).unwrap(), 10);
}

#[test]
fn salvage_refuses_to_write_into_an_existing_log() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("a");
    let to = dir.path().join("b");
    SledLog::open(&from)
        .unwrap()
        .append("s", 0, &[scripted_event(1)])
        .unwrap();
    drop(SledLog::open(&to).unwrap());
    let error = askuser_sled::salvage(&from, &to).unwrap_err();
    assert!(matches!(error, StoreError::DbPath { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "cannot use {to:?} as an askuser log: it already holds a log; \
             salvage into a new path or an empty directory"
        )
    );
}

#[test]
fn a_flipped_byte_in_the_tail_is_stated_and_what_follows_it_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    // No background flush thread, so that the file's layout is the same every run.
    let config = sled::Config::new().path(&path).flush_every_ms(None);
    let log = SledLog::from_config(&config).unwrap();
    for seq in 1..=60 {
        log.append("s", seq - 1, &[scripted_event(seq)]).unwrap();
    }
    drop(log);
    let data_file = path.join("db");
    let mut data = std::fs::read(&data_file).unwrap();
    let flip = data.len() / 2;
    data[flip] ^= 0x01;
    std::fs::write(&data_file, &data).unwrap();
    let log = SledLog::open_read_only(&path).unwrap();
    let discarded = log.discarded().expect("the loss is reported").clone();
    assert!(discarded.first_byte <= flip as u64, "{discarded:?}");
    let notice = format!(
        "The data file `db` is damaged or torn at byte {}: sled's recovery does not read \
         the {} bytes written after it, so the events appended last are missing (each \
         stream reads up to the head it had then); `askuser log salvage` copies those still \
         intact into a new log. Missing past it: stream \"s\" events 32-60.",
        discarded.first_byte, discarded.bytes
    );
    assert_eq!(discarded.to_string(), notice);
    let head = log.info("s").unwrap().head;
    assert_eq!(head, 31);
    assert_eq!(log.read("s", 1).unwrap().flatten().count() as u64, head);
    drop(log);
    let to = dir.path().join("new");
    let report = askuser_sled::salvage(&path, &to).unwrap();
    assert_eq!(
        report.to_string(),
        format!(
            "{notice}\n29 events found intact past the damage and copied.\n\
             Stream \"s\": 60 events copied, head 60; nothing lost.\n\
             No event is known to be lost (any appended after the last stream record found \
             intact past the damage cannot be known).\n"
        )
    );
    assert!(!report.is_complete());
    let salvaged = SledLog::open(&to).unwrap();
    for recorded in salvaged.read("s", 1).unwrap().flatten() {
        assert_eq!(recorded.event, scripted_event(recorded.seq));
    }
    assert_eq!(salvaged.read("s", 1).unwrap().flatten().count(), 60);
}

#[test]
fn a_damaged_block_loses_its_events_and_no_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let config = sled::Config::new().path(&path).flush_every_ms(None);
    let log = SledLog::from_config(&config).unwrap();
    // Six appends of ten events: a block each.
    for first in (1..=60).step_by(10) {
        let events: Vec<_> = (first..first + 10).map(scripted_event).collect();
        log.append("s", first - 1, &events).unwrap();
    }
    drop(log);
    let blocks: Vec<Vec<u8>> = {
        let db = common::open_sled_when_released(&path).unwrap();
        let events = db.open_tree("events").unwrap();
        assert_eq!(events.len(), 6, "one value per append");
        [21, 41]
            .iter()
            .map(|&seq| events.get(key("s", seq)).unwrap().unwrap().to_vec())
            .collect()
    };
    let data_file = path.join("db");
    let mut data = std::fs::read(&data_file).unwrap();
    for block in &blocks {
        let at = data
            .windows(block.len())
            .position(|window| window == block.as_slice())
            .expect("the block is in the data file as it is");
        data[at + block.len() / 2] ^= 0x01;
    }
    std::fs::write(&data_file, &data).unwrap();
    let to = dir.path().join("new");
    let report = askuser_sled::salvage(&path, &to).unwrap();
    let discarded = report
        .discarded
        .clone()
        .expect("sled stops at the first damage");
    assert_eq!(
        report.to_string(),
        format!(
            "{discarded}\n20 events found intact past the damage and copied.\n\
             Stream \"s\": 40 events copied, head 60; lost events 21-30, 41-50.\n\
             20 events lost (and any that were never found past the damage).\n"
        )
    );
    let salvaged = SledLog::open(&to).unwrap();
    let read: Vec<u64> = salvaged
        .read("s", 1)
        .unwrap()
        .flatten()
        .map(|recorded| {
            assert_eq!(recorded.event, scripted_event(recorded.seq));
            recorded.seq
        })
        .collect();
    let expected: Vec<u64> = (1..=20).chain(31..=40).chain(51..=60).collect();
    assert_eq!(read, expected);
}

/// A fork not appended to since, and a stream compacted with its events
/// dropped, hold no event of their own (their first own sequence number is
/// past their head): salvage copies them as they are (a range from past the
/// head to it must read as empty, never panic: a non-empty map panics on one).
#[test]
fn streams_with_no_event_of_their_own_are_salvaged_whole() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("log");
    {
        let log = SledLog::open(&from).unwrap();
        for seq in 1..=6 {
            log.append("s", seq - 1, &[scripted_event(seq)]).unwrap();
            log.append("t", seq - 1, &[scripted_event(seq)]).unwrap();
        }
        log.fork("s", 6, "f").unwrap();
        askuser_store::compact::compact(&log, "t", true).unwrap();
    }
    let to = dir.path().join("salvaged");
    let report = askuser_sled::salvage(&from, &to).unwrap();
    assert_eq!(
        report.to_string(),
        "Stream \"f\": 0 events copied, head 6; nothing lost.\n\
         Stream \"s\": 6 events copied, head 6; nothing lost.\n\
         Stream \"t\": 0 events copied, head 6; nothing lost.\n\
         Nothing was lost.\n"
    );
    let log = SledLog::open(&to).unwrap();
    assert_eq!(log.append("f", 6, &[scripted_event(7)]).unwrap(), 7);
    assert_eq!(log.append("t", 6, &[scripted_event(7)]).unwrap(), 7);
}
