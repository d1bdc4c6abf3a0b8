//! Where an agent waits, through the [`Desk`]: the stream it is given (claimed
//! under its place's name), the origin it records there, and the presence it
//! holds while it waits; and the stream stored compactly once it is done. A
//! surface does all of it here, never on the log or a session of its own.
//!
//! ```
//! use askuser_app::Desk;
//! use askuser_core::AgentOrigin;
//!
//! let mut desk = Desk::memory();
//! let origin = AgentOrigin { repository: Some("billing-api".into()), ..AgentOrigin::default() };
//! // The stream is claimed by recording where the agent runs as its first event.
//! let stream = desk.claim_stream(&origin).unwrap().unwrap();
//! assert_eq!(stream, "billing-api-1");
//! assert_eq!(desk.free_stream_name(&origin).unwrap().unwrap(), "billing-api-2");
//!
//! assert_eq!(desk.head(&stream).unwrap(), 1);
//!
//! // Held while the agent waits (the inbox sees its lease); dropped, the
//! // stream records that it stopped waiting, which the desk catches up on.
//! let presence = desk.hold_presence(&stream, origin, true).unwrap();
//! assert_eq!(presence.holder().split(':').count(), 3);
//! drop(presence);
//! assert_eq!(desk.catch_up(&stream).unwrap().len(), 1);
//! assert_eq!(desk.head(&stream).unwrap(), 2);
//! ```

use std::sync::Arc;

use askuser_core::{AgentOrigin, Input};
use askuser_store::presence::LEASE_TTL;
use askuser_store::{Log, PresenceGuard, Repacked, StreamName};

use crate::error::{AppError, Result};
use crate::journal::{Desk, Taken};

impl Desk {
    /// Claims a new stream for an agent at `origin`, named after its place
    /// ([`new_stream_name`](crate::new_stream_name)): created with
    /// [`Input::Attach`] as its first event, so that agents started side by
    /// side each get their own. `None` when the origin names no place (or
    /// every name tried was taken meanwhile).
    ///
    /// # Errors
    /// When the log cannot be read or written; an origin the engine refuses.
    pub fn claim_stream(&self, origin: &AgentOrigin) -> Result<Option<StreamName>> {
        Ok(crate::naming::claim_new_stream(self.log(), origin)?)
    }

    /// The name [`Desk::claim_stream`] would claim now, without claiming it.
    ///
    /// # Errors
    /// When the log cannot list its streams.
    pub fn free_stream_name(&self, origin: &AgentOrigin) -> Result<Option<StreamName>> {
        let taken: Vec<String> = (self.log().streams()?.into_iter())
            .map(|info| info.name)
            .collect();
        Ok(crate::naming::new_stream_name(origin, &taken))
    }

    /// Records in `stream` where the agent waiting there runs
    /// ([`Input::Attach`]).
    ///
    /// # Errors
    /// [`AppError::Refused`] for an origin the engine refuses (too long, say);
    /// when the log cannot be read or written.
    pub fn attach(&mut self, stream: &str, origin: &AgentOrigin) -> Result<()> {
        self.record(stream, &Input::Attach(origin.clone()))
    }

    /// Records in `stream` that the agent from `origin` stopped waiting there
    /// ([`Input::Detach`]).
    ///
    /// # Errors
    /// As [`Desk::attach`].
    pub fn detach(&mut self, stream: &str, origin: &AgentOrigin) -> Result<()> {
        self.record(stream, &Input::Detach(origin.clone()))
    }

    /// Holds this process's presence on `stream` until the guard is dropped:
    /// records `origin` there (unless `attached`: the stream was claimed with
    /// it), then takes the lease, renewed on a thread of its own, as a holder
    /// unique to this process and call. The inbox shows the agent waiting
    /// meanwhile, and stopped within seconds of the process dying.
    ///
    /// # Errors
    /// As [`Desk::attach`]; the log failing to take the lease.
    pub fn hold_presence(
        &mut self,
        stream: &StreamName,
        origin: AgentOrigin,
        attached: bool,
    ) -> Result<PresenceGuard> {
        if !attached {
            self.attach(stream, &origin)?;
        }
        let holder = askuser_store::presence::holder_id(origin.machine.as_deref());
        Ok(PresenceGuard::attached(
            Arc::clone(self.log()),
            stream.clone(),
            holder,
            origin,
        )?)
    }

    /// Like [`Desk::hold_presence`] (the origin recorded unless `attached`),
    /// for a process that keeps many presences and renews them from one task
    /// of its own rather than a thread each (an MCP server's stateless calls):
    /// the lease is taken now and lasts [`LEASE_TTL`] unless
    /// [`HeldPresence::renew`] is called every
    /// [`RENEW_EVERY`](askuser_store::presence::RENEW_EVERY).
    ///
    /// # Errors
    /// As [`Desk::attach`]; the log failing to take the lease.
    pub fn hold_presence_renewed_by_caller(
        &mut self,
        stream: &StreamName,
        origin: AgentOrigin,
        attached: bool,
    ) -> Result<HeldPresence> {
        if !attached {
            self.attach(stream, &origin)?;
        }
        let held = HeldPresence {
            log: Arc::clone(self.log()),
            stream: stream.clone(),
            holder: askuser_store::presence::holder_id(origin.machine.as_deref()),
            origin,
        };
        held.renew()?;
        Ok(held)
    }

