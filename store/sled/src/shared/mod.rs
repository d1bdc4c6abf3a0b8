//! [`SharedSledLog`]: one sled log, used by many processes at once.
//!
//! sled lets one process open a database. The first process to open a log through
//! [`SharedSledLog::open`] becomes its **owner**: it holds sled and serves every
//! [`Log`] operation on a Unix socket beside the database,
//! `<database directory>/askuser.sock`. A process that finds the database locked
//! connects to that socket and becomes a **client**: the same operations, each one
//! request and one response (length-framed `MessagePack`, see `store/src/shared/wire.rs`). So every command works
//! the same whether it owns the log or not, and [`Session`](askuser_store::Session) works
//! unchanged on top: the expected-head append makes the first answer win, and the
//! others get a conflict, catch up and are told it was already answered.
//!
//! **Ownership moves.** When the owner exits (or is killed), a client's next call
//! fails to reach it; the client then opens the database itself and becomes the
//! owner (binding the socket again), or connects to whichever process did, within
//! five seconds. An append whose answer was lost with the owner is settled
//! by reading the stream: if its events are there, under the head it expected, it
//! succeeded; otherwise it is sent again or reported as a conflict. Nothing is
//! appended twice.
//!
//! **An idle owner repacks, then lets go.** An owner with no client connected
//! and nothing under way (no call, wait or scan of its own) for five minutes
//! ([`SharedSledLog::with_owner_idle`]) first repacks the streams it appended to
//! a few events at a time ([`compact::repack`](askuser_store::compact::repack): runs of
//! small values rewritten as full blocks, so that they replay at block speed);
//! idle for as long again, it closes sled's database (sealing it, see
//! [`SledLog::closed_cleanly`]) and takes its socket away; its next call reaches whichever process owns the log then, or
//! takes the log again. So a process that keeps a log open for days but seldom
//! uses it (an MCP server in an editor) holds no lock, no cache and no socket
//! meanwhile, and is never the owner the others find stopped.
//!
//! **Waiting.** [`Log::wait_past`] blocks until a stream's head passes a sequence
//! number. In the owner it waits on a condition variable that every append
//! notifies; a client's wait is one request the owner answers when an append lands
//! (no polling over the socket). [`Log::wait_changed`] waits the same way for any
//! change to the log (an append, fork or compaction of any stream); an owner of
//! an older build, which does not know that request (its greeting announces the
//! protocol's revision), is polled instead. A client's `wait_changed` asks the
//! owner for a whole slice (10 s) whatever its caller's timeout: when the
//! caller's time runs out first, the request stays outstanding on its
//! connection (parked), and the next wait for the same version awaits that
//! answer instead of asking again, so a watcher that asks every second
//! costs the owner nothing while the log does not change. The owner keeps the
//! log's version until the next append, fork or compaction, so a wait asked
//! again lists no streams.
//!
//! **The socket** is created in a fresh directory of mode 0700, made 0600, and
//! renamed into place, so only the user who owns the log can connect. A socket file
//! left by a killed owner is replaced: only the holder of sled's lock binds it, so
//! no live owner can be listening there. Frames are capped at 64 MiB and decoded as
//! hostile input (a bad frame is an error and ends the connection, never a panic).
//!
//! **The socket is bounded**, even against processes of the same user. A
//! frame's declared length is reserved from one budget shared by every
//! connection (128 MiB: two frames of the largest size) before any of its
//! bytes are buffered, and its bytes are read as they come; a frame that does
//! not fit is refused with an error frame ("the log's owner is holding N MiB of
//! other requests, ...: try again") and its connection closed, so clients that
//! start large frames and never finish them cost the owner at most the budget.
//! Frames up to 64 KiB (every request but a large append or snapshot) are not
//! counted against it: at most 1,024 × 64 KiB of them. A frame must arrive
//! within 30 s of its length. The owner serves 1,024 connections (a client
//! process holds at most two at rest: its requests', and its parked wait's, see
//! **Waiting**); the next is
//! answered with an error frame saying so and what to do, which the client
//! reports. A connection that sends nothing for 60 s is closed (a client keeps
//! an idle connection for 20 s at most).
//!
//! **Who may be ended: the recorded owner.** The owner records itself in
//! `askuser.owner` beside the socket, before the socket is in place: its
//! process id, its start time (`/proc/PID/stat`), its executable
//! (`/proc/PID/exe`), the inode of the listening socket it holds, and whether
//! it is a person's. A process id alone names the wrong process once the
//! owner has exited and its number was reused; and the socket's peer
//! (`SO_PEERCRED`) and `/proc/locks` keep naming the process that created the
//! socket and the lock, even after it exited and left them to a child. So a
//! client ends a process only when it is that record's: it opens a pidfd on
//! the socket's peer, then checks the record (written by this user), the start
//! time, the executable, that the process holds the recorded socket, and that
//! it holds sled's lock on this log's `db` file, and signals through the pidfd
//! (the very process checked, even if its id were reused meanwhile). A process
//! that only inherited the lock or the socket, or took a dead owner's id, is
//! never ended; opening the log then fails after five seconds saying why and
//! that the process holding `db` is to be ended by hand (`fuser` names it).
//!
//! **A stopped or hung owner.** An owner stopped (`SIGSTOP`, a debugger) holds
//! sled's lock and answers nobody; so does one that is hung. A client waiting
//! for an answer (or a greeting) looks at the owner every 250 ms, when it is
//! the recorded owner (above); a client in a wait, which the owner answers only
//! at a change, every 5 s, trying a second greeting only when the owner has not
//! run since its last look (a stopped or hung owner changes nothing, and any
//! other call, a lease's renewal every 2 s among them, watches it closely). Seen stopped for a second, it is ended
//! (`SIGKILL`: a stopped process acts on nothing gentler). The owner also
//! holds a **lease**: it greets every new connection at once, from a thread of
//! its own, whatever its other threads are doing (a long wait or scan, an
//! fsync). A greeting left unanswered for 750 ms (the client's own, or, while a
//! request goes unanswered, a second connection's made every 500 ms) while the
//! owner did not run at all (its CPU time in `/proc/PID/stat` did not move)
//! means the owner is hung, and it is ended the same way; one that runs (busy,
//! or starved on a loaded machine) is waited for. The lock is then released,
//! and the client takes the log over as after any lost owner, within about 1.5
//! s; an append the ended owner may have carried out is settled by reading the
//! stream, so nothing acknowledged is lost and nothing is appended twice. An
//! owner that greets but never answers a request (a bug) is waited for up to
//! 30 seconds, then [`StoreError::OwnerUnreachable`].
//!
//! **A person's process is never ended, and never holds the log while it is
//! stopped** ([`hand_over_when_stopped`], which `askuser ask` and `resume`
//! call at a terminal). Ctrl-Z (at the terminal, or in the editor the form
//! opened, which stops its process group) sends `SIGTSTP`; a thread of the
//! process catches it, lets go of every log the process owns (the waits and
//! calls of its own under way are cut short and carried on later; its server
//! stops; its socket and record are removed; sled is closed, releasing its
//! lock), and only then stops the process (`SIGSTOP`); no thread of it takes a
//! log meanwhile. The others find no owner and take the log over at once. On
//! `fg` (`SIGCONT`) its calls reach whichever process owns the log, or take it
//! again. Its record says it is a person's, so when it is stopped by other
//! means (`SIGSTOP`, a debugger, which no handler sees) or hangs, no client
//! ends it: they fail saying to resume it. This was chosen over an owner in a
//! background process of its own (which the person's process would never
//! be): it needs no second process to start, find and let exit, and the
//! person's process stays the owner while it runs, as any other.
//!
//! **Limits.** A client's [`Durability::Buffered`] append is
//! in the owner's buffers, and lost if the owner is killed before they are written
//! out. A database path too long for a Unix socket (108 bytes with the socket's
//! name) is still opened and used by its owner, but cannot be shared: other
//! processes get [`StoreError::OwnerUnreachable`].

