//! The owner's side: the sled log, a notifier that wakes waiters when a head moves,
//! and the server that answers clients on the socket beside the database.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, BufReader, BufWriter};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use askuser_core::{AgentOrigin, Event};

use super::budget::{Budget, Next, next_frame};
use super::leases::{Client, Presence};
use super::notifier::{Notifier, SOMEBODY};
use super::record;
use super::wire::{
    FRAME_CAP, PROTOCOL, REVISION, Request, Response, WireError, WireRecord, decode, encode,
    write_frame,
};
use crate::sled_log::SledLog;
use askuser_store::backend::Backend;
use askuser_store::codec::check_name;
use askuser_store::{Durability, Seq};
use askuser_store::{Leases, Log, Version};
use askuser_store::{Result, StoreError};

/// An append of fewer events than this leaves its stream to be repacked when
/// the owner is next idle.
const REPACK_BELOW: usize = 32;

/// How many records one scan response carries at most.
const SCAN_CHUNK: usize = 512;

/// The longest one `Wait` request blocks the owner's connection thread; a client
/// waiting longer asks again.
pub(super) const WAIT_SLICE: Duration = Duration::from_secs(10);

/// How many clients may be connected at once; more are turned away with an
/// error frame saying so. A bound on hostile input (each connection is a thread
/// and up to a small frame of memory here, see `budget.rs`), sized for the
/// design: a client process holds at most two connections at rest (its
/// requests', and a wait parked between its watcher's asks, see `client.rs`), so
/// 512 processes waiting on one log fit. (It was 512, which 400 waiting MCP
/// servers passed.)
pub(super) const MAX_CONNECTIONS: usize = 1024;

/// The descriptors the owner asks to hold (its soft `RLIMIT_NOFILE` raised
/// towards this, within the hard limit): every connection, and sled's files.
const DESCRIPTORS: u64 = MAX_CONNECTIONS as u64 + 256;

/// A connection that sends nothing for this long between requests is closed (a
/// client keeps an idle connection for less, see `client.rs`).
pub(super) const CONNECTION_IDLE: Duration = Duration::from_secs(60);

/// The stack of a connection thread (decoding nests as deep as a frame allows).
const CONNECTION_STACK: usize = 8 << 20;

/// A chunk of a scan: its items, where the next chunk starts, whether it is the
/// last.
pub(super) struct Chunk {
    pub(super) items: Vec<Item>,
    pub(super) next: Seq,
    pub(super) end: bool,
}

/// The log this process owns, with what wakes its waiters.
#[derive(Debug)]
pub(super) struct Core {
    pub(super) sled: SledLog,
    /// How long a connection that sends nothing is kept, in milliseconds
    /// ([`CONNECTION_IDLE`] unless the log says otherwise).
    connection_idle: Arc<AtomicU64>,
    notifier: Notifier,
    stopping: AtomicBool,
    /// Operations under way: this process's calls and clients' requests.
    active: AtomicUsize,
    /// When the last one ended, in milliseconds since `born`.
    last_active: AtomicU64,
    born: Instant,
    /// Streams appended a few events at a time since they were last repacked.
    to_repack: Mutex<BTreeSet<String>>,
    /// The presence leases of this process and its clients, in memory only: a
    /// new owner knows none until the holders renew them (every two seconds).
    leases: Presence,
    /// The log's version as last read, with the notifier's generation read
    /// before it: every append, fork and compaction bumps the generation, so
    /// while it has not moved the version has not either, and a waiter asking
    /// again costs no listing of every stream.
    version: Mutex<Option<(u64, Version)>>,
}

/// An operation under way on a [`Core`], from [`Core::busy`] until dropped.
pub(super) struct Busy<'a>(&'a Core);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.end_operation();
    }
}

impl Core {
    pub(super) fn new(sled: SledLog, connection_idle: Arc<AtomicU64>) -> Self {
        Self {
            sled,
            connection_idle,
            notifier: Notifier::default(),
            stopping: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            last_active: AtomicU64::new(0),
            born: Instant::now(),
            to_repack: Mutex::default(),
            leases: Presence::default(),
            version: Mutex::new(None),
        }
    }

