//! `askuser log list` tells when each stream was created as a person reads it
//! (`3 min ago`, `today 09:14`, `yesterday 17:02`, in the local time zone),
//! exactly in UTC to the second with `--utc`, and exactly (with the
//! milliseconds) in its JSON. The streams are recorded with the times given
//! (a clock the test sets), and the command runs in a time zone where it is
//! just after noon, so every word is known.

mod common;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use askuser_app::log::{Clock, Log, ManualClock, Session, Timestamp};
use askuser_core::Input;
use askuser_sled::SledLog;
use common::{Scratch, askuser_in};

/// A minute, in milliseconds.
const MIN: u64 = 60_000;

/// The wall clock's current minute, and the `TZ` in which it is noon.
fn noon_now() -> (u64, String) {
    let now = || {
        u64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
    };
    // Early in a minute, so that what follows takes place within it.
    if now() % MIN > 45_000 {
        std::thread::sleep(std::time::Duration::from_millis(MIN + 500 - now() % MIN));
    }
    let now = now();
    let minute = now - now % MIN;
    let of_day = i64::try_from(minute / MIN % 1440).unwrap();
    let mut offset = (720 - of_day).rem_euclid(1440);
    if offset > 720 {
        offset -= 1440;
    }
    let sign = if offset >= 0 { '-' } else { '+' };
    let tz = format!("ASK{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60);
    (minute, tz)
}

/// `askuser log list ARGS --db DB` in the time zone `tz`: its standard output.
fn list(scratch: &Scratch, tz: &str, args: &[&str]) -> String {
    let db = scratch.db();
    let mut all = vec!["log", "list"];
    all.extend(args);
    all.extend(["--db", db.as_str()]);
    let output = askuser_in(scratch.dir.path(), None, &all)
        .env("TZ", tz)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stdout).unwrap()
}

/// The moment `at` as the JSON says it (RFC 3339, milliseconds).
fn iso(at: u64) -> String {
    Timestamp(at).to_string()
}

#[test]
fn log_list_says_when_in_words_exactly_in_utc_and_in_json() {
    let scratch = Scratch::new();
    let (noon, tz) = noon_now();
    // Four streams, created 3 min ago, at 09:14 today, at 17:02 yesterday and
    // 4 days ago (local time); the seconds and milliseconds are the log's own.
    // The first is a little more than 3 min before the minute the list runs
    // in: "ago" counts whole minutes, and the list may run as early as half a
    // second into its minute.
    let created = [
        ("a-recent", noon - 3 * MIN - 1_234),
        ("b-morning", noon - (2 * 60 + 46) * MIN + 5_678),
        ("c-yesterday", noon - (18 * 60 + 58) * MIN + 42_017),
        ("d-older", noon - 4 * 24 * 60 * MIN),
    ];
    {
        let clock = ManualClock::new(Timestamp(noon));
        let log: Arc<dyn Log> = Arc::new(
            SledLog::open(scratch.db())
                .unwrap()
                .with_clock(Arc::clone(&clock) as Arc<dyn Clock>),
        );
        for (stream, at) in created {
            clock.set(Timestamp(at));
            let mut session = Session::open(Arc::clone(&log), stream).unwrap();
            let origin = askuser_testkit::build::agent("Claude Code");
            session.handle(&Input::Attach(origin)).unwrap();
        }
    }
    assert_eq!(
        list(&scratch, &tz, &[]),
        "a-recent  1 event, created 3 min ago; finished\n\
         b-morning  1 event, created today 09:14; finished\n\
         c-yesterday  1 event, created yesterday 17:02; finished\n\
         d-older  1 event, created 4 days ago; finished\n"
    );
    let exact = |at: u64| {
        let iso = iso(at);
        format!("{} {} UTC", &iso[..10], &iso[11..19])
    };
    assert_eq!(
        list(&scratch, &tz, &["--utc"]),
        created
            .iter()
            .map(|(stream, at)| format!("{stream}  1 event, created {}; finished\n", exact(*at)))
            .collect::<Vec<_>>()
            .concat()
    );
    assert_eq!(
        list(&scratch, &tz, &["--json"]),
        created
            .iter()
            .map(|(stream, at)| format!(
                "{{\"stream\":\"{stream}\",\"events\":1,\"created_at\":\"{}\",\"created_at_ms\":{at},\"forked_from\":null,\"compacted_through\":0,\"status\":\"finished\"}}\n",
                iso(*at)
            ))
            .collect::<Vec<_>>()
            .concat()
    );
}
