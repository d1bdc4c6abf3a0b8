//! The client's side: connections to the owner's socket, kept in a pool so that
//! threads (one waiting, others appending) never queue behind each other.

use std::io::{self, BufRead as _, BufReader, BufWriter};
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::owner::WAIT_SLICE;
use super::record;
use super::wire::{
    Frame, PROTOCOL, Request, Response, WireError, decode, encode, read_frame, write_frame,
};
use askuser_store::StoreError;

/// How long a request may go unanswered before the owner is taken for gone (a
/// stopped or hung owner); a wait adds its own time to this.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the owner may take to answer a greeting (its connections are served
/// by threads of their own, so a live owner answers at once).
const GREETING_TIMEOUT: Duration = Duration::from_secs(5);

/// How many idle connections are kept.
const IDLE_CONNECTIONS: usize = 8;

/// How long an idle connection is kept: well within the time after which the
/// owner drops a connection that sends nothing
/// ([`CONNECTION_IDLE`](super::owner::CONNECTION_IDLE)).
const KEEP_IDLE: Duration = Duration::from_secs(20);

/// While waiting for an answer, how often the owner is looked at.
const LOOK: Duration = Duration::from_millis(250);

/// An owner seen stopped (Ctrl-Z, `SIGSTOP`) for this long is ended, so that
/// another process can take the log over (see [`owner_stopped`]).
const STOPPED_PATIENCE: Duration = Duration::from_secs(1);

/// The owner's lease: a live owner greets a new connection at once (a thread of
/// its own answers, whatever its other threads are doing), so one that leaves a
/// greeting unanswered this long without running at all is hung, and is ended
/// like a stopped one.
const LEASE: Duration = Duration::from_millis(750);

/// While a request goes unanswered, how long before the owner is first asked to
/// greet a second connection, and how often after that.
const PROBE_EVERY: Duration = Duration::from_millis(500);

/// Why a call did not get an answer from the owner.
#[derive(Debug)]
pub(super) enum CallError {
    /// The owner could not be reached, or the connection broke (it exited, was
    /// killed, or did not answer in time). `sent`: the whole request was written,
    /// so the owner may have carried it out. `generation`: the owner it was for.
    Lost {
        sent: bool,
        generation: u64,
        detail: String,
    },
    /// The owner answered, or the exchange broke the protocol.
    Store(StoreError),
}

/// One connection, greeted.
struct Connection {
    reader: BufReader<UnixStream>,
    writer: BufWriter<UnixStream>,
    generation: u64,
    /// The owner's process id, when it is the owner recorded beside the socket
    /// (see [`record::verify`]; only such a process is ever ended, and only
    /// after it is checked again).
    owner: Option<u32>,
    /// Why the process listening on the socket is not taken for the recorded
    /// owner, when it is not (said when it does not answer).
    unverified: Option<String>,
    lock_file: PathBuf,
    socket: PathBuf,
    /// Whether the owner has greeted this connection: until it has, the pending
    /// greeting is itself the test of the owner's lease.
    greeted: bool,
    /// When it was last put back in the pool.
    idle_since: std::time::Instant,
    /// What the request awaiting its answer has seen of the owner.
    looks: Looks,
}

/// How closely the owner is watched while an answer is awaited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Watch {
    /// An answer due at once: the owner is looked at every [`LOOK`], and a
    /// second connection's greeting tried every [`PROBE_EVERY`].
    Closely,
    /// A wait, which the owner answers only when the log changes: looked at
    /// every [`WAIT_LOOK`], and a second greeting tried only when the owner has
    /// not run since the last look. (A client that calls meanwhile, or a
    /// presence lease's renewal, watches it closely; a stopped or hung owner
    /// cannot change the log, so no answer is missed.)
    Loosely,
}

/// While a wait goes unanswered, how often the owner is looked at.
const WAIT_LOOK: Duration = Duration::from_secs(5);

impl Connection {
    fn exchange(
        &mut self,
        payload: &[u8],
        timeout: Duration,
        watch: Watch,
    ) -> Result<Response, CallError> {
        if let Some(words) = self.send(payload)? {
            return Ok(words);
        }
        let now = std::time::Instant::now();
        let lost_at = now + timeout;
        self.answer_by(lost_at, lost_at, timeout, watch)?;
        self.read_answer(timeout)
    }

