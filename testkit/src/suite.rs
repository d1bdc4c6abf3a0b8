//! The conformance suite every [`Log`] implementation passes: each case is a
//! function over one fresh, empty log (with the test clock of
//! [`crate::build::clock`] and buffered appends, as a backend's tests open it). A
//! backend's tests run every case with [`log_suite!`](crate::log_suite), one
//! `#[test]` per case:
//!
//! ```ignore
//! askuser_testkit::log_suite!(let log = askuser_testkit::build::mem(); &log);
//! ```
//!
//! and [`changes::a_change_anywhere_wakes_a_log_wide_waiter`] with the log's own other
//! writer (another thread, process or connection).
//!
//! Each case panics, naming what differs, when the log fails it: that is its job,
//! so the cases document no panics one by one.
#![allow(clippy::missing_panics_doc)]
// Each case's name is the sentence it checks.
#![allow(missing_docs)]
// The cases share the suite's imports and helpers.
#![allow(clippy::wildcard_imports)]

pub mod concurrency {
    //! Suite cases: names, readers and writers at once, buffering, waiting and repacking.

    use super::*;

    pub fn stream_names_are_checked<L: Log>(log: &L) {
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

    pub fn a_reader_may_append_while_it_iterates<L: Log>(log: &L) {
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

    pub fn many_threads_appending_lose_nothing_and_duplicate_nothing<L: Log>(log: &L) {
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
                                        conflicts
                                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
                    assert_eq!(Some(&previous.inquiry), event.inquiry());
                }
            }
            assert_eq!(requests.len(), WRITERS_PER_STREAM * APPENDS);
        }
    }

    pub fn buffered_appends_are_visible_at_once_and_flush_on_demand<L: Log>(log: &L) {
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

    pub fn works_as_a_trait_object<L: Log>(log: &L) {
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

    pub fn a_waiter_returns_when_the_head_passes_or_its_time_is_up<L: Log>(log: &L) {
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
    pub fn a_repack_keeps_every_event_and_stores_small_appends_as_blocks<L: Log>(log: &L) {
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
}
pub mod replay {
    //! Suite cases: sessions, replay, snapshots, compaction, transcripts and exports.

    use super::*;

    pub fn a_session_branches_at_an_earlier_question<L: Log>(log: &L) {
        // The session: the database question is answered, then the migration question.
        log.append(
            "session",
            0,
            &[
                requested("call-1", db_form()),
                answered("call-1", "db", json!("PostgreSQL")),
                answered("call-1", "migrate", json!(true)),
            ],
        )
        .unwrap();
        // Branch just after the request (event 1): the database question is open again.
        log.fork("session", 1, "branch").unwrap();
        let at_fork = askuser_store::replay::load(log, "branch").unwrap();
        let Some(Command::Prompt(prompt)) = at_fork.state.pending(&"call-1".into()) else {
            panic!("the fork should be asking a question");
        };
        assert_eq!(prompt.question().id, "db");
        let (_, commands) =
            askuser_store::replay::replay_commands(log, "branch", ReplayOptions::from_start())
                .unwrap();
        assert_eq!(commands.len(), 1);
        log.append(
            "branch",
            1,
            &[
                answered("call-1", "db", json!("SQLite")),
                answered("call-1", "migrate", json!(false)),
            ],
        )
        .unwrap();
        let (_, commands) =
            askuser_store::replay::replay_commands(log, "branch", ReplayOptions::from_start())
                .unwrap();
        let Some((3, last)) = commands.last() else {
            panic!("expected commands for event 3");
        };
        let [Command::Respond { outcome, .. }] = last.as_slice() else {
            panic!("expected a response, got {last:?}");
        };
        assert_eq!(outcome.to_json(), json!({"db": "SQLite", "migrate": false}));
        // The original session is untouched.
        let (_, commands) =
            askuser_store::replay::replay_commands(log, "session", ReplayOptions::from_start())
                .unwrap();
        let [Command::Respond { outcome, .. }] = commands[2].1.as_slice() else {
            panic!("expected a response");
        };
        assert_eq!(
            outcome.to_json(),
            json!({"db": "PostgreSQL", "migrate": true})
        );
    }

    /// An answer that does not fit is recorded with its verdict
    /// ([`Event::AnswerRefused`]) and, read back, replays to the same error and
    /// the same prompt again: a backend must read every record it was handed by
    /// an append back marked decided ([`askuser_store::Recorded::decided`]), or replay decides
    /// it again as a first-format event and loses both.
    pub fn a_refused_answer_replays_the_same<L: Log>(log: &L) {
        use askuser_core::{AnswerInput, At, Input, InquiryId};
        let mut state = State::new();
        let mut live = Vec::new();
        let mut head = 0;
        let at = At::question(InquiryId::new("q1"), "db", 0);
        for input in [
            Input::Ask(request("q1", db_form())),
            AnswerInput::new(at.clone(), json!("Oracle")).into(),
            AnswerInput::new(at, json!("SQLite")).into(),
        ] {
            let decision = state.decide(&input).unwrap();
            head = log.append("s", head, decision.events()).unwrap();
            let mut commands = Vec::new();
            state.apply_decision(decision, &mut commands);
            live.push(commands);
        }
        assert!(
            matches!(
                &live[1][..],
                [Command::InvalidAnswer { .. }, Command::Prompt(_)]
            ),
            "{:?}",
            live[1]
        );
        let (replayed, commands) =
            askuser_store::replay::replay_commands(log, "s", ReplayOptions::from_start()).unwrap();
        let commands: Vec<Vec<Command>> = commands.into_iter().map(|(_, c)| c).collect();
        assert_eq!(
            commands, live,
            "the refused answer replays to its error and the prompt again"
        );
        assert_eq!(replayed.state, state);
    }

    /// Every record an append wrote reads back marked decided, in its stream
    /// and through a fork.
    pub fn records_read_back_marked_decided<L: Log>(log: &L) {
        log.append(
            "s",
            0,
            &[
                requested("q1", db_form()),
                answered("q1", "db", json!("SQLite")),
            ],
        )
        .unwrap();
        log.fork("s", 1, "f").unwrap();
        log.append("f", 1, &[back("q1")]).unwrap();
        for stream in ["s", "f"] {
            for recorded in log.read(stream, 1).unwrap() {
                let recorded = recorded.unwrap();
                assert!(
                    recorded.decided,
                    "#{} of {stream} is read back undecided",
                    recorded.seq
                );
            }
        }
    }

    pub fn replay_gives_the_reducers_state_and_commands<L: Log>(log: &L) {
        let script: Vec<Event> = scripted_events(1, 40)
            .chain([
                requested("i0", db_form()), // a repeated id: applying ignores it
                requested("x", tags_form()),
                answered("x", "tags", json!(["docs"])),
                back("x"),
            ])
            .collect();
        log.append("s", 0, &script).unwrap();
        let mut state = State::new();
        let expected: Vec<(u64, Vec<Command>)> = script
            .iter()
            .enumerate()
            .map(|(i, event)| {
                let mut out = Vec::new();
                state.apply(event, &mut out);
                (i as u64 + 1, out)
            })
            .collect();
        let (replayed, commands) =
            askuser_store::replay::replay_commands(log, "s", ReplayOptions::from_start()).unwrap();
        assert_eq!(replayed.state, state);
        assert_eq!(
            (replayed.seq, replayed.snapshot, replayed.applied),
            (44, None, 44)
        );
        assert_eq!(commands, expected);
        // Up to a point.
        let partial =
            askuser_store::replay::replay(log, "s", ReplayOptions::from_start().to(10)).unwrap();
        let mut at_10 = State::new();
        for event in &script[..10] {
            at_10.apply(event, &mut Vec::new());
        }
        assert_eq!(partial.state, at_10);
        assert_eq!(partial.seq, 10);
        assert!(matches!(
            askuser_store::replay::replay(log, "s", ReplayOptions::latest().to(45)),
            Err(StoreError::OutOfRange { .. })
        ));
        // An empty replay is the empty state.
        log.fork("s", 0, "e").unwrap();
        assert_eq!(askuser_store::replay::load(log, "e").unwrap().seq, 0);
    }

    pub fn load_uses_the_latest_snapshot_and_equals_a_full_replay<L: Log>(log: &L) {
        let script: Vec<Event> = scripted_events(1, 30).collect();
        log.append("s", 0, &script[..10]).unwrap();
        assert!(matches!(
            askuser_store::compact::snapshot_at(log, "s", 0),
            Err(StoreError::OutOfRange { .. })
        ));
        assert!(matches!(
            askuser_store::compact::snapshot_at(log, "s", 11),
            Err(StoreError::OutOfRange { .. })
        ));
        assert_eq!(askuser_store::compact::snapshot_at(log, "s", 6).unwrap(), 6);
        assert_eq!(askuser_store::compact::snapshot(log, "s").unwrap(), 10);
        log.append("s", 10, &script[10..]).unwrap();
        assert_eq!(log.snapshots("s").unwrap(), vec![6, 10]);
        let full = askuser_store::replay::replay(log, "s", ReplayOptions::from_start()).unwrap();
        let loaded = askuser_store::replay::load(log, "s").unwrap();
        assert_eq!(loaded.state, full.state);
        assert_eq!(
            (loaded.snapshot, loaded.applied, loaded.seq),
            (Some(10), 20, 30)
        );
        let at_8 = askuser_store::replay::load_at(log, "s", 8).unwrap();
        assert_eq!(at_8.snapshot, Some(6));
        assert_eq!(
            at_8.state,
            askuser_store::replay::replay(log, "s", ReplayOptions::from_start().to(8))
                .unwrap()
                .state
        );
        let snapshot = askuser_store::replay::latest_snapshot(log, "s", 9)
            .unwrap()
            .unwrap();
        assert_eq!((snapshot.seq, snapshot.taken_at), (6, T0));
        assert!(
            askuser_store::replay::latest_snapshot(log, "s", 5)
                .unwrap()
                .is_none()
        );
    }

    pub fn a_fork_replays_from_its_parents_snapshot<L: Log>(log: &L) {
        let script: Vec<Event> = scripted_events(1, 20).collect();
        log.append("p", 0, &script).unwrap();
        askuser_store::compact::snapshot_at(log, "p", 8).unwrap();
        askuser_store::compact::snapshot_at(log, "p", 16).unwrap();
        log.fork("p", 12, "f").unwrap();
        log.append("f", 12, &script[12..14]).unwrap();
        let loaded = askuser_store::replay::load(log, "f").unwrap();
        assert_eq!(loaded.snapshot, Some(8));
        assert_eq!(loaded.applied, 6);
        assert_eq!(
            loaded.state,
            askuser_store::replay::replay(log, "p", ReplayOptions::from_start().to(14))
                .unwrap()
                .state
        );
        // The fork's own snapshot wins once it is later.
        askuser_store::compact::snapshot(log, "f").unwrap();
        assert_eq!(
            askuser_store::replay::load(log, "f").unwrap().snapshot,
            Some(14)
        );
        assert_eq!(log.snapshots("f").unwrap(), vec![14]);
    }

    pub fn compaction_drops_covered_events_only_when_no_fork_needs_them<L: Log>(log: &L) {
        let script: Vec<Event> = scripted_events(1, 24).collect();
        log.append("s", 0, &script[..12]).unwrap();
        let full_at_12 = askuser_store::replay::load(log, "s").unwrap().state;
        askuser_store::compact::snapshot_at(log, "s", 4).unwrap();
        log.fork("s", 8, "early").unwrap();
        // The fork at 8 reads events 1..=8: they may not be dropped.
        match askuser_store::compact::compact(log, "s", true) {
            Err(StoreError::ForkDependsOnEvents {
                stream,
                upto,
                fork,
                at,
            }) => assert_eq!(
                (stream.as_str(), upto, fork.as_str(), at),
                ("s", 12, "early", 8)
            ),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(log.read("s", 1).unwrap().count(), 12);
        // Without dropping, compaction only snapshots.
        let compaction = askuser_store::compact::compact(log, "s", false).unwrap();
        assert_eq!((compaction.snapshot, compaction.dropped), (12, 0));
        assert_eq!(log.read("s", 1).unwrap().count(), 12);

        log.append("t", 0, &script[..12]).unwrap();
        log.fork("t", 12, "at-head").unwrap(); // a fork at the snapshot needs no dropped event
        askuser_store::compact::snapshot_at(log, "t", 4).unwrap();
        let compaction = askuser_store::compact::compact(log, "t", true).unwrap();
        assert_eq!((compaction.snapshot, compaction.dropped), (12, 12));
        assert_eq!(log.info("t").unwrap().floor, 12);
        assert_eq!(log.snapshots("t").unwrap(), vec![12]);
        assert!(matches!(
            log.read("t", 1),
            Err(StoreError::Compacted { floor: 12, .. })
        ));
        assert_eq!(log.read("t", 13).unwrap().count(), 0);
        let loaded = askuser_store::replay::load(log, "t").unwrap();
        assert_eq!(
            (loaded.snapshot, loaded.state),
            (Some(12), full_at_12.clone())
        );
        assert!(matches!(
            askuser_store::replay::replay(log, "t", ReplayOptions::from_start()),
            Err(StoreError::Compacted { .. })
        ));
        // The log goes on after compaction.
        log.append("t", 12, &script[12..]).unwrap();
        let tail: Vec<Event> = log
            .read("t", 13)
            .unwrap()
            .map(|r| r.unwrap().event)
            .collect();
        assert_eq!(tail, script[12..].to_vec());
        assert_eq!(
            askuser_store::replay::load(log, "t").unwrap().state,
            askuser_store::replay::replay(log, "s", ReplayOptions::latest())
                .map(|_| ())
                .map_or_else(
                    |_| unreachable!(),
                    |()| {
                        let mut state = State::new();
                        for event in &script {
                            state.apply(event, &mut Vec::new());
                        }
                        state
                    }
                )
        );
        // The fork at the head loads from its parent's snapshot; its inherited events are gone.
        assert_eq!(
            askuser_store::replay::load(log, "at-head").unwrap().state,
            full_at_12
        );
        assert!(matches!(
            log.read("at-head", 1),
            Err(StoreError::Compacted { .. })
        ));
        // Forking before the floor is refused; at the floor is fine.
        assert!(matches!(
            log.fork("t", 11, "too-early"),
            Err(StoreError::Compacted { floor: 12, .. })
        ));
        log.fork("t", 12, "at-floor").unwrap();
        let text = askuser_store::transcript(log, "t").unwrap();
        assert!(
            text.starts_with("(The first 12 events were compacted;"),
            "{text}"
        );
        // Exporting a compacted stream writes the snapshot that stands for the
        // dropped events, then what remains.
        let mut out = Vec::new();
        assert_eq!(
            askuser_store::export::json_lines(log, "t", &mut out).unwrap(),
            13
        );
        let first: Value =
            serde_json::from_slice(out.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(first["snapshot"]["seq"], 12);
    }

    pub fn the_transcript_tells_what_was_asked_and_answered<L: Log>(log: &L) {
        log.append(
            "s",
            0,
            &[
                requested("call-1", db_form()),
                answered("call-1", "db", json!("MySQL")),
                back("call-1"),
                answered("call-1", "db", json!("PostgreSQL")),
                answered("call-1", "migrate", json!(false)),
                requested("call-2", tags_form()),
                answered("call-2", "tags", json!(["bug", "docs", "flaky"])),
                cancelled("call-2", CancelReason::UserReply),
                requested_with("call-3", db_form(), headless_policy(), ""),
                requested("call-4", db_form()),
                turn_ended("call-4"),
                requested_with("call-5", db_form(), assistant_policy(), "t1"),
                answered_by(
                    "call-5",
                    "db",
                    json!("SQLite"),
                    askuser_core::AnsweredBy::Assistant,
                    true,
                ),
                requested("call-6", crate::script::d30_form()),
                answered("call-6", "apply", json!(false)),
                requested("call-7", tags_form()),
                answered("call-7", "tags", json!([])),
            ],
        )
        .unwrap();
        let text = askuser_store::transcript(log, "s").unwrap();
        let expected = "\
Asked \"Which database should we use?\"; the answer was PostgreSQL.
Asked \"Migrate the data now?\"; the answer was No.
The user went back from \"Migrate the data now?\".

Asked \"Which tags apply?\"; the answer was bug, docs, flaky.
The user chose to reply instead of answering \"Any comment?\".

Could not ask \"Which database should we use?\" (no prompt backend).

The user ended the turn while being asked \"Which database should we use?\".

Asked \"Apply the proposed migration?\"; the answer was No.
Did not ask \"Which environment?\" (it did not apply).
Did not ask \"Optional note for the migration log\" (it did not apply).

Asked \"Which database should we use?\"; the assistant answered SQLite.
Still waiting for an answer to \"Migrate the data now?\".

Asked \"Which tags apply?\"; the answer was none.
Still waiting for an answer to \"Any comment?\".
";
        assert_eq!(text, expected);
        assert!(matches!(
            askuser_store::transcript(log, "nope"),
            Err(StoreError::NoSuchStream(_))
        ));
    }

    pub fn export_writes_one_json_line_per_event<L: Log>(log: &L) {
        let script: Vec<Event> = scripted_events(1, 6).collect();
        log.append("s", 0, &script).unwrap();
        let mut out = Vec::new();
        assert_eq!(
            askuser_store::export::json_lines(log, "s", &mut out).unwrap(),
            6
        );
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 6);
        assert_eq!(
            lines[1],
            json!({"stream": "s", "seq": 2, "at": "2025-03-01T00:00:00.000Z",
               "event": {"answered": {"inquiry": "i0", "question": "apply", "value": true, "by": "user"}}})
        );
        for (line, event) in lines.iter().zip(&script) {
            let back: Event = serde_json::from_value(line["event"].clone()).unwrap();
            assert_eq!(&back, event);
        }
    }
}
pub mod writes {
    //! Suite cases: appending, reading, listing and forking.

    use super::*;

    pub fn appended_events_read_back_exactly<L: Log>(log: &L) {
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

    pub fn a_stale_expected_head_is_a_conflict_and_writes_nothing<L: Log>(log: &L) {
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

    pub fn reads_start_anywhere_and_stop_at_the_head_of_the_moment<L: Log>(log: &L) {
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

    /// A range reads exactly its bounds: one event, the first, the last, and
    /// from any event to the head.
    pub fn ranges_read_exactly_their_bounds<L: Log>(log: &L) {
        log.append("s", 0, &scripted_events(1, 5).collect::<Vec<_>>())
            .unwrap();
        let seqs = |from: u64, to: u64| -> Vec<u64> {
            (log.read_range("s", from, to).unwrap())
                .map(|r| r.unwrap().seq)
                .collect()
        };
        assert_eq!(seqs(1, 1), [1]);
        assert_eq!(seqs(5, 5), [5]);
        assert_eq!(seqs(2, 4), [2, 3, 4]);
        assert_eq!(seqs(1, 5), [1, 2, 3, 4, 5]);
        for from in 1..=5 {
            let read: Vec<u64> = (log.read("s", from).unwrap())
                .map(|r| r.unwrap().seq)
                .collect();
            assert_eq!(read, (from..=5).collect::<Vec<_>>(), "from {from}");
        }
    }

    /// A visit of a range (what a replay reads with) hands over exactly the
    /// records the range's reader yields, in order, a fork's inherited events
    /// included, and stops at the first error its visitor returns.
    pub fn a_visit_hands_over_what_a_read_yields<L: Log>(log: &L) {
        let mut head = 0;
        for count in [3, 1, 5, 2] {
            let events: Vec<Event> = scripted_events(head + 1, count).collect();
            head = log.append("s", head, &events).unwrap();
        }
        log.fork("s", 7, "f").unwrap();
        log.append("f", 7, &scripted_events(20, 3).collect::<Vec<_>>())
            .unwrap();
        for (stream, to) in [("s", 11), ("f", 10)] {
            for (from, to) in [(1, to), (1, 1), (3, 8), (to, to), (5, to)] {
                let read: Vec<Recorded> = (log.read_range(stream, from, to).unwrap())
                    .map(Result::unwrap)
                    .collect();
                let mut visited = Vec::new();
                log.visit_range(stream, from, to, &mut |recorded| {
                    visited.push(recorded.clone());
                    Ok(())
                })
                .unwrap();
                assert_eq!(visited, read, "{stream} {from}..={to}");
            }
        }
        let mut seen = 0;
        let stopped = log.visit_range("f", 1, 10, &mut |recorded| {
            seen += 1;
            if recorded.seq == 4 {
                return Err(StoreError::NoSuchStream("stop here".to_owned()));
            }
            Ok(())
        });
        assert_eq!(
            stopped.unwrap_err().to_string(),
            "no stream named \"stop here\""
        );
        assert_eq!(seen, 4);
        assert_eq!(
            (log.visit_range("s", 1, 12, &mut |_| Ok(())))
                .unwrap_err()
                .to_string(),
            "stream \"s\" has no event 12: its head is 11"
        );
    }

    pub fn streams_are_listed_with_head_parent_and_creation_time<L: Log>(log: &L) {
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

    pub fn a_fork_shares_its_parents_prefix_and_then_goes_its_own_way<L: Log>(log: &L) {
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

    pub fn forks_are_checked<L: Log>(log: &L) {
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
}

pub mod presence {
    //! Suite cases: presence leases, as a log that keeps them gives them out.

    use std::time::Duration;

    use askuser_store::{Lease, Log};

    /// [`Log::leases_on`] gives what [`Log::leases`] holds for that stream, in
    /// the same order, and nothing of a stream whose name only begins the
    /// same; a log that keeps no presence gives `None` for both.
    pub fn a_stream_s_leases_are_its_share_of_every_lease<L: Log>(log: &L) {
        let origin = crate::build::agent("Claude Code");
        let ttl = Duration::from_secs(6);
        let taken = [
            ("s", "m:1:1"),
            ("s", "m:2:1"),
            ("s-2", "m:3:1"),
            ("r", "m:4:1"),
        ];
        for (stream, holder) in taken {
            if !log.renew_lease(stream, holder, &origin, ttl).unwrap() {
                assert_eq!(log.leases().unwrap(), None);
                assert_eq!(log.leases_on("s").unwrap(), None);
                return;
            }
        }
        log.end_lease("s", "m:2:1").unwrap();
        let every = log
            .leases()
            .unwrap()
            .expect("a log that took leases keeps them");
        let on = log
            .leases_on("s")
            .unwrap()
            .expect("and gives them out by stream");
        let expected: Vec<Lease> = (every.leases.into_iter())
            .filter(|lease| lease.stream == "s")
            .collect();
        assert_eq!(on.leases, expected);
        let holders: Vec<(&str, bool)> = (on.leases.iter())
            .map(|lease| (&lease.holder[..], lease.ended_at.is_some()))
            .collect();
        assert_eq!(holders, [("m:1:1", false), ("m:2:1", true)]);
        let nobody = log.leases_on("nobody").unwrap().expect("kept");
        assert_eq!(nobody.leases, []);
    }
}

/// [`Log::wait_changed`]: a change anywhere, by another writer, wakes a
/// log-wide waiter. Outside the `suite!` macro because each log has its own
/// other writer: another thread on the same log in memory and on sled, another
/// process (a client of the same owner) for the shared sled log, another
/// connection pool on the same schema for PostgreSQL.
pub mod changes {
    use std::time::Duration;

    use askuser_store::{Log, Version};

    use super::*;

    /// Waits on `log` while `change` is made, which must move the version; the
    /// version the waiter returned (the log's version after the change).
    fn woken_by<L: Log>(log: &L, since: Version, change: impl FnOnce()) -> Version {
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| log.wait_changed(since, Duration::from_secs(60)));
            std::thread::sleep(Duration::from_millis(50));
            change();
            let now = waiter.join().unwrap().unwrap();
            assert_ne!(now, since);
            assert_eq!(now, log.version().unwrap());
            now
        })
    }

    /// A waiter is woken by an append to another stream by `append_elsewhere`
    /// (another writer), then by a compaction, and returns the new version each
    /// time; a fork moves the version too; with nothing changing, a wait returns
    /// the same version when its time is up.
    pub fn a_change_anywhere_wakes_a_log_wide_waiter<L: Log>(
        log: &L,
        append_elsewhere: impl FnOnce(&str),
    ) {
        log.append("a", 0, &scripted_events(1, 2).collect::<Vec<_>>())
            .unwrap();
        let before = log.version().unwrap();
        assert_eq!(log.version().unwrap(), before);
        // Nothing changes: the time runs out, and the version is the same.
        assert_eq!(
            log.wait_changed(before, Duration::from_millis(100))
                .unwrap(),
            before
        );
        // A version that is not the log's is answered at once.
        assert_eq!(
            log.wait_changed(Version::default(), Duration::from_secs(60))
                .unwrap(),
            before
        );
        let appended = woken_by(log, before, || append_elsewhere("b"));
        assert_eq!(log.info("b").unwrap().head, 1);
        let compacted = woken_by(log, appended, || {
            askuser_store::compact::compact(log, "a", true).unwrap();
        });
        assert_eq!(log.info("a").unwrap().floor, 2);
        log.fork("a", 2, "f").unwrap();
        let forked = log.version().unwrap();
        assert_ne!(forked, compacted);
        assert_eq!(
            log.wait_changed(forked, Duration::from_millis(100))
                .unwrap(),
            forked
        );
    }

    /// Appends one event to the new stream `stream` of `log`: the other writer
    /// of a log whose other writer is another handle in this process.
    pub fn one_event(log: &dyn Log, stream: &str) {
        assert_eq!(log.append(stream, 0, &[back("other")]).unwrap(), 1);
    }
}

use std::collections::BTreeSet;

use crate::build::*;
use crate::script::scripted_events;
use askuser_core::{CancelReason, Command, Event, State};
use askuser_store::replay::ReplayOptions;
use askuser_store::{Durability, ForkPoint, Log, RecordKind, Recorded, StoreError, Timestamp};
use serde_json::{Value, json};

pub use concurrency::*;
pub use presence::*;
pub use replay::*;
pub use writes::*;

/// One `#[test]` per case of the suite, each on a log opened by `let PATTERN =
/// INIT;` and handed to the case as `LOG` (an expression that borrows it):
///
/// ```ignore
/// mod sled {
///     askuser_testkit::log_suite!(let (log, _dir) = common::sled(); &log);
/// }
/// ```
#[macro_export]
macro_rules! log_suite {
    (let $pat:pat = $init:expr; $log:expr) => {
        $crate::log_suite!(@cases ($pat) ($init) ($log) appended_events_read_back_exactly,
            a_stale_expected_head_is_a_conflict_and_writes_nothing,
            reads_start_anywhere_and_stop_at_the_head_of_the_moment,
            streams_are_listed_with_head_parent_and_creation_time,
            a_fork_shares_its_parents_prefix_and_then_goes_its_own_way,
            forks_are_checked,
            a_session_branches_at_an_earlier_question,
            replay_gives_the_reducers_state_and_commands,
            load_uses_the_latest_snapshot_and_equals_a_full_replay,
            a_fork_replays_from_its_parents_snapshot,
            compaction_drops_covered_events_only_when_no_fork_needs_them,
            the_transcript_tells_what_was_asked_and_answered,
            a_refused_answer_replays_the_same,
            records_read_back_marked_decided,
            ranges_read_exactly_their_bounds,
            a_visit_hands_over_what_a_read_yields,
            export_writes_one_json_line_per_event,
            stream_names_are_checked,
            a_reader_may_append_while_it_iterates,
            many_threads_appending_lose_nothing_and_duplicate_nothing,
            buffered_appends_are_visible_at_once_and_flush_on_demand,
            works_as_a_trait_object,
            a_waiter_returns_when_the_head_passes_or_its_time_is_up,
            a_repack_keeps_every_event_and_stores_small_appends_as_blocks,
            a_stream_s_leases_are_its_share_of_every_lease);
    };
    (@cases ($pat:pat) ($init:expr) ($log:expr) $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                let $pat = $init;
                $crate::suite::$case($log);
            }
        )*
    };
}

fn all<L: Log>(log: &L, stream: &str) -> Vec<(u64, Timestamp, Event)> {
    log.read(stream, 1)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.seq, r.at, r.event)
        })
        .collect()
}

fn events<L: Log>(log: &L, stream: &str) -> Vec<Event> {
    all(log, stream).into_iter().map(|(_, _, e)| e).collect()
}
