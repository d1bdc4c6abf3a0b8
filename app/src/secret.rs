//! Secrets a surface checks a caller by: random hex from the system's source,
//! compared without an early exit, and kept in a file only its owner may read
//! (the token `askuser mcp --http` takes as a bearer credential).

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use crate::{AppError, Result};

/// The longest secret file read.
const MAX_SECRET_FILE: u64 = 1024;

/// A secret of 32 hex digits (128 bits) from the system's random source.
///
/// ```
/// let secret = askuser_app::secret::random().unwrap();
/// assert_eq!(secret.len(), 32);
/// assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
/// ```
///
/// # Errors
/// When `/dev/urandom` cannot be read.
pub fn random() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    }))
}

/// Whether two secrets are equal, comparing every byte (no early exit).
///
/// ```
/// use askuser_app::secret::same;
/// assert!(same("abc", "abc"));
/// assert!(!same("abc", "abd") && !same("abc", "ab"));
/// ```
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// askuser's own directory of the person's data: `$XDG_DATA_HOME/askuser`,
/// else `$HOME/.local/share/askuser`; `None` when neither is set.
pub fn data_dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let data = env("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| Path::new(&home).join(".local/share")))?;
    Some(data.join("askuser"))
}

/// The secret kept in `path`: read when the file exists, else made with
/// [`random`] and written to a new file (created exclusively, mode 0600). An
/// existing file must be a regular file (not a link), of this user, that no
/// one else may read or write, holding 32 hex digits.
///
/// # Errors
/// [`AppError::SecretFile`] naming the file and what to do.
pub fn kept_in(path: &Path) -> Result<String> {
    let fail = |reason: String| AppError::SecretFile {
        path: path.to_owned(),
        reason,
    };
    match open_private(path) {
        Ok(file) => read_secret(file).map_err(fail),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let secret = random().map_err(|e| fail(format!("no random source ({e})")))?;
            let written = publish(path, &secret);
            match written {
                Ok(()) => Ok(secret),
                // Another process made it first: its secret is the one.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => open_private(path)
                    .map_err(|e| fail(format!("cannot be read ({e})")))
                    .and_then(|file| read_secret(file).map_err(fail)),
                Err(e) => Err(fail(format!("cannot be written ({e})"))),
            }
        }
        Err(error) => Err(fail(format!("cannot be read ({error})"))),
    }
}

/// Writes `secret` to `path`, which must not exist, so that no other process
/// ever reads it half written: into a new private file beside it first
/// (created exclusively, mode 0600), then linked in under its name in one step.
/// `AlreadyExists` when another process made `path` first.
fn publish(path: &Path, secret: &str) -> std::io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let draft = path.with_file_name(format!(".{name}.{}.new", random()?));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let linked = options
        .open(&draft)
        .and_then(|mut file| file.write_all(format!("{secret}\n").as_bytes()))
        .and_then(|()| std::fs::hard_link(&draft, path));
    let _ = std::fs::remove_file(&draft);
    linked
}

/// Opens `path` for reading without following a link or blocking on a FIFO.
fn open_private(path: &Path) -> std::io::Result<File> {
    crate::files::open_without_blocking(path, crate::files::Links::Refuse)
}

fn read_secret(file: File) -> Result<String, String> {
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a regular file: remove it, and askuser makes a new one".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "may be read or written by others (mode {:04o}): remove it, and askuser makes a new one (0600)",
                meta.mode() & 0o7777
            ));
        }
    }
    let mut text = String::new();
    file.take(MAX_SECRET_FILE)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot be read ({e})"))?;
    let secret = text.trim();
    if secret.len() != 32 || !secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("does not hold 32 hex digits: remove it, and askuser makes a new one".into());
    }
    Ok(secret.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Processes started at once (eight agents) each make or read the secret:
    /// none reads it half written, and all hold the same one.
    #[test]
    fn makers_at_once_all_read_one_whole_secret() {
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("pending-key");
            let read: Vec<String> = std::thread::scope(|scope| {
                let makers: Vec<_> = (0..8).map(|_| scope.spawn(|| kept_in(&path))).collect();
                makers
                    .into_iter()
                    .map(|m| m.join().unwrap().unwrap())
                    .collect()
            });
            assert!(read.iter().all(|secret| *secret == read[0]), "{read:?}");
            let left: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(left, [std::ffi::OsString::from("pending-key")]);
        }
    }

    #[test]
    fn a_secret_is_made_once_private_and_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        let made = kept_in(&path).unwrap();
        assert_eq!(kept_in(&path).unwrap(), made);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let bits = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(bits, 0o600);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                kept_in(&path).unwrap_err().to_string(),
                format!(
                    "the secret file {}: may be read or written by others (mode 0644): remove it, and askuser makes a new one (0600)",
                    path.display()
                )
            );
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            assert!(kept_in(&link).is_err(), "a link is not followed");
        }
    }
}
