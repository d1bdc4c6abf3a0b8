//! Opening a log by location: one function from a `--db` value to a log, and the
//! durable backends a surface may name (through this module, never by depending
//! on a backend crate itself).
//!
//! Each backend is a feature of this crate, both on by default: `sled` (the
//! embedded log, [`SledLog`] and, on Unix, [`SharedSledLog`]) and `postgres`
//! ([`PgLog`], with its TLS). An embedder on the memory log turns both off
//! (`default-features = false`) and builds neither sled nor PostgreSQL nor TLS;
//! [`open_log`] then refuses a location whose backend is not built, saying which
//! feature to turn on.

use std::ffi::OsStr;
use std::sync::Arc;

#[cfg(not(all(feature = "sled", feature = "postgres")))]
use askuser_store::StoreError;
use askuser_store::{Log, Result};

#[cfg(feature = "postgres")]
pub use askuser_postgres::PgLog;
#[cfg(feature = "sled")]
pub use askuser_sled::{
    DbIntent, DbPathState, Discarded, SalvageReport, SledLog, StreamSalvage, check_db_path,
    open_to_others, salvage,
};
#[cfg(all(unix, feature = "sled"))]
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
/// For a URL, as `PgLog::connect`; for a path, as `SharedSledLog::open`. In a
/// build without the location's backend (feature `postgres` or `sled` off),
/// [`StoreError::BadLocation`](askuser_store::StoreError::BadLocation) naming the
/// feature.
pub fn open_log(spec: impl AsRef<OsStr>) -> Result<Arc<dyn Log>> {
    let spec = spec.as_ref();
    if let Some(url) = spec.to_str().filter(|_| is_postgres_url(spec)) {
        return open_postgres(url);
    }
    open_sled(spec)
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Arc<dyn Log>> {
    Ok(Arc::new(PgLog::connect(url)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str) -> Result<Arc<dyn Log>> {
    Err(StoreError::BadLocation {
        location: without_credentials(url),
        reason:
            "this build of askuser-app has no PostgreSQL backend: turn on its `postgres` feature"
                .into(),
    })
}

#[cfg(all(unix, feature = "sled"))]
fn open_sled(path: &OsStr) -> Result<Arc<dyn Log>> {
    Ok(Arc::new(SharedSledLog::open(path)?))
}

#[cfg(all(not(unix), feature = "sled"))]
fn open_sled(path: &OsStr) -> Result<Arc<dyn Log>> {
    Ok(Arc::new(SledLog::open(path)?))
}

#[cfg(not(feature = "sled"))]
fn open_sled(path: &OsStr) -> Result<Arc<dyn Log>> {
    Err(StoreError::BadLocation {
        location: path.to_string_lossy().into_owned(),
        reason: "this build of askuser-app has no sled backend: turn on its `sled` feature, or give a `postgres://` URL".into(),
    })
}

/// `url` without what stands between its scheme and an `@` (a user and password).
#[cfg(not(feature = "postgres"))]
fn without_credentials(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn a_url_without_the_postgres_feature_is_refused_without_its_password() {
        let Err(error) = open_log("postgres://me:secret@db.example/askuser") else {
            panic!("opened without the backend")
        };
        assert_eq!(
            error.to_string(),
            "cannot open the log at postgres://db.example/askuser: this build of askuser-app has no PostgreSQL backend: turn on its `postgres` feature"
        );
    }

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_postgres_url("postgres://h/db"));
        assert!(is_postgres_url("postgresql://h/db"));
        assert!(!is_postgres_url("askuser.db"));
        assert!(!is_postgres_url("/var/lib/postgres://x"));
    }
}
