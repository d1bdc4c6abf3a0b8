//! The files of a sled database directory: what a `--db` path may be, and the
//! private copy a read-only open works on.
//!
//! A sled 0.34 database is a directory holding `conf` (the storage parameters and a
//! CRC), `db` (the log-structured data file), `snap.<lsn>` (the latest recovery
//! snapshot) and `blobs/` (values too large to keep inline). sled writes to several
//! of them every time it opens the directory (see [`crate::SledLog`]'s docs), so a
//! reader that must not change a byte opens a copy.

// Paths are shown quoted and escaped (`{:?}`), so that a hostile name cannot put
// control characters on a terminal.
#![allow(clippy::unnecessary_debug_formatting)]

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use askuser_store::{Result, StoreError};

/// What the caller means to do with a database path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbIntent {
    /// Open the log, creating it if the path does not exist yet or is an empty
    /// directory (a command that records events).
    Create,
    /// Read an existing log; a path with no log there is an error (a read-only
    /// command never creates one).
    Existing,
}

/// What a checked database path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbPathState {
    /// Nothing is there yet (only with [`DbIntent::Create`]): opening creates it.
    New,
    /// An empty directory (only with [`DbIntent::Create`]): opening creates the log in it.
    Empty,
    /// A sled database directory.
    Log,
}

/// The names sled 0.34 keeps in a database directory, and those of the socket a
/// [`SharedSledLog`](crate::SharedSledLog) owner serves beside them (`askuser.sock`,
/// and the private `.<pid>.<n>` directory it is bound in before it is moved there),
/// and its record, `askuser.owner`, written as `.askuser.owner.<random>` first),
/// and of the seal of a log closed cleanly (`askuser.seal`, written as
/// `askuser.seal.<pid>` first), the token `askuser mcp --http` keeps beside
/// the log (`askuser.mcp-token`), and the key pending files are sealed with
/// (`askuser.pending-key`).
fn is_sled_name(name: &str) -> bool {
    let binding = name
        .strip_prefix('.')
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(pid, n)| {
            !pid.is_empty()
                && !n.is_empty()
                && pid.chars().chain(n.chars()).all(|c| c.is_ascii_hexdigit())
        });
    let seal = name == "askuser.seal"
        || name
            .strip_prefix("askuser.seal.")
            .is_some_and(|pid| !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit()));
    let record = name
        .strip_prefix(".askuser.owner.")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()));
    matches!(
        name,
        "conf"
            | "db"
            | "blobs"
            | "askuser.sock"
            | "askuser.owner"
            | "askuser.mcp-token"
            | "askuser.pending-key"
    ) || record
        || name.starts_with("snap.")
        || binding
        || seal
}

