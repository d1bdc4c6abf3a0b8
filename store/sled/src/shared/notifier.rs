//! What wakes the owner's waiters: a counter of changes to heads, and a
//! condition variable to wait for the next.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

/// A counter of changes to heads, and a condition variable to wait for the next.
#[derive(Debug, Default)]
pub(super) struct Notifier {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Notifier {
    pub(super) fn generation(&self) -> u64 {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn bump(&self) {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += 1;
        self.changed.notify_all();
    }

    /// Waits until the generation is no longer `seen` or `deadline` passes.
    pub(super) fn wait_change(&self, seen: u64, deadline: Instant) {
        let mut generation = self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *generation == seen {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            generation = self
                .changed
                .wait_timeout(generation, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
