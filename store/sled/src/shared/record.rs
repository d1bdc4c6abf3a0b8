//! The owner's record, `askuser.owner` beside the socket: who the owner is, in
//! terms a client checks against `/proc` before it ends a stopped or hung owner
//! (see the module docs of [`super`]). A process id alone names the wrong process
//! once it is reused, and the socket's peer and `/proc/locks` keep naming the
//! process that created the socket and the lock, even after it exited and left
//! them to a child; so a process is ended only when it is the one recorded:
//! the same id, the same start time, the same executable, holding the very
//! listening socket the record names (and sled's lock on the log).

use std::fs;
use std::io::{self, Write as _};
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

/// The record's file name, beside the socket.
const RECORD_NAME: &str = "askuser.owner";

/// `O_NONBLOCK | O_NOFOLLOW`, as the open flags of the record's reader.
const NONBLOCK_NOFOLLOW: i32 = rustix::fs::OFlags::NONBLOCK
    .union(rustix::fs::OFlags::NOFOLLOW)
    .bits()
    .cast_signed();

/// The longest record read.
const RECORD_CAP: u64 = 4096;

/// Whether this process is a person's (set by
/// [`hand_over_when_stopped`](super::hand_over_when_stopped)): its record says
/// so, and no client ever ends it.
pub(super) static INTERACTIVE: AtomicBool = AtomicBool::new(false);

/// What the owner records about itself.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    pid: u32,
    /// Field 22 of `/proc/PID/stat`: when the process started, in clock ticks
    /// since boot (a reused id has another).
    start: u64,
    /// `/proc/PID/exe`.
    exe: PathBuf,
    /// The inode of the listening socket (`socket:[N]` among its descriptors).
    socket: u64,
    /// A person's process (`askuser ask`, `resume`): never ended.
    interactive: bool,
}

/// An owner checked against its record: its process, held by a descriptor (so
/// that a signal reaches this very process, even if its id were reused since),
/// and whether it is a person's.
#[derive(Debug)]
pub(super) struct Verified {
    pub(super) pidfd: OwnedFd,
    pub(super) interactive: bool,
}

/// The record of the owner serving on `socket`.
pub(super) fn path_of(socket: &Path) -> PathBuf {
    socket.with_file_name(RECORD_NAME)
}

/// This process as the owner serving on `listener`, recorded beside `socket`
/// (written to a temporary file, then renamed into place).
///
/// # Errors
/// When `/proc/self` cannot be read, or the file cannot be written.
pub(crate) fn write(socket: &Path, listener: &UnixListener) -> io::Result<()> {
    let pid = std::process::id();
    let missing = || io::Error::new(io::ErrorKind::NotFound, "/proc/self/stat has no start time");
    let record = Record {
        pid,
        start: start_time(pid).ok_or_else(missing)?,
        exe: fs::read_link("/proc/self/exe")?,
        socket: descriptor_socket(&format!("/proc/self/fd/{}", listener.as_raw_fd()))
            .ok_or_else(missing)?,
        interactive: INTERACTIVE.load(Ordering::SeqCst),
    };
    let path = path_of(socket);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".askuser.owner.")
        .tempfile_in(dir)?;
    let text = serde_json::to_string(&record).map_err(io::Error::other)?;
    file.write_all(text.as_bytes())?;
    file.persist(&path).map_err(|error| error.error)?;
    Ok(())
}

/// Removes the record beside `socket` if it is this process's.
pub(super) fn remove(socket: &Path) {
    let path = path_of(socket);
    if read(&path).is_ok_and(|record| {
        record.pid == std::process::id() && start_time(record.pid) == Some(record.start)
    }) {
        drop(fs::remove_file(path));
    }
}

fn read(path: &Path) -> Result<Record, String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    // Opened without blocking and without following a link: a FIFO or a link
    // planted under the record's name neither hangs a client nor leads it to
    // another file; only a regular file is read.
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(NONBLOCK_NOFOLLOW)
        .open(path)
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let kind = file
        .metadata()
        .map_err(|error| format!("{}: {error}", path.display()))?
        .file_type();
    if !kind.is_file() {
        return Err(format!(
            "{} is not a regular file (askuser writes its owner's record as one: remove it)",
            path.display()
        ));
    }
    // Written by this user, as the socket is (see `check_socket_owner`).
    if let (Ok(me), Ok(meta)) = (fs::metadata("/proc/self"), file.metadata())
        && me.uid() != meta.uid()
    {
        return Err(format!(
            "{} belongs to user {}, not to this user ({})",
            path.display(),
            meta.uid(),
            me.uid()
        ));
    }
    let mut text = String::new();
    file.take(RECORD_CAP)
        .read_to_string(&mut text)
        .map_err(|error| format!("{}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// Checks that `pid` (the process listening on `socket`) is the owner recorded
/// beside it, and holds sled's lock on `lock_file`; why not, in words.
pub(super) fn verify(socket: &Path, lock_file: &Path, pid: u32) -> Result<Verified, String> {
    let path = path_of(socket);
    let record = read(&path)?;
    if record.pid != pid {
        return Err(format!(
            "the process listening on it (pid {pid}) is not the owner recorded in {} (pid {})",
            path.display(),
            record.pid
        ));
    }
    let exited = || {
        format!(
            "the owner recorded in {} (pid {pid}) has exited",
            path.display()
        )
    };
    let raw = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(exited)?;
    // Held from here on: whatever is checked below is checked of this process.
    let pidfd = rustix::process::pidfd_open(raw, rustix::process::PidfdFlags::empty())
        .map_err(|_| exited())?;
    if start_time(pid) != Some(record.start) {
        return Err(format!(
            "pid {pid} is not the owner recorded in {}: that process has exited, and its number was given to another",
            path.display()
        ));
    }
    let exe = fs::read_link(format!("/proc/{pid}/exe")).map_err(|_| exited())?;
    if strip_deleted(&exe) != strip_deleted(&record.exe) {
        return Err(format!(
            "pid {pid} runs {}, not {} as recorded in {}",
            exe.display(),
            record.exe.display(),
            path.display()
        ));
    }
    if !holds_socket(pid, record.socket) {
        return Err(format!(
            "pid {pid} does not hold the socket recorded in {}",
            path.display()
        ));
    }
    if !super::client::holds_lock(pid, lock_file) {
        return Err(format!(
            "pid {pid} does not hold the lock on {}",
            lock_file.display()
        ));
    }
    Ok(Verified {
        pidfd,
        interactive: record.interactive,
    })
}

/// `exe` without the ` (deleted)` Linux adds once the file was replaced (an
/// upgrade while the owner runs).
fn strip_deleted(exe: &Path) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = exe.as_os_str().as_bytes();
    std::ffi::OsStr::from_bytes(bytes.strip_suffix(b" (deleted)").unwrap_or(bytes))
}

/// When process `pid` started (field 22 of `/proc/PID/stat`).
fn start_time(pid: u32) -> Option<u64> {
    super::client::stat_fields(pid)?.get(19)?.parse().ok()
}

/// The inode of the socket a descriptor link (`/proc/PID/fd/N`) points at.
fn descriptor_socket(link: &str) -> Option<u64> {
    let target = fs::read_link(link).ok()?;
    let target = target.to_str()?;
    target
        .strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// Whether process `pid` has the socket of inode `inode` among its descriptors.
fn holds_socket(pid: u32, inode: u64) -> bool {
    let Ok(entries) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    entries.filter_map(std::result::Result::ok).any(|entry| {
        entry
            .path()
            .to_str()
            .and_then(descriptor_socket)
            .is_some_and(|found| found == inode)
    })
}