    /// Writes a request; `Some` when the owner turned the connection away,
    /// with its words.
    fn send(&mut self, payload: &[u8]) -> Result<Option<Response>, CallError> {
        let generation = self.generation;
        if let Err(error) = write_frame(&mut self.writer, payload) {
            // An owner that turned this connection away said why first.
            return match self.parting_words() {
                Some(response) => Ok(Some(response)),
                None => Err(CallError::Lost {
                    sent: false,
                    generation,
                    detail: error.to_string(),
                }),
            };
        }
        self.looks = Looks::new(self.owner.filter(|_| !self.greeted));
        Ok(None)
    }

    /// Waits until the answer starts (`true`), or `until` passes (`false`);
    /// lost once `lost_at` passes with no answer (`timeout`: the request's time,
    /// for the words). Meanwhile the owner is looked at, as `watch` says: one
    /// that is stopped would never answer, and holds the log from everyone.
    fn answer_by(
        &mut self,
        until: std::time::Instant,
        lost_at: std::time::Instant,
        timeout: Duration,
        watch: Watch,
    ) -> Result<bool, CallError> {
        let generation = self.generation;
        let lost = |detail: String| CallError::Lost {
            sent: true,
            generation,
            detail,
        };
        loop {
            // An owner seen stopped is looked at again within its patience.
            let every = match watch {
                Watch::Loosely if self.looks.stopped_since.is_none() => WAIT_LOOK,
                _ => LOOK,
            };
            let now = std::time::Instant::now();
            if now >= lost_at {
                return Err(lost(self.silence(timeout)));
            }
            if now >= until {
                return Ok(false);
            }
            let next_look = self.looks.last + every;
            let left = until
                .min(lost_at)
                .min(next_look)
                .saturating_duration_since(now);
            self.reader
                .get_ref()
                .set_read_timeout(Some(left.max(Duration::from_millis(1))))
                .map_err(|e| lost(e.to_string()))?;
            match self.reader.fill_buf() {
                Ok(_) => return Ok(true),
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(error) => return Err(lost(error.to_string())),
            }
            if std::time::Instant::now() < next_look {
                continue;
            }
            self.looks.last = std::time::Instant::now();
            let Some(pid) = self.owner else { continue };
            if let Some(verdict) = self.look_at(pid, watch) {
                return Err(lost(self.end_owner(pid, verdict)));
            }
        }
    }

    /// One look at the owner `pid` while an answer is awaited: the verdict
    /// when it is to be ended.
    fn look_at(&mut self, pid: u32, watch: Watch) -> Option<Verdict> {
        if owner_stopped(pid) {
            let since = *self
                .looks
                .stopped_since
                .get_or_insert_with(std::time::Instant::now);
            return (since.elapsed() >= STOPPED_PATIENCE).then_some(Verdict::Stopped);
        }
        self.looks.stopped_since = None;
        if watch == Watch::Loosely {
            // An owner that ran since the last look is not hung.
            let ticks = cpu_ticks(pid);
            let ran = ticks.is_none() || ticks != self.looks.window.1;
            self.looks.window = (std::time::Instant::now(), ticks);
            if ran {
                return None;
            }
            let now = std::time::Instant::now();
            self.looks.probed = now.checked_sub(PROBE_EVERY).unwrap_or(now);
        }
        let mut window = self.looks.window;
        let mut probed = self.looks.probed;
        let broken = self.lease_broken(pid, &mut window, &mut probed);
        self.looks.window = window;
        self.looks.probed = probed;
        broken.then_some(Verdict::Hung)
    }

    /// Reads the answer that has started to arrive.
    fn read_answer(&mut self, timeout: Duration) -> Result<Response, CallError> {
        let generation = self.generation;
        let lost = |detail: String| CallError::Lost {
            sent: true,
            generation,
            detail,
        };
        self.reader
            .get_ref()
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))
            .map_err(|e| lost(e.to_string()))?;
        match read_frame(&mut self.reader) {
            Ok(Frame::Payload(bytes)) => {
                decode(&bytes, "the owner's answer").map_err(CallError::Store)
            }
            Ok(Frame::Closed) => Err(lost("the owner closed the connection".to_owned())),
            Err(error) if error.kind() == io::ErrorKind::InvalidData => {
                Err(CallError::Store(StoreError::BadMessage(error.to_string())))
            }
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Err(lost(self.silence(timeout)))
            }
            Err(error) => Err(lost(error.to_string())),
        }
    }
}

