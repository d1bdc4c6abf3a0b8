//! A host that stops a call without telling the server
//! ([`Client::stops_silently`](crate::Client::stops_silently): Gemini CLI's
//! Esc) leaves the server waiting for a model that has moved on. The only sign
//! of it is the host's next call: a new call of the same session while one has
//! waited [`MOVED_ON_AFTER`] or longer means the model moved on (the calls of
//! one model response come together, within milliseconds). The waiting call is
//! then noted [`ClientNote::MovedOn`] and stops waiting; its questions stay
//! open for every other surface, and their result is kept for the same call
//! made again. When the new call is that same call (the same tool and
//! arguments), it takes the open questions over instead of asking them twice.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use askuser_core::{ClientNote, InquiryId};
use tokio::sync::Notify;

use crate::recorder::{Marks, Recorder};
use crate::waiting::note;

/// How long a call must have waited before a new call of its session is taken
/// as the model having moved on: far longer than the calls of one response take
/// to arrive together (milliseconds: Gemini CLI sends them at once), shorter
/// than a person takes to stop a call, ask again and have the model answer.
pub(crate) const MOVED_ON_AFTER: Duration = Duration::from_secs(1);

/// The calls of one session waiting for another window, from a client that
/// stops calls silently.
#[derive(Clone, Default)]
pub(crate) struct Waiters {
    calls: Arc<Mutex<Vec<Waiter>>>,
    /// Open inquiries a new call took over: their wait records no note again.
    taken_over: Marks,
}

/// One waiting call.
struct Waiter {
    inquiry: InquiryId,
    since: Instant,
    stop: Arc<Notify>,
}

/// A call's place among the waiters, left when it is dropped; `stop` is
/// told when the model moved on.
pub(crate) struct Entered {
    calls: Arc<Mutex<Vec<Waiter>>>,
    inquiry: InquiryId,
    /// Notified once the call is noted moved on.
    pub(crate) stop: Arc<Notify>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls.retain(|waiter| waiter.inquiry != self.inquiry);
    }
}

impl Waiters {
    /// Enters a call waiting on `inquiry`.
    pub(crate) fn enter(&self, inquiry: &InquiryId) -> Entered {
        let stop = Arc::new(Notify::new());
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls.push(Waiter {
            inquiry: inquiry.clone(),
            since: Instant::now(),
            stop: Arc::clone(&stop),
        });
        Entered {
            calls: Arc::clone(&self.calls),
            inquiry: inquiry.clone(),
            stop,
        }
    }

    /// A new call came: every call that waited [`MOVED_ON_AFTER`] or longer is
    /// noted moved on in `recorder`'s stream and stops waiting. The inquiries
    /// noted, oldest first.
    pub(crate) fn new_call(&self, recorder: &Recorder) -> Vec<InquiryId> {
        let moved: Vec<Waiter> = {
            let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
            let (moved, still) = std::mem::take(&mut *calls)
                .into_iter()
                .partition(|waiter| waiter.since.elapsed() >= MOVED_ON_AFTER);
            *calls = still;
            moved
        };
        moved
            .into_iter()
            .map(|waiter| {
                let after_ms =
                    u64::try_from(waiter.since.elapsed().as_millis()).unwrap_or(u64::MAX);
                note(recorder, &waiter.inquiry, ClientNote::MovedOn { after_ms });
                waiter.stop.notify_one();
                waiter.inquiry
            })
            .collect()
    }

    /// Marks `inquiry` as taken over by a new call.
    pub(crate) fn take_over(&self, inquiry: &InquiryId) {
        self.taken_over.mark(inquiry);
    }

    /// Whether `inquiry` was taken over by a new call (asked once).
    pub(crate) fn taken_over(&self, inquiry: &InquiryId) -> bool {
        self.taken_over.take(inquiry)
    }
}