    /// Takes or renews a presence lease, on the owner's clock. The owner sets
    /// how long it lasts, whatever a client asks: at most
    /// [`LEASE_TTL`](askuser_store::presence::LEASE_TTL) (6 s) after its last
    /// renewal, so a killed agent is never shown waiting for longer (a client
    /// asking for an hour used to get it).
    ///
    /// `client` is the process asking (see [`Presence`]): one holds at most
    /// [`PER_PROCESS`](askuser_store::presence::PER_PROCESS) live leases, and room is kept
    /// for agents holding few.
    pub(super) fn renew_lease(
        &self,
        client: Client,
        (stream, holder): (&str, &str),
        origin: &AgentOrigin,
        ttl: Duration,
    ) -> Result<()> {
        check_name(stream)?;
        let ttl = ttl.min(askuser_store::presence::LEASE_TTL);
        let now = self.sled.clock().now();
        self.leases
            .renew(client, (stream, holder), origin, ttl, now)
    }

    /// Ends a presence lease, on the owner's clock.
    pub(super) fn end_lease(&self, stream: &str, holder: &str) {
        self.leases.end(stream, holder, self.sled.clock().now());
    }

    /// Every presence lease, with the owner's time now.
    pub(super) fn leases(&self) -> Leases {
        self.leases.read(self.sled.clock().now())
    }

    /// The presence leases on `stream`, with the owner's time now.
    pub(super) fn leases_on(&self, stream: &str) -> Leases {
        self.leases.read_on(stream, self.sled.clock().now())
    }

