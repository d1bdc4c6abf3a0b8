//! Helpers shared by the PostgreSQL log's integration tests: the test server
//! (`ASKUSER_TEST_PG`, `ASKUSER_TEST_PG_TLS`) and a log in a fresh schema, beside
//! the testkit's builders.
#![allow(dead_code, missing_docs)]

pub use askuser_testkit::build::*;

/// The PostgreSQL server the tests use: `ASKUSER_TEST_PG`, a URL. The tests fail
/// (never skip) without it.
pub fn pg_url() -> String {
    match std::env::var("ASKUSER_TEST_PG") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "ASKUSER_TEST_PG is not set: the PostgreSQL tests need a server. Start the \
             project's private one with scripts/postgres.sh and run\n    \
             export ASKUSER_TEST_PG=\"$(scripts/postgres.sh | tail -n 1)\"\nthen run the \
             tests again."
        ),
    }
}

/// The same server over TCP and TLS: `ASKUSER_TEST_PG_TLS`, a URL with
/// `sslmode=verify-full` and the server's CA (`scripts/postgres.sh tls-url`).
pub fn pg_tls_url() -> String {
    match std::env::var("ASKUSER_TEST_PG_TLS") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "ASKUSER_TEST_PG_TLS is not set: the TLS tests need the project's private \
             server (scripts/postgres.sh starts it with TLS on). Run\n    \
             export ASKUSER_TEST_PG_TLS=\"$(scripts/postgres.sh tls-url)\"\nthen run the \
             tests again (scripts/test does it)."
        ),
    }
}

/// A schema name no other test (in this process or another) uses.
pub fn fresh_schema() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "t{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A PostgreSQL log in a fresh schema, dropped with the guard.
pub struct TestPg {
    pub log: askuser_postgres::PgLog,
    pub url: String,
}

impl TestPg {
    /// A raw client on the test server, for tests that look at or damage the tables.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connect to ASKUSER_TEST_PG")
    }
}

impl std::ops::Deref for TestPg {
    type Target = askuser_postgres::PgLog;
    fn deref(&self) -> &Self::Target {
        &self.log
    }
}

impl Drop for TestPg {
    fn drop(&mut self) {
        let schema = self.log.schema().to_owned();
        if let Ok(mut client) = postgres::Client::connect(&self.url, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"));
        }
    }
}

/// A PostgreSQL log in a fresh schema on the `ASKUSER_TEST_PG` server, with the
/// test clock and buffered commits (as the sled logs of the suite).
pub fn pg() -> TestPg {
    let url = pg_url();
    let log = askuser_postgres::PgLog::connect_in(&url, &fresh_schema())
        .unwrap_or_else(|error| panic!("{error}"))
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    TestPg { log, url }
}

/// As [`pg`], over TCP and TLS (`sslmode=verify-full`) to the same server.
pub fn pg_tls() -> TestPg {
    let log = askuser_postgres::PgLog::connect_in(&pg_tls_url(), &fresh_schema())
        .unwrap_or_else(|error| panic!("{error}"))
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    TestPg { log, url: pg_url() }
}
