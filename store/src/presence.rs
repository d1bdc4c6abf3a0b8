//! Presence: whether anyone still waits on a stream.
//!
//! Every process that waits on a stream (`askuser serve`, `ask`, `mcp`, an
//! embedder's [`Session`]) holds a **lease**: a fact the store keeps beside the
//! log, not an event, saying "holder H waits on stream S, with origin O, renewed
//! at T". A [`PresenceGuard`] records [`Event::Attached`](askuser_core::Event::Attached)
//! when it starts, renews the lease every [`RENEW_EVERY`] on a thread, and when it
//! is dropped ends the lease and records
//! [`Event::Detached`](askuser_core::Event::Detached). A process killed records
//! nothing: its lease is not renewed, and [`LEASE_TTL`] after its last renewal a
//! reader sees it gone ([`presence_of`]).
//!
//! A log keeps leases through [`Log::renew_lease`], [`Log::end_lease`] and
//! [`Log::leases`]; a log that keeps none (the defaults) reports
//! [`Presence::Unknown`]. The time of every lease is the log's own clock (the
//! owner's, the database's), so the hosts' clocks need not agree.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use askuser_core::AgentOrigin;
use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::log::Log;
use crate::session::{Session, SessionError};
use crate::stream_name::StreamName;
use crate::types::{StreamInfo, Timestamp};

/// How often a [`PresenceGuard`] renews its lease.
pub const RENEW_EVERY: Duration = Duration::from_secs(2);

/// How long a lease lasts after its last renewal: three missed renewals, so a
/// killed agent shows as gone within a few seconds and a busy one does not flicker.
pub const LEASE_TTL: Duration = Duration::from_secs(6);

/// The longest holder id, in bytes.
pub const MAX_HOLDER_BYTES: usize = 128;

/// The most leases an in-memory [`LeaseTable`] keeps; past it, the leases that
/// ended or expired longest ago are forgotten first, and a new one is refused
/// only when every kept lease is live.
pub const MAX_LEASES: usize = 4096;

/// The most live leases one process may hold on one log (a waiting agent holds
/// one; a flood of calls into one server is refused past this).
pub const PER_PROCESS: usize = 256;

/// The places of a log's [`MAX_LEASES`] kept for processes holding fewer than
/// [`FEW`], so that an agent started after a flood still gets its presence.
pub const RESERVED: usize = 256;

/// Fewer live leases than this, and a process may take the [`RESERVED`] places
/// (an agent holds one or two).
pub const FEW: usize = 4;

/// Whether a process holding `mine` live leases may take a new one while the
/// log holds `live` (asked only once `mine` reaches [`FEW`]): the one rule of
/// both backends' bounds, in the words a refused process is told.
///
/// # Errors
///
/// [`StoreError::BadLease`] saying which bound was reached and what to do.
pub fn admit_new_lease(mine: usize, live: impl FnOnce() -> Result<usize>) -> Result<()> {
    if mine >= PER_PROCESS {
        return Err(StoreError::BadLease(format!(
            "this process already holds {PER_PROCESS} presence leases on this log, the most one process may: end some (each waiting agent holds one)"
        )));
    }
    if mine >= FEW {
        let live = live()?;
        if live >= MAX_LEASES - RESERVED {
            return Err(StoreError::BadLease(format!(
                "{live} of this log's {MAX_LEASES} presence leases are held; the last {RESERVED} are kept for processes holding fewer than {FEW}, so that an agent started now still gets its presence"
            )));
        }
    }
    Ok(())
}

/// One process's presence on one stream, as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The stream waited on.
    pub stream: String,
    /// Who holds it: an id unique to one guard (`laptop:5081:1`).
    pub holder: String,
    /// Who is asking, from where.
    pub origin: AgentOrigin,
    /// When it was last renewed, on the log's clock.
    pub renewed_at: Timestamp,
    /// How long it lasts after `renewed_at`, in milliseconds.
    pub ttl_ms: u64,
    /// When its holder ended it cleanly, on the log's clock; `None` while held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Timestamp>,
}