/// Checks that `path` can be used as a log directory for `intent`, before sled
/// touches it: a path that is empty, a symbolic link, a regular file or another
/// kind of file, an unreadable directory, a directory that holds files other than
/// a sled database's, or (for [`DbIntent::Existing`]) a path with no log, is
/// refused with [`StoreError::DbPath`] naming the path and saying what to do.
///
/// A directory is taken for a sled database when it holds a `conf` file that reads
/// as sled's storage parameters and a `db` file, and nothing else but `snap.*`
/// files and a `blobs` directory. A new path's parent directory must exist (the
/// check never lets a database be created in a directory that was not there).
///
/// # Errors
///
/// [`StoreError::DbPath`].
pub fn check_db_path(path: &Path, intent: DbIntent) -> Result<DbPathState> {
    let refuse = |problem: &str| StoreError::DbPath {
        path: path.to_path_buf(),
        problem: problem.to_owned(),
    };
    if path.as_os_str().is_empty() {
        return Err(refuse(
            "the path is empty; give the directory of an askuser log",
        ));
    }
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return check_new(path, intent).map_err(|problem| refuse(&problem));
        }
        Err(error) => return Err(refuse(&format!("it cannot be examined ({error})"))),
    };
    let kind = metadata.file_type();
    if kind.is_symlink() {
        return Err(refuse(
            "it is a symbolic link; give the path of the log directory itself",
        ));
    }
    if kind.is_file() {
        return Err(refuse(
            "it is a file, not a log directory; give the directory that holds the log (or a new path)",
        ));
    }
    if !kind.is_dir() {
        return Err(refuse(
            "it is not a directory (a device, FIFO or socket); give a log directory or a new path",
        ));
    }
    // A log being created by another process now has some of its files and not
    // yet others: wait until it is (see `OpeningLock`); past the patience, the
    // files are judged as they are.
    let _opening = OpeningLock::take(path, false, OPENING_PATIENCE).ok();
    let names = list_names(path).map_err(|error| {
        refuse(&format!(
            "the directory cannot be read ({error}); check its permissions"
        ))
    })?;
    if names.is_empty() {
        return match intent {
            DbIntent::Create => Ok(DbPathState::Empty),
            DbIntent::Existing => Err(refuse(
                "the directory is empty: there is no askuser log here",
            )),
        };
    }
    if let Some(other) = names.iter().find(|name| !is_sled_name(name)) {
        return Err(refuse(&format!(
            "the directory holds files that are not an askuser log (such as {other:?}); \
             choose a new path or an empty directory"
        )));
    }
    check_sled_files(path).map_err(|problem| refuse(&problem))?;
    Ok(DbPathState::Log)
}

fn check_new(path: &Path, intent: DbIntent) -> Result<DbPathState, String> {
    if intent == DbIntent::Existing {
        return Err("there is no askuser log here (nothing exists at this path)".to_owned());
    }
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match fs::metadata(parent) {
        Ok(metadata) if metadata.is_dir() => Ok(DbPathState::New),
        Ok(_) => Err(format!("its parent {parent:?} is not a directory")),
        Err(error) => Err(format!(
            "its parent directory {parent:?} cannot be used ({error}); create it first"
        )),
    }
}

/// The names in a directory, as text (a name that is not UTF-8 is shown lossily,
/// which is enough to refuse it).
fn list_names(path: &Path) -> io::Result<Vec<String>> {
    fs::read_dir(path)?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect()
}

/// The largest `conf` file taken for sled's (its three lines and a CRC).
const MAX_CONF: u64 = 4096;

/// `conf` and `db` are regular files and `conf` reads as sled's parameters.
fn check_sled_files(path: &Path) -> Result<(), String> {
    let conf = path.join("conf");
    let data = path.join("db");
    for file in [&conf, &data] {
        match fs::symlink_metadata(file) {
            Ok(metadata) if metadata.file_type().is_file() => {}
            Ok(_) => {
                return Err(format!(
                    "{file:?} is not a regular file, so this is not an askuser log; \
                     choose a new path or an empty directory"
                ));
            }
            Err(_) => {
                return Err(format!(
                    "{file:?} is missing, so this is not a complete askuser log; \
                     if it was one, restore the directory from a backup"
                ));
            }
        }
    }
    let text = read_capped(&conf, MAX_CONF)
        .map_err(|error| format!("{conf:?} cannot be read ({error}); check its permissions"))?;
    if !text.starts_with(b"segment_size: ") {
        return Err(format!(
            "{conf:?} is not a sled settings file, so this is not an askuser log; \
             choose a new path or an empty directory"
        ));
    }
    Ok(())
}

/// The first `cap` bytes of the file at `path`.
pub(crate) fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    File::open(path)?.take(cap).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// How long a check of a log's files waits for a process opening it.
const OPENING_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

/// A lock on a log's directory, held while sled opens the log (exclusive) or
/// while the log is copied for reading (shared).
///
/// sled reads a log's settings file (`conf`) before it takes its own lock on
/// the data file, and writes a new one in two writes: a process opening a log
/// that another process is creating at that moment could read half of it, and
/// sled would then call the log damaged (seen once in eight processes asking at
/// once on a log that did not exist yet). Every askuser process holds this lock
/// on the directory meanwhile, so the second waits until the first has written
/// the settings and taken sled's lock. Released when dropped.
#[derive(Debug)]
pub(crate) struct OpeningLock {
    _dir: File,
}

