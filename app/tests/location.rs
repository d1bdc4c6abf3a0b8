//! Opening a log by location: a `postgres://` URL opens the PostgreSQL log (on the
//! server of `ASKUSER_TEST_PG`, a fresh database), anything else a sled directory.
#![cfg(unix)]

use askuser_store::Clock as _;
use askuser_testkit::scripted_events;

/// The PostgreSQL server the tests use: `ASKUSER_TEST_PG`, a URL. The test fails
/// (never skips) without it.
fn pg_url() -> String {
    match std::env::var("ASKUSER_TEST_PG") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "ASKUSER_TEST_PG is not set: start the project's private PostgreSQL with \
             `. scripts/test-env` and run the tests again"
        ),
    }
}

/// `url` naming the database `dbname` (a later parameter wins).
fn with_dbname(url: &str, dbname: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}dbname={dbname}")
}

#[test]
fn open_log_opens_a_postgres_url_or_a_sled_path() {
    let url = pg_url();
    let dbname = format!(
        "d{}_{}",
        std::process::id(),
        askuser_store::SystemClock.now().millis()
    );
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE \"{dbname}\""))
        .unwrap();
    let url = with_dbname(&url, &dbname);
    {
        let log = askuser_app::open_log(&url).unwrap();
        askuser_testkit::record(&*log, "s", 0, &scripted_events(1, 2).collect::<Vec<_>>()).unwrap();
        let again = askuser_app::open_log(&url).unwrap();
        assert_eq!(again.info("s").unwrap().head, 2);
        assert_eq!(format!("{:?}", log.streams().unwrap()[0].name), "\"s\"");
    }
    client
        .batch_execute(&format!("DROP DATABASE \"{dbname}\" WITH (FORCE)"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let log = askuser_app::open_log(path.to_str().unwrap()).unwrap();
    askuser_testkit::record(&*log, "s", 0, &scripted_events(1, 1).collect::<Vec<_>>()).unwrap();
    assert_eq!(log.info("s").unwrap().head, 1);
}