/// What a connection awaiting an answer has seen of the owner.
#[derive(Debug, Clone, Copy)]
struct Looks {
    /// When the owner was last looked at (the request's start at first).
    last: std::time::Instant,
    /// Since when it has been seen stopped.
    stopped_since: Option<std::time::Instant>,
    /// When the current window began, and the owner's CPU time then.
    window: (std::time::Instant, Option<u64>),
    /// When a second connection's greeting was last tried.
    probed: std::time::Instant,
}

impl Looks {
    /// From now; the CPU time of `owner` read when it is given (only a
    /// greeting's lease needs it from the start: a request's look reads it the
    /// first time, so a request costs no read of `/proc`).
    fn new(owner: Option<u32>) -> Self {
        let now = std::time::Instant::now();
        Self {
            last: now,
            stopped_since: None,
            window: (now, owner.and_then(cpu_ticks)),
            probed: now,
        }
    }
}

impl Connection {
    /// The error frame an owner sent before it closed this connection (it
    /// serves too many, say), if there is one.
    fn parting_words(&mut self) -> Option<Response> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(100)))
            .ok()?;
        match read_frame(&mut self.reader) {
            Ok(Frame::Payload(bytes)) => match decode(&bytes, "the owner's answer") {
                Ok(response @ Response::Error(_)) => Some(response),
                _ => None,
            },
            _ => None,
        }
    }

    /// What a request left unanswered for `timeout` says: that, and when the
    /// process listening on the socket is not the recorded owner, why it was
    /// left alone and what to do.
    fn silence(&self, timeout: Duration) -> String {
        match &self.unverified {
            None => format!("no answer within {} s", timeout.as_secs()),
            Some(why) => format!(
                "no answer within {} s, and {why}, so nothing was ended: end the process that holds {} (`fuser {}` names it)",
                timeout.as_secs(),
                self.lock_file.display(),
                self.lock_file.display()
            ),
        }
    }

    /// Ends the owner `pid`, stopped or hung, once it is checked again to be
    /// the owner recorded beside the socket and not a person's; the reason, in
    /// words (see [`end_owner`]).
    fn end_owner(&self, pid: u32, verdict: Verdict) -> String {
        match record::verify(&self.socket, &self.lock_file, pid) {
            Ok(verified) if verified.interactive => {
                let state = match verdict {
                    Verdict::Stopped => "is stopped",
                    Verdict::Hung => "does not answer",
                };
                format!(
                    "the askuser process that holds the log (pid {pid}) is a person's (askuser ask or resume) and {state}; it is never ended: resume it (fg, or kill -CONT {pid})"
                )
            }
            Ok(verified) => end_owner(pid, &verified.pidfd, verdict),
            Err(why) => format!(
                "{why}, so nothing was ended: end the process that holds {} (`fuser {}` names it)",
                self.lock_file.display(),
                self.lock_file.display()
            ),
        }
    }

    /// Whether the owner (`pid`, checked to hold sled's lock) has broken its lease
    /// while this connection waits for an answer: its greeting of this
    /// connection, or of a second one (made every [`PROBE_EVERY`], `probed` being
    /// the last time), has waited [`LEASE`], and meanwhile it has not run at all
    /// (its CPU time did not move: a process that runs is starved or busy, not
    /// hung, and is waited for). A request may take long (a wait, a long scan); a
    /// greeting never does. `window`: when the wait for this connection's
    /// greeting began, and the owner's CPU time then (moved on when it ran).
    fn lease_broken(
        &self,
        pid: u32,
        window: &mut (std::time::Instant, Option<u64>),
        probed: &mut std::time::Instant,
    ) -> bool {
        if !self.greeted {
            if window.0.elapsed() < LEASE {
                return false;
            }
            let now = cpu_ticks(pid);
            if now.is_none() || now != window.1 {
                *window = (std::time::Instant::now(), now);
                return false;
            }
            return holds_lock(pid, &self.lock_file);
        }
        if probed.elapsed() < PROBE_EVERY {
            return false;
        }
        let before = cpu_ticks(pid);
        let silent = greeting_silent(&self.socket, pid);
        *probed = std::time::Instant::now();
        silent && before.is_some() && cpu_ticks(pid) == before && holds_lock(pid, &self.lock_file)
    }
}