mod budget;
mod client;
mod idle;
mod leases;
mod notifier;
mod owner;
pub(crate) mod record;
mod stop;
mod storage;
pub(crate) mod wire;

pub use stop::hand_over_when_stopped;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use askuser_core::{AgentOrigin, Event};

use self::client::{CallError, Client, REQUEST_TIMEOUT, Watch};
use self::owner::{CONNECTION_IDLE, Core, Server, WAIT_SLICE};
use self::wire::{Request, Response};
use crate::sled_log::SledLog;
use askuser_store::backend::poll_changed;
use askuser_store::codec::check_name;
use askuser_store::{Clock, Durability, Seq, StreamInfo, SystemClock};
use askuser_store::{Leases, Log, Version};
use askuser_store::{Result, StoreError};

/// The socket's file name, inside the database directory.
const SOCKET_NAME: &str = "askuser.sock";

/// How many times one call recovers from losing its owner before it gives up.
const MAX_RECOVERIES: u32 = 3;

/// How long opening, or a call whose owner went away, keeps trying to reach an
/// owner or to become one.
const TAKEOVER_PATIENCE: Duration = Duration::from_secs(5);

/// How long an owner may be idle before it lets the log go, unless set
/// ([`SharedSledLog::with_owner_idle`]).
const OWNER_IDLE: Duration = Duration::from_secs(300);

