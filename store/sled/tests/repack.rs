//! Repacking on sled: a stream appended one event at a time is rewritten as full
//! blocks with the exact figures, directly and through another process that
//! owns the log; a reader scanning the stream while it is repacked reads every
//! event exactly once; and `askuser log compact` repacks (tested in the CLI).

mod common;

use askuser_store::backend::Backend as _;
use std::sync::atomic::{AtomicBool, Ordering};

use askuser_core::Event;
use askuser_store::{Log, Repacked, compact};
use askuser_testkit::scripted_events;
use common::*;

fn one_at_a_time<L: Log>(log: &L, stream: &str, count: u64) -> Vec<Event> {
    let events: Vec<Event> = scripted_events(1, count).collect();
    for (i, event) in events.iter().enumerate() {
        log.append(stream, i as u64, std::slice::from_ref(event))
            .unwrap();
    }
    events
}

fn read_all<L: Log>(log: &L, stream: &str) -> Vec<Event> {
    log.read(stream, 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect()
}

#[test]
fn single_appends_become_blocks_with_the_same_events() {
    let (log, _dir) = sled();
    let events = one_at_a_time(&log, "s", 2000);
    let done = compact::repack(&log, "s").unwrap();
    assert_eq!(done.events, 2000);
    assert_eq!(done.values_before, 2000);
    assert!(done.values_after < 40, "{done:?}");
    assert_eq!(read_all(&log, "s"), events);
    assert_eq!(compact::repack(&log, "s").unwrap(), Repacked::default());
    // Appends go on after the blocks.
    let next: Vec<Event> = scripted_events(2001, 3).collect();
    log.append("s", 2000, &next).unwrap();
    assert_eq!(read_all(&log, "s").len(), 2003);
}

#[test]
fn through_the_owner_of_the_log() {
    let (log, _owner) = remote();
    let events = one_at_a_time(&log, "s", 500);
    let done = compact::repack(&log, "s").unwrap();
    assert_eq!((done.events, done.values_before), (500, 500), "{done:?}");
    assert_eq!(read_all(&log, "s"), events);
}

#[test]
fn a_reader_during_a_repack_reads_every_event_once() {
    let (log, _dir) = sled();
    let events = one_at_a_time(&log, "s", 20_000);
    let repacking = AtomicBool::new(true);
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut reads = 0;
            while repacking.load(Ordering::SeqCst) || reads == 0 {
                assert_eq!(read_all(&log, "s"), events, "read {reads}");
                reads += 1;
            }
            reads
        });
        let done = compact::repack(&log, "s").unwrap();
        repacking.store(false, Ordering::SeqCst);
        assert_eq!(done.events, 20_000);
        assert!(reader.join().unwrap() >= 1);
    });
    assert_eq!(read_all(&log, "s"), events);
}