    /// Stops serving: waits under way return at once (the process lets the log
    /// go, see `stop.rs`).
    pub(super) fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.notifier.bump_all();
    }

    /// Whether [`Core::stop`] was called, or the server stopped.
    pub(super) fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Marks an operation under way until the guard is dropped.
    pub(super) fn busy(&self) -> Busy<'_> {
        self.start_operation();
        Busy(self)
    }

    /// An operation starts (each is ended by [`Core::end_operation`]).
    pub(super) fn start_operation(&self) {
        self.active.fetch_add(1, Ordering::SeqCst);
    }

    /// An operation ends.
    pub(super) fn end_operation(&self) {
        let now = u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_active.fetch_max(now, Ordering::SeqCst);
        self.active.fetch_sub(1, Ordering::SeqCst);
    }

    /// Repacks the streams appended a few events at a time since the last time
    /// (see [`askuser_store::compact::repack`]); how many events were rewritten. A
    /// stream that cannot be repacked (dropped meanwhile, say) is left as it is.
    pub(super) fn repack_appended(&self) -> u64 {
        let streams = std::mem::take(
            &mut *self
                .to_repack
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let _busy = self.busy();
        streams
            .iter()
            .filter_map(|stream| self.sled.repack_stream(stream).ok())
            .map(|repacked| repacked.events)
            .sum()
    }

    /// Whether streams wait to be repacked.
    pub(super) fn has_to_repack(&self) -> bool {
        !self
            .to_repack
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// How long nothing has been under way (`None`: something is).
    pub(super) fn idle_for(&self) -> Option<Duration> {
        if self.active.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let last = Duration::from_millis(self.last_active.load(Ordering::SeqCst));
        Some(self.born.elapsed().saturating_sub(last))
    }

    /// An append, waking the stream's waiters and the log's once it is committed.
    pub(super) fn append(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        (durability, by): (Durability, Client),
    ) -> Result<Seq> {
        let appended = self.sled.append_with(stream, expected, events, durability);
        if appended.is_ok() {
            self.notifier.bump(stream, by);
            if events.len() < REPACK_BELOW {
                self.to_repack
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(stream.to_owned());
            }
        }
        appended
    }

    /// A fork (a new stream is a head that moved from nothing).
    pub(super) fn fork(
        &self,
        parent: &str,
        at: Seq,
        name: &str,
    ) -> Result<askuser_store::StreamInfo> {
        let forked = self.sled.fork(parent, at, name);
        if forked.is_ok() {
            self.notifier.bump(name, SOMEBODY);
        }
        forked
    }

    /// A compaction (a floor that moved changes the log's version).
    pub(super) fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        let dropped = self.sled.drop_through(stream, seq)?;
        self.notifier.bump(stream, SOMEBODY);
        Ok(dropped)
    }

    /// Waits until the log's version is not `since` or `timeout` passes; the
    /// version then. Woken by every append, fork and compaction.
    pub(super) fn wait_changed(&self, since: Version, timeout: Duration) -> Result<Version> {
        let deadline = Instant::now()
            .checked_add(timeout)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        loop {
            // The generation first, as in `wait_past`.
            let seen = self.notifier.generation();
            let now = self.version_at(seen)?;
            if now != since || Instant::now() >= deadline || self.stopping.load(Ordering::SeqCst) {
                return Ok(now);
            }
            self.notifier.wait_change(seen, deadline);
        }
    }

    /// The log's version, `seen` being the notifier's generation read just
    /// before: the one last read while the generation is still `seen`, else
    /// read from sled (a listing of every stream) and kept.
    fn version_at(&self, seen: u64) -> Result<Version> {
        let mut kept = self.version.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((generation, version)) = *kept
            && generation == seen
        {
            return Ok(version);
        }
        let now = self.sled.version()?;
        *kept = Some((seen, now));
        Ok(now)
    }

    /// Waits until `stream`'s head is past `past` or `timeout` passes; the head then.
    pub(super) fn wait_past(&self, stream: &str, past: Seq, timeout: Duration) -> Result<Seq> {
        let deadline = Instant::now()
            .checked_add(timeout)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        // The stream watched first: an append that commits after the head is
        // read bumps its count after that, so the wait below cannot miss it.
        let watch = self.notifier.watch(stream);
        loop {
            let seen = watch.generation();
            let head = self.sled.stream(stream)?.map_or(0, |info| info.head);
            if head > past || Instant::now() >= deadline || self.stopping.load(Ordering::SeqCst) {
                return Ok(head);
            }
            watch.wait_change(seen, deadline);
        }
    }

    /// Waits until a process other than `me` appends to `stream`, or `timeout`
    /// passes; returns at once when its head is already past `past`. The head
    /// then. A process not known ([`SOMEBODY`]) waits for any append.
    pub(super) fn wait_for_others(
        &self,
        stream: &str,
        (past, me): (Seq, Client),
        timeout: Duration,
    ) -> Result<Seq> {
        if me == SOMEBODY {
            return self.wait_past(stream, past, timeout);
        }
        let deadline = Instant::now()
            .checked_add(timeout)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        // As in `wait_past`: watched before the head is read.
        let watch = self.notifier.watch(stream);
        let seen = watch.others(me);
        let head = self.sled.stream(stream)?.map_or(0, |info| info.head);
        if head > past || self.stopping.load(Ordering::SeqCst) {
            return Ok(head);
        }
        watch.wait_others(me, seen, deadline);
        Ok(self.sled.stream(stream)?.map_or(0, |info| info.head))
    }

    /// Answers one request.
    fn answer(&self, request: Request<'_>, client: Client) -> Response {
        match self.try_answer(request, client) {
            Ok(response) => response,
            Err(error) => Response::Error(error.into()),
        }
    }

    fn try_answer(&self, request: Request<'_>, client: Client) -> Result<Response> {
        Ok(match request {
            Request::Hello { .. } => Response::Error(WireError::BadMessage(
                "a second greeting on one connection".to_owned(),
            )),
            Request::Append {
                stream,
                expected,
                events,
                flush,
            } => {
                let durability = if flush {
                    Durability::Flush
                } else {
                    Durability::Buffered
                };
                Response::Head(self.append(&stream, expected, &events, (durability, client))?)
            }
            Request::Stream { stream } => {
                Response::Stream(self.sled.stream(&stream)?.map(Into::into))
            }
            Request::Streams => {
                Response::Streams(self.sled.streams()?.into_iter().map(Into::into).collect())
            }
            Request::Fork { parent, at, name } => {
                Response::Info(self.fork(&parent, at, &name)?.into())
            }
            Request::Flush => {
                self.sled.flush()?;
                Response::Done
            }
            Request::Scan { stream, from, to } => {
                let Chunk { items, next, end } = self.scan(&stream, from, to)?;
                Response::Records { items, next, end }
            }
            Request::PutSnapshot { stream, seq, state } => {
                self.sled.put_snapshot(&stream, seq, &state)?;
                Response::Done
            }
            Request::GetSnapshot { stream, seq } => Response::Snapshot(
                self.sled
                    .get_snapshot(&stream, seq)?
                    .map(|snapshot| Box::new(snapshot.into())),
            ),
            Request::SnapshotSeqs { stream } => Response::Seqs(self.sled.snapshot_seqs(&stream)?),
            Request::DropThrough { stream, seq } => {
                Response::Count(self.drop_through(&stream, seq)?)
            }
            Request::Repack { stream } => {
                let done = self.sled.repack(&stream)?;
                Response::Repacked {
                    events: done.events,
                    values_before: done.values_before,
                    values_after: done.values_after,
                }
            }
            Request::LegacyOutputs { stream, seq } => {
                Response::Outputs(self.sled.legacy_outputs(&stream, seq)?)
            }
            Request::Wait {
                stream,
                past,
                millis,
            } => {
                let timeout = Duration::from_millis(millis).min(WAIT_SLICE);
                Response::Head(self.wait_past(&stream, past, timeout)?)
            }
            Request::WaitForOthers {
                stream,
                past,
                millis,
            } => {
                let timeout = Duration::from_millis(millis).min(WAIT_SLICE);
                Response::Head(self.wait_for_others(&stream, (past, client), timeout)?)
            }
            Request::RenewLease {
                stream,
                holder,
                origin,
                ttl_millis,
            } => {
                let ttl = Duration::from_millis(ttl_millis);
                self.renew_lease(client, (&stream, &holder), &origin, ttl)?;
                Response::Done
            }
            Request::EndLease { stream, holder } => {
                self.end_lease(&stream, &holder);
                Response::Done
            }
            Request::Leases => Response::Leases(self.leases()),
            Request::LeasesOn { stream } => Response::Leases(self.leases_on(&stream)),
            Request::WaitChanged { since, millis } => {
                let timeout = Duration::from_millis(millis).min(WAIT_SLICE);
                let now = self.wait_changed(Version::from_wire(since), timeout)?;
                Response::Version(now.to_wire())
            }
        })
    }

    /// A chunk of a scan: up to [`SCAN_CHUNK`] records (fewer if they do not fit
    /// in a frame).
    pub(super) fn scan(&self, stream: &str, from: Seq, to: Seq) -> Result<Chunk> {
        let mut items = Vec::new();
        let mut next = from;
        let mut end = true;
        for item in self.sled.scan_own(stream, from, to)? {
            if items.len() == SCAN_CHUNK {
                end = false;
                break;
            }
            match item {
                Ok(recorded) => {
                    next = recorded.seq + 1;
                    items.push(Ok(WireRecord::from(recorded)));
                }
                Err(error @ StoreError::Corrupt { seq, .. }) => {
                    next = next.max(seq + 1);
                    items.push(Err(error.into()));
                }
                Err(other) => {
                    items.push(Err(other.into()));
                    break;
                }
            }
        }
        Ok(Chunk { items, next, end })
    }
}

