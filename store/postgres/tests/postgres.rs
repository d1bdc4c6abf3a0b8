//! Behaviour particular to the PostgreSQL log, against the real server of
//! `ASKUSER_TEST_PG` (run `scripts/postgres.sh` for one): opening and its errors,
//! the schema's version table, waiting with
//! `LISTEN`/`NOTIFY`, and writers on several connections and several processes.
//! The shared `Log` suite runs against it too (`tests/suite.rs`); the rows of
//! blocks, damage and the migration from rows of one event are in
//! `tests/postgres_blocks.rs`.

mod common;

use askuser_store::backend::Backend as _;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator as _;

use askuser_core::Event;
use askuser_postgres::PgLog;
use askuser_store::{Log, StoreError};
use askuser_testkit::{d30_form, scripted_events};
use common::*;

const PGTEST: &str = env!("CARGO_BIN_EXE_askuser-store-pgtest");

/// `url` with the parameter `key` set to `value` (a later parameter wins).
fn with_param(url: &str, key: &str, value: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{key}={value}")
}

fn with_dbname(url: &str, dbname: &str) -> String {
    with_param(url, "dbname", dbname)
}

#[test]
fn a_bad_url_and_an_unreachable_server_are_clear_errors_without_the_password() {
    let error = PgLog::connect("postgres://alice:hunter2@db:notaport/askuser").unwrap_err();
    assert!(matches!(error, StoreError::BadLocation { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "cannot open the log at postgres://alice:***@db:notaport/askuser: this is not a PostgreSQL connection URL (invalid connection string: invalid value for option `port`); write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=verify-full, or postgres://USER@%2Fsocket%2Fdirectory/DATABASE for a Unix socket"
    );
    let error =
        PgLog::connect("postgres://alice:hunter2@%2Fnonexistent%2Fsocket/askuser").unwrap_err();
    assert!(matches!(error, StoreError::Connect { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "cannot connect to the PostgreSQL server at postgres://alice:***@%2Fnonexistent%2Fsocket/askuser: error connecting to server: No such file or directory (os error 2). Check that the server is running and that the URL names the right host (or socket directory), port, user, password and database"
    );
    let error = PgLog::connect("postgres://alice:hunter2@db/askuser?sslmode=verify").unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot open the log at postgres://alice:***@db/askuser?sslmode=verify: sslmode=verify is not a mode: write disable, prefer, require, verify-ca or verify-full (verify-full is recommended)"
    );
    // The server answers, but there is no such database.
    let url = with_dbname(&pg_url(), "no_such_database_here");
    let error = PgLog::connect(&url).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("FATAL: database \"no_such_database_here\" does not exist"),
        "{error}"
    );
    let error = PgLog::connect_in(&pg_url(), "Bad-Name").unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot open the log at schema \"Bad-Name\": a schema name is 1 to 40 of a-z, 0-9 and _, not starting with a digit"
    );
}

#[test]
fn the_schema_records_its_version_and_a_newer_one_is_refused() {
    let log = pg();
    let mut client = log.client();
    let schema = log.schema().to_owned();
    let version: i32 = client
        .query_one(
            &format!("SELECT version FROM \"{schema}\".schema_version"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(version, 4);
    log.append("s", 0, &scripted_events(1, 3).collect::<Vec<_>>())
        .unwrap();
    // Opening again keeps the data and the version (no second migration).
    let again = PgLog::connect_in(&log.url, &schema).unwrap();
    assert_eq!(again.info("s").unwrap().head, 3);
    client
        .execute(
            &format!("UPDATE \"{schema}\".schema_version SET version = 7"),
            &[],
        )
        .unwrap();
    let error = PgLog::connect_in(&log.url, &schema).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "postgres: the log's tables in schema \"{schema}\" are at version 7, newer than this askuser knows (up to 4): upgrade askuser"
        )
    );
}

#[test]
fn processes_opening_a_new_schema_at_once_create_it_once() {
    let guard = pg();
    let schema = fresh_schema();
    let opened: Vec<Result<PgLog, StoreError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| scope.spawn(|| PgLog::connect_in(&guard.url, &schema)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for log in &opened {
        assert!(log.is_ok(), "{log:?}");
    }
    let mut client = guard.client();
    let version: i32 = client
        .query_one(
            &format!("SELECT version FROM \"{schema}\".schema_version"),
            &[],
        )
        .unwrap()
        .get(0);
    let rows: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM \"{schema}\".schema_version"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!((version, rows), (4, 1));
    client
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .unwrap();
}

/// A watcher beside a writer of its own process waits for the others: an
/// append through this log's own connections does not end its wait; one through
/// another log's (another process's) does.
#[test]
fn a_wait_for_others_is_not_ended_by_this_log_s_own_append() {
    let log = pg();
    log.append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| log.wait_for_others("s", 1, Duration::from_secs(60)));
        // Time for the waiter to listen: a wait begun after the append below
        // would be given 2 at once, its head being past 1 already.
        std::thread::sleep(Duration::from_millis(300));
        log.append("s", 1, &scripted_events(2, 1).collect::<Vec<_>>())
            .unwrap();
        // Had its own append ended the wait, it would have ended at 2 by now.
        std::thread::sleep(Duration::from_millis(300));
        other
            .append("s", 2, &scripted_events(3, 1).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(waiter.join().unwrap().unwrap(), 3);
    });
}

