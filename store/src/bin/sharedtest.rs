//! Test support for `tests/shared.rs` and the shared-log suite, not a tool: one
//! process using a sled log through `SharedSledLog`.
//!
//! - `own DB [MILLIS]`: opens the log (with buffered appends, and a clock stopped
//!   at `MILLIS` when given), prints `owner` or `client`, and holds it until its
//!   standard input closes.
//! - `write DB STREAM WRITER COUNT`: appends `COUNT` events (`Back` of inquiry
//!   `WRITER-k`), one at a time at the head it reads, again after each conflict;
//!   prints `wrote COUNT`.
//! - `wait DB STREAM SEQ`: prints `waiting`, waits (up to a minute) for the head
//!   of `STREAM` to pass `SEQ`, and prints the head.
//! - `answer DB STREAM INQUIRY QUESTION JSON`: opens a session on `STREAM`, prints
//!   `ready`, reads a line, answers, and prints `recorded SEQ` or `refused: WHY`.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use askuser_core::{AnsweredBy, Event, InquiryId};
use askuser_store::{
    Durability, Log, ManualClock, SessionError, SharedSledLog, StoreError, SystemClock, Timestamp,
};

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
        ["write", db, stream, writer, count] => {
            let log = SharedSledLog::open(db)?;
            let count: u64 = count.parse()?;
            for k in 0..count {
                let event = Event::Back {
                    inquiry: InquiryId::new(format!("{writer}-{k}")),
                };
                loop {
                    let head = log.stream(stream)?.map_or(0, |info| info.head);
                    match log.append(stream, head, std::slice::from_ref(&event)) {
                        Ok(_) => break,
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
            let answer = Event::Answered {
                inquiry: InquiryId::new(*inquiry),
                question: (*question).to_owned(),
                value: serde_json::from_str(value)?,
                by: AnsweredBy::User,
                remember: false,
                note: None,
            };
            match session.handle(&answer) {
                Ok(handled) => say(&format!("recorded {}", handled.seq)),
                Err(SessionError::Refused(refusal)) => say(&format!("refused: {refusal}")),
                Err(SessionError::Store(error)) => return Err(error.into()),
            }
            Ok(())
        }
        _ => Err("usage: see the source of askuser-store-sharedtest".into()),
    }
}