/// How long one attempt to take sled's lock waits.
const LOCK_ATTEMPT: Duration = Duration::from_millis(100);

/// A [`Log`] on a sled database that many processes use at once (see the module
/// docs): this process either owns the database and serves it to the others, or
/// reaches the owner over its socket. It is the log the `askuser` program opens.
///
/// ```
/// use std::sync::Arc;
/// use askuser_sled::SharedSledLog;
/// use askuser_store::Log;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("askuser.db");
/// let log: Arc<dyn Log> = Arc::new(SharedSledLog::open(&path)?);
/// // Another process opening `path` now reaches this one over the socket, and
/// // becomes the owner itself when this one exits.
/// assert!(log.streams()?.is_empty());
/// # Ok(())
/// # }
/// ```
pub struct SharedSledLog {
    path: PathBuf,
    socket: PathBuf,
    clock: Arc<dyn Clock>,
    durability: Durability,
    /// Set while this process owns the log: from taking it until it lets it go
    /// (when it is dropped, or idle, see [`SharedSledLog::with_owner_idle`]).
    owned: Arc<RwLock<Option<Arc<Owned>>>>,
    /// How long the owner may be idle before it lets the log go, in milliseconds.
    idle_after: Arc<AtomicU64>,
    /// How long the owner keeps a client's connection that sends nothing, in
    /// milliseconds (see [`SharedSledLog::with_connection_idle`]).
    connection_idle: Arc<AtomicU64>,
    /// Whether sled runs without its background thread while this process owns
    /// the log (see [`SharedSledLog::open_for_reading`]).
    quiet: bool,
    client: Client,
    /// One thread at a time looks for a new owner.
    recovering: Mutex<()>,
}

struct Owned {
    /// Dropped first: its threads hold the core.
    #[allow(dead_code, reason = "held for its Drop, which stops the threads")]
    server: Option<Server>,
    core: Arc<Core>,
    /// The database's directory: a stop waits until sled has closed its data
    /// file there (see `stop::until_closed`).
    path: PathBuf,
}

impl std::fmt::Debug for SharedSledLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedSledLog")
            .field("path", &self.path)
            .field("owner", &self.is_owner())
            .finish_non_exhaustive()
    }
}

/// What a wait waits for: any append, or another process's.
#[derive(Debug, Clone, Copy)]
enum Waited {
    Any,
    Others,
}