impl Lease {
    /// When it expires unless renewed.
    pub fn expires_at(&self) -> Timestamp {
        Timestamp(self.renewed_at.0.saturating_add(self.ttl_ms))
    }

    /// Whether it is held at `now`: not ended and not expired.
    pub fn live_at(&self, now: Timestamp) -> bool {
        self.ended_at.is_none() && now < self.expires_at()
    }

    /// Since when nobody holds it: when it was ended, else when it expired
    /// (`None` while it is live at `now`).
    pub fn gone_since(&self, now: Timestamp) -> Option<Timestamp> {
        match self.ended_at {
            Some(ended) => Some(ended),
            None if now >= self.expires_at() => Some(self.expires_at()),
            None => None,
        }
    }
}

/// Every lease a log knows, with the log's time now (what `live` is judged at).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leases {
    /// The log's clock when the leases were read.
    pub now: Timestamp,
    /// The leases, live, ended and expired, by stream then holder.
    pub leases: Vec<Lease>,
}

impl Leases {
    /// Only the leases on `stream`, read at the same time.
    #[must_use]
    pub fn on(self, stream: &str) -> Self {
        Self {
            now: self.now,
            leases: (self.leases.into_iter())
                .filter(|lease| lease.stream == stream)
                .collect(),
        }
    }
}

/// Whether anyone waits on a stream, as a reader tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    /// A process holds a live lease on it: who, from where.
    Waiting(AgentOrigin),
    /// Nobody holds a live lease: the last one ended or expired at `since`
    /// (`None`: no lease is known, as after the log's owner restarted).
    Gone {
        /// When the last lease ended or expired.
        since: Option<Timestamp>,
    },
    /// A fork that no process attached to: nobody listens on it.
    Fork,
    /// The log keeps no presence (an older owner, a backend without it).
    Unknown,
}

/// Whether anyone waits on `stream` (`info`), from the leases a log reported
/// (`None`: it keeps none). A live lease wins; a fork without one is
/// [`Presence::Fork`] unless `attached` (an [`Event::Attached`](askuser_core::Event::Attached)
/// of its own: a process waited on it once); otherwise it is gone since its
/// latest lease ended or expired.
pub fn presence_of(info: &StreamInfo, attached: bool, leases: Option<&Leases>) -> Presence {
    let Some(leases) = leases else {
        return Presence::Unknown;
    };
    let mine = || leases.leases.iter().filter(|l| l.stream == info.name);
    if let Some(live) = mine()
        .filter(|l| l.live_at(leases.now))
        .max_by_key(|l| l.renewed_at)
    {
        return Presence::Waiting(live.origin.clone());
    }
    let since = mine().filter_map(|l| l.gone_since(leases.now)).max();
    if info.parent.is_some() && !attached && since.is_none() {
        return Presence::Fork;
    }
    Presence::Gone { since }
}

/// Checks a lease's holder id and origin before a log keeps them.
///
/// # Errors
/// [`StoreError::BadLease`].
pub fn check_lease(holder: &str, origin: &AgentOrigin) -> Result<()> {
    if holder.is_empty()
        || holder.len() > MAX_HOLDER_BYTES
        || holder.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(StoreError::BadLease(format!(
            "a holder id is 1 to {MAX_HOLDER_BYTES} bytes of printable text without spaces"
        )));
    }
    origin
        .check()
        .map_err(|refusal| StoreError::BadLease(refusal.to_string()))
}

/// The leases of a log that keeps them in memory ([`MemLog`](crate::MemLog),
/// the sled log, the shared sled log's owner), at most [`MAX_LEASES`].
#[derive(Debug, Default)]
pub struct LeaseTable {
    leases: Mutex<BTreeMap<(String, String), Lease>>,
}

