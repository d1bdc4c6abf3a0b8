//! Test support for `tests/crash.rs`, not a tool: appends the scripted events to the
//! stream `crash` of the sled database at the path given, with `Durability::Flush`,
//! and prints each acknowledged head on stdout, until it is killed (or 60 seconds
//! pass). Batches have 1 to 3 events: the batch starting at `s` has `1 + s % 3`.
//!
//! Usage: `askuser-store-crashtest DB_PATH`

use askuser_store::backend::Backend as _;
use std::io::Write;
use std::time::{Duration, Instant};

use askuser_sled::SledLog;
use askuser_store::{Durability, Log};
use askuser_testkit::scripted_events;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: askuser-store-crashtest DB_PATH");
        std::process::exit(2);
    };
    let log = match SledLog::open(&path) {
        Ok(log) => log.with_durability(Durability::Flush),
        Err(error) => {
            eprintln!("crashtest: cannot open {}: {error}", path.display());
            std::process::exit(1);
        }
    };
    let mut head = match log.stream("crash") {
        Ok(info) => info.map_or(0, |i| i.head),
        Err(error) => {
            eprintln!("crashtest: cannot read the stream: {error}");
            std::process::exit(1);
        }
    };
    let started = Instant::now();
    let stdout = std::io::stdout();
    while started.elapsed() < Duration::from_secs(60) {
        let batch: Vec<_> = scripted_events(head + 1, 1 + (head + 1) % 3).collect();
        match log.append("crash", head, &batch) {
            Ok(new_head) => head = new_head,
            Err(error) => {
                eprintln!("crashtest: append failed: {error}");
                std::process::exit(1);
            }
        }
        let mut out = stdout.lock();
        if writeln!(out, "{head}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}
