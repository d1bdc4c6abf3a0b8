//! Subscriptions on a log many machines share: a subscription to a stream of a
//! PostgreSQL log (the server of `ASKUSER_TEST_PG`, a schema of its own) is
//! woken by an append another process makes, through `LISTEN`/`NOTIFY`; a
//! subscription to another stream is not. The other process is this test
//! program again, started with `ASKUSER_WATCH_APPEND` set.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use askuser_app::watch::{Change, Watcher};
use askuser_postgres::PgLog;
use askuser_store::Log;
use askuser_testkit::build::back;

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

/// What the other process does: with `ASKUSER_WATCH_APPEND=SCHEMA`, appends one
/// event to the stream `chat` of that schema's log once a line arrives on
/// stdin (after printing `ready`); without it, nothing.
#[test]
fn appender() {
    let Ok(schema) = std::env::var("ASKUSER_WATCH_APPEND") else {
        return;
    };
    let log = PgLog::connect_in(&pg_url(), &schema).unwrap();
    // Past the test harness's capture of `println!`.
    let mut out = std::io::stdout();
    out.write_all(b"ready\n").unwrap();
    out.flush().unwrap();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    askuser_testkit::record(&log, "chat", 1, &[back("c1")]).unwrap();
}

#[test]
fn a_subscription_on_postgres_is_woken_by_an_append_from_another_process() {
    let url = pg_url();
    let schema = format!("watch_{}", std::process::id());
    let log: Arc<dyn Log> = Arc::new(PgLog::connect_in(&url, &schema).unwrap());
    askuser_testkit::record(&*log, "chat", 0, &[back("c0")]).unwrap();
    let watcher = Watcher::of(&log).unwrap();
    let chat = watcher.stream("chat");
    let other = watcher.stream("other");

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "appender", "--test-threads=1"])
        .env("ASKUSER_WATCH_APPEND", &schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.trim_end().ends_with("ready") {
        line.clear();
        assert_ne!(
            output.read_line(&mut line).unwrap(),
            0,
            "the appender ended"
        );
    }
    assert_eq!(chat.take(), None);
    {
        let mut input = child.stdin.take().unwrap();
        writeln!(input, "go").unwrap();
    }
    // Not a timed test: the wait would last a minute; the NOTIFY ends it.
    assert_eq!(
        chat.wait(Duration::from_secs(60)),
        Some(Change {
            appended: true,
            presence: false
        })
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(log.info("chat").unwrap().head, 2);
    assert_eq!(other.take(), None);

    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .unwrap();
}
