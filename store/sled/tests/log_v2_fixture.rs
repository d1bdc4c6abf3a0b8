//! The log written in the second on-disk format (one sled value per event, format
//! version 2) still reads back exactly, replays, forks and compacts; and new events
//! appended to it (in today's format) read back after the old ones, in one stream.
//!
//! The committed database (`tests/fixtures/log-v2/`, see its README) is never
//! opened in place (sled writes on open): each test works on a copy. It was written
//! by `make_the_fixture` below (ignored: run by hand, never over the committed one).

mod common;

use askuser_store::backend::Backend as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use askuser_core::{AnswerType, ToolCall};
use askuser_core::{CancelReason, Event, Form, InquiryId, Origin, Policy, Question, Request};
use askuser_sled::SledLog;
use askuser_store::replay::{ReplayOptions, load, replay};
use askuser_store::{
    Durability, Log, ManualClock, Session, StoreError, Timestamp, compact, export,
};
use askuser_testkit::{scripted_event, scripted_events};
use common::{T0, answered, back, db_form, requested, tags_form};
use serde_json::json;

/// A stream of the fixture: name, head, parent and fork point, floor.
type StreamRow = (&'static str, u64, Option<(&'static str, u64)>, u64);

const STREAMS: [StreamRow; 4] = [
    ("bulk", 300, None, 0),
    ("bulk-fork", 170, Some(("bulk", 150)), 0),
    ("compacted", 48, None, 40),
    ("session", 23, None, 0),
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/log-v2")
}

fn copy_dir(from: &Path, to: &Path) {
    askuser_testkit::copy_dir(from, to).unwrap();
}

/// A copy of the fixture's database in a temporary directory, opened.
fn open_copy() -> (tempfile::TempDir, SledLog) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    copy_dir(&fixture().join("db"), &db);
    let log = SledLog::open(&db)
        .unwrap()
        .with_durability(Durability::Buffered)
        .with_clock(ManualClock::new(Timestamp(T0.0 + 86_400_000)));
    (dir, log)
}

