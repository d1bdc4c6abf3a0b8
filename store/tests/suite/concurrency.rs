//! Suite cases: names, readers and writers at once, buffering, waiting and repacking.

use super::*;

pub(super) fn stream_names_are_checked<L: Log>(log: &L) {
    for name in ["", "a\0b", "tab\there", &"x".repeat(201)] {
        assert!(
            matches!(
                log.append(name, 0, &scripted_events(1, 1).collect::<Vec<_>>()),
                Err(StoreError::InvalidStreamName { .. })
            ),
            "{name:?}"
        );
    }
    for name in ["a", "session/2025-03-01", "ünïcödé name", &"x".repeat(200)] {
        log.append(name, 0, &scripted_events(1, 1).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(log.read(name, 1).unwrap().count(), 1);
    }
    // A name that is a prefix of another does not see the other's events.
    log.append("ab", 0, &scripted_events(1, 3).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(log.read("a", 1).unwrap().count(), 1);
}

pub(super) fn a_reader_may_append_while_it_iterates<L: Log>(log: &L) {
    log.append("s", 0, &scripted_events(1, 1000).collect::<Vec<_>>())
        .unwrap();
    let mut head = 1000;
    let mut seen = 0;
    for recorded in log.read("s", 1).unwrap() {
        recorded.unwrap();
        seen += 1;
        if seen % 100 == 0 {
            head = log
                .append("s", head, &scripted_events(head + 1, 1).collect::<Vec<_>>())
                .unwrap();
        }
    }
    assert_eq!(seen, 1000);
    assert_eq!(log.info("s").unwrap().head, 1010);
}

pub(super) fn many_threads_appending_lose_nothing_and_duplicate_nothing<L: Log>(log: &L) {
    const STREAMS: usize = 4;
    const WRITERS_PER_STREAM: usize = 3;
    const APPENDS: usize = 40;
    let conflicts = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for stream in 0..STREAMS {
            for writer in 0..WRITERS_PER_STREAM {
                let conflicts = &conflicts;
                scope.spawn(move || {
                    let name = format!("stream-{stream}");
                    for k in 0..APPENDS {
                        // Each append is one request with an id naming its writer and
                        // number; a batch of two on every third append.
                        let id = format!("w{writer}-{k}");
                        let mut batch = vec![requested(&id, db_form())];
                        if k % 3 == 0 {
                            batch.push(answered(&id, "db", json!("SQLite")));
                        }
                        loop {
                            let head = log.stream(&name).unwrap().map_or(0, |s| s.head);
                            match log.append(&name, head, &batch) {
                                Ok(_) => break,
                                Err(StoreError::Conflict { .. }) => {
                                    conflicts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                }
                                Err(other) => panic!("append failed: {other}"),
                            }
                        }
                    }
                });
            }
        }
    });
    let per_stream = WRITERS_PER_STREAM * (APPENDS + APPENDS.div_ceil(3));
    for stream in 0..STREAMS {
        let name = format!("stream-{stream}");
        let read = all(log, &name);
        assert_eq!(read.len(), per_stream, "{name}");
        assert_eq!(log.info(&name).unwrap().head, per_stream as u64);
        let mut requests = BTreeSet::new();
        for (i, (seq, _, event)) in read.iter().enumerate() {
            assert_eq!(*seq, i as u64 + 1);
            if let Event::Requested(request) = event {
                assert!(requests.insert(request.inquiry.to_string()), "a duplicate");
                if request.inquiry.as_str().ends_with(['0', '3', '6', '9']) {
                    // Batches stay together: the answer follows its request.
                }
            } else {
                // An answer directly follows the request of the same batch.
                let Event::Requested(previous) = &read[i - 1].2 else {
                    panic!("an answer separated from its request at {seq}");
                };
                assert_eq!(previous.inquiry, *event.inquiry());
            }
        }
        assert_eq!(requests.len(), WRITERS_PER_STREAM * APPENDS);
    }
}

