//! Opening a log to read it without changing a byte: a private copy of the
//! database, opened by sled, with what sled's recovery threw away reported.

use std::path::Path;

use super::{DEFAULT_CACHE_CAPACITY, ReadOnly, SledLog};
use crate::sled_files::{Discarded, PrivateCopy, discarded};
use askuser_store::{Result, StoreError};

impl SledLog {
    /// Opens the database in the directory `path` for reading, without changing a
    /// byte of it: sled's recovery writes to the files it opens (see "What sled 0.34
    /// does when it opens a database" above), so this copies the
    /// directory into a private temporary directory (created exclusively, deleted
    /// when the log is dropped) while holding a shared lock on the data file, and
    /// opens the copy. A path with no log is refused, never created.
    ///
    /// What sled's recovery of the copy threw away (everything after a damaged or
    /// torn record in the part of its log written since its last snapshot) is
    /// reported by [`SledLog::discarded`]. Writing to a read-only log fails with
    /// [`StoreError::ReadOnly`].
    ///
    /// # Errors
    ///
    /// [`StoreError::DbPath`] when `path` holds no log (see
    /// [`check_db_path`](crate::check_db_path)); [`StoreError::Locked`] when a
    /// process has the database open for writing; [`StoreError::Damaged`] when sled
    /// cannot open the copy at all; an I/O error while copying.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self> {
        let origin = path.as_ref().to_path_buf();
        match Self::open_copy(&origin, false) {
            // sled's recovery may fail on what its snapshot says about a damaged
            // page; without the snapshot it rebuilds the page table from its log.
            Err(StoreError::Damaged { .. }) => Self::open_copy(&origin, true),
            other => other,
        }
    }

    /// Whether the log in the directory `path` was closed cleanly by the last
    /// process that wrote it, and has not changed since: it carries the seal that
    /// process wrote once it had let go (see below), and its files match it. Such
    /// a log can be opened in place (with [`SledLog::open`], or through the
    /// shared log) without a copy: sled's recovery finds nothing to replay,
    /// throw away or zero in it, so opening it loses nothing and changes no
    /// byte, in a time that does not grow with its size; and reading it with
    /// sled's background thread off (as
    /// [`SharedSledLog::open_for_reading`](crate::SharedSledLog::open_for_reading)
    /// does) changes none either, since its writer settled what it wrote. False for a log open for writing now, one
    /// whose writer was killed or that was damaged where recovery looks (its
    /// segment headers, its last 4 MiB, its snapshot, settings or blob files),
    /// and one written by an askuser before seals: read those with
    /// [`SledLog::open_read_only`].
    ///
    /// A log opened for writing at a path removes its seal before it writes, and
    /// when it is dropped first visits every key it wrote (sled leaves pages to
    /// be split, merged or rewritten by the next traversal, even a read's), then
    /// opens its database once more (sled writes a snapshot covering the whole
    /// log only when it opens one) and writes the seal
    /// (`askuser.seal`: the data file's length, CRC-32s of its segment headers and
    /// of its last 4 MiB, of the newest snapshot and of the settings, and the blob
    /// files' names and sizes), while holding a shared lock on the data file.
    pub fn closed_cleanly(path: impl AsRef<Path>) -> bool {
        super::is_sealed(path.as_ref())
    }

    /// Opens a private copy of `origin`, without sled's recovery snapshots if
    /// `without_snapshot`.
    fn open_copy(origin: &Path, without_snapshot: bool) -> Result<Self> {
        let mut copy = PrivateCopy::of(origin)?;
        if without_snapshot {
            copy.remove_snapshots()?;
        }
        let opened = Self::from_config(
            &sled::Config::new()
                .path(copy.path())
                .cache_capacity(DEFAULT_CACHE_CAPACITY),
        );
        let mut log = opened.map_err(|error| damaged(origin, error))?;
        let mut discarded = discarded(&origin.join("db"), &copy.path().join("db"))?;
        if let Some(discarded) = &mut discarded {
            discarded.missing =
                crate::sled_tail::missing(&log, &origin.join("db"), &discarded.cleared);
            // sled writes a snapshot only of what is on disk, and a kill
            // loses nothing the kernel holds: a snapshot that recovery had to
            // do without (it names data the file no longer has) is damage.
            discarded.cut_by_crash = !without_snapshot
                && crate::sled_tail::cut_by_crash(
                    origin,
                    &discarded.cleared,
                    discarded.missing.is_empty(),
                );
        }
        copy.release();
        log.read_only = Some(ReadOnly {
            origin: origin.to_path_buf(),
            discarded,
            _copy: copy,
        });
        Ok(log)
    }

    /// For a log opened with [`SledLog::open_read_only`]: what sled's recovery
    /// discarded from the data file (`None`: nothing, the whole log reads).
    pub fn discarded(&self) -> Option<&Discarded> {
        self.read_only.as_ref()?.discarded.as_ref()
    }
}

/// An error opening a read-only copy, in words naming the original.
fn damaged(origin: &Path, error: StoreError) -> StoreError {
    let detail = match error {
        StoreError::Storage(error) => error.to_string(),
        StoreError::Recovery(panic) => format!("sled's recovery failed ({panic})"),
        other => return other,
    };
    StoreError::Damaged {
        path: origin.to_path_buf(),
        detail,
    }
}
