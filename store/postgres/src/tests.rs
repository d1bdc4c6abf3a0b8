//! Dropping events up to a floor inside a block, against the real server of
//! `ASKUSER_TEST_PG` (the public API compacts only at a stream's head, which ends
//! a block; a floor inside one is reached here through the backend).

use postgres::{Client, NoTls};

use super::PgLog;
use askuser_store::backend::Backend;
use askuser_testkit::scripted_events;

/// A log in a fresh schema, a client on it, and the schema's name.
fn log() -> (PgLog, Client, String) {
    let url = std::env::var("ASKUSER_TEST_PG")
        .expect("ASKUSER_TEST_PG is not set: start scripts/postgres.sh (see tests/common)");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let schema = format!("unit_{}_{nanos}", std::process::id());
    let log = PgLog::connect_in(&url, &schema).expect("open the log");
    let client = Client::connect(&url, NoTls).expect("connect");
    (log, client, schema)
}

fn rows(client: &mut Client, schema: &str, stream: &str) -> Vec<(i64, i64)> {
    client
        .query(
            &format!(
                "SELECT seq, last_seq FROM \"{schema}\".events WHERE stream = $1 ORDER BY seq"
            ),
            &[&stream],
        )
        .expect("rows")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

#[test]
fn a_floor_inside_a_block_keeps_the_blocks_events_after_it_as_new_rows() {
    let (log, mut client, schema) = log();
    let events: Vec<_> = scripted_events(1, 1000).collect();
    log.append("s", 0, &events).expect("append");
    let before = rows(&mut client, &schema, "s");
    let straddling = before
        .iter()
        .find(|(first, last)| *first <= 300 && *last > 300)
        .copied();
    assert!(
        straddling.is_some_and(|(first, _)| first < 300),
        "{before:?}"
    );
    assert_eq!(log.drop_through("s", 300).expect("drop"), 300);
    let after = rows(&mut client, &schema, "s");
    assert_eq!(after[0].0, 301, "{after:?}");
    assert_eq!(after.last().map(|row| row.1), Some(1000));
    for pair in after.windows(2) {
        assert_eq!(pair[0].1 + 1, pair[1].0, "{after:?}");
    }
    let read: Vec<_> = log
        .scan_own("s", 301, 1000)
        .expect("scan")
        .map(|r| r.expect("event").event)
        .collect();
    assert_eq!(read, events[300..]);

    // A damaged block across the floor is left as it is, and still reported.
    log.append("d", 0, &events[..10]).expect("append");
    client
        .execute(
            &format!(
                "UPDATE \"{schema}\".events SET record = set_byte(record, 9, get_byte(record, 9) # 16) WHERE stream = 'd'"
            ),
            &[],
        )
        .expect("damage");
    assert_eq!(log.drop_through("d", 5).expect("drop"), 0);
    assert_eq!(rows(&mut client, &schema, "d"), [(1, 10)]);
    let errors: Vec<String> = log
        .scan_own("d", 6, 10)
        .expect("scan")
        .map(|r| r.expect_err("damaged").to_string())
        .collect();
    assert_eq!(errors.len(), 5);
    assert!(
        errors[0].starts_with(
            "corrupt event in stream \"d\" at sequence 6: the value holding events 1 to 10 is damaged: checksum mismatch"
        ),
        "{errors:?}"
    );
    client
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .expect("drop the schema");
}
