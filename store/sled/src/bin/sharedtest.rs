//! Test support for `tests/shared.rs` and the shared-log suite, not a tool: one
//! process using a sled log through `SharedSledLog`.
//!
//! - `own DB [MILLIS]`: opens the log (with buffered appends, and a clock stopped
//!   at `MILLIS` when given), prints `owner` or `client`, and holds it until its
//!   standard input closes.
//! - `write DB STREAM WRITER COUNT [PAUSE_MS]`: appends `COUNT` events (`Back` of inquiry
//!   `WRITER-k`), one at a time at the head it reads, again after each conflict;
//!   prints `wrote COUNT`. It starts after the last of its events already in the
//!   stream (a writer killed and started again), printing `from K`, and prints
//!   `acked K` as each append returns (then pauses `PAUSE_MS`, if given).
//! - `hang DB [greet|spin]`: holds sled's lock on the log and listens on its
//!   socket like an owner, accepting connections and answering none (a hung
//!   owner); prints `hanging`. With `greet`, it greets its first connection as an
//!   owner does, then answers nothing more on it; with `spin`, a thread of it
//!   runs all the time (a busy owner, not a hung one).
//! - `inherit DB`: holds sled's lock on the log and listens on its socket as
//!   its recorded owner, then leaves both to a child (`sit`) and exits, as an
//!   owner that forked would; prints the child's pid.
//! - `person DB`: a person's process ([`askuser_sled::hand_over_when_stopped`]):
//!   opens the log, prints `owner` or `client`; then for each line `append
//!   STREAM` it reads, appends an event at the head and prints `appended HEAD as
//!   owner` (or `client`), until its input closes.
//! - `sit`: stops itself (`SIGSTOP`), and does nothing once continued.
//! - `flood DB CONNECTIONS`: connects `CONNECTIONS` times to the log's socket,
//!   greeting none; prints `connected N, turned away M` (those the owner
//!   closed at once), then holds them until its input closes.
//! - `frames DB COUNT`: on `COUNT` connections, one after the other, starts a
//!   frame of the largest size and sends all of it but its last byte; prints
//!   for each `open`, or `refused: WHY` (the owner's error frame), then holds
//!   them until its input closes.
//! - `wait DB STREAM SEQ`: prints `waiting`, waits (up to a minute) for the head
//!   of `STREAM` to pass `SEQ`, and prints the head.
//! - `wait-on DB STREAM HOST`: an agent waiting on `STREAM` (a
//!   [`PresenceGuard`](askuser_store::PresenceGuard) with the origin `HOST` on
//!   machine `test`); prints `waiting as HOLDER`, and stops cleanly (the guard
//!   dropped) when its input closes, printing `stopped`.
//! - `answer DB STREAM INQUIRY QUESTION JSON`: opens a session on `STREAM`, prints
//!   `ready`, reads a line, answers, and prints `recorded SEQ` or `refused: WHY`.

use askuser_store::backend::Backend as _;
use std::io::{BufRead, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use askuser_core::Event;
use askuser_sled::test_support::{owner_greeting_frame, write_owner_record};
use askuser_sled::{SharedSledLog, SledLog};
use askuser_store::{
    Durability, Log, ManualClock, SessionError, StoreError, SystemClock, Timestamp,
};
use askuser_testkit::build::back;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sharedtest: {error}");
            ExitCode::FAILURE
        }
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    drop(writeln!(out, "{line}").and_then(|()| out.flush()));
}

fn read_line() -> String {
    let mut line = String::new();
    drop(std::io::stdin().lock().read_line(&mut line));
    line
}

