//! The seal of a log closed cleanly: written by the last process that had the
//! log open for writing, once it let go, so that a reader can tell, without
//! copying the database and without sled, that sled's recovery will find
//! nothing to throw away and nothing to zero.
//!
//! A [`SledLog`](super::SledLog) opened for writing (at a path) removes the seal
//! before it writes anything. When it is dropped, it first visits every key it
//! wrote (sled leaves pages too full, too empty or to be rewritten for the next
//! traversal, even a read's, to fix), and once its database is closed, if the
//! seal no longer matches, it opens the database once more and closes it: sled's recovery then writes a
//! snapshot that covers the whole log (sled writes snapshots only when it opens
//! a database), after which opening it changes no byte (sled's recovery has
//! nothing left to replay). It then writes the seal, `askuser.seal` beside the
//! data file, holding a shared lock on the data file (no sled process can open
//! it meanwhile): the data file's length, a CRC-32 of every segment's header
//! and of its last 4 MiB, the newest snapshot's name and CRC-32, the settings
//! file's CRC-32, and the names and sizes of the blob files.
//!
//! A reader ([`is_sealed`]) computes the same under a shared lock and compares:
//! equal means the files are as their last writer left them, closed cleanly
//! (not torn, not damaged where recovery would look). Anything else (a writer
//! killed, a bit flipped in the tail, a log of an older askuser, a writer that
//! has the log open) is not sealed, and the reader copies the log as before.

use std::fs::{self, File};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

#[cfg(unix)]
use crate::sled_files::PRIVATE_FILE;
use crate::sled_files::{OpeningLock, read_capped, settle_private};

/// The seal's file name, beside the data file.
const SEAL_NAME: &str = "askuser.seal";

/// The seal's first line (its format).
const SEAL_VERSION: &str = "askuser seal 1";

/// The tail of the data file covered whole.
const TAIL: u64 = 4 << 20;

/// How much of each segment's start is covered (sled's segment header is 20
/// bytes).
const HEADER: u64 = 64;

/// sled 0.34's segment size unless its settings file says another.
const DEFAULT_SEGMENT: u64 = 512 * 1024;

/// How long sealing waits for sled's lock after the log was closed.
const REOPEN_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// The longest seal file read.
const SEAL_CAP: u64 = 4096;