impl SharedSledLog {
    /// The waits of [`Log::wait_past`] and [`Log::wait_for_others`], one
    /// slice of [`WAIT_SLICE`] at a time.
    fn wait_on(&self, stream: &str, seq: Seq, timeout: Duration, waited: Waited) -> Result<Seq> {
        let me = std::process::id();
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let left = time_left(deadline);
            if let Some(owned) = self.owned() {
                let _busy = owned.core.busy();
                let head = match waited {
                    Waited::Any => owned.core.wait_past(stream, seq, left)?,
                    Waited::Others => owned.core.wait_for_others(stream, (seq, me), left)?,
                };
                // Cut short as this process let the log go: waited for on.
                if head > seq || left.is_zero() || !owned.core.is_stopping() {
                    return Ok(head);
                }
                continue;
            }
            let slice = left.min(WAIT_SLICE);
            let millis = u64::try_from(slice.as_millis()).unwrap_or(u64::MAX);
            let request = match waited {
                Waited::Others if self.client.owner_revision() >= 4 => Request::WaitForOthers {
                    stream: stream.into(),
                    past: seq,
                    millis,
                },
                _ => Request::Wait {
                    stream: stream.into(),
                    past: seq,
                    millis,
                },
            };
            let head = self.run(
                &request,
                slice + REQUEST_TIMEOUT,
                |core| match waited {
                    Waited::Any => core.wait_past(stream, seq, slice),
                    Waited::Others => core.wait_for_others(stream, (seq, me), slice),
                },
                |r| match r {
                    Response::Head(head) => Some(head),
                    _ => None,
                },
            )?;
            if head > seq || left <= slice || matches!(waited, Waited::Others) {
                return Ok(head);
            }
        }
    }

    /// Opens (creating if needed) the sled database in the directory `path`, as its
    /// owner or as a client of the process that owns it, with [`Durability::Flush`]
    /// appends and the system clock.
    ///
    /// # Errors
    ///
    /// [`StoreError::OwnerUnreachable`] when another process holds the database and
    /// does not answer on its socket within five seconds;
    /// [`StoreError::Recovery`] when sled cannot recover it; a storage error.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, Durability::Flush, Arc::new(SystemClock))
    }

    /// [`SharedSledLog::open`] with the durability of this handle's appends, and the
    /// clock that stamps records while this process owns the log (a client's
    /// records are stamped by the owner's clock). The owner's durability also
    /// governs its snapshots, forks and compactions.
    ///
    /// # Errors
    ///
    /// As [`SharedSledLog::open`].
    pub fn open_with(
        path: impl AsRef<Path>,
        durability: Durability,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let log = Self::unattached(path.as_ref(), durability, clock, false);
        log.attach()?;
        Ok(log)
    }

    /// The log at `path`, not yet reaching an owner nor being one.
    fn unattached(path: &Path, durability: Durability, clock: Arc<dyn Clock>, quiet: bool) -> Self {
        let socket = path.join(SOCKET_NAME);
        let owned = Arc::default();
        stop::register(&owned);
        Self {
            client: Client::new(&socket),
            path: path.to_owned(),
            socket,
            clock,
            durability,
            owned,
            idle_after: Arc::new(AtomicU64::new(idle::millis(OWNER_IDLE))),
            connection_idle: Arc::new(AtomicU64::new(idle::millis(CONNECTION_IDLE))),
            quiet,
            recovering: Mutex::new(()),
        }
    }

    /// [`SharedSledLog::open`] for a process that only reads (the `askuser log`
    /// commands): should it own the log, sled runs no background thread, so that
    /// it never moves pages to free segments of the database while it reads, and
    /// a log its last writer closed cleanly ([`SledLog::closed_cleanly`]) keeps
    /// every byte and its seal. Another process may still write through it, each
    /// append flushed as it asks.
    ///
    /// # Errors
    ///
    /// As [`SharedSledLog::open`].
    pub fn open_for_reading(path: impl AsRef<Path>) -> Result<Self> {
        let log = Self::unattached(
            path.as_ref(),
            Durability::Flush,
            Arc::new(SystemClock),
            true,
        );
        log.attach()?;
        Ok(log)
    }

    /// Whether this process owns the log (holds sled and serves the others).
    pub fn is_owner(&self) -> bool {
        self.owned().is_some()
    }

    /// Sets how long this process, while it owns the log, may go with no client
    /// connected and nothing under way (no call, no wait) before it repacks the
    /// streams it appended to a few events at a time, and, idle as long again,
    /// lets the log go (five minutes unless set): it closes sled's database, so
    /// that its lock and memory are released, and takes its socket away. Its next call reaches
    /// whichever process owns the log then, or takes it again. An idle owner
    /// never holds the log from the others, who would find it stopped or hung
    /// and end it. [`Duration::ZERO`] never lets go.
    #[must_use]
    pub fn with_owner_idle(self, idle: Duration) -> Self {
        self.idle_after.store(idle::millis(idle), Ordering::SeqCst);
        self
    }

    /// Sets how long this process, while it owns the log, keeps a client's
    /// connection that sends nothing between requests before it closes it (a
    /// minute unless set), so idle clients hold no connection. A client opens a
    /// new connection for its next call.
    #[must_use]
    pub fn with_connection_idle(self, idle: Duration) -> Self {
        self.connection_idle
            .store(idle::millis(idle), Ordering::SeqCst);
        self
    }

    /// The log as this process owns it, if it does.
    fn owned(&self) -> Option<Arc<Owned>> {
        self.owned
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The socket the owner serves the log on.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// Connects to the owner, or becomes it, trying for five seconds.
    fn attach(&self) -> Result<()> {
        let mut deadline = Instant::now() + TAKEOVER_PATIENCE;
        loop {
            let detail = match self.client.reconnect() {
                Ok(()) => return Ok(()),
                Err(detail) => detail,
            };
            // Not while this process stops (see `hand_over_when_stopped`); once
            // it is continued, it has its patience again.
            let (_taking, waited) = stop::taking();
            if waited {
                deadline = Instant::now() + TAKEOVER_PATIENCE;
                continue;
            }
            match SledLog::open_within(&self.path, LOCK_ATTEMPT, self.quiet) {
                Ok(sled) => {
                    self.own(sled);
                    return Ok(());
                }
                Err(StoreError::Locked) if Instant::now() < deadline => {}
                Err(StoreError::Locked) => {
                    return Err(StoreError::OwnerUnreachable {
                        socket: self.socket.clone(),
                        detail: advised(detail),
                    });
                }
                Err(other) => return Err(other),
            }
        }
    }

    fn own(&self, sled: SledLog) {
        let sled = sled
            .with_clock(Arc::clone(&self.clock))
            .with_durability(self.durability);
        let core = Arc::new(Core::new(sled, Arc::clone(&self.connection_idle)));
        // A socket that cannot be bound (a path too long for one, say) leaves the
        // log usable here, unshared.
        let server = Server::start(Arc::clone(&core), &self.socket).ok();
        self.client.disconnect();
        let owned = Arc::new(Owned {
            server,
            core,
            path: self.path.clone(),
        });
        idle::watch(&self.owned, &owned, &self.idle_after);
        *self.owned.write().unwrap_or_else(PoisonError::into_inner) = Some(owned);
    }

    /// After a call lost its owner (`generation`): finds the new one, or becomes
    /// it. Threads that lost the same owner wait for the first to do this.
    /// After a call lost its owner: counts the recovery, gives up with
    /// [`StoreError::OwnerUnreachable`] after [`MAX_RECOVERIES`] in one call, else
    /// recovers (see [`SharedSledLog::recover`]).
    fn recover_after_loss(
        &self,
        recoveries: &mut u32,
        generation: u64,
        detail: String,
    ) -> Result<()> {
        *recoveries += 1;
        if *recoveries > MAX_RECOVERIES {
            return Err(StoreError::OwnerUnreachable {
                socket: self.socket.clone(),
                detail: advised(detail),
            });
        }
        self.recover(generation)
    }

    fn recover(&self, generation: u64) -> Result<()> {
        let _one = self
            .recovering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_owner() || self.client.generation() != generation {
            return Ok(());
        }
        self.attach()
    }

    /// Carries out one operation: on the owned log, or by `request` to the owner,
    /// finding a new owner when the current one has gone (safe only for requests
    /// that may be carried out twice; [`Backend::append_with`](askuser_store::backend::Backend::append_with) settles lost appends).
    fn run<T>(
        &self,
        request: &Request<'_>,
        timeout: Duration,
        local: impl Fn(&Core) -> Result<T>,
        remote: impl Fn(Response) -> Option<T>,
    ) -> Result<T> {
        self.run_noting(request, timeout, local, remote, &mut false)
    }

    /// [`SharedSledLog::run`] for a presence request (protocol revision 2):
    /// `None` when the owner is too old to keep leases (it announced an older
    /// revision, or refused the request as one it cannot decode).
    fn run_presence<T>(
        &self,
        request: &Request<'_>,
        local: impl Fn(&Core) -> Result<T>,
        remote: impl Fn(Response) -> Option<T>,
    ) -> Result<Option<T>> {
        match self.run(request, REQUEST_TIMEOUT, local, remote) {
            Ok(answer) => Ok(Some(answer)),
            Err(StoreError::BadMessage(_)) if self.client.owner_revision() < 2 => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// [`SharedSledLog::run`], setting `resent` when the request may have been
    /// carried out by an owner that went away before answering.
    fn run_noting<T>(
        &self,
        request: &Request<'_>,
        timeout: Duration,
        local: impl Fn(&Core) -> Result<T>,
        remote: impl Fn(Response) -> Option<T>,
        resent: &mut bool,
    ) -> Result<T> {
        let mut recoveries = 0;
        loop {
            if let Some(owned) = self.owned() {
                let _busy = owned.core.busy();
                return local(&owned.core);
            }
            // A wait is answered when the log changes: its owner is watched
            // loosely meanwhile.
            let watch = if matches!(
                request,
                Request::Wait { .. } | Request::WaitForOthers { .. } | Request::WaitChanged { .. }
            ) {
                Watch::Loosely
            } else {
                Watch::Closely
            };
            match self.client.call(request, timeout, watch) {
                Ok(Response::Error(error)) => return Err(error.into()),
                Ok(response) => {
                    let kind = response.kind();
                    return remote(response).ok_or_else(|| {
                        StoreError::BadMessage(format!("an answer of the wrong kind ({kind})"))
                    });
                }
                Err(CallError::Store(error)) => return Err(error),
                Err(CallError::Lost {
                    sent,
                    generation,
                    detail,
                }) => {
                    *resent |= sent;
                    self.recover_after_loss(&mut recoveries, generation, detail)?;
                }
            }
        }
    }

    /// [`Log::wait_changed`] through the owner, for at most `left` (see
    /// [`Client::wait_changed`]: a wait cut short by `left` stays parked for
    /// the next), finding a new owner when it went away; in the owner, on its
    /// condition variable, for at most a slice.
    fn wait_changed_remote(&self, since: Version, left: Duration) -> Result<Version> {
        let mut recoveries = 0;
        loop {
            if let Some(owned) = self.owned() {
                let _busy = owned.core.busy();
                return owned.core.wait_changed(since, left.min(WAIT_SLICE));
            }
            match self.client.wait_changed(since.to_wire(), left) {
                Ok(None) => return Ok(since),
                Ok(Some(Response::Version(now))) => return Ok(Version::from_wire(now)),
                Ok(Some(Response::Error(error))) => return Err(error.into()),
                Ok(Some(other)) => {
                    return Err(StoreError::BadMessage(format!(
                        "an answer of the wrong kind ({})",
                        other.kind()
                    )));
                }
                Err(CallError::Store(error)) => return Err(error),
                Err(CallError::Lost {
                    generation, detail, ..
                }) => self.recover_after_loss(&mut recoveries, generation, detail)?,
            }
        }
    }

    /// After an append's answer was lost with its owner: whether it was carried out.
    /// `Ok(Some(head))` if the stream holds exactly these events after `expected`,
    /// `Ok(None)` if the head is still `expected` (send it again), a conflict if
    /// anything else is there.
    fn settle_lost_append(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
    ) -> Result<Option<Seq>> {
        let head = self.stream(stream)?.map_or(0, |info| info.head);
        if head == expected || events.is_empty() {
            return Ok(None);
        }
        let ours = expected + events.len() as u64;
        if head >= ours {
            let written: Vec<Event> = self
                .read_range(stream, expected + 1, ours)?
                .map(|r| r.map(|r| r.event))
                .collect::<Result<_>>()?;
            if written == events {
                return Ok(Some(ours));
            }
        }
        Err(StoreError::Conflict {
            stream: stream.to_owned(),
            expected,
            actual: head,
        })
    }
}

impl Log for SharedSledLog {
    /// Renewed with the owner (in memory there, on its clock); an owner too old
    /// to keep leases (its greeting announces no revision 2) keeps none: `false`.
    fn renew_lease(
        &self,
        stream: &str,
        holder: &str,
        origin: &AgentOrigin,
        ttl: Duration,
    ) -> Result<bool> {
        check_name(stream)?;
        let request = Request::RenewLease {
            stream: stream.into(),
            holder: holder.into(),
            origin: Cow::Borrowed(origin),
            ttl_millis: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
        };
        self.run_presence(
            &request,
            |core| core.renew_lease(std::process::id(), (stream, holder), origin, ttl),
            |r| matches!(r, Response::Done).then_some(()),
        )
        .map(|kept| kept.is_some())
    }

    fn end_lease(&self, stream: &str, holder: &str) -> Result<()> {
        let request = Request::EndLease {
            stream: stream.into(),
            holder: holder.into(),
        };
        self.run_presence(
            &request,
            |core| {
                core.end_lease(stream, holder);
                Ok(())
            },
            |r| matches!(r, Response::Done).then_some(()),
        )
        .map(|_| ())
    }

    fn leases(&self) -> Result<Option<Leases>> {
        self.run_presence(
            &Request::Leases,
            |core| Ok(core.leases()),
            |r| match r {
                Response::Leases(leases) => Some(leases),
                _ => None,
            },
        )
    }

    /// As [`Log::leases_on`]: one request for that stream's leases; every
    /// lease, filtered here, from an owner too old to know that request.
    fn leases_on(&self, stream: &str) -> Result<Option<Leases>> {
        if !self.is_owner() && self.client.owner_revision() < 5 {
            return Ok(self.leases()?.map(|leases| leases.on(stream)));
        }
        self.run_presence(
            &Request::LeasesOn {
                stream: stream.into(),
            },
            |core| Ok(core.leases_on(stream)),
            |r| match r {
                Response::Leases(leases) => Some(leases),
                _ => None,
            },
        )
    }

    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        let request = Request::Stream {
            stream: stream.into(),
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.stream(stream),
            |r| match r {
                Response::Stream(info) => Some(info.map(Into::into)),
                _ => None,
            },
        )
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        self.run(
            &Request::Streams,
            REQUEST_TIMEOUT,
            |core| core.sled.streams(),
            |r| match r {
                Response::Streams(all) => Some(all.into_iter().map(Into::into).collect()),
                _ => None,
            },
        )
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        check_name(name)?;
        let request = Request::Fork {
            parent: parent.into(),
            at,
            name: name.into(),
        };
        let mut resent = false;
        let forked = self.run_noting(
            &request,
            REQUEST_TIMEOUT,
            |core| core.fork(parent, at, name),
            |r| match r {
                Response::Info(info) => Some(StreamInfo::from(info)),
                _ => None,
            },
            &mut resent,
        );
        match forked {
            // A fork sent again after its owner went away may find itself made.
            Err(StoreError::StreamExists(_)) if resent => match self.stream(name)? {
                Some(info)
                    if info
                        .parent
                        .as_ref()
                        .is_some_and(|p| p.stream == parent && p.at == at)
                        && info.head == at =>
                {
                    Ok(info)
                }
                _ => Err(StoreError::StreamExists(name.to_owned())),
            },
            other => other,
        }
    }

    fn flush(&self) -> Result<()> {
        self.run(
            &Request::Flush,
            REQUEST_TIMEOUT,
            |core| core.sled.flush(),
            |r| matches!(r, Response::Done).then_some(()),
        )
    }

    fn wait_past(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        self.wait_on(stream, seq, timeout, Waited::Any)
    }

    /// As [`Log::wait_for_others`]: in the owner, woken only by an append of
    /// another process (the owner knows each client's process from its socket);
    /// an owner too old to know the request (revision under 4) is asked for
    /// any append instead.
    fn wait_for_others(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        self.wait_on(stream, seq, timeout, Waited::Others)
    }

    /// As [`Log::wait_changed`]: in the owner, on the condition variable that
    /// every append, fork and compaction notifies; in a client, one request the
    /// owner answers when the version moves (asked again every 10 s). An owner
    /// too old to know that request (its greeting announces no revision 1) is
    /// polled instead, every [`CHANGE_POLL`](askuser_store::CHANGE_POLL).
    fn wait_changed(&self, since: Version, timeout: Duration) -> Result<Version> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let left = time_left(deadline);
            if let Some(owned) = self.owned() {
                let _busy = owned.core.busy();
                let now = owned.core.wait_changed(since, left)?;
                // Cut short as this process let the log go: waited for on.
                if now != since || left.is_zero() || !owned.core.is_stopping() {
                    return Ok(now);
                }
                continue;
            }
            let slice = left.min(WAIT_SLICE);
            let now = if self.client.owner_revision() >= 1 {
                match self.wait_changed_remote(since, left) {
                    // The owner changed meanwhile, to one that does not know the
                    // request (it refused it as a bad message).
                    Err(StoreError::BadMessage(_)) if self.client.owner_revision() < 1 => {
                        poll_changed(self, since, slice)?
                    }
                    other => other?,
                }
            } else {
                poll_changed(self, since, slice)?
            };
            if now != since || left <= slice {
                return Ok(now);
            }
        }
    }
}