#[test]
fn wait_past_times_out_and_wakes_on_an_append_from_another_connection() {
    let log = pg();
    log.append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    // Already past: returns at once.
    assert_eq!(log.wait_past("s", 0, Duration::from_secs(30)).unwrap(), 1);
    // Nothing comes: the timeout.
    assert_eq!(
        log.wait_past("s", 1, Duration::from_millis(200)).unwrap(),
        1
    );
    // Another log (its own connections) appends while we wait; appends to another
    // stream do not end the wait.
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| log.wait_past("s", 1, Duration::from_secs(60)));
        let started = scope.spawn(|| log.wait_past("not-yet", 0, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(100));
        other
            .append("elsewhere", 0, &scripted_events(1, 1).collect::<Vec<_>>())
            .unwrap();
        other
            .append("s", 1, &scripted_events(2, 2).collect::<Vec<_>>())
            .unwrap();
        other
            .append("not-yet", 0, &scripted_events(1, 1).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(waiter.join().unwrap().unwrap(), 3);
        assert_eq!(started.join().unwrap().unwrap(), 1);
    });
    // The connection went back to the pool clean: a later wait is not woken by
    // the notifications of the earlier one.
    assert_eq!(
        log.wait_past("s", 3, Duration::from_millis(100)).unwrap(),
        3
    );
}

/// The streams named by the notifications `listener` is given within 300 ms
/// of the last.
fn heard(listener: &mut postgres::Client) -> Vec<String> {
    let mut streams = Vec::new();
    let mut notes = listener.notifications();
    let mut notes = notes.timeout_iter(Duration::from_millis(300));
    while let Some(note) = notes.next().unwrap() {
        streams.push(note.payload().to_owned());
    }
    streams
}

/// An append notifies only while somebody else waits on its stream or on any
/// change: a transaction that notifies commits in turn with every other that
/// does (a lock of the whole cluster), so appends that all notified committed
/// one at a time. Seen by a plain client listening on the log's channel. A
/// waiting log keeps its last wait's record until it waits on something else
/// or is dropped (a host waits in slices on the same stream).
#[test]
fn an_append_notifies_only_while_someone_else_waits_on_its_stream() {
    let log = pg();
    let waiter = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let mut listener = log.client();
    listener
        .batch_execute(&format!("LISTEN \"askuser_{}\"", log.schema()))
        .unwrap();
    let one = |seq| scripted_events(seq, 1).collect::<Vec<_>>();
    // Nobody waits.
    other.append("s", 0, &one(1)).unwrap();
    assert_eq!(heard(&mut listener), Vec::<String>::new());
    // A wait on "s": its appends notify, another stream's do not.
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| waiter.wait_past("s", 1, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(300));
        other.append("t", 0, &one(1)).unwrap();
        other.append("s", 1, &one(2)).unwrap();
        assert_eq!(waiting.join().unwrap().unwrap(), 2);
    });
    assert_eq!(heard(&mut listener), ["s"]);
    // A wait for the others' appends: the log's own append does not notify.
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| waiter.wait_for_others("s", 2, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(300));
        waiter.append("s", 2, &one(3)).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        other.append("s", 3, &one(4)).unwrap();
        assert_eq!(waiting.join().unwrap().unwrap(), 4);
    });
    assert_eq!(heard(&mut listener), ["s"]);
    // A wait on any change: every append notifies.
    let since = askuser_store::Version::of(&waiter.streams().unwrap());
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| waiter.wait_changed(since, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(300));
        other.append("t", 1, &one(2)).unwrap();
        assert_ne!(waiting.join().unwrap().unwrap(), since);
    });
    assert_eq!(heard(&mut listener), ["t"]);
    // The wait ended, its record kept for the next wait on any change.
    other.append("s", 4, &one(5)).unwrap();
    assert_eq!(heard(&mut listener), ["s"]);
    // The waiting log is gone: nothing notifies.
    drop(waiter);
    other.append("s", 5, &one(6)).unwrap();
    other.append("t", 2, &one(3)).unwrap();
    assert_eq!(heard(&mut listener), Vec::<String>::new());
}

