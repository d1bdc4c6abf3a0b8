//! Many processes on one sled log through `SharedSledLog`: the first to open it
//! owns it and serves it on a socket; the others are its clients; ownership moves
//! when the owner goes. Each test runs real processes (the
//! `askuser-store-sharedtest` helper); none asserts a time.

mod common;

use askuser_store::backend::Backend as _;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use askuser_core::Event;
use askuser_sled::SharedSledLog;
use askuser_store::{Log, Session, StoreError};
use askuser_testkit::{scripted_event, scripted_events};
use common::processes::{Helper, Owner, path_str};
use common::*;
use serde_json::json;

#[test]
fn eight_processes_appending_at_the_head_lose_nothing_and_duplicate_nothing() {
    const WRITERS: usize = 8;
    const EACH: u64 = 40;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let count = EACH.to_string();
    // No owner to begin with: the first writer becomes it, the others its clients;
    // as writers finish and exit, ownership moves to those still writing.
    let writers: Vec<Helper> = (0..WRITERS)
        .map(|w| Helper::start(&["write", path_str(&path), "s", &format!("w{w}"), &count]))
        .collect();
    for mut writer in writers {
        assert_eq!(
            writer.wrote(),
            ["from 0".to_owned(), format!("wrote {EACH}")]
        );
        assert!(writer.finish());
    }
    let log = SharedSledLog::open(&path).unwrap();
    assert_eq!(log.info("s").unwrap().head, WRITERS as u64 * EACH);
    let by_writer = writes_by_writer(&log, "s");
    let expected: Vec<u64> = (0..EACH).collect();
    assert_eq!(by_writer.len(), WRITERS);
    for (writer, ks) in by_writer {
        assert_eq!(ks, expected, "writer {writer}: each event once, in order");
    }
}

