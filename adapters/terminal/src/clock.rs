//! The time a person has to answer: a deadline that keys do not move, the time
//! left (shown from the start), and the warning with the bell in its last
//! [`COUNTDOWN`]. Pure: the caller passes the time in.

use std::time::{Duration, Instant};

/// How long before the deadline the warning (and the bell) comes.
pub(crate) const COUNTDOWN: Duration = Duration::from_secs(20);

/// A deadline for one prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Countdown {
    deadline: Instant,
}

impl Countdown {
    /// A deadline `timeout` after `now`.
    pub(crate) fn new(timeout: Duration, now: Instant) -> Self {
        Self::until(now + timeout)
    }

    /// A deadline at `deadline` (the host's, counted from when the question
    /// started waiting).
    pub(crate) fn until(deadline: Instant) -> Self {
        Self { deadline }
    }

    /// Whether the deadline has passed at `now`.
    pub(crate) fn expired(&self, now: Instant) -> bool {
        now >= self.deadline
    }

    /// The whole seconds left at `now`, rounded up.
    pub(crate) fn left(&self, now: Instant) -> u64 {
        let left = self.deadline.saturating_duration_since(now);
        let whole = left.as_secs();
        if left.subsec_nanos() > 0 {
            whole + 1
        } else {
            whole
        }
    }

    /// Whether `now` is in the last [`COUNTDOWN`] (the warning and the bell).
    pub(crate) fn warning(&self, now: Instant) -> bool {
        let left = self.deadline.saturating_duration_since(now);
        left <= COUNTDOWN && !left.is_zero()
    }

    /// How long to wait at `now` for a key before the timer must be drawn again:
    /// its next second, or the deadline.
    pub(crate) fn wait(&self, now: Instant) -> Duration {
        let left = self.deadline.saturating_duration_since(now);
        let fraction = Duration::from_nanos(u64::from(left.subsec_nanos()));
        if fraction.is_zero() {
            left.min(Duration::from_secs(1))
        } else {
            fraction
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_shows_from_the_start_and_warns_in_the_last_twenty_seconds() {
        let start = Instant::now();
        let clock = Countdown::new(Duration::from_secs(60), start);
        assert_eq!(clock.left(start), 60);
        assert!(!clock.warning(start));
        assert_eq!(clock.wait(start), Duration::from_secs(1));
        let later = start + Duration::from_millis(45_500);
        assert_eq!(clock.left(later), 15);
        assert!(clock.warning(later));
        assert_eq!(clock.wait(later), Duration::from_millis(500));
        let at_second = start + Duration::from_secs(50);
        assert_eq!(clock.left(at_second), 10);
        assert_eq!(clock.wait(at_second), Duration::from_secs(1));
        assert!(!clock.expired(start + Duration::from_millis(59_999)));
        assert!(clock.expired(start + Duration::from_secs(60)));
        assert!(!clock.warning(start + Duration::from_secs(60)));
        assert_eq!(clock.wait(start + Duration::from_secs(61)), Duration::ZERO);
    }

    #[test]
    fn a_deadline_from_the_host_counts_from_when_the_question_started_waiting() {
        let shown = Instant::now();
        // Recorded 15 s before it was shown, with a 60 s timeout.
        let clock = Countdown::until(shown + Duration::from_secs(45));
        assert_eq!(clock.left(shown), 45);
        assert_eq!(clock, Countdown::new(Duration::from_secs(45), shown));
        // A deadline already past times out at once.
        assert!(Countdown::until(shown).expired(shown));
    }
}
