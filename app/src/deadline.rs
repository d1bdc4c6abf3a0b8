//! When a question times out: one rule for every surface that shows the time
//! left (the terminal, the web inbox), so one timeout has one deadline. The
//! engine keeps that deadline itself, from the recorded times, and holds every
//! timeout to it (`askuser_core::State::deadline`, `Input::TimeOut`); this is
//! the same rule, for a time read from the log where the engine knows none.

use askuser_core::Timeout;
use askuser_store::Timestamp;

/// The moment a question with `timeout` times out: `timeout.after_ms` after
/// `waiting_since`, the time the log recorded the event that put the question up
/// (the stream's head event while the question waits: [`Recorded::at`]). Keys
/// pressed and pages drawn do not move it, so every surface counts down to the
/// same moment, whatever its own clock says when it starts showing the question.
///
/// [`Recorded::at`]: askuser_store::Recorded::at
///
/// ```
/// use askuser_core::{OnTimeout, Timeout};
/// use askuser_app::question_deadline;
/// use askuser_store::Timestamp;
///
/// let timeout = Timeout { after_ms: 60_000, on_timeout: OnTimeout::Cancel };
/// assert_eq!(question_deadline(Timestamp(1_000), &timeout), Timestamp(61_000));
/// // Shown 15 s after it was recorded, 45 s are left.
/// let left = question_deadline(Timestamp(1_000), &timeout).millis().saturating_sub(16_000);
/// assert_eq!(left, 45_000);
/// ```
pub fn question_deadline(waiting_since: Timestamp, timeout: &Timeout) -> Timestamp {
    Timestamp(waiting_since.millis().saturating_add(timeout.after_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::OnTimeout;

    #[test]
    fn the_deadline_never_overflows() {
        let timeout = Timeout {
            after_ms: u64::MAX,
            on_timeout: OnTimeout::EndTurn,
        };
        assert_eq!(
            question_deadline(Timestamp(5), &timeout),
            Timestamp(u64::MAX)
        );
    }
}