/// A host waits in slices on the same stream (`askuser serve`'s watcher every
/// 250 ms): the slices after the first reuse the first one's record, so no
/// slice takes the stream's lock again (which held its appends back), and a
/// wait on another stream replaces the record.
#[test]
fn waits_in_slices_on_one_stream_are_recorded_once() {
    let log = pg();
    let waiter = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let mut admin = log.client();
    let recorded = |admin: &mut postgres::Client| -> Vec<(i32, Option<String>, bool)> {
        admin
            .query(
                &format!(
                    "SELECT pid, stream, watching FROM \"{}\".watchers ORDER BY pid",
                    log.schema()
                ),
                &[],
            )
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get(1), row.get(2)))
            .collect()
    };
    assert_eq!(
        waiter.wait_past("s", 0, Duration::from_millis(50)).unwrap(),
        0
    );
    let first = recorded(&mut admin);
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!((first[0].1.as_deref(), first[0].2), (Some("s"), true));
    for _ in 0..3 {
        assert_eq!(
            waiter.wait_past("s", 0, Duration::from_millis(50)).unwrap(),
            0
        );
        assert_eq!(recorded(&mut admin), first);
    }
    assert_eq!(
        waiter.wait_past("t", 0, Duration::from_millis(50)).unwrap(),
        0
    );
    // Recorded anew on the same connection.
    let pid = first[0].0;
    assert_eq!(recorded(&mut admin), [(pid, Some("t".to_owned()), true)]);
    drop(waiter);
    assert_eq!(recorded(&mut admin), [(pid, Some("t".to_owned()), false)]);
}

/// A watcher waits for the others in slices (`askuser serve`'s, every 250 ms):
/// while no notification names its stream, a slice starts and ends on the head
/// the last one read, sending nothing to the server (seen by the kept
/// connection's last statement, which stays the same), and this log's own
/// appends do not end a slice begun with the head before them. Another
/// process's append is read and returned at once.
#[test]
fn waits_for_others_in_slices_read_nothing_until_another_process_appends() {
    let log = pg();
    let waiter = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let one = |seq| scripted_events(seq, 1).collect::<Vec<_>>();
    waiter.append("s", 0, &one(1)).unwrap();
    let slice = || waiter.wait_for_others("s", 1, Duration::from_millis(50));
    assert_eq!(slice().unwrap(), 1);
    let mut admin = log.client();
    let pid: i32 = admin
        .query_one(
            &format!("SELECT pid FROM \"{}\".watchers", log.schema()),
            &[],
        )
        .unwrap()
        .get(0);
    let last_statement = |admin: &mut postgres::Client| -> String {
        let row = admin
            .query_one(
                "SELECT query_start::text FROM pg_stat_activity WHERE pid = $1",
                &[&pid],
            )
            .unwrap();
        row.get(0)
    };
    let before = last_statement(&mut admin);
    for _ in 0..4 {
        assert_eq!(slice().unwrap(), 1);
    }
    waiter.append("s", 1, &one(2)).unwrap();
    assert_eq!(slice().unwrap(), 1);
    assert_eq!(last_statement(&mut admin), before);
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| waiter.wait_for_others("s", 2, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(200));
        other.append("s", 2, &one(3)).unwrap();
        assert_eq!(waiting.join().unwrap().unwrap(), 3);
    });
    assert_ne!(last_statement(&mut admin), before);
}

/// A kept connection the server dropped between two waits (a restart, a cut
/// network) costs the next wait a new connection, not an error.
#[test]
fn a_wait_after_the_server_dropped_the_kept_connection_waits_on_a_new_one() {
    let log = pg();
    let waiter = PgLog::connect_in(&log.url, log.schema()).unwrap();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    assert_eq!(
        waiter.wait_past("s", 0, Duration::from_millis(50)).unwrap(),
        0
    );
    let terminated: i64 = log
        .client()
        .query_one(
            &format!(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) \
                 FROM \"{}\".watchers WHERE watching",
                log.schema()
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(terminated, 1);
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| waiter.wait_past("s", 0, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(300));
        other
            .append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(waiting.join().unwrap().unwrap(), 1);
    });
}