    /// Stores `stream`'s events as full blocks (they were appended one step
    /// at a time), so a later replay reads them fast: for a host done with
    /// its stream.
    ///
    /// # Errors
    /// When the log cannot be read or written; the events stay as they were.
    pub fn repack(&self, stream: &str) -> Result<Repacked> {
        Ok(askuser_store::compact::repack(&**self.log(), stream)?)
    }

    /// Records `input`, which the application makes for the surface: its
    /// refusal is an error.
    fn record(&mut self, stream: &str, input: &Input) -> Result<()> {
        match self.input(stream, input)?.taken {
            Taken::Recorded { .. } => Ok(()),
            Taken::Refused(refusal) => Err(AppError::Refused(Box::new(refusal))),
        }
    }
}

/// A presence lease renewed by its holder's own calls to [`HeldPresence::renew`]
/// ([`Desk::hold_presence_renewed_by_caller`]); ended, and the stream told
/// that its agent stopped waiting, when dropped (each best effort: a lease
/// not ended lapses within [`LEASE_TTL`]).
pub struct HeldPresence {
    log: Arc<dyn Log>,
    stream: StreamName,
    holder: String,
    origin: AgentOrigin,
}

impl std::fmt::Debug for HeldPresence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldPresence")
            .field("stream", &self.stream)
            .field("holder", &self.holder)
            .finish_non_exhaustive()
    }
}

impl HeldPresence {
    /// Renews the lease for another [`LEASE_TTL`].
    ///
    /// # Errors
    /// When the log cannot record the lease (it then lapses unless a later
    /// renewal succeeds).
    pub fn renew(&self) -> Result<()> {
        (self.log).renew_lease(&self.stream, &self.holder, &self.origin, LEASE_TTL)?;
        Ok(())
    }
}

impl Drop for HeldPresence {
    fn drop(&mut self) {
        let _ = self.log.end_lease(&self.stream, &self.holder);
        let _ = Desk::new(Arc::clone(&self.log)).detach(&self.stream, &self.origin);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An origin the engine refuses: nothing recorded, no lease taken, and the
    /// error names the field and what to do.
    #[test]
    fn a_refused_origin_is_an_error_naming_the_field_and_nothing_is_held() {
        let mut desk = Desk::memory();
        let stream = StreamName::try_from("s").unwrap();
        let origin = AgentOrigin {
            host: Some("claude\u{202e}code".into()),
            ..AgentOrigin::default()
        };
        let error = desk.hold_presence(&stream, origin, false).unwrap_err();
        let AppError::Refused(refusal) = &error else {
            panic!("{error:?}");
        };
        assert!(matches!(**refusal, askuser_core::Refusal::BadOrigin { .. }));
        assert_eq!(
            error.to_string(),
            "the agent's origin cannot be recorded: its host holds U+202E RIGHT-TO-LEFT \
             OVERRIDE at character 7; write it as one line of plain text"
        );
        assert_eq!(desk.head("s").unwrap(), 0);
        let leases = desk.log().leases_on("s").unwrap().unwrap_or_default();
        assert_eq!(leases.leases, Vec::new());
    }

    /// A presence renewed by its holder: the origin recorded and the lease
    /// live once taken; renewed, the lease moves on; dropped, it is ended and
    /// the stream records that its agent stopped waiting.
    #[test]
    fn a_presence_renewed_by_its_holder_is_ended_and_detached_when_dropped() {
        let mut desk = Desk::memory();
        let stream = StreamName::try_from("s").unwrap();
        let origin = AgentOrigin {
            host: Some("codex".into()),
            machine: Some("laptop".into()),
            ..AgentOrigin::default()
        };
        let held = desk
            .hold_presence_renewed_by_caller(&stream, origin.clone(), false)
            .unwrap();
        assert_eq!(desk.head("s").unwrap(), 1);
        let leases = desk.log().leases_on("s").unwrap().unwrap();
        let [lease] = leases.leases.as_slice() else {
            panic!("{leases:?}");
        };
        assert_eq!((&lease.holder, &lease.origin), (&held.holder, &origin));
        assert_eq!(lease.ttl_ms, 6_000);
        assert!(lease.live_at(leases.now) && lease.ended_at.is_none());
        held.renew().unwrap();
        drop(held);
        let leases = desk.log().leases_on("s").unwrap().unwrap();
        assert!(leases.leases[0].ended_at.is_some(), "{leases:?}");
        let caught = desk.catch_up("s").unwrap();
        assert_eq!(caught.len(), 1);
        assert_eq!(desk.head("s").unwrap(), 2);
    }
}