/// Removes the seal of the log in `dir` (a writer opened it). Not finding one is
/// not an error.
///
/// # Errors
///
/// When a seal is there and cannot be removed.
pub(crate) fn unseal(dir: &Path) -> io::Result<()> {
    match fs::remove_file(dir.join(SEAL_NAME)) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Seals the log in `dir`, just closed by its writer: opens and closes the
/// database once (see the module docs), then writes the seal. Does nothing when
/// another handle or process has the database open (it is not closed).
///
/// # Errors
///
/// When the files cannot be read or the seal cannot be written.
pub(crate) fn seal(dir: &Path) -> io::Result<()> {
    // sled's threads may hold its lock a moment after the last handle is gone;
    // a lock held longer is another handle's or process's.
    let started = std::time::Instant::now();
    // Another process opening the log meanwhile waits (see `OpeningLock`); one
    // that holds the directory longer is opening the log, which is not closed.
    let Ok(_opening) = OpeningLock::take(dir, true, REOPEN_PATIENCE) else {
        return Ok(());
    };
    loop {
        match std::panic::catch_unwind(|| sled::Config::new().path(dir).flush_every_ms(None).open())
        {
            Ok(Ok(db)) => {
                drop(db);
                // The reopen may have written a snapshot, with the umask's mode.
                settle_private(dir);
                break;
            }
            Ok(Err(sled::Error::Io(error)))
                if error.to_string().contains("could not acquire lock")
                    && started.elapsed() < REOPEN_PATIENCE =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            _ => return Ok(()),
        }
    }
    let data = File::open(dir.join("db"))?;
    if fs2::FileExt::try_lock_shared(&data).is_err() {
        return Ok(());
    }
    let written = (|| {
        let text = describe(dir, &data)?;
        let temporary = dir.join(format!("{SEAL_NAME}.{}", std::process::id()));
        drop(fs::remove_file(&temporary));
        let mut file = private_file(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, dir.join(SEAL_NAME))
    })();
    drop(fs2::FileExt::unlock(&data));
    written
}

/// Creates the file `path` (a new one, never one that exists) with mode 0600,
/// whatever the umask.
fn private_file(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        let file = options.mode(PRIVATE_FILE).open(path)?;
        // The mode given at creation passes through the umask: set it exactly.
        file.set_permissions(fs::Permissions::from_mode(PRIVATE_FILE))?;
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

/// Whether the log in `dir` carries a seal that its files match now (see the
/// module docs). False when no seal is there, when a process has the database
/// open, or when anything cannot be read.
pub(crate) fn is_sealed(dir: &Path) -> bool {
    let Ok(data) = File::open(dir.join("db")) else {
        return false;
    };
    if fs2::FileExt::try_lock_shared(&data).is_err() {
        return false;
    }
    let sealed = read_capped(&dir.join(SEAL_NAME), SEAL_CAP)
        .ok()
        .is_some_and(|seal| describe(dir, &data).is_ok_and(|now| now.as_bytes() == seal));
    drop(fs2::FileExt::unlock(&data));
    sealed
}

/// The seal's text for the files in `dir` as they are (`data`: its data file).
fn describe(dir: &Path, data: &File) -> io::Result<String> {
    let conf = read_capped(&dir.join("conf"), SEAL_CAP)?;
    let segment = segment_size(&conf);
    let length = data.metadata()?.len();
    let (headers, tail) = data_crcs(data, length, segment)?;
    let snapshot = newest_snapshot(dir)?;
    let snapshot_line = match &snapshot {
        Some(path) => {
            let mut hasher = crc32fast::Hasher::new();
            let mut file = File::open(path)?;
            io::copy(&mut file, &mut HashWriter(&mut hasher))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            format!("snap {name} {:08x}", hasher.finalize())
        }
        None => "snap none".to_owned(),
    };
    Ok(format!(
        "{SEAL_VERSION}\ndb {length} {headers:08x} {tail:08x}\n{snapshot_line}\nconf {:08x}\nblobs {}\n",
        crc32fast::hash(&conf),
        blobs(dir)?
    ))
}

/// CRC-32s of the data file's segment headers and of its last [`TAIL`] bytes.
fn data_crcs(data: &File, length: u64, segment: u64) -> io::Result<(u32, u32)> {
    let mut file = data;
    let mut headers = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; usize::try_from(HEADER).unwrap_or(64)];
    let mut at = 0;
    while at < length {
        file.seek(SeekFrom::Start(at))?;
        let read = usize::try_from(HEADER.min(length - at)).unwrap_or(0);
        file.read_exact(&mut buffer[..read])?;
        headers.update(&buffer[..read]);
        at += segment;
    }
    let start = length.saturating_sub(TAIL);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = crc32fast::Hasher::new();
    io::copy(&mut file.take(TAIL), &mut HashWriter(&mut tail))?;
    Ok((headers.finalize(), tail.finalize()))
}

/// The segment size sled's settings file names, or sled's default.
pub(crate) fn segment_size(conf: &[u8]) -> u64 {
    String::from_utf8_lossy(conf)
        .lines()
        .find_map(|line| line.strip_prefix("segment_size: "))
        .and_then(|size| size.trim().parse().ok())
        .filter(|size| *size > 0)
        .unwrap_or(DEFAULT_SEGMENT)
}

/// The newest of sled's snapshots (`snap.<lsn>`, the highest lsn), if any.
fn newest_snapshot(dir: &Path) -> io::Result<Option<PathBuf>> {
    let mut newest: Option<(String, PathBuf)> = None;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("snap.")
            && !name.ends_with(".generating")
            && newest.as_ref().is_none_or(|(best, _)| name > *best)
        {
            newest = Some((name, entry.path()));
        }
    }
    Ok(newest.map(|(_, path)| path))
}

/// The blob files: how many, and a CRC-32 of their names and sizes in order.
fn blobs(dir: &Path) -> io::Result<String> {
    let mut listed = Vec::new();
    match fs::read_dir(dir.join("blobs")) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry?;
                listed.push((entry.file_name(), entry.metadata()?.len()));
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    listed.sort();
    let mut hasher = crc32fast::Hasher::new();
    for (name, size) in &listed {
        hasher.update(name.as_encoded_bytes());
        hasher.update(&size.to_be_bytes());
    }
    Ok(format!("{} {:08x}", listed.len(), hasher.finalize()))
}

/// Feeds what is written to a CRC-32.
struct HashWriter<'a>(&'a mut crc32fast::Hasher);

impl io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