/// The CPU time process `pid` has used, in clock ticks (`utime` + `stime` of
/// `/proc/PID/stat`).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let fields = stat_fields(pid)?;
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

/// The fields of `/proc/PID/stat` after the command name, from the state on. The
/// name is in parentheses and may hold anything, so they are read after the last
/// ')'.
pub(super) fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Whether process `pid`, listening on `socket`, leaves a new connection's
/// greeting unanswered for [`LEASE`]. A socket that cannot be reached, or is
/// served by another process, says nothing about `pid`: not silent.
fn greeting_silent(socket: &Path, pid: u32) -> bool {
    let Ok(stream) = UnixStream::connect(socket) else {
        return false;
    };
    let peer = rustix::net::sockopt::socket_peercred(&stream)
        .ok()
        .and_then(|cred| u32::try_from(cred.pid.as_raw_nonzero().get()).ok());
    if peer != Some(pid) {
        return false;
    }
    let Ok(hello) = encode(&Request::Hello { protocol: PROTOCOL }) else {
        return false;
    };
    let Ok(write_half) = stream.try_clone() else {
        return false;
    };
    let mut writer = BufWriter::new(write_half);
    if write_frame(&mut writer, &hello).is_err() || stream.set_read_timeout(Some(LEASE)).is_err() {
        return false;
    }
    let mut reader = BufReader::new(stream);
    match read_frame(&mut reader) {
        Ok(_) => false,
        Err(error) => matches!(
            error.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        ),
    }
}

/// Why an owner is ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Stopped (Ctrl-Z, `SIGSTOP`, a debugger).
    Stopped,
    /// Running, but greeting nobody within its lease.
    Hung,
}

/// Whether process `pid` is stopped (state `T` or `t` in `/proc/PID/stat`: Ctrl-Z,
/// `SIGSTOP`, a debugger). A stopped owner holds sled's lock and answers nobody;
/// it cannot be waited out.
fn owner_stopped(pid: u32) -> bool {
    matches!(process_state(pid), Some('T' | 't'))
}

/// The state letter of process `pid` (`/proc/PID/stat`), if it exists.
fn process_state(pid: u32) -> Option<char> {
    stat_fields(pid)?.first()?.chars().next()
}

/// Whether process `pid` holds the lock sled takes on `file` (a `FLOCK` line of
/// `/proc/locks` naming the file's inode; a lock left to a child names its
/// creator still, so this alone proves nothing, see [`record::verify`]).
pub(super) fn holds_lock(pid: u32, file: &Path) -> bool {
    let Ok(inode) = std::fs::metadata(file).map(|meta| meta.ino()) else {
        return false;
    };
    let Ok(locks) = std::fs::read_to_string("/proc/locks") else {
        return false;
    };
    locks.lines().any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // `N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END`; a waiter's line
        // has `->` after `N:` and is not a holder.
        fields.get(1) == Some(&"FLOCK")
            && fields.get(4).and_then(|p| p.parse::<u32>().ok()) == Some(pid)
            && fields
                .get(5)
                .and_then(|id| id.rsplit(':').next())
                .and_then(|i| i.parse::<u64>().ok())
                == Some(inode)
    })
}

/// Ends an owner that is stopped or hung (`SIGKILL`: a stopped process cannot act
/// on anything gentler, a hung one on nothing at all), so that sled's lock is
/// released and this process can take the log over; what it acknowledged was
/// flushed before it answered, and an append of ours it may have carried out is
/// settled by reading the stream. The reason, in words.
fn end_owner(pid: u32, pidfd: &OwnedFd, verdict: Verdict) -> String {
    let ended = Some(rustix::process::pidfd_send_signal(
        pidfd,
        rustix::process::Signal::KILL,
    ));
    let state = match verdict {
        Verdict::Stopped => "was stopped".to_owned(),
        Verdict::Hung => format!("did not answer for {} ms", LEASE.as_millis()),
    };
    match (ended, verdict) {
        (Some(Ok(())), _) => {
            // Wait (briefly) until it is gone or a zombie: its locks are released.
            let gone = std::time::Instant::now();
            while process_state(pid).is_some_and(|state| state != 'Z')
                && gone.elapsed() < Duration::from_secs(1)
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            format!(
                "the askuser process that held the log (pid {pid}) {state}, so it was ended for the log to go on"
            )
        }
        (Some(Err(error)), Verdict::Stopped) => format!(
            "the askuser process that holds the log (pid {pid}) is stopped and could not be ended ({error}): resume it (fg, or kill -CONT {pid})"
        ),
        (None, Verdict::Stopped) => format!(
            "the askuser process that holds the log (pid {pid}) is stopped: resume it (fg, or kill -CONT {pid})"
        ),
        (Some(Err(error)), Verdict::Hung) => format!(
            "the askuser process that holds the log (pid {pid}) {state} and could not be ended ({error}): end it (kill {pid})"
        ),
        (None, Verdict::Hung) => format!(
            "the askuser process that holds the log (pid {pid}) {state}: end it (kill {pid})"
        ),
    }
}