impl LeaseTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Renews (or takes) `holder`'s lease on `stream` at `now` for `ttl`.
    ///
    /// # Errors
    /// [`StoreError::BadLease`]: a holder id or origin that does not fit, or a
    /// table full of live leases.
    pub fn renew(
        &self,
        stream: &str,
        holder: &str,
        origin: &AgentOrigin,
        ttl: Duration,
        now: Timestamp,
    ) -> Result<()> {
        check_lease(holder, origin)?;
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (stream.to_owned(), holder.to_owned());
        if !leases.contains_key(&key) && leases.len() >= MAX_LEASES {
            let oldest = (leases.iter())
                .filter_map(|(key, lease)| Some((lease.gone_since(now)?, key.clone())))
                .min();
            let Some((_, oldest)) = oldest else {
                return Err(StoreError::BadLease(format!(
                    "{MAX_LEASES} processes already wait on this log"
                )));
            };
            leases.remove(&oldest);
        }
        leases.insert(
            key,
            Lease {
                stream: stream.to_owned(),
                holder: holder.to_owned(),
                origin: origin.clone(),
                renewed_at: now,
                ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
                ended_at: None,
            },
        );
        Ok(())
    }

    /// Ends `holder`'s lease on `stream` at `now` (nothing if it holds none).
    pub fn end(&self, stream: &str, holder: &str, now: Timestamp) {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(lease) = leases.get_mut(&(stream.to_owned(), holder.to_owned())) {
            lease.ended_at.get_or_insert(now);
        }
    }

    /// The leases on `stream` (live, ended and expired), read at `now`.
    pub fn read_on(&self, stream: &str, now: Timestamp) -> Leases {
        let leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        Leases {
            now,
            leases: (leases.range((stream.to_owned(), String::new())..))
                .take_while(|((on, _), _)| on == stream)
                .map(|(_, lease)| lease.clone())
                .collect(),
        }
    }

    /// Every lease, read at `now`.
    pub fn read(&self, now: Timestamp) -> Leases {
        let leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        Leases {
            now,
            leases: leases.values().cloned().collect(),
        }
    }
}

/// A lease held until dropped: taken at once, renewed every [`RENEW_EVERY`] on
/// a thread of its own (a failed renewal is tried again at the next: the log
/// may be changing owners), and ended when dropped (best effort: a log that
/// fails then leaves it to expire). What [`PresenceGuard`] holds on a stream,
/// and what a web inbox holds to say where it runs.
pub struct HeldLease {
    log: Arc<dyn Log>,
    lease: String,
    holder: String,
    stop: Arc<(Mutex<bool>, Condvar)>,
    renewer: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for HeldLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldLease")
            .field("lease", &self.lease)
            .field("holder", &self.holder)
            .finish_non_exhaustive()
    }
}

impl HeldLease {
    /// Takes `holder`'s lease named `lease` from `origin` on `log`, renewed by
    /// a thread named `thread` until dropped.
    ///
    /// # Errors
    /// The log failing to take the lease ([`StoreError::BadLease`] for a holder
    /// id or origin that does not fit), or no thread to renew it.
    pub fn take(
        log: Arc<dyn Log>,
        lease: &str,
        holder: String,
        origin: &AgentOrigin,
        thread: &str,
    ) -> Result<Self> {
        log.renew_lease(lease, &holder, origin, LEASE_TTL)?;
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let renewer = {
            let (log, lease, holder, origin, stop) = (
                Arc::clone(&log),
                lease.to_owned(),
                holder.clone(),
                origin.clone(),
                Arc::clone(&stop),
            );
            std::thread::Builder::new()
                .name(thread.to_owned())
                .spawn(move || renew_until_stopped(&*log, &lease, &holder, &origin, &stop))?
        };
        Ok(Self {
            log,
            lease: lease.to_owned(),
            holder,
            stop,
            renewer: Some(renewer),
        })
    }

    /// The holder id.
    pub fn holder(&self) -> &str {
        &self.holder
    }
}