fn run(args: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    match args {
        ["own", db, rest @ ..] => {
            let log = match rest.first() {
                Some(millis) => SharedSledLog::open_with(
                    db,
                    Durability::Buffered,
                    ManualClock::new(Timestamp(millis.parse()?)),
                )?,
                None => SharedSledLog::open_with(db, Durability::Buffered, Arc::new(SystemClock))?,
            };
            // A test of idle connections need not wait the minute they are kept.
            let log = match std::env::var("ASKUSER_TEST_CONNECTION_IDLE_MS") {
                Ok(millis) => log.with_connection_idle(Duration::from_millis(millis.parse()?)),
                Err(_) => log,
            };
            say(if log.is_owner() { "owner" } else { "client" });
            // Hold the log until the test closes our input (or kills us).
            while !read_line().is_empty() {}
            Ok(())
        }
        ["write", db, stream, writer, count, pause @ ..] => {
            let pause = match pause {
                [] => Duration::ZERO,
                [millis] => Duration::from_millis(millis.parse()?),
                _ => return Err("write takes one pause".into()),
            };
            let log = SharedSledLog::open(db)?;
            let count: u64 = count.parse()?;
            let from = next_of_writer(&log, stream, writer)?;
            say(&format!("from {from}"));
            for k in from..count {
                let event = back(&format!("{writer}-{k}"));
                loop {
                    let head = log.stream(stream)?.map_or(0, |info| info.head);
                    match log.append(stream, head, std::slice::from_ref(&event)) {
                        Ok(_) => {
                            say(&format!("acked {k}"));
                            std::thread::sleep(pause);
                            break;
                        }
                        Err(StoreError::Conflict { .. }) => {}
                        Err(other) => return Err(other.into()),
                    }
                }
            }
            say(&format!("wrote {count}"));
            Ok(())
        }
        ["wait-on", db, stream, host] => wait_on(db, stream, host),
        ["wait", db, stream, seq] => {
            let log = SharedSledLog::open(db)?;
            say("waiting");
            let head = log.wait_past(stream, seq.parse()?, Duration::from_secs(60))?;
            say(&head.to_string());
            Ok(())
        }
        ["answer", db, stream, inquiry, question, value] => {
            let log: Arc<dyn Log> = Arc::new(SharedSledLog::open(db)?);
            let mut session = askuser_store::Session::open(log, *stream)?;
            say("ready");
            read_line();
            // The racers answer the inquiry's first question, shown at step 0.
            let shown =
                askuser_core::At::question(askuser_core::InquiryId::new(*inquiry), *question, 0);
            let answer = askuser_core::AnswerInput::new(shown, serde_json::from_str(value)?).into();
            match session.handle(&answer) {
                Ok(handled) => say(&format!("recorded {}", handled.seq)),
                Err(
                    SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. },
                ) => say(&format!("refused: {refusal}")),
                Err(SessionError::Store(error)) => return Err(error.into()),
            }
            Ok(())
        }
        ["inherit", db] => inherit(Path::new(db)),
        ["person", db] => person(db),
        ["flood", db, count] => flood(Path::new(db), count.parse()?),
        ["frames", db, count] => frames(Path::new(db), count.parse()?),
        ["sit"] => {
            let me = rustix::process::getpid();
            rustix::process::kill_process(me, rustix::process::Signal::STOP)?;
            loop {
                std::thread::sleep(Duration::from_secs(60));
            }
        }
        ["hang", db] => hang(Path::new(db), false),
        ["hang", db, "greet"] => hang(Path::new(db), true),
        ["hang", db, "spin"] => {
            std::thread::spawn(|| {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            });
            hang(Path::new(db), false)
        }
        _ => Err("usage: see the source of askuser-store-sharedtest".into()),
    }
}

/// The `k` after the last event of `writer` in `stream` (0 if none).
fn next_of_writer(
    log: &SharedSledLog,
    stream: &str,
    writer: &str,
) -> Result<u64, Box<dyn std::error::Error>> {
    let mut next = 0;
    if log.stream(stream)?.is_none() {
        return Ok(next);
    }
    for recorded in log.read(stream, 1)? {
        if let Event::Back { inquiry } = recorded?.event
            && let Some((who, k)) = inquiry.as_str().rsplit_once('-')
            && who == writer
        {
            next = next.max(k.parse::<u64>()? + 1);
        }
    }
    Ok(next)
}

/// A hung owner: holds sled's lock and the socket, answers nothing (but the
/// first connection's greeting, if `greet_first`).
fn hang(db: &Path, greet_first: bool) -> Result<(), Box<dyn std::error::Error>> {
    let _sled = SledLog::open(db)?;
    let socket = db.join("askuser.sock");
    drop(std::fs::remove_file(&socket));
    let listener = UnixListener::bind(&socket)?;
    write_owner_record(&socket, &listener)?;
    say("hanging");
    let mut held = Vec::new();
    for connection in listener.incoming() {
        let mut connection = connection?;
        if greet_first && held.is_empty() {
            // The client's greeting: a 4-byte length, then that many bytes.
            let mut length = [0u8; 4];
            connection.read_exact(&mut length)?;
            let mut greeting = vec![0u8; usize::try_from(u32::from_be_bytes(length))?];
            connection.read_exact(&mut greeting)?;
            connection.write_all(&owner_greeting_frame(std::process::id()))?;
        }
        held.push(connection);
    }
    Ok(())
}

