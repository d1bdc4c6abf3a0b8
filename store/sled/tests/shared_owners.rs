//! Owners that hang or are killed at random, on a sled log shared through
//! `SharedSledLog`: each test runs real processes (the `askuser-store-sharedtest`
//! helper). A hung owner is one that holds sled's lock and listens on the socket
//! but answers nobody, without being stopped.

mod common;

use askuser_store::backend::Backend as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use askuser_core::Event;
use askuser_sled::SharedSledLog;
use askuser_store::Log;
use askuser_testkit::scripted_events;
use common::processes::{Helper, path_str};
use common::{events_of, writes_by_writer};

/// A log with `events` in stream `s`, closed again.
fn log_with(path: &Path, events: &[Event]) {
    let log = SharedSledLog::open(path).unwrap();
    log.append("s", 0, events).unwrap();
}

/// A process opening the log while its owner greets nobody ends it and takes the
/// log over (it used to wait 5 s and fail).
#[test]
fn a_hung_owner_that_greets_nobody_is_ended_and_the_log_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let events: Vec<Event> = scripted_events(1, 2).collect();
    log_with(&path, &events[..1]);
    let mut hung = Helper::start(&["hang", path_str(&path)]);
    assert_eq!(hung.line(), "hanging");
    let started = Instant::now();
    let log = SharedSledLog::open(&path).unwrap();
    let took = started.elapsed();
    assert!(log.is_owner(), "it took the log over");
    eprintln!("taken over in {took:?}");
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert_eq!(log.append("s", 1, &events[1..]).unwrap(), 2);
    assert_eq!(hung.wait().signal(), Some(9));
    let read = events_of(&log, "s");
    assert_eq!(read, events);
}

/// An owner that does not greet but runs (busy, or starved of CPU) is not hung:
/// it is waited for, never ended, and opening the log fails after five seconds
/// with an error naming the socket.
#[test]
fn a_busy_owner_that_does_not_greet_is_waited_for_not_ended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    log_with(&path, &scripted_events(1, 1).collect::<Vec<_>>());
    let mut busy = Helper::start(&["hang", path_str(&path), "spin"]);
    assert_eq!(busy.line(), "hanging");
    let error = SharedSledLog::open(&path).unwrap_err();
    assert!(
        matches!(error, askuser_store::StoreError::OwnerUnreachable { .. }),
        "{error}"
    );
    let state = std::fs::read_to_string(format!("/proc/{}/stat", busy.pid())).unwrap();
    let state = state.rsplit_once(')').unwrap().1.split_whitespace().next();
    assert!(matches!(state, Some("R" | "S")), "not ended: {state:?}");
    busy.kill();
}

/// A client whose owner greeted it and then stops answering (running, not
/// stopped): a second connection's greeting goes unanswered too, so the owner is
/// ended and the client's append goes through, once.
#[test]
fn a_client_whose_owner_hangs_mid_work_ends_it_and_appends_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let events: Vec<Event> = scripted_events(1, 3).collect();
    log_with(&path, &events[..1]);
    let mut hung = Helper::start(&["hang", path_str(&path), "greet"]);
    assert_eq!(hung.line(), "hanging");
    let log = SharedSledLog::open(&path).unwrap();
    assert!(!log.is_owner(), "the hung owner greeted it");
    let started = Instant::now();
    assert_eq!(log.append("s", 1, &events[1..]).unwrap(), 3);
    let took = started.elapsed();
    assert!(log.is_owner(), "it took the log over");
    eprintln!("taken over in {took:?}");
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert_eq!(hung.wait().signal(), Some(9));
    let read = events_of(&log, "s");
    assert_eq!(read, events);
}

/// What one writer slot saw, in order: each `from K` a (re)started writer
/// printed, and the `k` of each append acknowledged to it.
#[derive(Debug, Default)]
struct Slot {
    seen: Vec<Seen>,
    pid: Option<u32>,
    /// How many processes this slot started.
    processes: usize,
}

#[derive(Debug, Clone, Copy)]
enum Seen {
    Started(u64),
    Acked(u64),
}

