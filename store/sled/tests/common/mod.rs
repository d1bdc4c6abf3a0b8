//! Helpers shared by the sled logs' integration tests: a log in a temporary
//! directory, a client of a log another process owns, and the helper processes,
//! beside the testkit's builders.
#![allow(dead_code, missing_docs)]

pub mod processes;

use askuser_core::Event;
use askuser_sled::{SharedSledLog, SledLog};
use askuser_store::{Durability, Log};
pub use askuser_testkit::build::*;

/// A sled log in a fresh temporary directory (kept alive by the returned guard).
pub fn sled() -> (SledLog, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = SledLog::open(dir.path().join("db"))
        .expect("open sled")
        .with_durability(askuser_store::Durability::Buffered)
        .with_clock(clock());
    (log, dir)
}

/// A client of a log that another process owns (kept alive by the returned guard).
pub fn remote() -> (SharedSledLog, processes::Owner) {
    let owner = processes::Owner::start();
    let log = SharedSledLog::open_with(&owner.path, Durability::Buffered, clock())
        .expect("reach the owner");
    assert!(!log.is_owner(), "the helper owns the log");
    (log, owner)
}

/// Opens the sled database at `path` directly (for a test that damages records
/// under the log), waiting while the process's own log, just dropped, still holds
/// it: sled releases its file lock when its last thread finishes writing, a moment
/// after the last handle is dropped.
///
/// # Errors
/// sled's error, when the database cannot be opened within 10 seconds.
pub fn open_sled_when_released(path: &std::path::Path) -> sled::Result<sled::Db> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match sled::open(path) {
            Err(sled::Error::Io(error))
                if error.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// The `Back` events a `write` helper appends, by writer (the inquiry id
/// `WRITER-k`), each writer's `k` in the order read.
pub fn writes_by_writer(
    log: &dyn Log,
    stream: &str,
) -> std::collections::BTreeMap<String, Vec<u64>> {
    let mut by_writer: std::collections::BTreeMap<String, Vec<u64>> =
        std::collections::BTreeMap::new();
    for event in events_of(log, stream) {
        let Event::Back { inquiry } = event else {
            panic!("not a helper's event");
        };
        let (writer, k) = inquiry.as_str().rsplit_once('-').unwrap();
        by_writer
            .entry(writer.to_owned())
            .or_default()
            .push(k.parse().unwrap());
    }
    by_writer
}
