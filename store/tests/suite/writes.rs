//! Suite cases: appending, reading, listing and forking.

use super::*;

pub(super) fn appended_events_read_back_exactly<L: Log>(log: &L) {
    let batch = [
        requested("q1", db_form()),
        answered("q1", "db", json!("PostgreSQL")),
        back("q1"),
        answered("q1", "db", json!("SQLite")),
        requested("q2", tags_form()),
        answered("q2", "tags", json!(["bug", "something else"])),
        cancelled("q2", CancelReason::Unknown("timed_out_by_host".into())),
        turn_ended("q1"),
    ];
    assert_eq!(log.append("s", 0, &batch[..3]).unwrap(), 3);
    assert_eq!(log.append("s", 3, &batch[3..]).unwrap(), 8);
    let read = all(log, "s");
    assert_eq!(read.len(), 8);
    for (i, (seq, at, event)) in read.iter().enumerate() {
        assert_eq!(*seq, i as u64 + 1);
        assert_eq!(*at, T0);
        assert_eq!(event, &batch[i]);
    }
    assert_eq!(log.info("s").unwrap().head, 8);
    // An empty append checks the head and writes nothing.
    assert_eq!(log.append("s", 8, &[]).unwrap(), 8);
    assert!(log.stream("nothing-here").unwrap().is_none());
    assert_eq!(log.append("nothing-here", 0, &[]).unwrap(), 0);
    assert!(log.stream("nothing-here").unwrap().is_none());
}

pub(super) fn a_stale_expected_head_is_a_conflict_and_writes_nothing<L: Log>(log: &L) {
    log.append("s", 0, &[requested("q1", db_form())]).unwrap();
    for expected in [0, 2, 7] {
        match log.append("s", expected, &[back("q1")]) {
            Err(StoreError::Conflict {
                stream,
                expected: e,
                actual,
            }) => {
                assert_eq!((stream.as_str(), e, actual), ("s", expected, 1));
            }
            other => panic!("expected a conflict, got {other:?}"),
        }
    }
    match log.append("new", 3, &[back("q1")]) {
        Err(StoreError::Conflict { actual: 0, .. }) => {}
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(log.stream("new").unwrap().is_none());
    assert_eq!(events(log, "s"), vec![requested("q1", db_form())]);
    let message = log.append("s", 5, &[]).unwrap_err().to_string();
    assert_eq!(message, "stream \"s\": expected head 5, but the head is 1");
}

pub(super) fn reads_start_anywhere_and_stop_at_the_head_of_the_moment<L: Log>(log: &L) {
    let script: Vec<Event> = scripted_events(1, 600).collect();
    log.append("s", 0, &script).unwrap();
    let from_500: Vec<u64> = log
        .read("s", 500)
        .unwrap()
        .map(|r| r.unwrap().seq)
        .collect();
    assert_eq!(from_500, (500..=600).collect::<Vec<_>>());
    assert_eq!(log.read("s", 0).unwrap().count(), 600);
    assert_eq!(log.read("s", 601).unwrap().count(), 0);
    assert_eq!(log.read("s", 9999).unwrap().count(), 0);
    let range: Vec<Event> = log
        .read_range("s", 10, 12)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(range, script[9..12].to_vec());
    assert!(matches!(
        log.read_range("s", 1, 601),
        Err(StoreError::OutOfRange {
            seq: 601,
            head: 600,
            ..
        })
    ));
    assert!(matches!(
        log.read("missing", 1),
        Err(StoreError::NoSuchStream(_))
    ));
    // An iterator reads up to the head as it was when it was made.
    let mut reader = log.read("s", 599).unwrap();
    log.append("s", 600, &scripted_events(601, 3).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(reader.next().unwrap().unwrap().seq, 599);
    assert_eq!(reader.next().unwrap().unwrap().seq, 600);
    assert!(reader.next().is_none());
}

pub(super) fn streams_are_listed_with_head_parent_and_creation_time<L: Log>(log: &L) {
    log.append("b", 0, &scripted_events(1, 5).collect::<Vec<_>>())
        .unwrap();
    log.append("a", 0, &scripted_events(1, 2).collect::<Vec<_>>())
        .unwrap();
    log.fork("b", 3, "c").unwrap();
    let listed: Vec<(String, u64, Option<ForkPoint>)> = log
        .streams()
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.head, s.parent))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("a".into(), 2, None),
            ("b".into(), 5, None),
            (
                "c".into(),
                3,
                Some(ForkPoint {
                    stream: "b".into(),
                    at: 3
                })
            ),
        ]
    );
    let info = log.info("c").unwrap();
    assert_eq!(info.created_at, T0);
    assert_eq!((info.floor, info.own_start()), (0, 4));
}

