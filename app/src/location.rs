//! Opening a log by location: one function from a `--db` value to a log, and the
//! durable backends a surface may name (through this module, never by depending
//! on a backend crate itself).

use std::ffi::OsStr;
use std::sync::Arc;

use askuser_store::{Log, Result};

pub use askuser_postgres::PgLog;
pub use askuser_sled::{
    DbIntent, DbPathState, Discarded, SalvageReport, SledLog, StreamSalvage, check_db_path,
    open_to_others, salvage,
};
#[cfg(unix)]
pub use askuser_sled::{SharedSledLog, hand_over_when_stopped};

/// Whether `spec` (a `--db` value) names a PostgreSQL database rather than a sled
/// directory: a `postgres://` or `postgresql://` URL.
pub fn is_postgres_url(spec: impl AsRef<OsStr>) -> bool {
    spec.as_ref().to_str().is_some_and(|spec| {
        ["postgres://", "postgresql://"]
            .iter()
            .any(|scheme| spec.starts_with(scheme))
    })
}

/// Opens the log a host was pointed at: a `postgres://` (or `postgresql://`) URL
/// opens a [`PgLog`] with [`PgLog::connect`]; anything else is the path of a sled
/// database directory (which need not be UTF-8), opened with
/// [`SharedSledLog::open`] (created if missing), so that any number of processes
/// can use it at once (on Unix; elsewhere [`SledLog::open`], one process at a
/// time). Both append with
/// [`Durability::Flush`](askuser_store::Durability::Flush).
///
/// This is what a program's `--db` option (or its `ASKUSER_DB` variable) should
/// call, so that every host of a team can be pointed at one database (see
/// `askuser-postgres`, "One log for a team").
///
/// # Errors
///
/// For a URL, as [`PgLog::connect`]; for a path, as [`SharedSledLog::open`].
pub fn open_log(spec: impl AsRef<OsStr>) -> Result<Arc<dyn Log>> {
    let spec = spec.as_ref();
    if let Some(url) = spec.to_str().filter(|_| is_postgres_url(spec)) {
        return Ok(Arc::new(PgLog::connect(url)?));
    }
    #[cfg(unix)]
    return Ok(Arc::new(SharedSledLog::open(spec)?));
    #[cfg(not(unix))]
    return Ok(Arc::new(SledLog::open(spec)?));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_postgres_url("postgres://h/db"));
        assert!(is_postgres_url("postgresql://h/db"));
        assert!(!is_postgres_url("askuser.db"));
        assert!(!is_postgres_url("/var/lib/postgres://x"));
    }
}
