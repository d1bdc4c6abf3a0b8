//! The PostgreSQL log's rows: a row per block of events (the sled log's record
//! format), damage reported per event, forks reading into a parent's block, and
//! a database written with a row per event (schema version 1) migrated and read
//! back the same. Against the real server of `ASKUSER_TEST_PG`.

mod common;

use askuser_core::Event;
use askuser_postgres::PgLog;
use askuser_store::backend::Backend as _;
use askuser_store::codec::{decode_event_value, encode_event_record};
use askuser_store::{Log, RecordKind, StoreError};
use askuser_testkit::scripted_events;
use common::*;

/// The `(seq, last_seq)` of the rows of `stream`, in order.
fn rows(log: &TestPg, stream: &str) -> Vec<(i64, i64)> {
    let schema = log.schema().to_owned();
    log.client()
        .query(
            &format!(
                "SELECT seq, last_seq FROM \"{schema}\".events WHERE stream = $1 ORDER BY seq"
            ),
            &[&stream],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// The events of `stream` from `from` to `to`, each as its event or its error.
fn read(log: &PgLog, stream: &str, from: u64, to: u64) -> Vec<Result<Event, String>> {
    log.read_range(stream, from, to)
        .unwrap()
        .map(|r| r.map(|recorded| recorded.event).map_err(|e| e.to_string()))
        .collect()
}

fn events(first: u64, count: u64) -> Vec<Event> {
    scripted_events(first, count).collect()
}

#[test]
fn an_append_of_many_events_writes_a_few_rows_of_blocks() {
    let log = pg();
    let all = events(1, 1000);
    log.append("s", 0, &all).unwrap();
    let blocks = rows(&log, "s");
    assert!((2..=8).contains(&blocks.len()), "{blocks:?}");
    // The rows cover 1..=1000 without gaps or overlaps.
    assert_eq!(blocks[0].0, 1);
    assert_eq!(blocks.last().unwrap().1, 1000);
    for pair in blocks.windows(2) {
        assert_eq!(pair[0].1 + 1, pair[1].0, "{blocks:?}");
    }
    log.append("s", 1000, &events(1001, 4000)).unwrap();
    let ok: Vec<_> = events(1, 5000).into_iter().map(Ok).collect();
    assert_eq!(read(&log, "s", 1, 5000), ok);
    // Ranges starting and ending inside blocks, short and long (read ahead).
    for (from, to) in [(2, 3), (250, 260), (300, 4999), (999, 1001), (5000, 5000)] {
        assert_eq!(
            read(&log, "s", from, to),
            ok[usize::try_from(from - 1).unwrap()..usize::try_from(to).unwrap()],
            "{from}..={to}"
        );
    }
    // A fork inside a block reads the parent's events up to the fork point only.
    log.fork("s", 500, "child").unwrap();
    let mut expected = all[..500].to_vec();
    expected.extend(events(501, 3));
    log.append("child", 500, &events(501, 3)).unwrap();
    let read_child: Vec<Event> = log
        .read("child", 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(read_child, expected);
    assert_eq!(rows(&log, "child"), [(501, 503)]);
}

#[test]
fn rows_hold_the_sled_logs_records_and_damage_is_reported_per_event() {
    let log = pg();
    let all = events(1, 8);
    log.append("s", 0, &all[..5]).unwrap();
    for (seq, event) in (6..=8).zip(&all[5..]) {
        log.append("s", seq - 1, std::slice::from_ref(event))
            .unwrap();
    }
    assert_eq!(rows(&log, "s"), [(1, 5), (6, 6), (7, 7), (8, 8)]);
    let mut client = log.client();
    let schema = log.schema().to_owned();
    let records: Vec<(i64, Vec<u8>)> = client
        .query(
            &format!("SELECT seq, record FROM \"{schema}\".events WHERE stream = 's' ORDER BY seq"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    // The block decodes, with its first sequence number, to its five events; a
    // single event's row is the record the sled log writes for it.
    let decoded: Vec<Event> = decode_event_value("s", 1, &records[0].1)
        .into_iter()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(decoded, all[..5]);
    assert_eq!(
        records[1].1,
        encode_event_record("s", 6, T0, &all[5]).unwrap()
    );
    let mut damage = |seq: i64| {
        client
            .execute(
                &format!(
                    "UPDATE \"{schema}\".events SET record = set_byte(record, 9, get_byte(record, 9) # 16) WHERE stream = 's' AND seq = $1"
                ),
                &[&seq],
            )
            .unwrap();
    };
    // A damaged single event is reported, the others still read.
    damage(7);
    let read_all = read(&log, "s", 1, 8);
    assert_eq!(read_all.len(), 8);
    assert!(
        read_all[6]
            .as_ref()
            .unwrap_err()
            .starts_with("corrupt event in stream \"s\" at sequence 7: checksum mismatch"),
        "{read_all:?}"
    );
    for (i, event) in read_all.iter().enumerate().filter(|(i, _)| *i != 6) {
        assert_eq!(event.as_ref().unwrap(), &all[i]);
    }
    // A damaged block is reported for each of its events in the range, naming them.
    damage(1);
    let errors: Vec<_> = log.read_range("s", 3, 6).unwrap().collect();
    assert_eq!(errors.len(), 4);
    for (seq, error) in (3..=5).zip(&errors) {
        match error {
            Err(StoreError::Corrupt {
                kind: RecordKind::Event,
                stream,
                seq: at,
                detail,
            }) => assert!(
                stream == "s"
                    && *at == seq
                    && detail.starts_with(
                        "the value holding events 1 to 5 is damaged: checksum mismatch"
                    ),
                "{error:?}"
            ),
            other => panic!("expected event {seq} to be corrupt, got {other:?}"),
        }
    }
    assert_eq!(errors[3].as_ref().unwrap().event, all[5]);
    // A missing row (deleted behind the log's back) is reported as a gap.
    client
        .execute(
            &format!("DELETE FROM \"{schema}\".events WHERE stream = 's' AND seq = 8"),
            &[],
        )
        .unwrap();
    assert_eq!(
        read(&log, "s", 8, 8),
        [Err(
            "corrupt event in stream \"s\" at sequence 8: the event is missing (the stream's head is past it)"
                .to_owned()
        )]
    );
}

/// The tables and append function of schema version 1 (a row per event), as
/// askuser wrote them before blocks.
const VERSION_1: &str = r#"
CREATE TABLE {schema}.schema_version (version integer NOT NULL);
INSERT INTO {schema}.schema_version (version) VALUES (1);
CREATE TABLE {schema}.streams (
    name text COLLATE "C" PRIMARY KEY,
    head bigint NOT NULL,
    parent text COLLATE "C",
    parent_at bigint,
    created_at bigint NOT NULL,
    floor bigint NOT NULL DEFAULT 0
);
CREATE INDEX streams_parent ON {schema}.streams (parent) WHERE parent IS NOT NULL;
CREATE TABLE {schema}.events (
    stream text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    record bytea NOT NULL,
    PRIMARY KEY (stream, seq)
);
CREATE TABLE {schema}.snapshots (
    stream text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    record bytea NOT NULL,
    PRIMARY KEY (stream, seq)
);
CREATE FUNCTION {schema}.append_events(
    p_stream text, p_expected bigint, p_records bytea[], p_at bigint, p_sync boolean,
    OUT appended boolean, OUT head bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    SELECT s.head INTO head FROM {schema}.streams s WHERE s.name = p_stream FOR UPDATE;
    head := coalesce(head, 0);
    INSERT INTO {schema}.events (stream, seq, record)
        SELECT p_stream, p_expected + r.n, r.record
        FROM unnest(p_records) WITH ORDINALITY AS r(record, n);
    head := p_expected + cardinality(p_records);
    UPDATE {schema}.streams SET head = append_events.head WHERE name = p_stream;
    appended := true;
END
$fn$;
"#;

#[test]
fn a_database_of_rows_of_one_event_is_migrated_and_reads_back_the_same() {
    let url = pg_url();
    let schema = fresh_schema();
    let quoted = format!("\"{schema}\"");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {quoted}; {}",
            VERSION_1.replace("{schema}", &quoted)
        ))
        .unwrap();
    // Stream `s` of 2,500 events (more than one read in one query), and a fork `f`
    // of it at 100 with 20 events of its own, a row per event.
    let old = events(1, 2500);
    client
        .execute(
            &format!(
                "INSERT INTO {quoted}.streams (name, head, parent, parent_at, created_at) \
                 VALUES ('s', 2500, NULL, NULL, 0), ('f', 120, 's', 100, 0)"
            ),
            &[],
        )
        .unwrap();
    let insert = format!(
        "INSERT INTO {quoted}.events (stream, seq, record) \
         SELECT $1, r.seq, r.record FROM unnest($2::bigint[], $3::bytea[]) AS r(seq, record)"
    );
    for (stream, first, events) in [("s", 1_u64, &old[..]), ("f", 101, &old[..20])] {
        let seqs: Vec<i64> = (first..)
            .take(events.len())
            .map(|seq| i64::try_from(seq).unwrap())
            .collect();
        let records: Vec<Vec<u8>> = (first..)
            .zip(events)
            .map(|(seq, event)| encode_event_record(stream, seq, T0, event).unwrap())
            .collect();
        client
            .execute(&insert, &[&stream, &seqs, &records])
            .unwrap();
    }
    // Opening migrates: version 4 (blocks from version 2), each old row holding its one event.
    let log = TestPg {
        log: PgLog::connect_in(&url, &schema)
            .unwrap()
            .with_durability(askuser_store::Durability::Buffered)
            .with_clock(clock()),
        url: url.clone(),
    };
    let version: i32 = client
        .query_one(&format!("SELECT version FROM {quoted}.schema_version"), &[])
        .unwrap()
        .get(0);
    assert_eq!(version, 4);
    let old_rows: Vec<(i64, i64)> = (1..=2500).map(|seq| (seq, seq)).collect();
    assert_eq!(rows(&log, "s"), old_rows);
    let ok: Vec<_> = old.iter().cloned().map(Ok).collect();
    assert_eq!(read(&log, "s", 1, 2500), ok);
    assert_eq!(read(&log, "s", 150, 160), ok[149..160]);
    let mut fork = ok[..100].to_vec();
    fork.extend(old[..20].iter().cloned().map(Ok));
    assert_eq!(read(&log, "f", 1, 120), fork);
    // New appends write blocks after the old rows; both read back in order.
    let new = events(2501, 600);
    log.append("s", 2500, &new).unwrap();
    let rows_now = rows(&log, "s");
    assert!(rows_now.len() < 2500 + 8, "{}", rows_now.len());
    let mut all = ok.clone();
    all.extend(new.iter().cloned().map(Ok));
    assert_eq!(read(&log, "s", 1, 3100), all);
    assert_eq!(read(&log, "s", 2495, 2510), all[2494..2510]);
    // A process started before the migration still appends with the old function
    // (a row per event), and what it wrote reads back.
    let record = encode_event_record("s", 3101, T0, &events(3101, 1)[0]).unwrap();
    let appended: bool = client
        .query_one(
            &format!("SELECT appended FROM {quoted}.append_events('s', 3100, $1, 0, true)"),
            &[&vec![record]],
        )
        .unwrap()
        .get(0);
    assert!(appended);
    all.push(Ok(events(3101, 1).remove(0)));
    assert_eq!(read(&log, "s", 1, 3101), all);
    assert_eq!(rows(&log, "s").last(), Some(&(3101, 3101)));
}
