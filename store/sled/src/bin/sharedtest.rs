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
//! - `wait DB STREAM SEQ`: prints `waiting`, waits (up to a minute) for the head
//!   of `STREAM` to pass `SEQ`, and prints the head.
//! - `answer DB STREAM INQUIRY QUESTION JSON`: opens a session on `STREAM`, prints
//!   `ready`, reads a line, answers, and prints `recorded SEQ` or `refused: WHY`.

use std::io::{BufRead, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use askuser_core::Event;
use askuser_sled::test_support::owner_greeting_frame;
use askuser_sled::{SharedSledLog, SledLog};
use askuser_store::{
    Durability, Log, ManualClock, SessionError, StoreError, SystemClock, Timestamp,
};
use askuser_testkit::build::{answered, back};

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
            let answer = answered(inquiry, question, serde_json::from_str(value)?);
            match session.handle(&answer) {
                Ok(handled) => say(&format!("recorded {}", handled.seq)),
                Err(
                    SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. },
                ) => say(&format!("refused: {refusal}")),
                Err(SessionError::Store(error)) => return Err(error.into()),
            }
            Ok(())
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
