//! Presence leases in PostgreSQL (table `presence`, schema version 3): two logs
//! on one database (as two hosts) see each other's leases, timed by the
//! database's clock; a lease that is not renewed expires, one ended says when.

mod common;

use askuser_store::backend::Backend as _;
use std::time::Duration;

use askuser_core::AgentOrigin;
use askuser_postgres::PgLog;
use askuser_store::presence::presence_of;
use askuser_store::{Log, Presence};
use askuser_testkit::scripted_events;
use common::*;

fn origin(host: &str) -> AgentOrigin {
    askuser_testkit::build::agent(host)
}

#[test]
fn leases_are_shared_by_hosts_and_timed_by_the_database() {
    let log = pg();
    let other = PgLog::connect_in(&log.url, log.schema()).unwrap();
    log.append("s", 0, &scripted_events(1, 1).collect::<Vec<_>>())
        .unwrap();
    let info = log.info("s").unwrap();

    let before = other.leases().unwrap().expect("PostgreSQL keeps leases");
    assert_eq!(before.leases, []);
    assert!(before.now.millis() > 0);
    assert!(
        log.renew_lease(
            "s",
            "laptop:1:1",
            &origin("Claude Code"),
            Duration::from_secs(6)
        )
        .unwrap()
    );

    // The other host sees it, live, with the origin as given.
    let seen = other.leases().unwrap().unwrap();
    let [lease] = &seen.leases[..] else {
        panic!("{seen:?}")
    };
    assert_eq!(
        (
            &lease.stream[..],
            &lease.holder[..],
            &lease.origin,
            lease.ttl_ms,
            lease.ended_at
        ),
        ("s", "laptop:1:1", &origin("Claude Code"), 6000, None)
    );
    assert!(lease.renewed_at <= seen.now && seen.now < lease.expires_at());
    assert_eq!(
        presence_of(&info, true, Some(&seen)),
        Presence::Waiting(origin("Claude Code"))
    );

    // Not renewed: expired once its time on the database's clock passed.
    log.renew_lease(
        "s",
        "laptop:1:1",
        &origin("Claude Code"),
        Duration::from_millis(50),
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let expired = other.leases().unwrap().unwrap();
    let lease = &expired.leases[0];
    assert_eq!(
        presence_of(&info, true, Some(&expired)),
        Presence::Gone {
            since: Some(lease.expires_at())
        }
    );

    // Renewed by a second holder and ended cleanly: gone since it ended.
    other
        .renew_lease("s", "desk:2:1", &origin("Codex"), Duration::from_secs(6))
        .unwrap();
    assert_eq!(
        presence_of(&info, true, other.leases().unwrap().as_ref()),
        Presence::Waiting(origin("Codex"))
    );
    other.end_lease("s", "desk:2:1").unwrap();
    let ended = log.leases().unwrap().unwrap();
    let desk = ended
        .leases
        .iter()
        .find(|l| l.holder == "desk:2:1")
        .unwrap();
    assert!(desk.ended_at.is_some());
    assert_eq!(
        presence_of(&info, true, Some(&ended)),
        Presence::Gone {
            since: desk.ended_at
        }
    );

    // What a host may not keep is refused before the database sees it.
    let hostile = AgentOrigin {
        host: Some("a\u{7}".into()),
        ..AgentOrigin::default()
    };
    assert_eq!(
        log.renew_lease("s", "h:1:1", &hostile, Duration::from_secs(6))
            .unwrap_err()
            .to_string(),
        "a presence lease cannot be kept: the agent's origin cannot be recorded: its host holds U+0007 BELL at character 2; write it as one line of plain text"
    );
}

/// A lease asked for an hour is kept for the documented six seconds: a dead
/// agent never reads "waiting now" for an hour.
#[test]
fn a_lease_asked_for_an_hour_lasts_six_seconds() {
    let log = pg();
    log.renew_lease("s", "test:1", &origin("Codex"), Duration::from_secs(3600))
        .unwrap();
    let now = log.leases().unwrap().unwrap();
    let [lease] = &now.leases[..] else {
        panic!("{now:?}")
    };
    assert_eq!((lease.holder.as_str(), lease.ttl_ms), ("test:1", 6000));
}

/// One process asking for 1,000 leases gets 256 (the most one process may
/// hold), the rest refused in words; an agent in another process (another open
/// log) still gets its presence, and a lease ended makes room.
#[test]
fn a_flood_of_leases_from_one_process_is_capped_and_an_agent_after_it_is_present() {
    let log = pg();
    let mut refusals = std::collections::BTreeMap::new();
    let mut kept = 0;
    for n in 0..1000 {
        let stream = format!("flood-{n}");
        match log.renew_lease(&stream, "test:1", &origin("flood"), Duration::from_secs(6)) {
            Ok(_) => kept += 1,
            Err(error) => *refusals.entry(error.to_string()).or_insert(0) += 1,
        }
    }
    assert_eq!(kept, 256);
    assert_eq!(
        refusals.into_iter().collect::<Vec<_>>(),
        [(
            "a presence lease cannot be kept: this process already holds 256 presence leases on this log, the most one process may: end some (each waiting agent holds one)".to_owned(),
            744
        )]
    );
    let agent = PgLog::connect_in(&log.url, log.schema()).unwrap();
    agent
        .renew_lease(
            "mine",
            "laptop:9:1",
            &origin("Claude Code"),
            Duration::from_secs(6),
        )
        .unwrap();
    log.end_lease("flood-0", "test:1").unwrap();
    log.renew_lease(
        "flood-999",
        "test:1",
        &origin("flood"),
        Duration::from_secs(6),
    )
    .unwrap();
    let seen = agent.leases().unwrap().unwrap();
    let live = seen.leases.iter().filter(|l| l.ended_at.is_none()).count();
    assert_eq!(live, 257);
}