/// An owner that forked: the lock and the socket, recorded as this process's,
/// left to a stopped child when this process exits.
fn inherit(db: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use fs2::FileExt as _;
    drop(SledLog::open(db)?);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(db.join("db"))?;
    lock.try_lock_exclusive()?;
    let socket = db.join("askuser.sock");
    drop(std::fs::remove_file(&socket));
    let listener = UnixListener::bind(&socket)?;
    write_owner_record(&socket, &listener)?;
    // Inherited by the child, as across a fork.
    rustix::io::fcntl_setfd(&lock, rustix::io::FdFlags::empty())?;
    rustix::io::fcntl_setfd(&listener, rustix::io::FdFlags::empty())?;
    let child = std::process::Command::new(std::env::current_exe()?)
        .arg("sit")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()?;
    say(&child.id().to_string());
    Ok(())
}

/// The answer waiting on `stream`, if any within `wait`: `refused: WHY` for the
/// owner's error frame.
fn answer_on(stream: &std::os::unix::net::UnixStream, wait: Duration) -> Option<String> {
    stream.set_read_timeout(Some(wait)).ok()?;
    let mut length = [0u8; 4];
    let mut reader = stream;
    reader.read_exact(&mut length).ok()?;
    let mut payload = vec![0u8; usize::try_from(u32::from_be_bytes(length)).ok()?];
    reader.read_exact(&mut payload).ok()?;
    Some(match askuser_sled::test_support::error_of_frame(&payload) {
        Some(why) => format!("refused: {why}"),
        None => "answered".to_owned(),
    })
}

fn flood(db: &Path, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let socket = db.join("askuser.sock");
    let held: Vec<_> = (0..count)
        .map(|_| std::os::unix::net::UnixStream::connect(&socket))
        .collect::<Result<_, _>>()?;
    // The owner turns the last ones away as it accepts them: counted until no
    // more answers come for a second (or ten seconds pass).
    let mut answered = vec![false; held.len()];
    let started = std::time::Instant::now();
    let mut last_change = started;
    while last_change.elapsed() < Duration::from_secs(1)
        && started.elapsed() < Duration::from_secs(10)
    {
        for (stream, seen) in held.iter().zip(answered.iter_mut()) {
            if !*seen && answer_on(stream, Duration::from_millis(1)).is_some() {
                *seen = true;
                last_change = std::time::Instant::now();
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let turned_away = answered.iter().filter(|seen| **seen).count();
    say(&format!(
        "connected {}, turned away {turned_away}",
        held.len()
    ));
    while !read_line().is_empty() {}
    Ok(())
}

fn frames(db: &Path, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let socket = db.join("askuser.sock");
    let cap = askuser_sled::test_support::FRAME_CAP;
    let body = vec![0x90u8; cap - 1];
    let mut held = Vec::new();
    for _ in 0..count {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket)?;
        let sent = stream
            .write_all(&u32::try_from(cap)?.to_be_bytes())
            .and_then(|()| stream.write_all(&body));
        let answer = answer_on(
            &stream,
            Duration::from_millis(if sent.is_ok() { 200 } else { 5000 }),
        );
        say(&answer.unwrap_or_else(|| "open".to_owned()));
        held.push(stream);
    }
    while !read_line().is_empty() {}
    Ok(())
}

/// A person's process on the log (see `person` in the module docs).
fn person(db: &str) -> Result<(), Box<dyn std::error::Error>> {
    askuser_sled::hand_over_when_stopped()?;
    let log = SharedSledLog::open(db)?;
    let role = |log: &SharedSledLog| if log.is_owner() { "owner" } else { "client" };
    say(role(&log));
    loop {
        let line = read_line();
        let Some(stream) = line.trim().strip_prefix("append ") else {
            return Ok(());
        };
        let head = log.stream(stream)?.map_or(0, |info| info.head);
        let head = log.append(stream, head, &[back(&format!("p-{head}"))])?;
        say(&format!("appended {head} as {}", role(&log)));
    }
}

/// `wait-on DB STREAM HOST`: an agent that waits on `STREAM` until its input closes.
fn wait_on(db: &str, stream: &str, host: &str) -> Result<(), Box<dyn std::error::Error>> {
    let log: Arc<dyn Log> = Arc::new(SharedSledLog::open(db)?);
    let mut session = askuser_store::Session::open(log, stream)?;
    let origin = askuser_core::AgentOrigin {
        host: Some(host.to_owned()),
        machine: Some("test".to_owned()),
        ..askuser_core::AgentOrigin::default()
    };
    let holder = askuser_store::presence::holder_id(Some("test"));
    let guard = askuser_store::PresenceGuard::start(&mut session, holder, origin)?;
    say(&format!("waiting as {}", guard.holder()));
    while !read_line().is_empty() {}
    drop(guard);
    say("stopped");
    Ok(())
}
