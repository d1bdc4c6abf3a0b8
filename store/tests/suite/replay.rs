//! Suite cases: sessions, replay, snapshots, compaction, transcripts and exports.

use super::*;

pub(super) fn a_session_branches_at_an_earlier_question<L: Log>(log: &L) {
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
        askuser_store::replay::replay_commands(log, "branch", ReplayOptions::from_start()).unwrap();
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
        askuser_store::replay::replay_commands(log, "branch", ReplayOptions::from_start()).unwrap();
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

pub(super) fn replay_gives_the_reducers_state_and_commands<L: Log>(log: &L) {
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

pub(super) fn load_uses_the_latest_snapshot_and_equals_a_full_replay<L: Log>(log: &L) {
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

pub(super) fn a_fork_replays_from_its_parents_snapshot<L: Log>(log: &L) {
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

pub(super) fn compaction_drops_covered_events_only_when_no_fork_needs_them<L: Log>(log: &L) {
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
    // Exporting a compacted stream writes what remains.
    let mut out = Vec::new();
    assert_eq!(
        askuser_store::export::json_lines(log, "t", &mut out).unwrap(),
        12
    );
}

pub(super) fn the_transcript_tells_what_was_asked_and_answered<L: Log>(log: &L) {
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
            requested("call-6", askuser_store::testing::d30_form()),
            answered("call-6", "apply", json!(false)),
            requested("call-7", tags_form()),
            answered("call-7", "tags", json!([])),
        ],
    )
    .unwrap();
    let text = askuser_store::transcript(log, "s").unwrap();
    let expected = "\
Asked \"Which database should we use?\"; the answer was PostgreSQL.
Asked \"Migrate the data now?\"; the answer was no.

Asked \"Which tags apply?\"; the answer was bug, docs and flaky.
The user chose to reply instead of answering \"Any comment?\".

Could not ask \"Which database should we use?\" (no prompt backend).

The user ended the turn while being asked \"Which database should we use?\".

Asked \"Apply the proposed migration?\"; the answer was no.
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

pub(super) fn export_writes_one_json_line_per_event<L: Log>(log: &L) {
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