/// Refuses a socket that another user created: whoever can plant one in the
/// database directory could answer with events of their own. (On Linux, this
/// process's user is the owner of `/proc/self`; elsewhere the check is skipped.)
fn check_socket_owner(socket: &Path) -> Result<(), String> {
    let Ok(me) = std::fs::metadata("/proc/self") else {
        return Ok(());
    };
    match std::fs::symlink_metadata(socket) {
        Ok(meta) if meta.uid() != me.uid() => Err(format!(
            "{} belongs to user {}, not to this user ({}); remove it",
            socket.display(),
            meta.uid(),
            me.uid()
        )),
        _ => Ok(()),
    }
}

/// The connections of one process to the owner of one log.
#[derive(Debug)]
pub(super) struct Client {
    socket: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Bumped each time the owner changes; older connections are dropped.
    generation: AtomicU64,
    /// The revision of the protocol the owner last greeted with announced (see
    /// [`super::wire::REVISION`]).
    revision: AtomicU32,
    /// A wait whose caller's time ran out before its answer came (see
    /// [`Client::wait_changed`]).
    parked: Mutex<Option<Parked>>,
}

/// A `WaitChanged` request still outstanding at the owner: its connection,
/// the version it waits to move from, and when it is lost if unanswered.
#[derive(Debug)]
struct Parked {
    connection: Connection,
    since: u64,
    lost_at: std::time::Instant,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub(super) fn new(socket: &Path) -> Self {
        Self {
            socket: socket.to_owned(),
            idle: Mutex::new(Vec::new()),
            generation: AtomicU64::new(0),
            revision: AtomicU32::new(0),
            parked: Mutex::new(None),
        }
    }

    /// The revision of the protocol the owner announced when it last greeted a
    /// connection of this client (0 before any greeting, or from an older owner).
    pub(super) fn owner_revision(&self) -> u32 {
        self.revision.load(Ordering::SeqCst)
    }

    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Forgets every connection (the owner changed) and connects afresh.
    ///
    /// # Errors
    /// Why the owner's socket could not be used.
    pub(super) fn reconnect(&self) -> Result<(), String> {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        *self.parked.lock().unwrap_or_else(PoisonError::into_inner) = None;
        let connection = self.connect()?;
        self.check_in(connection);
        Ok(())
    }