/// Encodes a response; one too large for a frame is replaced by the error that
/// says so (a scan's chunk is cut first: its rest is read by the next request).
fn encode_response(response: Response) -> Vec<u8> {
    let response = match response {
        Response::Records { items, next, end } => match encode_records(items, next, end) {
            Ok(bytes) => return bytes,
            Err(error) => Response::Error(error.into()),
        },
        other => other,
    };
    encode(&response)
        .or_else(|error| encode(&Response::Error(error.into())))
        .unwrap_or_default()
}

type Item = std::result::Result<WireRecord, WireError>;

fn encode_records(mut items: Vec<Item>, mut next: Seq, mut end: bool) -> Result<Vec<u8>> {
    loop {
        let response = Response::Records { items, next, end };
        let error = match encode(&response) {
            Ok(bytes) => return Ok(bytes),
            Err(error) => error,
        };
        let Response::Records {
            items: mut back, ..
        } = response
        else {
            return Err(error);
        };
        if back.len() <= 1 {
            return Err(error);
        }
        back.truncate(back.len() / 2);
        next = back.last().and_then(item_next).unwrap_or(next);
        end = false;
        items = back;
    }
}

/// Where a scan goes on after `item`.
fn item_next(item: &Item) -> Option<Seq> {
    match item {
        Ok(record) => Some(record.seq + 1),
        Err(WireError::Corrupt { seq, .. }) => Some(seq + 1),
        Err(_) => None,
    }
}

/// The server: its socket, the thread accepting on it, the connections' threads.
pub(super) struct Server {
    core: Arc<Core>,
    socket: PathBuf,
    acceptor: Option<JoinHandle<()>>,
    connections: Arc<Mutex<Vec<Connection>>>,
}