pub(super) fn a_fork_shares_its_parents_prefix_and_then_goes_its_own_way<L: Log>(log: &L) {
    let script: Vec<Event> = scripted_events(1, 12).collect();
    log.append("main", 0, &script[..8]).unwrap();
    let fork = log.fork("main", 5, "alt").unwrap();
    assert_eq!(fork.head, 5);
    // The fork's own events start after the branch point; the parent goes on.
    let own = vec![back("i1"), answered("i1", "apply", json!(false))];
    assert!(matches!(
        log.append("alt", 0, &own),
        Err(StoreError::Conflict { actual: 5, .. })
    ));
    assert_eq!(log.append("alt", 5, &own).unwrap(), 7);
    log.append("main", 8, &script[8..]).unwrap();
    let alt = all(log, "alt");
    let seqs: Vec<u64> = alt.iter().map(|r| r.0).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5, 6, 7]);
    let alt_events: Vec<Event> = alt.into_iter().map(|r| r.2).collect();
    assert_eq!(alt_events[..5], script[..5]);
    assert_eq!(alt_events[5..], own[..]);
    assert_eq!(events(log, "main"), script);
    // Reading a fork from inside the inherited part, and from inside its own part.
    let tail: Vec<u64> = log
        .read("alt", 4)
        .unwrap()
        .map(|r| r.unwrap().seq)
        .collect();
    assert_eq!(tail, vec![4, 5, 6, 7]);
    assert_eq!(log.read("alt", 7).unwrap().count(), 1);
    // A fork of a fork reads through both.
    log.fork("alt", 6, "alt2").unwrap();
    log.append("alt2", 6, &[requested("z", db_form())]).unwrap();
    let chain = events(log, "alt2");
    assert_eq!(chain.len(), 7);
    assert_eq!(chain[..5], script[..5]);
    assert_eq!(chain[5], own[0]);
    assert_eq!(chain[6], requested("z", db_form()));
    // Replaying the fork: the parent's state at 5, then its own events.
    let mut expected = State::new();
    for event in &script[..5] {
        expected.apply(event, &mut Vec::new());
    }
    assert_eq!(
        askuser_store::replay::load_at(log, "alt", 5).unwrap().state,
        expected
    );
    assert_eq!(
        askuser_store::replay::load_at(log, "main", 5)
            .unwrap()
            .state,
        expected
    );
    for event in &own {
        expected.apply(event, &mut Vec::new());
    }
    assert_eq!(
        askuser_store::replay::load(log, "alt").unwrap().state,
        expected
    );
    // A fork at 0 is an empty stream that remembers its parent.
    log.fork("main", 0, "empty").unwrap();
    assert_eq!(log.read("empty", 1).unwrap().count(), 0);
    assert_eq!(
        askuser_store::replay::load(log, "empty").unwrap().state,
        State::new()
    );
}

pub(super) fn forks_are_checked<L: Log>(log: &L) {
    log.append("main", 0, &scripted_events(1, 4).collect::<Vec<_>>())
        .unwrap();
    assert!(matches!(
        log.fork("main", 5, "x"),
        Err(StoreError::OutOfRange {
            seq: 5,
            head: 4,
            ..
        })
    ));
    assert!(matches!(
        log.fork("nope", 0, "x"),
        Err(StoreError::NoSuchStream(name)) if name == "nope"
    ));
    log.fork("main", 2, "x").unwrap();
    assert!(matches!(
        log.fork("main", 2, "x"),
        Err(StoreError::StreamExists(name)) if name == "x"
    ));
    assert!(matches!(
        log.fork("main", 2, "main"),
        Err(StoreError::StreamExists(_))
    ));
    assert!(matches!(
        log.fork("main", 2, ""),
        Err(StoreError::InvalidStreamName { .. })
    ));
    assert_eq!(log.streams().unwrap().len(), 2);
}
