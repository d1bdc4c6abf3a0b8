//! A pending file bound to its log, stream and inquiry: `askuser ask --pending`
//! seals the file with a key kept beside the log ([`key_file`], made once,
//! 0600), and `askuser answer` opens it with the same key before anything is
//! recorded. A file whose `db`, `stream` or `inquiry` was edited (to send the
//! person's answers to another agent's inquiry that asks the same) no longer
//! opens, and the refusal names the field that changed.
//!
//! The seal is three HMAC-SHA-256 tags of 128 bits: of the log (the key
//! itself), of the stream, and of the stream with the inquiry. It stops edits
//! of the file, not a process of the same user that reads the key: such a
//! process may write the log itself.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit as _, Mac as _};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::PendingFile;
use crate::error::{AppError, Result};

/// The seal of a pending file: a tag of the log's key, of its stream, and of
/// its stream with its inquiry (32 hex digits each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seal {
    /// Tells the log (its key) the file was written for.
    pub log: String,
    /// Tells the stream.
    pub stream: String,
    /// Tells the stream with the inquiry.
    pub inquiry: String,
}

impl Seal {
    /// The seal of `stream` and `inquiry` under `key`.
    pub fn of(key: &str, stream: &str, inquiry: &str) -> Self {
        Self {
            log: tag(key, &["log"]),
            stream: tag(key, &["stream", stream]),
            inquiry: tag(key, &["inquiry", stream, inquiry]),
        }
    }
}

/// The first 128 bits of HMAC-SHA-256 under `key` of `parts`, each ended by a
/// NUL, in hex.
fn tag(key: &str, parts: &[&str]) -> String {
    let mut mac = <Hmac<Sha256>>::new_from_slice(key.as_bytes()).expect("HMAC takes any key");
    mac.update(b"askuser-pending/1 seal\0");
    for part in parts {
        mac.update(part.as_bytes());
        mac.update(b"\0");
    }
    let bytes = mac.finalize().into_bytes();
    bytes[..16].iter().fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

/// Where the key of the log at `db` is kept: in a sled log's directory
/// (`askuser.pending-key`); for a PostgreSQL log, in the person's own data
/// directory (`pending-key` in [`crate::secret::data_dir`], made 0700 if
/// missing).
///
/// # Errors
/// [`AppError::SecretFile`] when a PostgreSQL log's key has no place (neither
/// `XDG_DATA_HOME` nor `HOME` is set) or its directory cannot be made.
pub fn key_file(db: &Path) -> Result<PathBuf> {
    if !crate::is_postgres_url(db) {
        return Ok(db.join("askuser.pending-key"));
    }
    let fail = |reason: String| AppError::SecretFile {
        path: PathBuf::from("pending-key"),
        reason,
    };
    let data = crate::secret::data_dir()
        .ok_or_else(|| fail("has no place: set XDG_DATA_HOME or HOME".into()))?;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    (builder.create(&data))
        .map_err(|e| fail(format!("cannot be made in {} ({e})", data.display())))?;
    Ok(data.join("pending-key"))
}

/// The key of the log at `db`: read from [`key_file`], made there the first
/// time.
///
/// # Errors
/// As [`key_file`] and [`crate::secret::kept_in`].
pub fn key(db: &Path) -> Result<String> {
    crate::secret::kept_in(&key_file(db)?)
}

impl PendingFile {
    /// The file sealed with `key` (its log's, [`key`]) for its stream and
    /// inquiry.
    #[must_use]
    pub fn sealed(mut self, key: &str) -> Self {
        self.seal = Some(Seal::of(key, &self.stream, &self.inquiry));
        self
    }

    /// Checks that the file, read from `path`, is sealed with `key` (the key of
    /// the log it is answered in) for the stream and inquiry it names.
    ///
    /// # Errors
    /// [`AppError::PendingFile`] naming the field that changed (`/seal`,
    /// `/db`, `/stream` or `/inquiry`) and what to do.
    pub fn check_seal(&self, path: &Path, key: &str) -> Result<()> {
        let refused = |field: &str, message: &str| AppError::PendingFile {
            path: path.to_owned(),
            field: field.to_owned(),
            message: message.to_owned(),
        };
        let Some(seal) = &self.seal else {
            return Err(refused(
                "/seal",
                "is missing: askuser ask --pending seals every file it writes to its log, stream and inquiry; write the file again with `askuser ask --pending`",
            ));
        };
        let expected = Seal::of(key, &self.stream, &self.inquiry);
        let same = crate::secret::same;
        if !same(&seal.log, &expected.log) {
            return Err(refused(
                "/db",
                "is not the log the file was sealed by (it was changed, or that log's askuser.pending-key was replaced): answer the file in the log it was written for",
            ));
        }
        if !same(&seal.stream, &expected.stream) {
            return Err(refused(
                "/stream",
                "was changed after askuser ask --pending wrote the file: put back the stream it was written for, or answer the pending file written for this stream",
            ));
        }
        if !same(&seal.inquiry, &expected.inquiry) {
            return Err(refused(
                "/inquiry",
                "was changed after askuser ask --pending wrote the file: put back the inquiry it was written for, or answer the pending file written for this inquiry",
            ));
        }
        Ok(())
    }
}