struct Connection {
    stream: UnixStream,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// How many clients are connected.
    pub(super) fn clients(&self) -> usize {
        let mut registry = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        registry.retain(|c| c.thread.as_ref().is_some_and(|t| !t.is_finished()));
        registry.len()
    }

    /// Binds the socket `socket` (replacing a stale one: this process holds the
    /// database's lock, so no other owner can be listening there) and serves
    /// `core` on it.
    ///
    /// # Errors
    /// When the socket cannot be created.
    pub(super) fn start(core: Arc<Core>, socket: &Path) -> io::Result<Self> {
        let listener = bind_private(socket)?;
        allow_descriptors(DESCRIPTORS);
        let connections = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            // Weak: an acceptor that is never woken (its socket was deleted) is left
            // behind without keeping the database open.
            let core = Arc::downgrade(&core);
            let connections = Arc::clone(&connections);
            let budget = Arc::new(Budget::default());
            std::thread::Builder::new()
                .name("askuser-log-owner".to_owned())
                .spawn(move || accept(&listener, &core, &connections, &budget))?
        };
        Ok(Self {
            core,
            socket: socket.to_owned(),
            acceptor: Some(acceptor),
            connections,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.core.stopping.store(true, Ordering::SeqCst);
        self.core.notifier.bump_all();
        // Wake the acceptor with a connection of our own, then take the socket away.
        let woken = UnixStream::connect(&self.socket).is_ok();
        if let Some(acceptor) = self.acceptor.take()
            && woken
        {
            drop(acceptor.join());
        }
        record::remove(&self.socket);
        drop(fs::remove_file(&self.socket));
        let connections = std::mem::take(
            &mut *self
                .connections
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for connection in &connections {
            drop(connection.stream.shutdown(std::net::Shutdown::Both));
        }
        for mut connection in connections {
            if let Some(thread) = connection.thread.take() {
                drop(thread.join());
            }
        }
    }
}

/// Creates the listening socket at `socket`, reachable by this user only: bound in
/// a fresh directory of mode 0700, made 0600, then renamed into place.
fn bind_private(socket: &Path) -> io::Result<UnixListener> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let parent = socket.parent().unwrap_or_else(|| Path::new("."));
    // A name shorter than the socket's: a path that fits one fits the other.
    let private = parent.join(format!(
        ".{:x}.{:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    // One left by a killed owner of the same process id (this process holds the
    // database's lock, so no live owner uses it).
    drop(fs::remove_dir_all(&private));
    fs::DirBuilder::new().mode(0o700).create(&private)?;
    fs::set_permissions(&private, fs::Permissions::from_mode(0o700))?; // whatever the umask
    let bound = (|| {
        let temporary = private.join("s");
        let listener = UnixListener::bind(&temporary)?;
        fs::set_permissions(&temporary, fs::Permissions::from_mode(0o600))?;
        // Recorded before the socket is in place: a client that reaches it can
        // check who it is. An owner that cannot record itself (no `/proc`)
        // still serves, and is never ended.
        drop(record::write(socket, &listener));
        match fs::symlink_metadata(socket) {
            Ok(meta) if !meta.file_type().is_socket() => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists and is not a socket; move it away",
                        socket.display()
                    ),
                ));
            }
            _ => {}
        }
        fs::rename(&temporary, socket)?;
        Ok(listener)
    })();
    drop(fs::remove_dir_all(&private));
    bound
}

/// Raises this process's soft limit of open descriptors to `wanted`, within its
/// hard limit (a common soft limit, 1024, is below what the owner serves); a
/// limit that cannot be raised is left, and connections past it wait in the
/// listener's queue until others end.
fn allow_descriptors(wanted: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = match (limit.current, limit.maximum) {
        (Some(current), _) if current >= wanted => return,
        (_, Some(maximum)) => wanted.min(maximum),
        (_, None) => wanted,
    };
    let _ = setrlimit(
        Resource::Nofile,
        rustix::process::Rlimit {
            current: Some(raised),
            maximum: limit.maximum,
        },
    );
}

