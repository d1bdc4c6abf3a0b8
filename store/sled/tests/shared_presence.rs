//! Presence leases on a sled log shared through its owner: an agent in another
//! process (the `askuser-store-sharedtest` helper's `wait-on`) renews its lease
//! with the owner (a third process); killed, it is seen gone once its lease
//! expires; stopped cleanly, its lease ends at once and the stream records it.

mod common;

use std::time::{Duration, Instant};

use askuser_core::AgentOrigin;
use askuser_sled::SharedSledLog;
use askuser_store::presence::presence_of;
use askuser_store::words::{Length, event_words};
use askuser_store::{Leases, Log, Presence};
use common::processes::{Helper, path_str};

fn origin(host: &str) -> AgentOrigin {
    AgentOrigin {
        host: Some(host.into()),
        machine: Some("test".into()),
        ..AgentOrigin::default()
    }
}

/// Starts `wait-on` for `host` on stream `s`; its holder id.
fn agent(path: &str, host: &str) -> (Helper, String) {
    let mut helper = Helper::start(&["wait-on", path, "s", host]);
    let line = helper.line();
    let holder = line.strip_prefix("waiting as ").expect(&line).to_owned();
    assert!(holder.starts_with("test:"), "{holder}");
    (helper, holder)
}

/// A log in a new directory, owned by a helper process, and this process's
/// client of it: the directory (kept while it lives), the log's path, the
/// owner and the client.
fn owned_by_a_helper() -> (tempfile::TempDir, std::path::PathBuf, Helper, SharedSledLog) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let mut owner = Helper::start(&["own", path_str(&path)]);
    assert_eq!(owner.line(), "owner");
    let log = SharedSledLog::open(&path).unwrap();
    assert!(!log.is_owner());
    (dir, path, owner, log)
}

fn leases(log: &SharedSledLog) -> Leases {
    log.leases().unwrap().expect("today's owner keeps leases")
}

#[test]
fn an_agent_is_present_through_the_owner_until_killed_or_stopped() {
    let (_dir, path, owner, log) = owned_by_a_helper();

    let (killed, holder) = agent(path_str(&path), "Claude Code");
    let info = log.info("s").unwrap();
    let now = leases(&log);
    let [lease] = &now.leases[..] else {
        panic!("{now:?}")
    };
    assert_eq!(
        (
            &lease.stream[..],
            &lease.holder,
            &lease.origin,
            lease.ttl_ms,
            lease.ended_at
        ),
        ("s", &holder, &origin("Claude Code"), 6000, None)
    );
    assert_eq!(
        presence_of(&info, true, Some(&now)),
        Presence::Waiting(origin("Claude Code"))
    );

    // Killed: it renews no more, and a few seconds later nobody waits.
    killed.kill();
    let started = Instant::now();
    let gone = loop {
        let now = leases(&log);
        if let Presence::Gone { since: Some(since) } = presence_of(&info, true, Some(&now)) {
            break (since, now.leases[0].expires_at());
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "still present: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(gone.0, gone.1);

    // Stopped cleanly: its lease ends at once, and the stream says so.
    let (stopped, second) = agent(path_str(&path), "Codex");
    assert_eq!(
        presence_of(&info, true, Some(&leases(&log))),
        Presence::Waiting(origin("Codex"))
    );
    assert!(stopped.finish());
    let now = leases(&log);
    let ended = now.leases.iter().find(|l| l.holder == second).unwrap();
    assert_eq!(
        presence_of(&info, true, Some(&now)),
        Presence::Gone {
            since: ended.ended_at
        }
    );
    let words: Vec<String> = (log.read("s", 1).unwrap())
        .map(|r| event_words(&r.unwrap().event, None, Length::Short))
        .collect();
    assert_eq!(
        words,
        [
            "Claude Code · test started waiting",
            "Codex · test started waiting",
            "Codex · test stopped waiting"
        ]
    );
    assert!(owner.finish());
}

/// A client that asks the owner for a lease of an hour (one `RenewLease`
/// over the socket) gets the documented 6 s: a killed agent is never shown
/// waiting for an hour.
#[test]
fn a_lease_asked_for_an_hour_lasts_six_seconds() {
    let (_dir, _path, owner, log) = owned_by_a_helper();
    log.renew_lease("s", "test:1", &origin("Codex"), Duration::from_secs(3600))
        .unwrap();
    let now = leases(&log);
    let [lease] = &now.leases[..] else {
        panic!("{now:?}")
    };
    assert_eq!((lease.holder.as_str(), lease.ttl_ms), ("test:1", 6000));
    drop(log);
    owner.kill();
}

/// One process asking the owner for 5,000 leases gets 256 (the most one
/// process may hold), the rest refused in words; an agent started after, in
/// another process, still gets its presence and is seen waiting.
#[test]
fn a_flood_of_leases_from_one_process_is_capped_and_an_agent_after_it_is_present() {
    let (_dir, path, owner, log) = owned_by_a_helper();
    let mut refusals = std::collections::BTreeMap::new();
    let mut kept = Vec::new();
    let ttl = Duration::from_secs(6);
    for n in 0..5000 {
        let stream = format!("flood-{n}");
        match log.renew_lease(&stream, "test:1", &origin("flood"), ttl) {
            Ok(_) => kept.push(stream),
            Err(error) => *refusals.entry(error.to_string()).or_insert(0) += 1,
        }
        // The flood keeps what it holds, as a holder renews its leases.
        if n % 100 == 99 {
            for stream in &kept {
                log.renew_lease(stream, "test:1", &origin("flood"), ttl)
                    .unwrap();
            }
        }
    }
    assert_eq!(kept.len(), 256);
    assert_eq!(
        refusals.into_iter().collect::<Vec<_>>(),
        [(
            "a presence lease cannot be kept: this process already holds 256 presence leases on this log, the most one process may: end some (each waiting agent holds one)".to_owned(),
            4744
        )]
    );
    let (agent, holder) = agent(path_str(&path), "Claude Code");
    let info = log.info("s").unwrap();
    let now = leases(&log);
    assert_eq!(
        presence_of(&info, true, Some(&now)),
        Presence::Waiting(origin("Claude Code"))
    );
    let live: Vec<&str> = (now.leases.iter())
        .filter(|lease| lease.live_at(now.now) && lease.stream == "s")
        .map(|lease| lease.holder.as_str())
        .collect();
    assert_eq!(live, [holder.as_str()]);
    agent.kill();
    drop(log);
    owner.kill();
}
