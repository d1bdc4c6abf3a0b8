//! Presence leases on the memory log: taken, renewed, expired, ended; what a
//! reader derives from them; and a guard that records the origin in the stream.

use std::sync::Arc;
use std::time::Duration;

use askuser_core::AgentOrigin;
use askuser_store::presence::{LEASE_TTL, presence_of};
use askuser_store::{
    Lease, Leases, Log, ManualClock, MemLog, Presence, PresenceGuard, Session, StoreError,
    Timestamp, transcript,
};

fn origin(host: &str) -> AgentOrigin {
    askuser_testkit::build::agent(host)
}

#[test]
fn a_lease_lives_while_renewed_and_is_gone_after_its_ttl_or_its_end() {
    let clock = ManualClock::new(Timestamp(1_000_000));
    let log = MemLog::new().with_clock(clock.clone());
    let ttl = Duration::from_secs(6);
    assert!(
        log.renew_lease("billing-api-1", "laptop:1:1", &origin("Claude Code"), ttl)
            .unwrap()
    );
    let mut appended = Session::open(Arc::new(MemLog::new()), "billing-api-1").unwrap();
    appended
        .handle(&askuser_core::Input::Attach(origin("Claude Code")))
        .unwrap();
    let info = appended.log().info("billing-api-1").unwrap();

    let read = |log: &MemLog| log.leases().unwrap().unwrap();
    assert_eq!(
        read(&log),
        Leases {
            now: Timestamp(1_000_000),
            leases: vec![Lease {
                stream: "billing-api-1".into(),
                holder: "laptop:1:1".into(),
                origin: origin("Claude Code"),
                renewed_at: Timestamp(1_000_000),
                ttl_ms: 6000,
                ended_at: None,
            }],
        }
    );
    let status = |log: &MemLog| presence_of(&info, true, Some(&read(log)));
    assert_eq!(status(&log), Presence::Waiting(origin("Claude Code")));
    clock.advance(5_999);
    assert_eq!(status(&log), Presence::Waiting(origin("Claude Code")));
    clock.advance(1);
    assert_eq!(
        status(&log),
        Presence::Gone {
            since: Some(Timestamp(1_006_000))
        }
    );
    // Renewed again (the owner restarted, say): waiting once more.
    log.renew_lease("billing-api-1", "laptop:1:1", &origin("Claude Code"), ttl)
        .unwrap();
    assert_eq!(status(&log), Presence::Waiting(origin("Claude Code")));
    clock.advance(100);
    log.end_lease("billing-api-1", "laptop:1:1").unwrap();
    assert_eq!(
        status(&log),
        Presence::Gone {
            since: Some(Timestamp(1_006_100))
        }
    );
    // A stream nobody ever held a lease on: gone since nobody knows when.
    let other = askuser_store::StreamInfo {
        name: "other".into(),
        ..info.clone()
    };
    assert_eq!(
        presence_of(&other, true, Some(&read(&log))),
        Presence::Gone { since: None }
    );
    assert_eq!(presence_of(&info, true, None), Presence::Unknown);
}

#[test]
fn a_fork_without_an_agent_of_its_own_has_nobody_listening() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut session = Session::open(Arc::clone(&log), "billing-api-1").unwrap();
    session
        .handle(&askuser_core::Input::Attach(origin("Claude Code")))
        .unwrap();
    let fork = log.fork("billing-api-1", 1, "billing-api-1-fork").unwrap();
    let leases = log.leases().unwrap();
    assert_eq!(presence_of(&fork, false, leases.as_ref()), Presence::Fork);
    log.renew_lease("billing-api-1-fork", "h:1:1", &origin("codex"), LEASE_TTL)
        .unwrap();
    let leases = log.leases().unwrap();
    assert_eq!(
        presence_of(&fork, false, leases.as_ref()),
        Presence::Waiting(origin("codex"))
    );
}

