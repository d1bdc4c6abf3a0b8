//! Whether a web inbox runs on a log, and where: so a call that waits for an
//! answer from another window can give the person the inbox's link.
//!
//! A running `askuser web` holds a presence lease ([`askuser_store::presence`])
//! on the reserved name [`INBOX_LEASE`] (never an agent's stream: no stream is
//! read by that name), its origin's `host` being the inbox's link without its
//! token, renewed every [`RENEW_EVERY`](askuser_store::presence::RENEW_EVERY) while it serves ([`InboxPresence`]). A
//! killed inbox stops renewing it, and [`LEASE_TTL`](askuser_store::presence::LEASE_TTL) later no reader sees it
//! ([`running_inbox`]). A log that keeps no presence sees no inbox.
//!
//! ```
//! use std::sync::Arc;
//! use askuser_app::log::{Log, MemLog};
//! use askuser_app::web_inbox::{InboxPresence, running_inbox};
//!
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! assert_eq!(running_inbox(&*log), None);
//! let inbox = InboxPresence::hold(Arc::clone(&log), "http://127.0.0.1:8765/").unwrap();
//! assert_eq!(running_inbox(&*log).as_deref(), Some("http://127.0.0.1:8765/"));
//! drop(inbox);
//! assert_eq!(running_inbox(&*log), None);
//! ```

use std::sync::Arc;

use askuser_core::AgentOrigin;
use askuser_store::Log;
use askuser_store::presence::{HeldLease, holder_id};

use crate::error::Result;

/// The name the web inbox's presence lease is held on: not a stream, and
/// named so no agent would name one so.
pub const INBOX_LEASE: &str = "(askuser web inbox)";

/// What the web inbox's lease says of it: its label.
const LABEL: &str = "askuser web";

/// The link of a web inbox running on `log` now (the one renewed last), without
/// its token; `None` when none runs, or the log keeps no presence or cannot be
/// read (a waiting call then says how to start one).
pub fn running_inbox(log: &dyn Log) -> Option<String> {
    let leases = log.leases().ok().flatten()?;
    (leases.leases.iter())
        .filter(|lease| lease.stream == INBOX_LEASE && lease.live_at(leases.now))
        .filter(|lease| lease.origin.label.as_deref() == Some(LABEL))
        .max_by_key(|lease| lease.renewed_at)
        .and_then(|lease| lease.origin.host.clone())
}

/// A web inbox's presence on a log while it serves: the lease taken by
/// [`InboxPresence::hold`], renewed on its own thread, ended when dropped.
pub struct InboxPresence {
    lease: HeldLease,
}

impl std::fmt::Debug for InboxPresence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboxPresence")
            .field("holder", &self.lease.holder())
            .finish_non_exhaustive()
    }
}

impl InboxPresence {
    /// Says on `log` that a web inbox runs at `link` (its address without the
    /// token) until dropped.
    ///
    /// # Errors
    /// The log refusing the lease (a link that is not one line of plain text,
    /// or too long to keep), or no thread to renew it.
    pub fn hold(log: Arc<dyn Log>, link: &str) -> Result<Self> {
        let machine = crate::origin::here(None, None).machine;
        let origin = AgentOrigin {
            label: Some(LABEL.to_owned()),
            host: Some(link.to_owned()),
            machine,
            directory: None,
            repository: None,
        };
        let holder = holder_id(origin.machine.as_deref());
        let lease = HeldLease::take(log, INBOX_LEASE, holder, &origin, "askuser-inbox-presence")?;
        Ok(Self { lease })
    }
}
