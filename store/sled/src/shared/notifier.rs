//! What wakes the owner's waiters: counters of changes, one for the whole log
//! and one for each stream somebody waits on, and condition variables to wait
//! for the next.
//!
//! A waiter for one stream's head is woken only by a change to that stream: with
//! many agents on one log, each waiting on its own stream, an append wakes one
//! waiter, not all of them (measured: waking every waiter at every append cost
//! the owner most of its time with 32 agents, see benches/README.md).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The process a change is counted to when who made it is not known (it is
/// then nobody's own).
pub(super) const SOMEBODY: u32 = 0;

/// Counters of changes (the log's and each watched stream's), and condition
/// variables to wait for the next.
#[derive(Debug, Default)]
pub(super) struct Notifier {
    counters: Mutex<Counters>,
    /// Woken by every change: the waiters for the log's version.
    any: Condvar,
}

#[derive(Debug, Default)]
struct Counters {
    /// Changes to the whole log.
    generation: u64,
    /// Changes to each stream somebody waits on now (an entry lives while its
    /// waiters do).
    streams: HashMap<String, Watched>,
}

#[derive(Debug)]
struct Watched {
    generation: u64,
    /// How many of those changes each process made (by process id), so a
    /// waiter can wait for the others' ([`Watch::others`]).
    by: HashMap<u32, u64>,
    waiters: usize,
    changed: Arc<Condvar>,
}

impl Notifier {
    fn lock(&self) -> MutexGuard<'_, Counters> {
        self.counters.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The count of changes to the whole log.
    pub(super) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// A change to `stream` made by process `by` ([`SOMEBODY`] when not
    /// known): wakes its waiters and the log's.
    pub(super) fn bump(&self, stream: &str, by: u32) {
        let mut counters = self.lock();
        counters.generation += 1;
        if let Some(watched) = counters.streams.get_mut(stream) {
            watched.generation += 1;
            *watched.by.entry(by).or_default() += 1;
            watched.changed.notify_all();
        }
        drop(counters);
        self.any.notify_all();
    }

    /// A change to everything (the owner stops): wakes every waiter.
    pub(super) fn bump_all(&self) {
        let mut counters = self.lock();
        counters.generation += 1;
        for watched in counters.streams.values_mut() {
            watched.generation += 1;
            watched.changed.notify_all();
        }
        drop(counters);
        self.any.notify_all();
    }

    /// Waits until the log's generation is no longer `seen` or `deadline` passes.
    pub(super) fn wait_change(&self, seen: u64, deadline: Instant) {
        self.wait_while(&self.any, deadline, |counters| counters.generation == seen);
    }

    /// Waits on `changed` while `unchanged` holds, until `deadline`.
    fn wait_while(
        &self,
        changed: &Condvar,
        deadline: Instant,
        unchanged: impl Fn(&Counters) -> bool,
    ) {
        let mut counters = self.lock();
        while unchanged(&counters) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            counters = changed
                .wait_timeout(counters, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Starts watching `stream`: changes to it are counted from now until the
    /// watch is dropped. Take it before reading the head, so a change after that
    /// read cannot be missed.
    pub(super) fn watch<'a>(&'a self, stream: &'a str) -> Watch<'a> {
        let mut counters = self.lock();
        let watched = counters
            .streams
            .entry(stream.to_owned())
            .or_insert_with(|| Watched {
                generation: 0,
                by: HashMap::new(),
                waiters: 0,
                changed: Arc::new(Condvar::new()),
            });
        watched.waiters += 1;
        let changed = Arc::clone(&watched.changed);
        Watch {
            notifier: self,
            stream,
            changed,
        }
    }
}

/// A waiter's hold on one stream's counter (see [`Notifier::watch`]).
pub(super) struct Watch<'a> {
    notifier: &'a Notifier,
    stream: &'a str,
    changed: Arc<Condvar>,
}

impl Watch<'_> {
    fn generation_in(&self, counters: &Counters) -> u64 {
        counters
            .streams
            .get(self.stream)
            .map_or(0, |watched| watched.generation)
    }

    /// The count of changes to the stream since it was first watched.
    pub(super) fn generation(&self) -> u64 {
        self.generation_in(&self.notifier.lock())
    }

    /// The count of changes to the stream since it was first watched made by
    /// processes other than `me`.
    pub(super) fn others(&self, me: u32) -> u64 {
        self.others_in(&self.notifier.lock(), me)
    }

    fn others_in(&self, counters: &Counters, me: u32) -> u64 {
        counters.streams.get(self.stream).map_or(0, |watched| {
            watched.generation - watched.by.get(&me).copied().unwrap_or(0)
        })
    }

    /// Waits until the count of the others' changes ([`Watch::others`]) is no
    /// longer `seen` or `deadline` passes: `me`'s own changes do not end it.
    pub(super) fn wait_others(&self, me: u32, seen: u64, deadline: Instant) {
        (self.notifier).wait_while(&self.changed, deadline, |counters| {
            self.others_in(counters, me) == seen
        });
    }

    /// Waits until the stream's count is no longer `seen` or `deadline` passes.
    pub(super) fn wait_change(&self, seen: u64, deadline: Instant) {
        (self.notifier).wait_while(&self.changed, deadline, |counters| {
            self.generation_in(counters) == seen
        });
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let mut counters = self.notifier.lock();
        if let Some(watched) = counters.streams.get_mut(self.stream) {
            watched.waiters -= 1;
            if watched.waiters == 0 {
                counters.streams.remove(self.stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_change_to_another_stream_does_not_move_a_watch() {
        let notifier = Notifier::default();
        let watch = notifier.watch("a");
        let seen = watch.generation();
        notifier.bump("b", 7);
        assert_eq!(watch.generation(), seen);
        assert_eq!(notifier.generation(), 1);
        notifier.bump("a", 7);
        assert_eq!(watch.generation(), seen + 1);
    }

    #[test]
    fn a_process_s_own_changes_are_not_the_others() {
        let notifier = Notifier::default();
        let watch = notifier.watch("a");
        notifier.bump("a", 7);
        assert_eq!(
            (watch.generation(), watch.others(7), watch.others(8)),
            (1, 0, 1)
        );
        notifier.bump("a", SOMEBODY);
        assert_eq!(
            (watch.generation(), watch.others(7), watch.others(8)),
            (2, 1, 2)
        );
        // Its own change ends no wait of its for the others'.
        let seen = watch.others(7);
        notifier.bump("a", 7);
        watch.wait_others(7, seen, Instant::now() + Duration::from_millis(20));
        assert_eq!(watch.others(7), seen);
    }

    #[test]
    fn a_waiter_is_woken_by_its_stream_and_by_a_stop() {
        let notifier = Arc::new(Notifier::default());
        for wake in [|n: &Notifier| n.bump("a", 7), Notifier::bump_all] {
            let waiting = Arc::clone(&notifier);
            let (ready, go) = std::sync::mpsc::channel();
            let waiter = std::thread::spawn(move || {
                let watch = waiting.watch("a");
                let seen = watch.generation();
                ready.send(()).unwrap();
                watch.wait_change(seen, Instant::now() + Duration::from_secs(60));
                watch.generation() != seen
            });
            go.recv().unwrap();
            wake(&notifier);
            assert!(waiter.join().unwrap());
        }
        assert!(
            notifier.lock().streams.is_empty(),
            "a dropped watch is forgotten"
        );
    }
}