#[test]
fn hostile_holders_and_origins_are_refused() {
    let log = MemLog::new();
    let refused = |holder: &str, origin: &AgentOrigin| {
        log.renew_lease("s", holder, origin, LEASE_TTL)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused("a b", &origin("x")),
        "a presence lease cannot be kept: a holder id is 1 to 128 bytes of printable text without spaces"
    );
    assert_eq!(
        refused(&"h".repeat(129), &origin("x")),
        refused("", &origin("x"))
    );
    assert_eq!(
        refused("h:1:1", &origin("Claude\u{1b}[2J")),
        "a presence lease cannot be kept: the agent's origin cannot be recorded: its host holds U+001B ESCAPE at character 7; write it as one line of plain text"
    );
    assert!(matches!(
        log.renew_lease("bad name\n", "h:1:1", &origin("x"), LEASE_TTL),
        Err(StoreError::InvalidStreamName { .. })
    ));
    assert_eq!(log.leases().unwrap().unwrap().leases, []);
}

#[test]
fn a_guard_records_the_origin_holds_the_lease_and_ends_it_when_dropped() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut session = Session::open(Arc::clone(&log), "billing-api-1").unwrap();
    let guard =
        PresenceGuard::start(&mut session, "laptop:7:1".into(), origin("Claude Code")).unwrap();
    assert_eq!(guard.holder(), "laptop:7:1");
    assert_eq!(session.state().agent(), Some(&origin("Claude Code")));
    let info = log.info("billing-api-1").unwrap();
    let status = || presence_of(&info, true, log.leases().unwrap().as_ref());
    assert_eq!(status(), Presence::Waiting(origin("Claude Code")));
    drop(guard);
    assert!(matches!(status(), Presence::Gone { since: Some(_) }));
    assert_eq!(
        transcript(&*log, "billing-api-1").unwrap(),
        "Claude Code · billing-api · laptop started waiting.\nClaude Code · billing-api · laptop stopped waiting.\n"
    );
    let words: Vec<String> = log
        .read("billing-api-1", 1)
        .unwrap()
        .map(|r| {
            let event = r.unwrap().event;
            askuser_store::words::event_words(&event, None, askuser_store::words::Length::Long)
        })
        .collect();
    assert_eq!(
        words,
        [
            "attached host=Claude Code, machine=laptop, repository=billing-api",
            "detached host=Claude Code, machine=laptop, repository=billing-api"
        ]
    );
    // A refused origin records nothing and takes no lease.
    let hostile = AgentOrigin {
        machine: Some("\u{202e}".into()),
        ..AgentOrigin::default()
    };
    let mut other = Session::open(Arc::clone(&log), "other").unwrap();
    assert!(PresenceGuard::start(&mut other, "h:1:2".into(), hostile).is_err());
    assert!(log.stream("other").unwrap().is_none());
}

/// A stream opened with its first input is new or not opened at all: a name
/// another process took is `StreamExists`, with nothing recorded, and a refused
/// origin records nothing either.
#[test]
fn a_stream_created_with_its_first_input_is_never_shared() {
    use askuser_core::{Input, Refusal};
    use askuser_store::SessionError;

    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let attach = Input::Attach(origin("Claude Code"));
    let (session, handled) = Session::create(Arc::clone(&log), "billing-api-1", &attach).unwrap();
    assert_eq!(
        (session.head(), handled.seq, handled.commands.len()),
        (1, 1, 0)
    );
    assert_eq!(session.state().agent(), Some(&origin("Claude Code")));

    let again = Session::create(Arc::clone(&log), "billing-api-1", &attach).unwrap_err();
    assert!(
        matches!(&again, SessionError::Store(StoreError::StreamExists(name)) if name == "billing-api-1"),
        "{again:?}"
    );
    assert_eq!(log.info("billing-api-1").unwrap().head, 1);

    let bad = Input::Attach(AgentOrigin {
        host: Some("x".repeat(10_000)),
        ..AgentOrigin::default()
    });
    let refused = Session::create(Arc::clone(&log), "billing-api-2", &bad).unwrap_err();
    assert!(
        matches!(refused.refusal(), Some(Refusal::BadOrigin { .. })),
        "{refused:?}"
    );
    assert_eq!(log.stream("billing-api-2").unwrap(), None);
}