/// How long until `deadline` (none: no end).
fn time_left(deadline: Option<Instant>) -> Duration {
    deadline.map_or(Duration::MAX, |d| {
        d.saturating_duration_since(Instant::now())
    })
}

/// `detail` (why the owner could not be reached) with what to do, said once:
/// the reasons that know what to do (a person's stopped owner, a full owner,
/// a process that is not the one recorded) say it themselves; any other (an
/// I/O error, a timeout) gets the general advice.
fn advised(detail: String) -> String {
    const SAY_WHAT_TO_DO: [&str; 4] = ["resume it", "try again", "end the process", "remove it"];
    if SAY_WHAT_TO_DO.iter().any(|advice| detail.contains(advice)) {
        return detail;
    }
    format!("{detail}; if that process is stopped (Ctrl-Z), resume or end it")
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, BufWriter};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::sync::atomic::AtomicUsize;

    use super::wire::{Frame, PROTOCOL, WireError, decode, encode, read_frame, write_frame};
    use super::*;
    use askuser_store::backend::Backend as _;

    /// Plays an owner of the build before protocol revision 1 on one connection:
    /// greets without a revision, lists `sled`'s streams, and refuses a
    /// `WaitChanged` as it would (a request it cannot decode), counting it.
    fn serve_as_older_owner(stream: UnixStream, sled: &SledLog, refused: &AtomicUsize) {
        let Ok(read_half) = stream.try_clone() else {
            return;
        };
        let mut reader = BufReader::new(read_half);
        let mut writer = BufWriter::new(stream);
        while let Ok(Frame::Payload(payload)) = read_frame(&mut reader) {
            let response = match decode::<Request<'_>>(&payload, "a request") {
                Ok(Request::Hello { .. }) => Response::Hello {
                    protocol: PROTOCOL,
                    pid: std::process::id(),
                    revision: 0,
                },
                Ok(Request::Streams) => Response::Streams(
                    sled.streams()
                        .unwrap()
                        .into_iter()
                        .map(Into::into)
                        .collect(),
                ),
                _ => {
                    refused.fetch_add(1, Ordering::SeqCst);
                    Response::Error(WireError::BadMessage("does not decode".to_owned()))
                }
            };
            if write_frame(&mut writer, &encode(&response).unwrap()).is_err() {
                return;
            }
        }
    }

    /// A client of an owner that does not know `WaitChanged` never sends it, and
    /// still sees a change: it polls the owner's list of streams.
    #[test]
    fn a_client_of_an_older_owner_polls_for_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let sled = Arc::new(SledLog::open(&path).unwrap());
        let listener = UnixListener::bind(path.join(SOCKET_NAME)).unwrap();
        let refused = Arc::new(AtomicUsize::new(0));
        {
            let (sled, refused) = (Arc::clone(&sled), Arc::clone(&refused));
            std::thread::spawn(move || {
                for stream in listener.incoming().map_while(std::result::Result::ok) {
                    let (sled, refused) = (Arc::clone(&sled), Arc::clone(&refused));
                    std::thread::spawn(move || serve_as_older_owner(stream, &sled, &refused));
                }
            });
        }
        let log = SharedSledLog::open(&path).unwrap();
        assert!(!log.is_owner());
        assert_eq!(log.client.owner_revision(), 0);
        let before = log.version().unwrap();
        assert_eq!(
            log.wait_changed(before, Duration::from_millis(100))
                .unwrap(),
            before
        );
        let events: Vec<Event> = askuser_testkit::scripted_events(1, 1).collect();
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| log.wait_changed(before, Duration::from_secs(60)));
            std::thread::sleep(Duration::from_millis(50));
            sled.append("b", 0, &events).unwrap();
            let now = waiter.join().unwrap().unwrap();
            assert_ne!(now, before);
            assert_eq!(now, Version::of(&sled.streams().unwrap()));
        });
        assert_eq!(refused.load(Ordering::SeqCst), 0);
    }

    /// Plays today's owner on one connection: greets, lists `sled`'s streams,
    /// and counts each `WaitChanged`, answering none (a log that never changes).
    fn serve_counting_waits(stream: UnixStream, sled: &SledLog, waits: &AtomicUsize) {
        let Ok(read_half) = stream.try_clone() else {
            return;
        };
        let mut reader = BufReader::new(read_half);
        let mut writer = BufWriter::new(stream);
        while let Ok(Frame::Payload(payload)) = read_frame(&mut reader) {
            let response = match decode::<Request<'_>>(&payload, "a request") {
                Ok(Request::Hello { .. }) => Response::Hello {
                    protocol: PROTOCOL,
                    pid: std::process::id(),
                    revision: super::wire::REVISION,
                },
                Ok(Request::Streams) => Response::Streams(
                    sled.streams()
                        .unwrap()
                        .into_iter()
                        .map(Into::into)
                        .collect(),
                ),
                _ => {
                    waits.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
            };
            if write_frame(&mut writer, &encode(&response).unwrap()).is_err() {
                return;
            }
        }
    }

    /// A watcher asks again every half second: its client sends the owner one
    /// `WaitChanged` and awaits that same answer at each ask (the request
    /// parked on its connection between asks), for as long as the version it
    /// waits on is the same.
    #[test]
    fn a_wait_asked_again_for_the_same_version_is_sent_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let sled = Arc::new(SledLog::open(&path).unwrap());
        let listener = UnixListener::bind(path.join(SOCKET_NAME)).unwrap();
        let waits = Arc::new(AtomicUsize::new(0));
        {
            let (sled, waits) = (Arc::clone(&sled), Arc::clone(&waits));
            std::thread::spawn(move || {
                for stream in listener.incoming().map_while(std::result::Result::ok) {
                    let (sled, waits) = (Arc::clone(&sled), Arc::clone(&waits));
                    std::thread::spawn(move || serve_counting_waits(stream, &sled, &waits));
                }
            });
        }
        let log = SharedSledLog::open(&path).unwrap();
        assert!(!log.is_owner());
        let before = log.version().unwrap();
        for _ in 0..5 {
            let now = log.wait_changed(before, Duration::from_millis(50)).unwrap();
            assert_eq!(now, before);
        }
        assert_eq!(waits.load(Ordering::SeqCst), 1);
        // Another version: the parked wait is let go, and a new one sent.
        let other = Version::from_wire(before.to_wire() ^ 1);
        assert_eq!(
            log.wait_changed(other, Duration::from_millis(50)).unwrap(),
            other
        );
        assert_eq!(waits.load(Ordering::SeqCst), 2);
    }

    /// Today's owner announces revision 1, so its clients ask it to wait.
    #[test]
    fn an_owner_announces_its_revision() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let owner = SharedSledLog::open(&path).unwrap();
        assert!(owner.is_owner());
        let client = SharedSledLog::open(&path).unwrap();
        assert!(!client.is_owner());
        assert_eq!(client.client.owner_revision(), super::wire::REVISION);
        let before = client.version().unwrap();
        let events: Vec<Event> = askuser_testkit::scripted_events(1, 1).collect();
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| client.wait_changed(before, Duration::from_secs(60)));
            std::thread::sleep(Duration::from_millis(50));
            owner.append("b", 0, &events).unwrap();
            assert_eq!(waiter.join().unwrap().unwrap(), owner.version().unwrap());
        });
    }
}