    /// Drops every connection (this process now owns the log).
    pub(super) fn disconnect(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        *self.parked.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Connects and greets the owner.
    fn connect(&self) -> Result<Connection, String> {
        let generation = self.generation();
        check_socket_owner(&self.socket)?;
        let stream = UnixStream::connect(&self.socket).map_err(|e| e.to_string())?;
        let write_half = stream.try_clone().map_err(|e| e.to_string())?;
        // The process that listens (the owner), from the socket itself: watched
        // from the greeting on, so a stopped owner is found even before it greets.
        let lock_file = self.socket.with_file_name("db");
        let peer = rustix::net::sockopt::socket_peercred(&stream)
            .ok()
            .and_then(|cred| u32::try_from(cred.pid.as_raw_nonzero().get()).ok());
        let (owner, unverified) = match peer {
            Some(pid) => match record::verify(&self.socket, &lock_file, pid) {
                Ok(_) => (Some(pid), None),
                Err(why) => (None, Some(why)),
            },
            None => (None, None),
        };
        let mut connection = Connection {
            reader: BufReader::new(stream),
            writer: BufWriter::new(write_half),
            generation,
            owner,
            unverified,
            lock_file,
            socket: self.socket.clone(),
            greeted: false,
            idle_since: std::time::Instant::now(),
            looks: Looks::new(owner),
        };
        let hello = encode(&Request::Hello { protocol: PROTOCOL }).map_err(|e| e.to_string())?;
        match connection.exchange(&hello, GREETING_TIMEOUT, Watch::Closely) {
            Ok(Response::Hello {
                protocol, revision, ..
            }) if protocol == PROTOCOL => {
                connection.greeted = true;
                self.revision.store(revision, Ordering::SeqCst);
                Ok(connection)
            }
            Ok(Response::Hello { protocol, pid, .. }) => Err(format!(
                "the askuser process that holds it (pid {pid}) speaks protocol {protocol}, this one {PROTOCOL}: let it finish, or use the same askuser"
            )),
            // Turned away (too many connections): the owner's words.
            Ok(Response::Error(WireError::Failed(why))) => {
                Err(askuser_core::text::for_display_line(&why).into_owned())
            }
            Ok(other) => Err(format!("the greeting was answered with {other:?}")),
            Err(CallError::Lost { detail, .. }) => Err(detail),
            Err(CallError::Store(error)) => Err(error.to_string()),
        }
    }

    fn check_out(&self) -> Result<Connection, CallError> {
        let idle = {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            idle.retain(|c| c.idle_since.elapsed() < KEEP_IDLE);
            idle.pop()
        };
        match idle {
            Some(connection) => Ok(connection),
            None => self.connect().map_err(|detail| CallError::Lost {
                sent: false,
                generation: self.generation(),
                detail,
            }),
        }
    }

    fn check_in(&self, mut connection: Connection) {
        connection.idle_since = std::time::Instant::now();
        if connection.generation != self.generation() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(connection);
        }
    }

    /// Sends `request` and reads the answer, waiting at most `timeout` for it,
    /// the owner watched as `watch` says.
    pub(super) fn call(
        &self,
        request: &Request<'_>,
        timeout: Duration,
        watch: Watch,
    ) -> Result<Response, CallError> {
        let payload = encode(request).map_err(CallError::Store)?;
        let mut connection = self.check_out()?;
        let response = connection.exchange(&payload, timeout, watch)?;
        self.check_in_after(connection, &response);
        Ok(response)
    }

    /// Puts `connection` back in the pool after `response`, unless it ends
    /// it: a protocol breach ends the connection (the owner closes it too), and
    /// so may a failure (a request over the owner's budget).
    fn check_in_after(&self, connection: Connection, response: &Response) {
        if !matches!(
            response,
            Response::Error(WireError::BadMessage(_) | WireError::Failed(_))
        ) {
            self.check_in(connection);
        }
    }

    /// Waits for the log's version to move from `since` (a `WaitChanged` the
    /// owner answers within [`WAIT_SLICE`], when it moves or with `since`), for
    /// at most `left`: the owner's answer, or `None` when `left` ran out first.
    /// Then the request stays outstanding, its connection parked, and the next
    /// wait for the same version (a watcher asking again) awaits that answer
    /// instead of asking anew: a waiter whose caller asks again often costs the
    /// owner nothing until the log changes or the slice ends.
    pub(super) fn wait_changed(
        &self,
        since: u64,
        left: Duration,
    ) -> Result<Option<Response>, CallError> {
        let parked = (self.parked.lock().unwrap_or_else(PoisonError::into_inner))
            .take()
            .filter(|p| p.since == since && p.connection.generation == self.generation());
        let allowed = WAIT_SLICE + REQUEST_TIMEOUT;
        let (mut connection, lost_at) = if let Some(parked) = parked {
            (parked.connection, parked.lost_at)
        } else {
            let request = Request::WaitChanged {
                since,
                millis: u64::try_from(WAIT_SLICE.as_millis()).unwrap_or(u64::MAX),
            };
            let payload = encode(&request).map_err(CallError::Store)?;
            let mut connection = self.check_out()?;
            if let Some(words) = connection.send(&payload)? {
                return Ok(Some(words));
            }
            (connection, std::time::Instant::now() + allowed)
        };
        let until = std::time::Instant::now()
            .checked_add(left)
            .map_or(lost_at, |until| until.min(lost_at));
        if !connection.answer_by(until, lost_at, allowed, Watch::Loosely)? {
            *self.parked.lock().unwrap_or_else(PoisonError::into_inner) = Some(Parked {
                connection,
                since,
                lost_at,
            });
            return Ok(None);
        }
        let response = connection.read_answer(REQUEST_TIMEOUT)?;
        self.check_in_after(connection, &response);
        Ok(Some(response))
    }
}
