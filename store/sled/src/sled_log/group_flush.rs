//! Group commit: one flush of the log for every writer waiting on one.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Flushes the log for many writers at once. A writer whose append is done
/// needs a flush that starts after it; while one runs, the writers that arrive
/// wait for it to end, and then one of them (the leader) flushes for them all.
/// sled seals and writes a buffer of its own for each flush asked of it, so 32
/// writers of a shared log's owner, each flushing in turn, each waited on a
/// write of its own.
#[derive(Debug, Default)]
pub(super) struct GroupFlush {
    flushes: Mutex<Flushes>,
    ended: Condvar,
}

/// What the writers know of the flushes.
#[derive(Debug, Default)]
struct Flushes {
    /// How many flushes have started.
    started: u64,
    /// The number of the latest flush that succeeded.
    succeeded: u64,
    /// Whether one runs now.
    running: bool,
}

impl GroupFlush {
    /// Returns once a flush that started after this call began has succeeded,
    /// running `flush` itself when none is running. A failed flush is not
    /// shared: each writer it covered flushes again and gets its own result.
    pub(super) fn flush<E>(&self, flush: impl Fn() -> Result<(), E>) -> Result<(), E> {
        let mut flushes = self.lock();
        // A flush started from now on holds everything written before.
        let needed = flushes.started + 1;
        loop {
            if flushes.succeeded >= needed {
                return Ok(());
            }
            if !flushes.running {
                flushes.running = true;
                flushes.started += 1;
                let mine = flushes.started;
                drop(flushes);
                let leading = Leading { group: self };
                let result = flush();
                leading.end(result.is_ok().then_some(mine));
                return result;
            }
            flushes = self
                .ended
                .wait(flushes)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Flushes> {
        self.flushes.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The leader's flush: when it ends, even by a panic, the waiting writers are
/// told (and one of them leads next if it failed).
struct Leading<'a> {
    group: &'a GroupFlush,
}

impl Leading<'_> {
    fn end(self, succeeded: Option<u64>) {
        if let Some(number) = succeeded {
            let mut flushes = self.group.lock();
            flushes.succeeded = flushes.succeeded.max(number);
        }
        // Drop tells the writers.
    }
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        self.group.lock().running = false;
        self.group.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::GroupFlush;

    /// Writers flushing at once share flushes, and each returns only after a
    /// flush that started after it asked.
    #[test]
    fn writers_at_once_share_flushes_that_start_after_them() {
        let group = Arc::new(GroupFlush::default());
        let written = Arc::new(AtomicU64::new(0));
        let durable = Arc::new(AtomicU64::new(0));
        let flushes = Arc::new(AtomicU64::new(0));
        let writers: Vec<_> = (0..8)
            .map(|_| {
                let (group, written, durable, flushes) = (
                    Arc::clone(&group),
                    Arc::clone(&written),
                    Arc::clone(&durable),
                    Arc::clone(&flushes),
                );
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let mine = written.fetch_add(1, Ordering::SeqCst) + 1;
                        group
                            .flush(|| {
                                let now = written.load(Ordering::SeqCst);
                                flushes.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(std::time::Duration::from_micros(50));
                                durable.fetch_max(now, Ordering::SeqCst);
                                Ok::<(), ()>(())
                            })
                            .unwrap();
                        assert!(
                            durable.load(Ordering::SeqCst) >= mine,
                            "write {mine} not flushed"
                        );
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert!(flushes.load(Ordering::SeqCst) <= 1_600);
    }

    /// A failed flush is each writer's own: the next writer flushes again.
    #[test]
    fn a_failed_flush_is_not_shared() {
        let group = GroupFlush::default();
        assert_eq!(group.flush(|| Err("disk full")), Err("disk full"));
        assert_eq!(group.flush(|| Ok::<(), &str>(())), Ok(()));
        // A flush that started after the success is still needed by a new writer.
        assert_eq!(group.flush(|| Err("gone")), Err("gone"));
    }
}
