//! Test support for `tests/postgres.rs`, not a tool: one of several processes
//! working on one PostgreSQL log at once.
//!
//! ```text
//! askuser-store-pgtest append URL SCHEMA STREAM WRITER COUNT
//! askuser-store-pgtest answer URL SCHEMA STREAM INQUIRY
//! askuser-store-pgtest wait URL SCHEMA STREAM AFTER
//! ```
//!
//! `append` appends COUNT requests (inquiries `p{WRITER}-{k}`), one per append,
//! each at the head it last read, reading the head again and retrying after a
//! conflict; it prints `conflicts N`. `answer` opens a session on the stream, prints
//! `ready`, waits for a line on stdin, then answers `apply` = false to INQUIRY
//! (RFD D30's form) through the session; it prints `won SEQ` or `refused: REASON`.
//! `wait` prints `listening`, waits (up to 60 s) for the stream's head to pass
//! AFTER, and prints `head N` or `timed out`.

use askuser_store::backend::Backend as _;
use std::io::BufRead;
use std::sync::Arc;

use askuser_postgres::PgLog;
use askuser_store::{Log, Session, SessionError, StoreError};
use askuser_testkit::build::requested;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["append", url, schema, stream, writer, count] => {
            let count = count.parse().unwrap_or(0);
            connect(url, schema).and_then(|log| append(&log, stream, writer, count))
        }
        ["answer", url, schema, stream, inquiry] => {
            connect(url, schema).and_then(|log| answer(log, stream, inquiry))
        }
        ["wait", url, schema, stream, after] => {
            let after = after.parse().unwrap_or(0);
            connect(url, schema).and_then(|log| wait(&log, stream, after))
        }
        _ => {
            eprintln!(
                "usage: askuser-store-pgtest append URL SCHEMA STREAM WRITER COUNT\n       askuser-store-pgtest answer URL SCHEMA STREAM INQUIRY\n       askuser-store-pgtest wait URL SCHEMA STREAM AFTER"
            );
            std::process::exit(2);
        }
    };
    if let Err(error) = outcome {
        eprintln!("pgtest: {error}");
        std::process::exit(1);
    }
}

fn connect(url: &str, schema: &str) -> Result<PgLog, StoreError> {
    PgLog::connect_in(url, schema)
}

fn append(log: &PgLog, stream: &str, writer: &str, count: u64) -> Result<(), StoreError> {
    let mut conflicts = 0;
    for k in 0..count {
        let event = requested(&format!("p{writer}-{k}"), askuser_testkit::d30_form());
        loop {
            let head = log.stream(stream)?.map_or(0, |info| info.head);
            match log.append(stream, head, std::slice::from_ref(&event)) {
                Ok(_) => break,
                Err(StoreError::Conflict { .. }) => conflicts += 1,
                Err(other) => return Err(other),
            }
        }
    }
    println!("conflicts {conflicts}");
    Ok(())
}

fn answer(log: PgLog, stream: &str, inquiry: &str) -> Result<(), StoreError> {
    let mut session = Session::open(Arc::new(log), stream)?;
    println!("ready");
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    // The racers answer the inquiry's first question, shown at step 0.
    let shown = askuser_core::At::question(askuser_core::InquiryId::new(inquiry), "apply", 0);
    let input = askuser_core::AnswerInput::new(shown, serde_json::json!(false)).into();
    match session.handle(&input) {
        Ok(handled) => println!("won {}", handled.seq),
        Err(SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. }) => {
            println!("refused: {refusal}");
        }
        Err(SessionError::Store(error)) => return Err(error),
    }
    Ok(())
}

fn wait(log: &PgLog, stream: &str, after: u64) -> Result<(), StoreError> {
    // The head is read after LISTEN, so an append made after this line is seen.
    println!("listening");
    let head = log.wait_past(stream, after, std::time::Duration::from_secs(60))?;
    if head > after {
        println!("head {head}");
    } else {
        println!("timed out");
    }
    Ok(())
}
