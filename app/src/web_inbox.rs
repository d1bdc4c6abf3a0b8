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

/// The link of a web inbox running on `log` now, without its token, as this
/// machine's person would follow it: see [`running_inbox_seen_from`], from the
/// machine this process runs on. `None` when none runs, or the log keeps no
/// presence or cannot be read (a waiting call then says how to start one).
pub fn running_inbox(log: &dyn Log) -> Option<String> {
    let machine = crate::origin::here(None, None).machine;
    running_inbox_seen_from(log, machine.as_deref())
}

impl crate::Desk {
    /// The link of a web inbox running on this desk's log now, as
    /// [`running_inbox`] tells it.
    #[must_use]
    pub fn running_inbox(&self) -> Option<String> {
        running_inbox(&**self.log())
    }
}

/// The link of a web inbox running on `log` now, without its token, as a
/// person at `machine` would follow it. An inbox on that machine comes first
/// (the one renewed last); else one on another machine sharing the log (a
/// PostgreSQL log), whose loopback link (`http://127.0.0.1:8765/`) opens only
/// there, so it is named with its machine: `http://127.0.0.1:8765/ on laptop`.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use askuser_app::log::{Log, MemLog};
/// use askuser_app::web_inbox::{INBOX_LEASE, running_inbox_seen_from};
/// use askuser_core::AgentOrigin;
///
/// let log: Arc<dyn Log> = Arc::new(MemLog::new());
/// let inbox = AgentOrigin {
///     label: Some("askuser web".into()),
///     host: Some("http://127.0.0.1:8765/".into()),
///     machine: Some("laptop".into()),
///     ..AgentOrigin::default()
/// };
/// log.renew_lease(INBOX_LEASE, "laptop:1:1", &inbox, Duration::from_secs(6)).unwrap();
/// assert_eq!(
///     running_inbox_seen_from(&*log, Some("laptop")).as_deref(),
///     Some("http://127.0.0.1:8765/")
/// );
/// assert_eq!(
///     running_inbox_seen_from(&*log, Some("build-server")).as_deref(),
///     Some("http://127.0.0.1:8765/ on laptop")
/// );
/// ```
pub fn running_inbox_seen_from(log: &dyn Log, machine: Option<&str>) -> Option<String> {
    let leases = log.leases_on(INBOX_LEASE).ok().flatten()?;
    let running = (leases.leases.iter())
        .filter(|lease| lease.live_at(leases.now))
        .filter(|lease| lease.origin.label.as_deref() == Some(LABEL));
    let here = |lease: &askuser_store::Lease| {
        machine.is_some() && lease.origin.machine.as_deref() == machine
    };
    // This machine's newest, else the newest of all.
    let lease = running.max_by_key(|lease| (here(lease), lease.renewed_at))?;
    let link = lease.origin.host.clone()?;
    Some(match &lease.origin.machine {
        Some(there) if !here(lease) && loopback(&link) => format!("{link} on {there}"),
        _ => link,
    })
}

/// Whether `link` names this machine's own loopback address, which opens only
/// on the machine it was given on.
fn loopback(link: &str) -> bool {
    let rest = link
        .strip_prefix("http://")
        .or_else(|| link.strip_prefix("https://"))
        .unwrap_or(link);
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => rest.split([':', '/']).next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
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

#[cfg(test)]
mod tests {
    use super::loopback;

    #[test]
    fn only_a_loopback_link_opens_on_its_own_machine_alone() {
        let links = [
            "http://127.0.0.1:8765/",
            "http://localhost:8765/",
            "https://[::1]:8765/",
            "http://127.1.2.3/",
            "http://192.168.1.5:8765/",
            "https://inbox.example.com/",
            "http://[fe80::1]:8765/",
        ];
        assert_eq!(
            links.map(loopback),
            [true, true, true, true, false, false, false]
        );
    }
}