pub(super) fn buffered_appends_are_visible_at_once_and_flush_on_demand<L: Log>(log: &L) {
    let head = log
        .append_with(
            "s",
            0,
            &scripted_events(1, 3).collect::<Vec<_>>(),
            Durability::Buffered,
        )
        .unwrap();
    assert_eq!(log.read("s", 1).unwrap().count(), 3);
    log.flush().unwrap();
    log.append_with(
        "s",
        head,
        &scripted_events(4, 1).collect::<Vec<_>>(),
        Durability::Flush,
    )
    .unwrap();
    assert_eq!(log.info("s").unwrap().head, 4);
}

pub(super) fn works_as_a_trait_object<L: Log>(log: &L) {
    let log: &dyn Log = log;
    log.append("s", 0, &scripted_events(1, 8).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(askuser_store::replay::load(log, "s").unwrap().seq, 8);
    assert!(
        askuser_store::transcript(log, "s")
            .unwrap()
            .contains("the answer was staging")
    );
    // Corrupt is reported with the record's kind.
    let error = StoreError::Corrupt {
        kind: RecordKind::Event,
        stream: "s".into(),
        seq: 3,
        detail: "checksum mismatch".into(),
    };
    assert_eq!(
        error.to_string(),
        "corrupt event in stream \"s\" at sequence 3: checksum mismatch"
    );
}

pub(super) fn a_waiter_returns_when_the_head_passes_or_its_time_is_up<L: Log>(log: &L) {
    use std::time::Duration;
    // No stream yet: the time runs out, and the head is 0.
    assert_eq!(log.wait_past("s", 0, Duration::from_millis(10)).unwrap(), 0);
    log.append("s", 0, &scripted_events(1, 2).collect::<Vec<_>>())
        .unwrap();
    // Already past: at once.
    assert_eq!(log.wait_past("s", 1, Duration::from_secs(60)).unwrap(), 2);
    assert_eq!(log.wait_past("s", 2, Duration::ZERO).unwrap(), 2);
    // Another thread appends while this one waits.
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| log.wait_past("s", 2, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(20));
        log.append("s", 2, &scripted_events(3, 1).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(waiter.join().unwrap().unwrap(), 3);
    });
}

/// 300 events appended one at a time, then 500 together, then 40 one at a time,
/// a fork and a snapshot: a repack rewrites the two runs of single events as
/// blocks (on sled; the other logs have nothing to repack), and every event, its
/// sequence number and time, the fork and a replay read exactly as before. A
/// second repack finds nothing to do.
pub(super) fn a_repack_keeps_every_event_and_stores_small_appends_as_blocks<L: Log>(log: &L) {
    let events: Vec<Event> = scripted_events(1, 840).collect();
    for (i, event) in events[..300].iter().enumerate() {
        log.append("s", i as u64, std::slice::from_ref(event))
            .unwrap();
    }
    log.append("s", 300, &events[300..800]).unwrap();
    for (i, event) in events[800..].iter().enumerate() {
        log.append("s", 800 + i as u64, std::slice::from_ref(event))
            .unwrap();
    }
    log.fork("s", 500, "f").unwrap();
    askuser_store::compact::snapshot_at(log, "s", 400).unwrap();
    let before = all(log, "s");
    let fork_before = all(log, "f");
    let replay_before = askuser_store::replay::load(log, "s").unwrap().state;
    let done = askuser_store::compact::repack(log, "s").unwrap();
    if done.events > 0 {
        assert_eq!(done.events, 340, "{done:?}");
        assert_eq!(done.values_before, 340, "{done:?}");
        assert!(done.values_after <= 4, "{done:?}");
    }
    assert_eq!(all(log, "s"), before);
    assert_eq!(all(log, "f"), fork_before);
    assert_eq!(
        askuser_store::replay::load(log, "s").unwrap().state,
        replay_before
    );
    assert_eq!(
        askuser_store::compact::repack(log, "s").unwrap(),
        askuser_store::Repacked::default()
    );
    assert!(matches!(
        askuser_store::compact::repack(log, "nope"),
        Err(StoreError::NoSuchStream(name)) if name == "nope"
    ));
}