/// A wait that starts as another process appends is never left waiting for a
/// notification that was not sent: the append either saw the waiter or
/// committed before the waiter read the head. Each wait would last its whole
/// minute had it been missed.
#[test]
fn a_wait_begun_as_another_process_appends_is_woken() {
    let log = pg();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    for head in 0..100 {
        let started = std::time::Instant::now();
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| log.wait_past("r", head, Duration::from_secs(60)));
            other
                .append("r", head, &scripted_events(head + 1, 1).collect::<Vec<_>>())
                .unwrap();
            assert_eq!(waiter.join().unwrap().unwrap(), head + 1);
        });
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "round {head}: the wait was not woken by the append"
        );
    }
}

#[test]
fn connections_the_server_dropped_while_idle_are_replaced() {
    let guard = pg();
    let application = guard.schema().to_owned();
    let url = with_param(&guard.url, "application_name", &application);
    let log = PgLog::connect_in(&url, guard.schema()).unwrap();
    log.append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    let terminated: i64 = guard
        .client()
        .query_one(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM \
             (SELECT pid FROM pg_stat_activity WHERE application_name = $1 OFFSET 0) AS mine",
            &[&application],
        )
        .unwrap()
        .get(0);
    assert_eq!(terminated, 1);
    // Idle long enough to be checked before reuse (as a host waiting for a person).
    std::thread::sleep(Duration::from_millis(1_100));
    log.append("s", 1, &scripted_events(2, 1).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(log.info("s").unwrap().head, 2);
}

#[test]
fn two_logs_on_separate_connections_lose_and_duplicate_nothing() {
    let log = pg();
    let logs: Vec<PgLog> = (0..4)
        .map(|_| PgLog::connect_in(&log.url, log.schema()).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for (writer, other) in logs.iter().enumerate() {
            scope.spawn(move || {
                for k in 0..30 {
                    let event = request(&format!("c{writer}-{k}"));
                    loop {
                        let head = other.stream("s").unwrap().map_or(0, |i| i.head);
                        match other.append("s", head, std::slice::from_ref(&event)) {
                            Ok(_) => break,
                            Err(StoreError::Conflict { .. }) => {}
                            Err(error) => panic!("{error}"),
                        }
                    }
                }
            });
        }
    });
    assert_exactly_once(&log, "s", 4, 30, "c");
}

#[test]
fn writer_processes_lose_and_duplicate_nothing() {
    const WRITERS: usize = 4;
    const COUNT: usize = 40;
    let log = pg();
    let children: Vec<_> = (0..WRITERS)
        .map(|writer| {
            Command::new(PGTEST)
                .args(["append", &log.url, log.schema(), "s", &writer.to_string()])
                .arg(COUNT.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start askuser-store-pgtest")
        })
        .collect();
    let mut conflicts = 0;
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        conflicts += stdout
            .trim()
            .strip_prefix("conflicts ")
            .and_then(|n| n.parse::<usize>().ok())
            .expect("a count of conflicts");
    }
    println!("{WRITERS} processes, {COUNT} appends each: {conflicts} conflicts retried");
    assert_exactly_once(&log, "s", WRITERS, COUNT, "p");
}