#[test]
fn streams_are_listed_read_and_forked_while_another_process_owns_the_log() {
    let (log, owner) = remote();
    let events: Vec<Event> = scripted_events(1, 8).collect();
    assert_eq!(log.append("chat", 0, &events).unwrap(), 8);
    log.fork("chat", 4, "branch").unwrap();
    let listed: Vec<(String, u64)> = log
        .streams()
        .unwrap()
        .into_iter()
        .map(|info| (info.name, info.head))
        .collect();
    assert_eq!(listed, [("branch".to_owned(), 4), ("chat".to_owned(), 8)]);
    // Another client process appends beside us; we read it back, stamped by the
    // owner's clock.
    let mut writer = Helper::start(&["write", path_str(&owner.path), "other", "w", "3"]);
    assert_eq!(writer.wrote(), ["from 0", "wrote 3"]);
    assert!(writer.finish());
    let read: Vec<_> = log.read("chat", 3).unwrap().map(Result::unwrap).collect();
    assert_eq!(
        read.iter().map(|r| (r.seq, r.at)).collect::<Vec<_>>(),
        (3..=8).map(|seq| (seq, T0)).collect::<Vec<_>>()
    );
    assert_eq!(read[0].event, scripted_event(3));
    assert_eq!(writes_by_writer(&log, "other")["w"], [0, 1, 2]);
    assert!(
        askuser_store::transcript(&log, "branch")
            .unwrap()
            .contains("the answer was staging")
    );
    // The socket is the owner user's alone.
    let mode = std::fs::metadata(log.socket_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_process_waiting_on_a_stream_sees_another_processes_append() {
    let (log, owner) = remote();
    log.append("s", 0, &scripted_events(1, 2).collect::<Vec<_>>())
        .unwrap();
    let mut waiter = Helper::start(&["wait", path_str(&owner.path), "s", "2"]);
    assert_eq!(waiter.line(), "waiting");
    log.append("s", 2, &[scripted_event(3)]).unwrap();
    assert_eq!(waiter.line(), "3");
    assert!(waiter.finish());
    // A session waiting in this process sees an append from another.
    let mut session = Session::open(Arc::new(log), "s").unwrap();
    let mut writer = Helper::start(&["write", path_str(&owner.path), "s", "w", "1"]);
    let caught = session.wait(Duration::from_secs(60)).unwrap();
    assert_eq!(writer.wrote(), ["from 0", "wrote 1"]);
    assert_eq!(caught.len(), 1);
    assert_eq!(caught[0].seq, 4);
    // Nothing more comes: the wait ends when its time is up, empty.
    assert!(session.wait(Duration::from_millis(20)).unwrap().is_empty());
}

/// A watcher beside a writer of its own process (`askuser serve`'s) waits for
/// the others: this process's appends, through another connection, do not end
/// its wait; another process's append does. In a client, and in the owner.
#[test]
fn a_wait_for_others_is_not_ended_by_this_process_s_own_append() {
    let (client, owner) = remote();
    waits_for_others(&Arc::new(client), &owner.path);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let owning = SharedSledLog::open(&path).unwrap();
    assert!(owning.is_owner());
    waits_for_others(&Arc::new(owning), &path);
}

fn waits_for_others(log: &Arc<SharedSledLog>, path: &std::path::Path) {
    log.append("s", 0, &[scripted_event(1)]).unwrap();
    let waiting = Arc::clone(log);
    let waiter =
        std::thread::spawn(move || waiting.wait_for_others("s", 1, Duration::from_secs(60)));
    // Time for the waiter to be waiting: a wait begun after the append below
    // would be given 2 at once, its head being past 1 already.
    std::thread::sleep(Duration::from_millis(300));
    log.append("s", 1, &[scripted_event(2)]).unwrap();
    // Had its own append ended the wait, it would have ended at 2 by now.
    std::thread::sleep(Duration::from_millis(300));
    let mut writer = Helper::start(&["write", path_str(path), "s", "w", "1"]);
    assert_eq!(writer.wrote(), ["from 0", "wrote 1"]);
    assert!(writer.finish());
    assert_eq!(waiter.join().unwrap().unwrap(), 3);
}

#[test]
fn two_processes_racing_to_answer_one_question_one_wins_the_other_is_told() {
    let (log, owner) = remote();
    let log: Arc<dyn Log> = Arc::new(log);
    let mut session = Session::open(Arc::clone(&log), "s").unwrap();
    let form = form(&json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}));
    for round in 0..4 {
        let inquiry = format!("q{round}");
        session.handle(&ask(&inquiry, Arc::clone(&form))).unwrap();
        let request_seq = session.head();
        let path = path_str(&owner.path);
        let mut racers: Vec<Helper> = ["true", "false"]
            .iter()
            .map(|value| Helper::start(&["answer", path, "s", &inquiry, "ok", value]))
            .collect();
        for racer in &mut racers {
            assert_eq!(racer.line(), "ready");
        }
        for racer in &mut racers {
            racer.send("go");
        }
        let mut outcomes: Vec<String> = racers.iter_mut().map(Helper::line).collect();
        outcomes.sort();
        assert_eq!(
            outcomes,
            [
                format!("recorded {}", request_seq + 1),
                format!(
                    "refused: inquiry \"{inquiry}\" already finished (answered); it takes no more input: show how it ended instead"
                ),
            ],
            "round {round}"
        );
        for racer in racers {
            assert!(racer.finish());
        }
        let caught = session.catch_up().unwrap();
        assert_eq!(caught.len(), 1, "exactly one answer was recorded");
        assert!(
            session
                .state()
                .finished(&askuser_core::InquiryId::new(&inquiry))
                .is_some()
        );
    }
}

#[test]
fn a_client_carries_on_when_the_owner_is_killed_mid_work() {
    const TOTAL: u64 = 300;
    let mut owner = Owner::start();
    let log = SharedSledLog::open(&owner.path).unwrap();
    assert!(!log.is_owner());
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let mut head = 0;
            while head < TOTAL {
                let size = (1 + head % 2).min(TOTAL - head);
                let batch: Vec<Event> = scripted_events(head + 1, size).collect();
                head = log.append("s", head, &batch).expect("the client recovers");
            }
        });
        // Kill the owner (SIGKILL) once some appends have gone through it.
        while log.stream("s").unwrap().map_or(0, |i| i.head) < 40 {
            std::thread::yield_now();
        }
        owner.helper.take().unwrap().kill();
        writer.join().unwrap();
    });
    assert!(log.is_owner(), "the client took the log over");
    let read: Vec<_> = log.read("s", 1).unwrap().map(Result::unwrap).collect();
    assert_eq!(read.len() as u64, TOTAL);
    for (recorded, seq) in read.iter().zip(1..) {
        assert_eq!((recorded.seq, &recorded.event), (seq, &scripted_event(seq)));
    }
    // And it serves the next process in its turn.
    let mut reader = Helper::start(&["wait", path_str(&owner.path), "s", "0"]);
    assert_eq!(reader.line(), "waiting");
    assert_eq!(reader.line(), TOTAL.to_string());
}

