//! Sealing a log its writer closes cleanly: the seal removed before the first
//! write, what was written settled before the database closes, the seal written
//! after (see `seal.rs` for the seal itself).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::{SledLog, seal};
use askuser_store::Seq;
use askuser_store::codec::seq_key;
use askuser_store::{Result, StoreError};

impl Drop for SledLog {
    fn drop(&mut self) {
        self.settle_written();
    }
}

/// Seals the log in its directory when dropped.
#[derive(Debug)]
pub(super) struct Sealer {
    dir: PathBuf,
    /// Set once the seal was removed, before the first write.
    unsealed: std::sync::atomic::AtomicBool,
    /// The streams written, each with the lowest event written.
    written: Mutex<std::collections::BTreeMap<String, Seq>>,
    /// Set when what was written could not be settled in time: not sealed.
    unsettled: std::sync::atomic::AtomicBool,
}

/// The longest a writer spends settling what it wrote before it closes (see
/// `SledLog::settle_written`).
const SETTLE_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

impl Sealer {
    /// Removes the seal before the first write (a writer killed later must not
    /// leave a log that looks closed cleanly).
    fn before_write(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        if !self.unsealed.load(Ordering::SeqCst) {
            seal::unseal(&self.dir)?;
            self.unsealed.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

impl Drop for Sealer {
    fn drop(&mut self) {
        // A log whose seal still matches (nothing was written, sled moved
        // nothing) is left as it is; a log left unsealed is only copied by its
        // next reader, as before.
        let unsettled = self.unsettled.load(std::sync::atomic::Ordering::SeqCst);
        if !unsettled && !seal::is_sealed(&self.dir) {
            drop(seal::seal(&self.dir));
        }
    }
}

impl SledLog {
    /// Removes the log's seal before its first write, and seals it again when it
    /// is closed, unless the seal still matches then.
    pub(super) fn sealed_on_close(mut self, path: &Path) -> Self {
        self.sealer = Some(Sealer {
            dir: path.to_owned(),
            unsealed: std::sync::atomic::AtomicBool::new(false),
            written: Mutex::default(),
            unsettled: std::sync::atomic::AtomicBool::new(false),
        });
        self
    }

    /// Refuses a write to a read-only log; removes the seal before the first
    /// write to a sealed one, and notes that `stream` is written from event
    /// `from` on (`Seq::MAX`: its records only), to settle it before closing.
    pub(super) fn writable_at(&self, stream: &str, from: Seq) -> Result<()> {
        match (&self.read_only, &self.sealer) {
            (Some(read_only), _) => Err(StoreError::ReadOnly(read_only.origin.clone())),
            (None, Some(sealer)) => {
                sealer.before_write()?;
                let mut written = sealer
                    .written
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let lowest = written.entry(stream.to_owned()).or_insert(from);
                *lowest = (*lowest).min(from);
                Ok(())
            }
            (None, None) => Ok(()),
        }
    }

    /// Settles what this handle wrote, before the database closes: sled leaves
    /// pages too full or too empty to be split or merged by the next traversal,
    /// and blobs to be rewritten, so every key written (of each stream, from the
    /// lowest event written on) is visited now, and the work flushed. A reader
    /// of the sealed log then finds nothing left to change.
    ///
    /// This takes at most [`SETTLE_BUDGET`] (the next owner waits for it): a log
    /// not settled in time is left unsealed, and its next reader copies it.
    fn settle_written(&self) {
        let Some(sealer) = &self.sealer else { return };
        let written = std::mem::take(
            &mut *sealer
                .written
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        if written.is_empty() {
            return;
        }
        let started = std::time::Instant::now();
        let visit = |keys: sled::Iter| {
            keys.keys()
                .take_while(|key| key.is_ok() && started.elapsed() < SETTLE_BUDGET)
                .count()
        };
        for (stream, from) in &written {
            drop(self.streams.get(stream.as_bytes()));
            visit(
                self.snapshots
                    .scan_prefix(askuser_store::codec::prefix(stream)),
            );
            if *from < Seq::MAX {
                visit(
                    self.events
                        .range(seq_key(stream, *from)..=seq_key(stream, Seq::MAX)),
                );
            }
        }
        drop(self.db.flush());
        if started.elapsed() >= SETTLE_BUDGET {
            sealer
                .unsettled
                .store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}