/// The exported events of `stream` (a compacted stream's export starts with its
/// snapshot's line, checked apart: its state is today's JSON of the state, not
/// the fixture's format).
fn exported(log: &SledLog, stream: &str) -> String {
    let mut out = Vec::new();
    export::json_lines(log, stream, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let floor = log.info(stream).unwrap().floor;
    match text.split_once('\n') {
        Some((first, rest)) if floor > 0 => {
            let snapshot: serde_json::Value = serde_json::from_str(first).unwrap();
            assert_eq!(snapshot["snapshot"]["seq"], floor, "{stream}");
            rest.to_owned()
        }
        _ => text,
    }
}

/// The bulk stream's events: the script, except that its fork's own events are the
/// script's shifted by 1,000.
fn bulk_fork_event(seq: u64) -> Event {
    if seq <= 150 {
        scripted_event(seq)
    } else {
        scripted_event(seq + 1_000)
    }
}

#[test]
fn the_second_format_reads_back_exactly() {
    let (_dir, log) = open_copy();
    let streams: Vec<_> = log
        .streams()
        .unwrap()
        .into_iter()
        .map(|s| {
            let parent = s.parent.map(|p| (p.stream, p.at));
            (s.name, s.head, parent, s.floor)
        })
        .collect();
    let expected: Vec<_> = STREAMS
        .iter()
        .map(|(name, head, parent, floor)| {
            let parent = parent.map(|(p, at)| (p.to_owned(), at));
            ((*name).to_owned(), *head, parent, *floor)
        })
        .collect();
    assert_eq!(streams, expected);
    for (stream, ..) in STREAMS {
        let path = fixture().join(format!("{stream}.export.jsonl"));
        let committed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(exported(&log, stream), committed, "{stream}");
    }
    let bulk: Vec<Event> = log
        .read("bulk", 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(bulk, scripted_events(1, 300).collect::<Vec<_>>());
    let fork: Vec<Event> = log
        .read("bulk-fork", 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(fork, (1..=170).map(bulk_fork_event).collect::<Vec<_>>());
    // Every record is of the second format: decided, replayed without deciding.
    assert!(log.read("session", 1).unwrap().all(|r| r.unwrap().decided));
}

#[test]
fn the_second_format_replays_from_its_snapshots_and_floors() {
    let (_dir, log) = open_copy();
    for (stream, head, ..) in STREAMS {
        let loaded = load(&log, stream).unwrap();
        assert_eq!(loaded.seq, head, "{stream}");
        if stream != "compacted" {
            let full = replay(&log, stream, ReplayOptions::from_start()).unwrap();
            assert_eq!(full.state, loaded.state, "{stream}");
        }
    }
    // The fixture's snapshots are of state format 1, which lacks what finished
    // inquiries sent: passed over while the events they stand for are kept, used
    // where those were dropped.
    assert_eq!(log.snapshots("bulk").unwrap(), [200]);
    assert_eq!(load(&log, "bulk").unwrap().snapshot, None);
    assert_eq!(log.snapshots("compacted").unwrap(), [40]);
    assert_eq!(load(&log, "compacted").unwrap().snapshot, Some(40));
    assert!(matches!(
        log.read("compacted", 1).map(|_| ()),
        Err(StoreError::Compacted { floor: 40, .. })
    ));
    let session = load(&log, "session").unwrap().state;
    let open: Vec<&str> = session.open_inquiries().map(InquiryId::as_str).collect();
    assert_eq!(open, ["r7"]);
    for finished in ["r1", "r2", "r3", "r4", "r5"] {
        assert!(
            session.finished(&InquiryId::new(finished)).is_some(),
            "{finished}"
        );
    }
}

#[test]
fn new_events_follow_the_second_format_in_the_same_streams() {
    let (dir, log) = open_copy();
    // A batch after the old records, then a fork from the middle of that batch.
    log.append("bulk", 300, &scripted_events(301, 60).collect::<Vec<_>>())
        .unwrap();
    log.fork("bulk", 330, "mixed-fork").unwrap();
    log.append(
        "mixed-fork",
        330,
        &scripted_events(2_331, 5).collect::<Vec<_>>(),
    )
    .unwrap();
    // The old fork goes on too.
    log.append(
        "bulk-fork",
        170,
        &(171..=180).map(bulk_fork_event).collect::<Vec<_>>(),
    )
    .unwrap();
    // Compacting through the middle of a new batch.
    log.append(
        "compacted",
        48,
        &scripted_events(49, 20).collect::<Vec<_>>(),
    )
    .unwrap();
    let compaction = compact::compact(&log, "compacted", false).unwrap();
    assert_eq!((compaction.snapshot, compaction.dropped), (68, 0));
    log.flush().unwrap();
    let db = dir.path().join("db");
    drop(log);
    let log = SledLog::open(&db)
        .unwrap()
        .with_durability(Durability::Buffered);
    let read = |stream: &str, from: u64| read_events(&log, stream, from);
    assert_eq!(read("bulk", 1), scripted_events(1, 360).collect::<Vec<_>>());
    assert_eq!(
        read("bulk", 295),
        scripted_events(295, 66).collect::<Vec<_>>()
    );
    let mut mixed: Vec<Event> = scripted_events(1, 330).collect();
    mixed.extend(scripted_events(2_331, 5));
    assert_eq!(read("mixed-fork", 1), mixed);
    assert_eq!(read("mixed-fork", 329), mixed[328..]);
    assert_eq!(
        read("bulk-fork", 1),
        (1..=180).map(bulk_fork_event).collect::<Vec<_>>()
    );
    assert_eq!(
        read("compacted", 41),
        scripted_events(41, 28).collect::<Vec<_>>()
    );
    for stream in ["bulk", "mixed-fork", "bulk-fork"] {
        let full = replay(&log, stream, ReplayOptions::from_start()).unwrap();
        assert_eq!(full.state, load(&log, stream).unwrap().state, "{stream}");
    }
    // Dropping the old records and the new batch together.
    let compaction = compact::compact(&log, "compacted", true).unwrap();
    assert_eq!((compaction.snapshot, compaction.dropped), (68, 28));
    assert!(matches!(
        log.read("compacted", 60).map(|_| ()),
        Err(StoreError::Compacted { floor: 68, .. })
    ));
    log.append("compacted", 68, &scripted_events(69, 3).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        read("compacted", 69),
        scripted_events(69, 3).collect::<Vec<_>>()
    );
    assert_eq!(load(&log, "compacted").unwrap().snapshot, Some(68));
}

fn read_events(log: &SledLog, stream: &str, from: u64) -> Vec<Event> {
    log.read(stream, from)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect()
}

/// A claude tool call, as a request records it.
fn claude_call() -> ToolCall {
    ToolCall {
        dialect: "claude".to_owned(),
        arguments: json!({"questions": [{"question": "Which tags apply?", "header": "Tags",
            "options": [{"label": "bug", "description": "a defect"},
                        {"label": "feature", "description": "new"}],
            "multiSelect": true}]}),
    }
}

/// The inputs of the "session" stream, each decided by a [`Session`]: every kind of
/// event, verdicts included.
fn session_inputs() -> Vec<Event> {
    let with_call = |id: &str| {
        let Event::Requested(mut request) = requested(id, tags_form()) else {
            unreachable!()
        };
        request.call = Some(claude_call());
        Event::Requested(request)
    };
    let invalid = Form::new(vec![
        Question::new("q", "One?", AnswerType::Boolean),
        Question::new("q", "Again?", AnswerType::Boolean),
    ]);
    vec![
        requested("r1", db_form()),
        answered("r1", "db", json!("SQLite")),
        answered("r1", "migrate", json!(true)),
        with_call("r2"),
        answered("r2", "tags", json!(42)),
        answered("r2", "tags", json!(["bug"])),
        back("r2"),
        answered("r2", "tags", json!(["bug", "docs"])),
        answered("r2", "comment", json!("fine")),
        requested("r3", db_form()),
        answered("r3", "db", json!("MySQL")),
        Event::Cancelled {
            inquiry: InquiryId::new("r3"),
            reason: CancelReason::UserReply,
            message: Some("Use the staging database instead.".to_owned()),
        },
        requested("r4", db_form()),
        Event::TurnEnded {
            inquiry: InquiryId::new("r4"),
            surface: None,
        },
        Event::Requested(Request {
            inquiry: InquiryId::new("r5"),
            form: db_form(),
            policy: Policy::default(),
            origin: Origin {
                subagent: true,
                ..Origin::default()
            },
            call: None,
        }),
        requested("r6", Arc::new(invalid)),
        requested("r7", db_form()),
        answered("r7", "db", json!("PostgreSQL")),
        back("r7"),
        answered("r7", "db", json!("SQLite")),
        back("r7"),
        answered("r7", "db", json!(7)),
        answered("r7", "db", json!("PostgreSQL")),
    ]
}

/// The input a host hands in for `event`, taken on what `state` shows now.
fn input_for(state: &askuser_core::State, event: Event) -> askuser_core::Input {
    use askuser_core::{AnswerInput, Input};
    let shown = |inquiry: &InquiryId| state.at(inquiry).expect("the inquiry is open");
    match event {
        Event::Requested(request) => Input::Ask(request),
        Event::Answered { inquiry, value, .. } => AnswerInput::new(shown(&inquiry), value).into(),
        Event::Back { inquiry } => Input::Back(shown(&inquiry)),
        Event::Cancelled {
            inquiry,
            reason: CancelReason::UserReply,
            message,
        } => Input::Reply {
            at: shown(&inquiry),
            message,
        },
        Event::TurnEnded {
            inquiry,
            surface: None,
        } => Input::EndTurn {
            inquiry,
            surface: None,
        },
        other => unreachable!("no input in the fixture's session for {other:?}"),
    }
}

/// Writes the fixture into `$ASKUSER_FIXTURE_OUT` (which must not exist): run by
/// hand with `ASKUSER_FIXTURE_OUT=/tmp/fx cargo test -p askuser-store --test
/// log_v2_fixture -- --ignored make_the_fixture`, then copy `/tmp/fx/*` into
/// `tests/fixtures/log-v2/`. Kept as documentation: the committed bytes are the
/// second format's witness and are never regenerated.
#[test]
#[ignore = "writes the committed fixture; run by hand"]
fn make_the_fixture() {
    let out = PathBuf::from(std::env::var_os("ASKUSER_FIXTURE_OUT").expect("a directory"));
    assert!(!out.exists(), "{} exists", out.display());
    let clock = ManualClock::new(T0);
    let log = SledLog::open(out.join("db"))
        .unwrap()
        .with_durability(Durability::Buffered)
        .with_clock(clock.clone());
    // "bulk": 300 scripted events in batches of 1, 9, 40 and 100; a snapshot at 200.
    let mut head = 0;
    for size in [1, 9, 40, 100, 100, 50] {
        clock.advance(1_000);
        let events: Vec<Event> = scripted_events(head + 1, size).collect();
        head = log.append("bulk", head, &events).unwrap();
        if head == 250 {
            compact::snapshot_at(&log, "bulk", 200).unwrap();
        }
    }
    // "bulk-fork": branched at 150, then 20 events of its own.
    clock.advance(1_000);
    log.fork("bulk", 150, "bulk-fork").unwrap();
    let own: Vec<Event> = (151..=170).map(bulk_fork_event).collect();
    log.append("bulk-fork", 150, &own).unwrap();
    // "compacted": 40 events compacted away, then 8 more.
    clock.advance(1_000);
    log.append("compacted", 0, &scripted_events(1, 40).collect::<Vec<_>>())
        .unwrap();
    compact::compact(&log, "compacted", true).unwrap();
    clock.advance(1_000);
    log.append("compacted", 40, &scripted_events(41, 8).collect::<Vec<_>>())
        .unwrap();
    // "session": one input at a time through the session driver.
    let shared: Arc<dyn Log> = Arc::new(log);
    let mut session = Session::open(Arc::clone(&shared), "session").unwrap();
    for event in session_inputs() {
        clock.advance(1_000);
        let input = input_for(session.state(), event);
        session.handle(&input).unwrap();
    }
    drop(session);
    shared.flush().unwrap();
    for (stream, ..) in STREAMS {
        let mut lines = Vec::new();
        export::json_lines(&*shared, stream, &mut lines).unwrap();
        std::fs::write(out.join(format!("{stream}.export.jsonl")), lines).unwrap();
    }
}
