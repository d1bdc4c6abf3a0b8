//! Helpers shared by the store's integration tests.
#![allow(dead_code, missing_docs)]

pub mod processes;

use std::sync::Arc;

use askuser_core::{
    AnsweredBy, CancelReason, Event, Form, InquiryId, Origin, Persistence, Policy, Request, Target,
    parse_form,
};
use askuser_store::{Durability, Log, ManualClock, MemLog, SharedSledLog, SledLog, Timestamp};
use serde_json::{Value, json};

/// 2025-03-01T00:00:00Z.
pub const T0: Timestamp = Timestamp(1_740_787_200_000);

pub fn clock() -> Arc<ManualClock> {
    ManualClock::new(T0)
}

pub fn mem() -> MemLog {
    MemLog::new().with_clock(clock())
}

/// A sled log in a fresh temporary directory (kept alive by the returned guard).
pub fn sled() -> (SledLog, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = SledLog::open(dir.path().join("db"))
        .expect("open sled")
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    (log, dir)
}

/// A client of a log that another process owns (kept alive by the returned guard).
pub fn remote() -> (SharedSledLog, processes::Owner) {
    let owner = processes::Owner::start();
    let log = SharedSledLog::open_with(&owner.path, Durability::Buffered, clock())
        .expect("reach the owner");
    assert!(!log.is_owner(), "the helper owns the log");
    (log, owner)
}

pub fn form(arguments: &Value) -> Arc<Form> {
    Arc::clone(parse_form(arguments).expect("a valid form").form())
}

/// "Which database should we use?" (select) then "Migrate the data now?" (boolean).
pub fn db_form() -> Arc<Form> {
    form(&json!({"questions": [
        {"id": "db", "text": "Which database should we use?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite", "MySQL"]},
        {"id": "migrate", "text": "Migrate the data now?", "answer_type": "boolean"},
    ]}))
}

/// Tags to attach (multi-select) then a free-text comment with a default.
pub fn tags_form() -> Arc<Form> {
    form(&json!({"questions": [
        {"id": "tags", "text": "Which tags apply?", "answer_type": "multi_select",
         "options": ["bug", "feature", "docs"], "allow_other": true},
        {"id": "comment", "text": "Any comment?", "answer_type": "text", "default": "none"},
    ]}))
}

pub fn requested(inquiry: &str, form: Arc<Form>) -> Event {
    Event::Requested(Request {
        inquiry: InquiryId::new(inquiry),
        form,
        policy: Policy::default(),
        origin: Origin::default(),
        call: None,
    })
}

pub fn requested_with(inquiry: &str, form: Arc<Form>, policy: Policy, turn: &str) -> Event {
    Event::Requested(Request {
        inquiry: InquiryId::new(inquiry),
        form,
        policy,
        origin: Origin {
            turn: turn.to_owned(),
            ..Origin::default()
        },
        call: None,
    })
}

pub fn answered(inquiry: &str, question: &str, value: Value) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
        value,
        by: AnsweredBy::User,
        remember: false,
        note: None,
    }
}

pub fn answered_by(
    inquiry: &str,
    question: &str,
    value: Value,
    by: AnsweredBy,
    remember: bool,
) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
        value,
        by,
        remember,
        note: None,
    }
}

pub fn back(inquiry: &str) -> Event {
    Event::Back {
        inquiry: InquiryId::new(inquiry),
    }
}

pub fn cancelled(inquiry: &str, reason: CancelReason) -> Event {
    Event::Cancelled {
        inquiry: InquiryId::new(inquiry),
        reason,
        message: None,
    }
}

pub fn turn_ended(inquiry: &str) -> Event {
    Event::TurnEnded {
        inquiry: InquiryId::new(inquiry),
    }
}

/// A policy that routes to the assistant and remembers answers for the turn.
pub fn assistant_policy() -> Policy {
    Policy {
        target: Target::Assistant,
        exclusive: false,
        persistence: Persistence::Turn,
        label: None,
        ..Policy::default()
    }
}

/// A policy with no person present (exclusive: the inquiry fails).
pub fn headless_policy() -> Policy {
    Policy {
        interactive: false,
        ..Policy::default()
    }
}

/// A user policy that remembers answers for the turn.
pub fn remembering_policy() -> Policy {
    Policy {
        persistence: Persistence::Turn,
        ..Policy::default()
    }
}

/// The PostgreSQL server the tests use: `ASKUSER_TEST_PG`, a URL. The tests fail
/// (never skip) without it.
#[cfg(feature = "postgres")]
pub fn pg_url() -> String {
    match std::env::var("ASKUSER_TEST_PG") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "ASKUSER_TEST_PG is not set: the PostgreSQL tests need a server. Start the \
             project's private one with scripts/postgres.sh and run\n    \
             export ASKUSER_TEST_PG=\"$(scripts/postgres.sh | tail -n 1)\"\nthen run the \
             tests again (or build without the feature `postgres`)."
        ),
    }
}

/// The same server over TCP and TLS: `ASKUSER_TEST_PG_TLS`, a URL with
/// `sslmode=verify-full` and the server's CA (`scripts/postgres.sh tls-url`).
#[cfg(feature = "postgres")]
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
#[cfg(feature = "postgres")]
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
#[cfg(feature = "postgres")]
pub struct TestPg {
    pub log: askuser_store::PgLog,
    pub url: String,
}

#[cfg(feature = "postgres")]
impl TestPg {
    /// A raw client on the test server, for tests that look at or damage the tables.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connect to ASKUSER_TEST_PG")
    }
}

#[cfg(feature = "postgres")]
impl std::ops::Deref for TestPg {
    type Target = askuser_store::PgLog;
    fn deref(&self) -> &Self::Target {
        &self.log
    }
}

#[cfg(feature = "postgres")]
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
#[cfg(feature = "postgres")]
pub fn pg() -> TestPg {
    let url = pg_url();
    let log = askuser_store::PgLog::connect_in(&url, &fresh_schema())
        .unwrap_or_else(|error| panic!("{error}"))
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    TestPg { log, url }
}

/// As [`pg`], over TCP and TLS (`sslmode=verify-full`) to the same server.
#[cfg(feature = "postgres")]
pub fn pg_tls() -> TestPg {
    let log = askuser_store::PgLog::connect_in(&pg_tls_url(), &fresh_schema())
        .unwrap_or_else(|error| panic!("{error}"))
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    TestPg { log, url: pg_url() }
}

/// Every event of `stream`, read from its first.
pub fn events_of(log: &dyn Log, stream: &str) -> Vec<Event> {
    log.read(stream, 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect()
}

/// The `Back` events a `write` helper appends, by writer (the inquiry id
/// `WRITER-k`), each writer's `k` in the order read.
pub fn writes_by_writer(
    log: &dyn Log,
    stream: &str,
) -> std::collections::BTreeMap<String, Vec<u64>> {
    let mut by_writer: std::collections::BTreeMap<String, Vec<u64>> =
        std::collections::BTreeMap::new();
    for event in events_of(log, stream) {
        let Event::Back { inquiry } = event else {
            panic!("not a helper's event");
        };
        let (writer, k) = inquiry.as_str().rsplit_once('-').unwrap();
        by_writer
            .entry(writer.to_owned())
            .or_default()
            .push(k.parse().unwrap());
    }
    by_writer
}