/// A small deterministic generator (the trial is the same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Eight writer processes append to one stream while processes are killed at
/// random (SIGKILL: the owner, or a client, mid-append or not). Each killed
/// writer starts again after the last of its events in the stream. At the end
/// every writer's events are there once each, in order, and no acknowledged
/// append was lost (a restarted writer never starts at or before an append it
/// was told had landed).
#[test]
fn eight_processes_killed_at_random_lose_nothing_acknowledged_and_duplicate_nothing() {
    const WRITERS: usize = 8;
    const EACH: u64 = 60;
    const KILLS: usize = 16;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let count = EACH.to_string();
    let slots: Vec<Mutex<Slot>> = (0..WRITERS).map(|_| Mutex::default()).collect();
    let slots = &slots;
    let lock = |w: usize| slots[w].lock().unwrap_or_else(PoisonError::into_inner);
    let kills_made = std::thread::scope(|scope| {
        for (w, slot) in slots.iter().enumerate() {
            let (path, count) = (&path, &count);
            scope.spawn(move || {
                loop {
                    let mut writer = Helper::start(&[
                        "write",
                        path_str(path),
                        "s",
                        &format!("w{w}"),
                        count,
                        "10",
                    ]);
                    let pid = writer.pid();
                    {
                        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
                        slot.pid = Some(pid);
                        slot.processes += 1;
                    }
                    let done = follow(&mut writer, slot);
                    slot.lock().unwrap_or_else(PoisonError::into_inner).pid = None;
                    drop(writer);
                    if done {
                        return;
                    }
                }
            });
        }
        let mut random = Lcg(0x5eed);
        let mut kills = 0;
        while kills < KILLS {
            std::thread::sleep(Duration::from_millis(20 + random.below(80)));
            // Every other kill is the owner's (the writer holding sled's lock).
            let owner = owner_pid(&path);
            let w = (0..WRITERS)
                .find(|w| kills % 2 == 0 && owner.is_some() && lock(*w).pid == owner)
                .unwrap_or_else(|| usize::try_from(random.below(WRITERS as u64)).unwrap());
            if let Some(pid) = lock(w).pid {
                let killed = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .unwrap();
                kills += usize::from(killed.success());
            }
            if (0..WRITERS).all(|w| lock(w).pid.is_none()) {
                break;
            }
        }
        kills
    });
    let restarts: usize = slots
        .iter()
        .map(|slot| slot.lock().unwrap().processes - 1)
        .sum();
    eprintln!("{kills_made} kills, {restarts} writers started again");
    assert!(kills_made >= KILLS / 2, "{kills_made} kills");
    assert!(
        (1..=kills_made).contains(&restarts),
        "{restarts} writers started again after {kills_made} kills"
    );
    let log = SharedSledLog::open(&path).unwrap();
    let by_writer = writes_by_writer(&log, "s");
    let expected: Vec<u64> = (0..EACH).collect();
    assert_eq!(by_writer.len(), WRITERS);
    for (writer, ks) in &by_writer {
        assert_eq!(ks, &expected, "writer {writer}: each event once, in order");
    }
    for (w, slot) in slots.iter().enumerate() {
        let slot = slot.lock().unwrap();
        let mut highest: Option<u64> = None;
        for seen in &slot.seen {
            match *seen {
                Seen::Started(from) => assert!(
                    highest.is_none_or(|h| from > h),
                    "writer w{w} started at {from} after {highest:?} was acknowledged"
                ),
                Seen::Acked(k) => highest = Some(k),
            }
        }
        assert_eq!(highest, Some(EACH - 1), "writer w{w}");
    }
}

/// Reads a writer's lines into `slot` until it says `wrote` (true) or dies
/// (false).
fn follow(writer: &mut Helper, slot: &Mutex<Slot>) -> bool {
    loop {
        let line = writer.line();
        let seen = if let Some(from) = line.strip_prefix("from ") {
            Seen::Started(from.parse().unwrap())
        } else if let Some(k) = line.strip_prefix("acked ") {
            Seen::Acked(k.parse().unwrap())
        } else {
            return line.starts_with("wrote ");
        };
        slot.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .seen
            .push(seen);
    }
}

/// The process holding sled's lock on the log at `path` (its owner), from
/// `/proc/locks`.
fn owner_pid(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    let inode = std::fs::metadata(path.join("db")).ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let holds = fields.get(1) == Some(&"FLOCK")
            && fields.get(5)?.rsplit(':').next()?.parse::<u64>().ok()? == inode;
        holds.then(|| fields.get(4)?.parse().ok()).flatten()
    })
}

