//! The 2026-07-28 calls over HTTP that wait for their retry: a stateless call has
//! no session, so nothing else would count it, end it, or hold its presence.
//!
//! A first round that asks the person (`input_required`) is kept here until its
//! call has a result: it counts against the same cap as the MCP sessions (at most
//! [`HttpLimits::most`](crate::HttpLimits::most) of both together; past it a new
//! first round is refused, asking nothing), its presence lease is renewed by the
//! server's one sweeping task (no thread per call), and a round whose agent never
//! calls again within [`HttpLimits::unanswered`](crate::HttpLimits::unanswered) is
//! ended: its inquiry is cancelled with [`NEVER_CAME_BACK`], so the inbox no longer
//! shows it as open, and its presence ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use askuser_app::HeldPresence;
use askuser_core::{CancelReason, InquiryId};
use askuser_dialects::Call;

use crate::recorder::Recorder;
use crate::server::cancel_in;

/// The reason an unanswered round's inquiry is cancelled with (the log's words
/// and the transcript show it, `_` read as spaces).
pub(crate) const NEVER_CAME_BACK: &str = "the_agent_never_came_back_for_it";

/// One call waiting for its retry.
struct Round {
    recorder: Recorder,
    call: Call,
    inquiry: InquiryId,
    /// When its latest round went out, or its retry last came.
    since: Instant,
    /// Retries under way (waiting for another window): never ended meanwhile.
    busy: usize,
    lease: Option<HeldPresence>,
}

/// The calls waiting for their retry, by stream, and the count of sessions they
/// share a cap with.
pub(crate) struct Unanswered {
    rounds: Mutex<HashMap<String, Round>>,
    /// MCP sessions alive or being made, kept up to date by the sessions.
    sessions: AtomicUsize,
    most: usize,
    ends_after: Duration,
}

/// Why a new first round is refused: everything the cap counts is open.
#[derive(Debug, thiserror::Error)]
#[error(
    "{most} MCP calls and sessions are open on this server (calls waiting for the person's answer or for their agent to come back); askuser asked nothing. Call again once one has ended: a call its agent never comes back for ends after {after}"
)]
pub(crate) struct Full {
    most: usize,
    after: String,
}

/// `duration` in words: whole minutes, or seconds under two minutes.
fn span(duration: Duration) -> String {
    match duration.as_secs() {
        1 => "1 second".to_owned(),
        secs if secs < 120 => format!("{secs} seconds"),
        secs => format!("{} minutes", secs.div_ceil(60)),
    }
}

impl Unanswered {
    /// None yet: at most `most` calls and sessions together; a round ends
    /// `unanswered` after its agent last came.
    pub(crate) fn new(most: usize, unanswered: Duration) -> Self {
        Self {
            rounds: Mutex::default(),
            sessions: AtomicUsize::new(0),
            most,
            ends_after: unanswered,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Round>> {
        self.rounds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many calls wait for their retry.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Notes how many sessions are alive or being made.
    pub(crate) fn set_sessions(&self, sessions: usize) {
        self.sessions.store(sessions, Ordering::SeqCst);
    }

    /// Whether a new first round fits under the cap.
    ///
    /// # Errors
    /// [`Full`], in words.
    pub(crate) fn admit(&self) -> Result<(), Full> {
        if self.len() + self.sessions.load(Ordering::SeqCst) < self.most {
            return Ok(());
        }
        Err(Full {
            most: self.most,
            after: span(self.ends_after),
        })
    }

    /// Keeps the call of `recorder`'s stream waiting for its retry from now: a
    /// first round with its lease, or a retry that asked another round.
    pub(crate) fn keep(
        &self,
        recorder: &Recorder,
        call: &Call,
        inquiry: &InquiryId,
        lease: Option<HeldPresence>,
    ) {
        let stream = recorder.stream().to_owned();
        let mut rounds = self.lock();
        if let Some(round) = rounds.get_mut(&stream) {
            round.since = Instant::now();
            if round.lease.is_none() {
                round.lease = lease;
                return;
            }
            drop(rounds);
            drop(lease);
            return;
        }
        rounds.insert(
            stream,
            Round {
                recorder: recorder.clone(),
                call: call.clone(),
                inquiry: inquiry.clone(),
                since: Instant::now(),
                busy: 0,
                lease,
            },
        );
    }

    /// Notes a retry of `stream`'s call under way (it waits for another window):
    /// the call is not ended meanwhile.
    pub(crate) fn busy(&self, stream: &str) {
        if let Some(round) = self.lock().get_mut(stream) {
            round.busy += 1;
        }
    }

    /// `stream`'s call has its result: no longer kept, its presence ended.
    pub(crate) fn end(&self, stream: &str) {
        let ended = self.lock().remove(stream);
        drop(ended);
    }

    /// Renews the lease of every call kept (every [`RENEW_EVERY`](askuser_app::log::presence::RENEW_EVERY)).
    pub(crate) fn renew(&self) {
        let rounds = self.lock();
        for lease in rounds.values().filter_map(|round| round.lease.as_ref()) {
            let _ = lease.renew();
        }
    }

    /// Ends every call whose agent has not come back for [`Self::unanswered`]:
    /// its inquiry cancelled with [`NEVER_CAME_BACK`] (unless another surface
    /// finished it), its presence ended. How many were ended.
    pub(crate) fn expire(&self) -> usize {
        let stale: Vec<Round> = {
            let mut rounds = self.lock();
            let stale: Vec<String> = (rounds.iter())
                .filter(|(_, round)| round.busy == 0 && round.since.elapsed() >= self.ends_after)
                .map(|(stream, _)| stream.clone())
                .collect();
            stale.iter().filter_map(|s| rounds.remove(s)).collect()
        };
        let why = format!(
            "the agent got the questions but never came back for the answer (no call again within {})",
            span(self.ends_after)
        );
        for round in &stale {
            let reason = CancelReason::Unknown(NEVER_CAME_BACK.to_owned());
            let _ = cancel_in(&round.recorder, &round.call, &round.inquiry, reason, &why);
        }
        stale.len()
    }
}