#[test]
fn a_process_waiting_is_woken_by_an_append_from_another_process() {
    let log = pg();
    log.append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    let mut child = Command::new(PGTEST)
        .args(["wait", &log.url, log.schema(), "s", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start askuser-store-pgtest");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert_eq!(line, "listening\n");
    // Not a timed test: the waiter would wait a minute; it is woken at once.
    log.append("s", 1, &scripted_events(2, 2).collect::<Vec<_>>())
        .unwrap();
    line.clear();
    reader.read_line(&mut line).unwrap();
    assert_eq!(line, "head 3\n");
    assert!(child.wait().unwrap().success());
}

#[test]
fn processes_racing_to_answer_one_question_have_exactly_one_winner() {
    const RACERS: usize = 4;
    let log = pg();
    log.append("s", 0, &[request("race")]).unwrap();
    let mut children: Vec<_> = (0..RACERS)
        .map(|_| {
            Command::new(PGTEST)
                .args(["answer", &log.url, log.schema(), "s", "race"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("start askuser-store-pgtest")
        })
        .collect();
    // Every racer has its session open; then all are told to go at once.
    let mut readers: Vec<_> = children
        .iter_mut()
        .map(|child| BufReader::new(child.stdout.take().unwrap()))
        .collect();
    for reader in &mut readers {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
    }
    for child in &mut children {
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    }
    let mut outcomes = Vec::new();
    for (child, mut reader) in children.into_iter().zip(readers) {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let mut child = child;
        assert!(child.wait().unwrap().success(), "{line}");
        outcomes.push(line.trim_end().to_owned());
    }
    outcomes.sort();
    let mut expected = vec![
        "refused: inquiry \"race\" already finished (answered); it takes no more input: show how it ended instead"
            .to_owned();
        RACERS - 1
    ];
    expected.push("won 2".to_owned());
    expected.sort();
    assert_eq!(outcomes, expected);
    let events: Vec<Event> = log
        .read("s", 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[1], Event::Answered { question, .. } if question == "apply"));
}

#[test]
fn a_log_shared_as_a_trait_object_works_from_many_threads() {
    let log = pg();
    let shared: Arc<dyn Log> = Arc::new(PgLog::connect_in(&log.url, log.schema()).unwrap());
    std::thread::scope(|scope| {
        for t in 0..3 {
            let shared = Arc::clone(&shared);
            scope.spawn(move || {
                let name = format!("t{t}");
                shared
                    .append(&name, 0, &scripted_events(1, 8).collect::<Vec<_>>())
                    .unwrap();
                assert_eq!(askuser_store::replay::load(&*shared, &name).unwrap().seq, 8);
            });
        }
    });
    assert_eq!(shared.streams().unwrap().len(), 3);
}

#[test]
fn a_long_read_runs_ahead_and_stops_when_dropped() {
    let log = pg();
    let events: Vec<Event> = scripted_events(1, 10_000).collect();
    for (i, chunk) in events.chunks(2_500).enumerate() {
        log.append("s", (i * 2_500) as u64, chunk).unwrap();
    }
    // Readers dropped after a few events leave the log usable (their helpers stop
    // and give their connections back).
    for _ in 0..20 {
        let mut reader = log.read("s", 1).unwrap();
        assert_eq!(reader.next().unwrap().unwrap().event, events[0]);
    }
    let mut seq = 0;
    let mut head = 10_000;
    for recorded in log.read("s", 1).unwrap() {
        let recorded = recorded.unwrap();
        seq += 1;
        assert_eq!(recorded.seq, seq);
        assert_eq!(recorded.event, events[usize::try_from(seq).unwrap() - 1]);
        // Appending while a long read runs: the read ends at the head it started at.
        if seq % 2_000 == 0 {
            head = log
                .append("s", head, &scripted_events(head + 1, 1).collect::<Vec<_>>())
                .unwrap();
        }
    }
    assert_eq!((seq, head), (10_000, 10_005));
    let tail: Vec<u64> = log
        .read("s", 9_000)
        .unwrap()
        .map(|r| r.unwrap().seq)
        .collect();
    assert_eq!(tail, (9_000..=10_005).collect::<Vec<_>>());
}

fn request(inquiry: &str) -> Event {
    requested(inquiry, d30_form())
}

/// Stream `stream` holds exactly one request `{prefix}{w}-{k}` for every writer `w`
/// and append `k`, numbered without gaps.
fn assert_exactly_once(log: &PgLog, stream: &str, writers: usize, count: usize, prefix: &str) {
    let mut seen = BTreeSet::new();
    for (i, recorded) in log.read(stream, 1).unwrap().enumerate() {
        let recorded = recorded.unwrap();
        assert_eq!(recorded.seq, i as u64 + 1);
        let Event::Requested(request) = recorded.event else {
            panic!("not a request at {}", recorded.seq);
        };
        assert!(
            seen.insert(request.inquiry.to_string()),
            "{} recorded twice",
            request.inquiry
        );
    }
    let expected: BTreeSet<String> = (0..writers)
        .flat_map(|w| (0..count).map(move |k| format!("{prefix}{w}-{k}")))
        .collect();
    assert_eq!(seen, expected, "lost or foreign requests");
    assert_eq!(log.info(stream).unwrap().head, (writers * count) as u64);
}