/// Polls until `log` no longer owns the log (true), for up to ten seconds.
fn lets_go(log: &SharedSledLog) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if !log.is_owner() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// An owner with no client and nothing under way lets the log go after its idle
/// time: another process then takes it, and the first one's next call reaches
/// that process; when that one exits, the first takes the log again.
#[test]
fn an_idle_owner_lets_the_log_go_and_takes_it_again_when_needed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let events: Vec<Event> = scripted_events(1, 3).collect();
    let log = SharedSledLog::open(&path)
        .unwrap()
        .with_owner_idle(Duration::from_millis(300));
    log.append("s", 0, &events[..1]).unwrap();
    assert!(log.is_owner());
    assert!(lets_go(&log), "the idle owner let the log go");
    assert!(!log.socket_path().exists(), "its socket is gone");
    let mut other = Helper::start(&["own", path_str(&path)]);
    assert_eq!(other.line(), "owner", "sled's lock was released");
    assert_eq!(log.append("s", 1, &events[1..2]).unwrap(), 2);
    assert!(!log.is_owner(), "a client of the new owner");
    assert!(other.finish());
    assert_eq!(log.append("s", 2, &events[2..]).unwrap(), 3);
    assert!(log.is_owner(), "it took the log again");
    let read = events_of(&log, "s");
    assert_eq!(read, events);
}

/// An owner keeps the log while a client is connected, and while one of its own
/// waits is under way; then it lets go.
#[test]
fn an_owner_with_a_client_or_a_wait_under_way_is_not_idle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let log = SharedSledLog::open(&path)
        .unwrap()
        .with_owner_idle(Duration::from_millis(200));
    log.append("s", 0, &[scripted_events(1, 1).next().unwrap()])
        .unwrap();
    let mut client = Helper::start(&["own", path_str(&path)]);
    assert_eq!(client.line(), "client");
    std::thread::sleep(Duration::from_secs(1));
    assert!(log.is_owner(), "a client is connected");
    assert!(client.finish());
    // A wait of a second in this process: still owning when it ends.
    assert_eq!(log.wait_past("s", 1, Duration::from_secs(1)).unwrap(), 1);
    assert!(log.is_owner(), "a wait was under way");
    assert!(lets_go(&log));
}

/// An idle owner repacks the streams it appended to one event at a time before
/// it lets the log go: nothing is left to repack then, and the events read the
/// same.
#[test]
fn an_idle_owner_repacks_what_it_appended_one_event_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let events: Vec<Event> = scripted_events(1, 200).collect();
    let log = SharedSledLog::open(&path)
        .unwrap()
        .with_owner_idle(Duration::from_millis(200));
    for (seq, event) in (0..).zip(&events) {
        log.append("s", seq, std::slice::from_ref(event)).unwrap();
    }
    assert!(lets_go(&log));
    drop(log);
    let sled = askuser_sled::SledLog::open(&path).unwrap();
    let again = askuser_store::compact::repack(&sled, "s").unwrap();
    assert_eq!(again.events, 0, "{again:?}");
    let read = events_of(&sled, "s");
    assert_eq!(read, events);
}

/// The state letter of process `pid` (`/proc/PID/stat`), if it exists.
fn state_of(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

/// An unrelated process (`sleep`) given process id `pid`, which is free: the
/// kernel hands out the next id after `ns_last_pid` (root only; `None` if it
/// cannot be arranged).
fn sleeper_with_pid(pid: u32) -> Option<std::process::Child> {
    for _ in 0..200 {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).ok()?;
        let mut child = std::process::Command::new("sleep").arg("60").spawn().ok()?;
        if child.id() == pid {
            return Some(child);
        }
        drop(child.kill());
        drop(child.wait());
    }
    None
}

/// An owner that left sled's lock and its listening socket to a child and
/// exited (as across a fork), its process id then given to an unrelated
/// process: the socket's peer and `/proc/locks` still name that id, but
/// neither the unrelated process nor the stopped child is the owner recorded
/// beside the socket, so neither is ended, and opening the log fails saying
/// why and what to do. (It used to end the unrelated process.)
#[test]
fn a_process_that_only_inherited_the_lock_and_socket_is_never_ended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    log_with(&path, &scripted_events(1, 1).collect::<Vec<_>>());
    let mut forked = Helper::start(&["inherit", path_str(&path)]);
    let child: u32 = forked.line().parse().unwrap();
    let _child = KilledWhenDropped(child);
    let exited = forked.pid();
    assert!(forked.wait().success());
    while state_of(child) != Some('T') {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut sleeper =
        sleeper_with_pid(exited).expect("the exited owner's pid given to sleep (as root)");
    let error = SharedSledLog::open(&path).unwrap_err();
    let (socket, record, lock) = (
        path.join("askuser.sock"),
        path.join("askuser.owner"),
        path.join("db"),
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the log is held by another askuser process, which does not answer on {}: no answer within 5 s, and pid {exited} is not the owner recorded in {}: that process has exited, and its number was given to another, so nothing was ended: end the process that holds {} (`fuser {}` names it)",
            socket.display(),
            record.display(),
            lock.display(),
            lock.display()
        )
    );
    assert_eq!(
        sleeper.try_wait().unwrap(),
        None,
        "the unrelated process lives"
    );
    assert_eq!(
        state_of(child),
        Some('T'),
        "the stopped child is left alone"
    );
    drop(sleeper.kill());
    drop(sleeper.wait());
}

