//! [`open_log`]: one function from a `--db` value to a log.

use std::ffi::OsStr;
use std::sync::Arc;

use crate::error::Result;
use crate::log::Log;
use crate::shared::SharedSledLog;

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
/// opens a `PgLog` with `PgLog::connect` (the build needs the store's feature
/// `postgres`); anything else is the path of a sled database directory (which need
/// not be UTF-8), opened with [`SharedSledLog::open`] (created if missing), so that
/// any number of processes can use it at once. Both append with
/// [`Durability::Flush`](crate::Durability::Flush).
///
/// This is what a program's `--db` option (or its `ASKUSER_DB` variable) should
/// call, so that every host of a team can be pointed at one database (see the
/// crate docs, "One log for a team").
///
/// # Errors
///
/// For a URL, as `PgLog::connect`, or
/// [`StoreError::BadLocation`](crate::StoreError::BadLocation) when the build has
/// no PostgreSQL support; for a path, as [`SharedSledLog::open`].
pub fn open_log(spec: impl AsRef<OsStr>) -> Result<Arc<dyn Log>> {
    let spec = spec.as_ref();
    if let Some(url) = spec.to_str().filter(|_| is_postgres_url(spec)) {
        return open_postgres(url);
    }
    Ok(Arc::new(SharedSledLog::open(spec)?))
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Arc<dyn Log>> {
    Ok(Arc::new(crate::postgres::PgLog::connect(url)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str) -> Result<Arc<dyn Log>> {
    Err(crate::error::StoreError::BadLocation {
        location: crate::redact::redact(url),
        reason: "this build of askuser has no PostgreSQL support: build it with the feature `postgres` (cargo build --features askuser-store/postgres), or give the path of a sled database".to_owned(),
    })
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

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn a_url_without_postgres_support_is_a_clear_error() {
        let error = open_log("postgres://alice:secret@db/askuser")
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot open the log at postgres://alice:***@db/askuser: this build of askuser has no PostgreSQL support: build it with the feature `postgres` (cargo build --features askuser-store/postgres), or give the path of a sled database"
        );
    }
}