/// An owner stopped mid-work (Ctrl-Z, SIGSTOP) holds sled's lock and answers
/// nobody: a client waiting on it sees it stopped, ends it, takes the log over
/// and carries on, with every acknowledged event there once. (It used to wait 30
/// s and fail.)
#[test]
fn a_stopped_owner_is_ended_and_a_client_takes_the_log_over() {
    let mut owner = Owner::start();
    let log = SharedSledLog::open(&owner.path).unwrap();
    assert!(!log.is_owner());
    let events: Vec<Event> = scripted_events(1, 4).collect();
    assert_eq!(log.append("s", 0, &events[..2]).unwrap(), 2);
    let helper = owner.helper.take().unwrap();
    helper.stop();
    let started = std::time::Instant::now();
    assert_eq!(log.append("s", 2, &events[2..]).unwrap(), 4);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(log.is_owner(), "the client took the log over");
    let status = helper.wait();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "{status:?}"
    );
    let read = events_of(&log, "s");
    assert_eq!(read, events);
}

/// A process that opens the log while its owner is stopped takes it over the
/// same way, from the greeting on.
#[test]
fn a_process_opening_a_log_whose_owner_is_stopped_takes_it_over() {
    let mut owner = Owner::start();
    let first = SharedSledLog::open(&owner.path).unwrap();
    first
        .append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    drop(first);
    let helper = owner.helper.take().unwrap();
    helper.stop();
    let log = SharedSledLog::open(&owner.path).unwrap();
    assert!(log.is_owner());
    assert_eq!(log.stream("s").unwrap().map(|i| i.head), Some(1));
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&helper.wait()),
        Some(9)
    );
}

#[test]
fn a_waiter_whose_owner_is_killed_waits_on_and_sees_the_next_append() {
    let mut owner = Owner::start();
    let path = owner.path.clone();
    let mut waiter = Helper::start(&["wait", path_str(&path), "s", "0"]);
    assert_eq!(waiter.line(), "waiting");
    owner.helper.take().unwrap().kill();
    // The waiter takes the log over (or this process does, and serves it).
    let log = SharedSledLog::open(&path).unwrap();
    log.append("s", 0, &[scripted_event(1)]).unwrap();
    assert_eq!(waiter.line(), "1");
    assert!(waiter.finish());
}

#[test]
fn an_owner_in_this_process_hands_over_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let first = SharedSledLog::open(&path).unwrap();
    let second = SharedSledLog::open(&path).unwrap();
    assert!(first.is_owner() && !second.is_owner());
    second.append("s", 0, &[scripted_event(1)]).unwrap();
    drop(first);
    assert_eq!(second.append("s", 1, &[scripted_event(2)]).unwrap(), 2);
    assert!(second.is_owner());
    assert!(matches!(
        second.append("s", 1, &[scripted_event(2)]),
        Err(StoreError::Conflict {
            expected: 1,
            actual: 2,
            ..
        })
    ));
}

#[test]
fn hostile_frames_end_their_connection_and_the_owner_serves_on() {
    let (log, _owner) = remote();
    let socket = log.socket_path().to_owned();
    let hostile: [(&[u8], &str); 4] = [
        (
            &[0xff, 0xff, 0xff, 0xff],
            "a frame of 4294967295 bytes is larger than the cap of 67108864",
        ),
        (
            &[0, 0, 0, 2, 0xc1, 0xc1],
            "a request does not decode: wrong msgpack marker Reserved",
        ),
        // A well-formed request, but before the greeting.
        (
            b"\0\0\0\x08\xa7Streams",
            "the first request must be a greeting",
        ),
        (&[0, 0, 0, 9, 1], "unexpected end of file"),
    ];
    for (bytes, expected) in hostile {
        let mut stream = UnixStream::connect(&socket).unwrap();
        stream.write_all(bytes).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = Vec::new();
        // The owner answers with one error frame, then closes the connection.
        stream.read_to_end(&mut answer).unwrap();
        let length = u32::from_be_bytes(answer[..4].try_into().unwrap()) as usize;
        assert_eq!(answer.len(), 4 + length, "one frame, then the end");
        let decoded: serde_json::Value = rmp_serde::from_slice(&answer[4..]).unwrap();
        assert_eq!(
            decoded,
            json!({"Error": {"BadMessage": expected}}),
            "{bytes:?}"
        );
    }
    assert_eq!(log.append("s", 0, &[scripted_event(1)]).unwrap(), 1);
}