/// A helper's child, ended (`SIGKILL`) when the test ends, even on failure.
struct KilledWhenDropped(u32);

impl Drop for KilledWhenDropped {
    fn drop(&mut self) {
        drop(
            std::process::Command::new("kill")
                .args(["-KILL", &self.0.to_string()])
                .status(),
        );
    }
}

/// Sends `signal` (`-TSTP`, `-CONT`, ...) to process `pid`.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until process `pid` is stopped.
fn until_stopped(pid: u32) {
    let started = Instant::now();
    while state_of(pid) != Some('T') {
        assert!(started.elapsed() < Duration::from_secs(20), "not stopped");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A person's process (`askuser ask`) that owns the log and is stopped with
/// Ctrl-Z (`SIGTSTP`) lets the log go before it stops: another process takes
/// it over at once, ends nothing, and the stopped process, continued (`fg`),
/// carries on as a client. (A stopped owner used to be ended after a second.)
#[test]
fn a_persons_owner_hands_the_log_over_before_it_stops_and_carries_on_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let mut person = Helper::start(&["person", path_str(&path)]);
    assert_eq!(person.line(), "owner");
    person.send("append s");
    assert_eq!(person.line(), "appended 1 as owner");
    signal(person.pid(), "-TSTP");
    until_stopped(person.pid());
    let log = SharedSledLog::open(&path).unwrap();
    assert!(log.is_owner(), "the log was handed over");
    assert_eq!(
        log.append("s", 1, &scripted_events(1, 1).collect::<Vec<_>>())
            .unwrap(),
        2
    );
    assert_eq!(state_of(person.pid()), Some('T'), "not ended");
    signal(person.pid(), "-CONT");
    person.send("append s");
    assert_eq!(person.line(), "appended 3 as client");
    assert!(person.finish());
}

/// A person's owner stopped by other means (`SIGSTOP`, a debugger), which it
/// cannot hand the log over for, is never ended: opening the log fails saying
/// to resume it.
#[test]
fn a_persons_owner_stopped_otherwise_is_never_ended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let mut person = Helper::start(&["person", path_str(&path)]);
    assert_eq!(person.line(), "owner");
    let pid = person.pid();
    signal(pid, "-STOP");
    until_stopped(pid);
    let error = SharedSledLog::open(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the log is held by another askuser process, which does not answer on {}: the askuser process that holds the log (pid {pid}) is a person's (askuser ask or resume) and is stopped; it is never ended: resume it (fg, or kill -CONT {pid})",
            path.join("askuser.sock").display()
        )
    );
    assert_eq!(state_of(pid), Some('T'), "not ended");
    signal(pid, "-CONT");
    person.send("append s");
    assert_eq!(person.line(), "appended 1 as owner");
    assert!(person.finish());
}

/// A FIFO planted under the owner's record's name (another process of the
/// same user, or a bug) is neither waited on nor read: a client that finds the
/// owner hung checks the record before it ends anything, and a record that is
/// not a regular file proves nothing, so nothing is ended and opening the log
/// fails at once, saying what to remove. (Opening the FIFO used to block the
/// client for good.)
#[test]
fn a_fifo_in_place_of_the_owners_record_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    log_with(&path, &scripted_events(1, 1).collect::<Vec<_>>());
    let mut hung = Helper::start(&["hang", path_str(&path)]);
    assert_eq!(hung.line(), "hanging");
    let record = path.join("askuser.owner");
    std::fs::remove_file(&record).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&record)
        .status()
        .unwrap();
    assert!(made.success());
    let error = SharedSledLog::open(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the log is held by another askuser process, which does not answer on {}: no answer within 5 s, and {} is not a regular file (askuser writes its owner's record as one: remove it), so nothing was ended: end the process that holds {} (`fuser {}` names it)",
            path.join("askuser.sock").display(),
            record.display(),
            path.join("db").display(),
            path.join("db").display()
        )
    );
    assert_eq!(
        state_of(hung.pid()).map(|s| s != 'Z'),
        Some(true),
        "the owner was not ended"
    );
    hung.kill();
}