/// Renews the lease every [`RENEW_EVERY`] until `stop` is set (a failed renewal
/// is tried again at the next one: the log may be changing owners).
fn renew_until_stopped(
    log: &dyn Log,
    lease: &str,
    holder: &str,
    origin: &AgentOrigin,
    stop: &(Mutex<bool>, Condvar),
) {
    let (stopped, wake) = stop;
    let mut stopped = stopped.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let (guard, _) = wake
            .wait_timeout_while(stopped, RENEW_EVERY, |stopped| !*stopped)
            .unwrap_or_else(PoisonError::into_inner);
        stopped = guard;
        if *stopped {
            return;
        }
        drop(stopped);
        let _ = log.renew_lease(lease, holder, origin, LEASE_TTL);
        stopped = stop.0.lock().unwrap_or_else(PoisonError::into_inner);
    }
}

impl Drop for HeldLease {
    fn drop(&mut self) {
        *self.stop.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.stop.1.notify_all();
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        let _ = self.log.end_lease(&self.lease, &self.holder);
    }
}

/// A process's presence on one stream while it waits: started by
/// [`PresenceGuard::start`], which records [`Event::Attached`](askuser_core::Event::Attached)
/// and takes the lease; renewed every [`RENEW_EVERY`] on its own thread; ended
/// when dropped (the lease ended and [`Event::Detached`](askuser_core::Event::Detached)
/// recorded, each best effort: a log that fails then leaves the lease to expire).
pub struct PresenceGuard {
    log: Arc<dyn Log>,
    stream: StreamName,
    origin: AgentOrigin,
    /// Always `Some` until dropped: ended before the detach is recorded.
    lease: Option<HeldLease>,
}

impl std::fmt::Debug for PresenceGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PresenceGuard")
            .field("stream", &self.stream)
            .field("holder", &self.holder())
            .finish_non_exhaustive()
    }
}

impl PresenceGuard {
    /// Starts waiting on `session`'s stream as `holder` (unique to this guard:
    /// see [`holder_id`]) from `origin`: records the origin in the stream
    /// ([`Input::Attach`](askuser_core::Input::Attach), through
    /// [`Session::handle`]), takes the lease, and renews it every
    /// [`RENEW_EVERY`] until dropped.
    ///
    /// # Errors
    /// A refused origin ([`SessionError::Refused`]); the log failing to record
    /// it or to take the lease.
    pub fn start(
        session: &mut Session,
        holder: String,
        origin: AgentOrigin,
    ) -> std::result::Result<Self, SessionError> {
        session.handle(&askuser_core::Input::Attach(origin.clone()))?;
        Ok(Self::attached(
            Arc::clone(session.log()),
            session.stream().clone(),
            holder,
            origin,
        )?)
    }

    /// Takes the lease for a stream whose [`Event::Attached`](askuser_core::Event::Attached)
    /// this process recorded already (it created the stream with it, say), and
    /// renews it every [`RENEW_EVERY`] until dropped, as [`PresenceGuard::start`].
    ///
    /// # Errors
    /// The log failing to take the lease ([`StoreError::BadLease`] for a holder id
    /// or origin that does not fit).
    pub fn attached(
        log: Arc<dyn Log>,
        stream: StreamName,
        holder: String,
        origin: AgentOrigin,
    ) -> Result<Self> {
        let lease = HeldLease::take(
            Arc::clone(&log),
            &stream,
            holder,
            &origin,
            "askuser-presence",
        )?;
        Ok(Self {
            log,
            stream,
            origin,
            lease: Some(lease),
        })
    }

    /// The holder id.
    pub fn holder(&self) -> &str {
        self.lease.as_ref().map_or("", HeldLease::holder)
    }
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        drop(self.lease.take());
        if let Ok(mut session) = Session::open(Arc::clone(&self.log), self.stream.clone()) {
            let _ = session.handle(&askuser_core::Input::Detach(self.origin.clone()));
        }
    }
}

/// A holder id unique to this process and call: `machine:pid:n`, with the
/// machine's name cut to fit and made plain (`-` for what is not a letter,
/// digit, `.` or `-`).
pub fn holder_id(machine: Option<&str>) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let machine: String = (machine.unwrap_or("host").chars())
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{machine}:{}:{n}", std::process::id())
}