impl OpeningLock {
    /// Takes the lock on the directory `dir`, exclusive or shared, trying for
    /// at most `patience`. `None` where the directory cannot be opened to be
    /// locked (it does not exist yet, or elsewhere than Unix): sled then says
    /// what is wrong with the path.
    ///
    /// # Errors
    ///
    /// [`StoreError::Locked`] when another process still holds it after `patience`.
    pub(crate) fn take(
        dir: &Path,
        exclusive: bool,
        patience: std::time::Duration,
    ) -> Result<Option<Self>> {
        let Ok(file) = File::open(dir) else {
            return Ok(None);
        };
        let started = std::time::Instant::now();
        loop {
            let taken = if exclusive {
                fs2::FileExt::try_lock_exclusive(&file)
            } else {
                fs2::FileExt::try_lock_shared(&file)
            };
            if taken.is_ok() {
                return Ok(Some(Self { _dir: file }));
            }
            if started.elapsed() >= patience {
                return Err(StoreError::Locked);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// Takes sled's data file `data` (a database's `db`) shared, trying until
/// `deadline`: sled holds it exclusively while the database is open, and its
/// threads hold it a moment after the last handle is dropped. Whether it was
/// taken; the lock lasts until `data` is closed.
pub(crate) fn lock_data_shared(data: &File, deadline: std::time::Instant) -> bool {
    loop {
        if fs2::FileExt::try_lock_shared(data).is_ok() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A private copy of a database directory, in a temporary directory only this
/// process can use (created exclusively, mode 0700); deleted when dropped.
#[derive(Debug)]
pub(crate) struct PrivateCopy {
    dir: tempfile::TempDir,
    /// The original's data file, locked (shared) until [`PrivateCopy::release`].
    lock: Option<File>,
}

impl PrivateCopy {
    /// Copies the database at `from`, holding a shared lock on its data file while
    /// copying so that no sled process writes it meanwhile (sled locks the same file
    /// exclusively while it has the database open). Reading changes no byte of it.
    pub(crate) fn of(from: &Path) -> Result<Self> {
        check_db_path(from, DbIntent::Existing)?;
        let refuse = |problem: String| StoreError::DbPath {
            path: from.to_path_buf(),
            problem,
        };
        let data = File::open(from.join("db")).map_err(|error| {
            refuse(format!(
                "its data file cannot be opened ({error}); check its permissions"
            ))
        })?;
        // sled's threads may hold the lock a moment after its last handle is dropped.
        let started = std::time::Instant::now();
        let _opening = OpeningLock::take(from, false, OPENING_PATIENCE)?;
        if !lock_data_shared(&data, started + std::time::Duration::from_secs(1)) {
            return Err(StoreError::Locked);
        }
        let scratch = || {
            let dir = tempfile::Builder::new().prefix("askuser-read-").tempdir()?;
            copy_tree(from, &dir.path().join("db"))?;
            Ok::<_, io::Error>(dir)
        };
        let dir = scratch().map_err(|error| {
            refuse(format!(
                "it could not be copied for reading into {} ({error}); it is read from a \
                 private copy so that reading changes nothing: free space there, or set \
                 TMPDIR to a directory with room",
                std::env::temp_dir().display()
            ))
        })?;
        Ok(Self {
            dir,
            lock: Some(data),
        })
    }

    /// Removes sled's recovery snapshots (`snap.*`) from the copy, so that sled
    /// rebuilds its page table from the data file alone.
    pub(crate) fn remove_snapshots(&self) -> io::Result<()> {
        for entry in fs::read_dir(self.path())? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with("snap.") {
                fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }

    /// Lets sled processes open the original again.
    pub(crate) fn release(&mut self) {
        if let Some(data) = self.lock.take() {
            let _ = fs2::FileExt::unlock(&data);
        }
    }

    /// The copied database directory.
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.path().join("db")
    }
}

/// Copies a database directory: regular files and the `blobs` directory, nothing
/// that is a link.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Where sled's recovery of a copy discarded data: the byte ranges of the data
/// file that held something before it opened and hold zeros after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discarded {
    /// The first byte of the data file (`db`) that sled's recovery cleared.
    pub first_byte: u64,
    /// How many non-zero bytes it cleared in all.
    pub bytes: u64,
    /// The events each stream is missing because of it: from the head sled
    /// recovered to the head a stream record found intact past the damage commits.
    pub missing: Vec<(String, std::ops::RangeInclusive<askuser_store::Seq>)>,
    /// Whether it is only the last write, cut off by a crash: every message of
    /// sled's that recovery left out is intact or was never written, none
    /// damaged (see `cut_by_crash` in `sled_tail.rs`). A log that flushes each
    /// append before acknowledging it (as askuser does) then lacks nothing
    /// that was acknowledged, and `missing` is what that write held.
    pub cut_by_crash: bool,
    /// The stretches of the data file it cleared (start, end), in order; bytes
    /// less than [`GAP`] apart are one stretch.
    pub(crate) cleared: Vec<(u64, u64)>,
}

impl Discarded {
    /// The stretches of the data file recovery cleared, `(start, end)` byte
    /// offsets in order: where to look when a cut is called damage.
    #[must_use]
    pub fn cleared(&self) -> &[(u64, u64)] {
        &self.cleared
    }
}

/// Cleared bytes closer than this belong to one stretch of [`Discarded`].
const GAP: u64 = 4096;

impl std::fmt::Display for Discarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cut_by_crash {
            f.write_str(
                "The last write to this log was cut off by a crash; everything acknowledged \
                 is there (the write that was cut off had not been acknowledged, and is left out).",
            )?;
        } else {
            write!(
                f,
                "The data file `db` is damaged or torn at byte {}: sled's recovery does not \
                 read the {} bytes written after it, so the events appended last are missing \
                 (each stream reads up to the head it had then); `askuser log salvage` copies \
                 those still intact into a new log.",
                self.first_byte, self.bytes
            )?;
        }
        let title = if self.cut_by_crash {
            " Left out with it:"
        } else {
            " Missing past it:"
        };
        for (i, (stream, range)) in self.missing.iter().enumerate() {
            let name = askuser_core::text::for_display_line(stream);
            let lead = if i == 0 { title } else { "," };
            if range.start() == range.end() {
                write!(f, "{lead} stream \"{name}\" event {}", range.start())?;
            } else {
                write!(
                    f,
                    "{lead} stream \"{name}\" events {}-{}",
                    range.start(),
                    range.end()
                )?;
            }
        }
        if !self.missing.is_empty() {
            f.write_str(".")?;
        }
        Ok(())
    }
}

/// Compares the data file before sled opened a copy (`original`) with the copy
/// after: the non-zero bytes that became zero are what recovery threw away.
pub(crate) fn discarded(original: &Path, copy: &Path) -> io::Result<Option<Discarded>> {
    const CHUNK: usize = 1 << 16;
    let mut before = io::BufReader::new(File::open(original)?);
    let mut after = io::BufReader::new(File::open(copy)?);
    let (mut a, mut b) = (vec![0; CHUNK], vec![0; CHUNK]);
    let mut offset = 0_u64;
    let mut found: Option<Discarded> = None;
    loop {
        let read = fill(&mut before, &mut a)?;
        if read == 0 {
            break;
        }
        let got = fill(&mut after, &mut b[..read])?;
        b[got..read].fill(0);
        for (i, (x, y)) in a[..read].iter().zip(&b[..read]).enumerate() {
            if *x != 0 && *y == 0 {
                let at = offset + i as u64;
                let entry = found.get_or_insert(Discarded {
                    first_byte: at,
                    bytes: 0,
                    missing: Vec::new(),
                    cut_by_crash: false,
                    cleared: Vec::new(),
                });
                entry.bytes += 1;
                match entry.cleared.last_mut() {
                    Some((_, end)) if at < *end + GAP => *end = at + 1,
                    _ => entry.cleared.push((at, at + 1)),
                }
            }
        }
        offset += read as u64;
    }
    Ok(found)
}

fn fill(reader: &mut impl io::Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The permission bits of a file's group and of other users.
#[cfg(unix)]
const GROUP_OTHER: u32 = 0o077;
/// The mode of a log directory askuser creates: its user only.
#[cfg(unix)]
const PRIVATE_DIR: u32 = 0o700;
/// The mode of every file askuser creates in a log: its user only.
#[cfg(unix)]
pub(crate) const PRIVATE_FILE: u32 = 0o600;

/// Before sled opens the log directory `path` for writing: a path with nothing
/// there is created as a directory of mode 0700, and an empty directory (where
/// the log is about to be created) is made 0700, whatever the umask, so that no
/// file sled then creates in it can be reached by another user, even before
/// [`settle_private`] sets its own mode. A directory that already holds a log
/// keeps its mode (a looser one is reported by [`open_to_others`]).
///
/// # Errors
///
/// When the directory cannot be created or its mode set.
#[cfg(unix)]
pub(crate) fn prepare_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            // Its parents too, as sled would (their mode then is 0700 as well).
            fs::DirBuilder::new()
                .recursive(true)
                .mode(PRIVATE_DIR)
                .create(path)?;
        }
        Ok(metadata) if metadata.is_dir() && list_names(path)?.is_empty() => {}
        _ => return Ok(()),
    }
    // The mode given at creation passes through the umask: set it exactly.
    fs::set_permissions(path, fs::Permissions::from_mode(PRIVATE_DIR))
}

/// After sled opened (or closed) the log in `path`: when the directory is
/// private (no group or other bits), every file sled made in it (`conf`, `db`,
/// `snap.*`, the blob files) and `blobs/` lose their group and other bits
/// (0666 and 0777 become 0600 and 0700), since sled creates them with the
/// umask's modes; the owner's bits are left. A log whose directory others may enter is left
/// as it is (see [`open_to_others`]). Errors are ignored: a file sled removed
/// meanwhile has no mode to set, and the directory keeps the others out.
#[cfg(unix)]
pub(crate) fn settle_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let private = |meta: &fs::Metadata| meta.permissions().mode() & GROUP_OTHER == 0;
    if !fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir() && private(&meta)) {
        return;
    }
    let settle = |dir: &Path| {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let (Ok(kind), Ok(meta)) = (entry.file_type(), entry.metadata()) else {
                continue;
            };
            let ours = kind.is_file() || (kind.is_dir() && entry.file_name() == "blobs");
            let mode = meta.permissions().mode() & 0o7777;
            if ours && mode & GROUP_OTHER != 0 {
                drop(fs::set_permissions(
                    entry.path(),
                    fs::Permissions::from_mode(mode & !GROUP_OTHER),
                ));
            }
        }
    };
    settle(path);
    settle(&path.join("blobs"));
}

/// Whether users other than its owner may read the log in the directory `path`
/// (an existing log): its directory has a group or other permission bit. The
/// modes of the files inside do not matter while the directory keeps others
/// out (and a log being created has, for a moment, files with the umask's
/// modes in its private directory: another process opening it then must not
/// call it open to others). Such a log (one made by an askuser before logs were
/// private, or loosened since) is still used; the program says so, with the
/// command that makes it private.
#[cfg(unix)]
pub fn open_to_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    fs::symlink_metadata(path).is_ok_and(|meta| meta.permissions().mode() & GROUP_OTHER != 0)
}

/// Elsewhere than Unix, a new log directory is created as sled creates it.
#[cfg(not(unix))]
pub(crate) fn prepare_private(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Elsewhere than Unix, modes are not set.
#[cfg(not(unix))]
pub(crate) fn settle_private(_path: &Path) {}

/// Elsewhere than Unix, modes are not read.
#[cfg(not(unix))]
pub fn open_to_others(_path: &Path) -> bool {
    false
}