fn accept(
    listener: &UnixListener,
    core: &Weak<Core>,
    connections: &Arc<Mutex<Vec<Connection>>>,
    budget: &Arc<Budget>,
) {
    for incoming in listener.incoming() {
        let Some(core) = core.upgrade() else { return };
        if core.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = incoming else {
            // Out of descriptors, say: let some connections end.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let mut registry = connections.lock().unwrap_or_else(PoisonError::into_inner);
        registry.retain(|c: &Connection| c.thread.as_ref().is_some_and(|t| !t.is_finished()));
        if registry.len() >= MAX_CONNECTIONS {
            turn_away(&stream);
            continue;
        }
        let Ok(registered) = stream.try_clone() else {
            continue;
        };
        let budget = Arc::clone(budget);
        let spawned = std::thread::Builder::new()
            .name("askuser-log-client".to_owned())
            .stack_size(CONNECTION_STACK)
            .spawn(move || serve_connection(stream, &core, &budget));
        if let Ok(thread) = spawned {
            registry.push(Connection {
                stream: registered,
                thread: Some(thread),
            });
        }
    }
}

/// Tells a client that connected past [`MAX_CONNECTIONS`] why it is turned
/// away (its greeting's answer), and closes the connection.
fn turn_away(stream: &UnixStream) {
    let refusal = Response::Error(WireError::Failed(format!(
        "the log's owner serves {MAX_CONNECTIONS} connections, the most it takes: end some of the processes that use this log (askuser serve, mcp, web, ask), or wait for them to finish, and try again"
    )));
    if stream
        .set_write_timeout(Some(Duration::from_millis(100)))
        .is_ok()
    {
        let mut writer = BufWriter::new(stream);
        drop(write_frame(&mut writer, &encode_response(refusal)));
    }
    drop(stream.shutdown(std::net::Shutdown::Both));
}

/// Answers one client until it hangs up, breaks the protocol or sends nothing
/// for [`CONNECTION_IDLE`], then closes the connection (the server's registry
/// holds another handle to it).
fn serve_connection(stream: UnixStream, core: &Core, budget: &Arc<Budget>) {
    if let Ok(read_half) = stream.try_clone() {
        let shutdown = stream.try_clone();
        converse(read_half, stream, core, budget);
        if let Ok(shutdown) = shutdown {
            drop(shutdown.shutdown(std::net::Shutdown::Both));
        }
    }
}

fn converse(read_half: UnixStream, stream: UnixStream, core: &Core, budget: &Arc<Budget>) {
    let client = peer_of(&stream);
    let mut reader = BufReader::new(read_half);
    let mut writer = BufWriter::new(stream);
    let mut greeted = false;
    loop {
        // The reservation is held until the request is answered.
        let idle = Duration::from_millis(core.connection_idle.load(Ordering::SeqCst));
        let (payload, _reserved) = match next_frame(&mut reader, budget, idle) {
            Ok(Next::Frame(payload, reserved)) => (payload, reserved),
            Ok(Next::Closed) => return,
            Ok(Next::OverBudget(why)) => {
                let refusal = Response::Error(WireError::Failed(why));
                drop(write_frame(&mut writer, &encode_response(refusal)));
                return;
            }
            Err(error) => {
                let refusal = Response::Error(WireError::BadMessage(error.to_string()));
                drop(write_frame(&mut writer, &encode_response(refusal)));
                return;
            }
        };
        let response = match decode::<Request<'_>>(&payload, "a request") {
            Ok(Request::Hello { .. }) if !greeted => {
                greeted = true;
                Response::Hello {
                    protocol: PROTOCOL,
                    pid: std::process::id(),
                    revision: REVISION,
                }
            }
            Ok(_) if !greeted => Response::Error(WireError::BadMessage(
                "the first request must be a greeting".to_owned(),
            )),
            Ok(request) if core.stopping.load(Ordering::SeqCst) => {
                drop(request);
                return;
            }
            Ok(request) => {
                let _busy = core.busy();
                core.answer(request, client)
            }
            Err(error) => Response::Error(error.into()),
        };
        let fatal = matches!(response, Response::Error(WireError::BadMessage(_)));
        if write_frame(&mut writer, &encode_response(response)).is_err() || fatal {
            return;
        }
    }
}

/// The process at the other end of `stream`, from its peer credentials (0 when
/// the system does not tell: such clients share one count).
fn peer_of(stream: &UnixStream) -> Client {
    #[cfg(target_os = "linux")]
    if let Ok(peer) = rustix::net::sockopt::socket_peercred(stream) {
        return rustix::process::Pid::as_raw(Some(peer.pid)).unsigned_abs();
    }
    let _ = stream;
    0
}

const _: () = assert!(FRAME_CAP > SCAN_CHUNK);
