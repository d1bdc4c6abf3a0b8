//! Connections: parsing and showing a URL (never its password), connecting with a
//! clear error, a small pool of idle connections with their prepared statements,
//! and turning the client's errors into [`StoreError`]s.

use std::collections::{HashMap, HashSet};
use std::error::Error as _;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use postgres::config::{Host, SslMode};
use postgres::{Client, Config, NoTls, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{password, tls};
use askuser_store::{Result, StoreError};

/// Idle connections kept for reuse; more may be open while busy.
const MAX_IDLE: usize = 16;

/// A connection idle for longer than this is checked (an empty query) before it is
/// reused, so that a server restart or a dropped network connection while a host
/// waited costs a reconnection rather than a failed append.
const CHECK_AFTER: Duration = Duration::from_secs(1);

/// How long that check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// One connection and the statements prepared on it.
pub(super) struct Conn {
    pub client: Client,
    statements: HashMap<&'static str, Statement>,
    idle_since: Instant,
    /// The server process serving this connection (`pg_backend_pid()`), kept
    /// in its pool's [`Backends`] while the connection lives.
    backend: i32,
    backends: Backends,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.backends.forget(self.backend);
    }
}

/// The server processes serving a pool's connections: a notification sent by
/// one of them was sent by this process (see
/// [`Log::wait_for_others`](askuser_store::Log::wait_for_others)).
#[derive(Debug, Clone, Default)]
pub(super) struct Backends(Arc<Mutex<HashSet<i32>>>);

impl Backends {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<i32>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `backend` serves one of the pool's connections.
    pub(super) fn contains(&self, backend: i32) -> bool {
        self.lock().contains(&backend)
    }

    fn forget(&self, backend: i32) {
        self.lock().remove(&backend);
    }
}

impl Conn {
    /// The statement for `sql`, prepared on this connection the first time.
    pub(super) fn prepared(&mut self, sql: &'static str) -> Result<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).map_err(database)?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Opens connections to one server and keeps the idle ones.
pub(super) struct Pool {
    config: Config,
    /// TLS, unless `sslmode=disable`.
    tls: Option<MakeRustlsConnect>,
    mode: tls::Mode,
    shown: String,
    /// What every connection runs first: its `search_path` (the log's schema,
    /// quoted) and `askuser.log`, the name of this log (see [`log_name`]).
    search_path: String,
    /// The log's name (see [`log_name`]).
    pub(super) name: String,
    idle: Mutex<Vec<Conn>>,
    /// The server processes of the connections open now.
    pub(super) backends: Backends,
}

impl Pool {
    /// Parses `url` (a `postgres://` URL or a `key=value` connection string); its
    /// connections will work in `schema` (a checked name).
    pub(super) fn new(url: &str, schema: &str) -> Result<Self> {
        let shown = crate::redact::redact(url);
        let bad = |reason: String| StoreError::BadLocation {
            location: shown.clone(),
            reason,
        };
        let (rest, mut settings) = tls::split(url).map_err(bad)?;
        let mut config: Config = rest.parse().map_err(|error| bad(format!(
            "this is not a PostgreSQL connection URL ({}); write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=verify-full, or postgres://USER@%2Fsocket%2Fdirectory/DATABASE for a Unix socket",
            describe(&error)
        )))?;
        password::fill(&mut config);
        // A Unix socket is local and never encrypted (as libpq: sslmode is for TCP).
        let local = config
            .get_hosts()
            .iter()
            .all(|host| matches!(host, Host::Unix(_)));
        if local && !config.get_hosts().is_empty() {
            settings.mode = tls::Mode::Disable;
        }
        config.ssl_mode(match settings.mode {
            tls::Mode::Disable => SslMode::Disable,
            tls::Mode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        });
        let name = log_name();
        let tls = tls::client_config(&settings)
            .map_err(bad)?
            .map(MakeRustlsConnect::new);
        Ok(Self {
            config,
            tls,
            mode: settings.mode,
            shown,
            search_path: format!("SET search_path TO \"{schema}\"; SET askuser.log TO '{name}'"),
            name,
            idle: Mutex::new(Vec::new()),
            backends: Backends::default(),
        })
    }

    /// The URL as shown in messages: without its password.
    pub(super) fn shown(&self) -> &str {
        &self.shown
    }

    /// A new connection, working in the log's schema.
    pub(super) fn connect(&self) -> Result<Conn> {
        let connected = match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        };
        let mut client = connected.map_err(|error| StoreError::Connect {
            url: self.shown.clone(),
            detail: self.explain(&describe(&error)),
        })?;
        client.batch_execute(&self.search_path).map_err(database)?;
        let backend: i32 = (client.query_one("SELECT pg_backend_pid()", &[]))
            .and_then(|row| row.try_get(0))
            .map_err(database)?;
        self.backends.lock().insert(backend);
        Ok(Conn {
            client,
            statements: HashMap::new(),
            idle_since: Instant::now(),
            backend,
            backends: self.backends.clone(),
        })
    }

    /// A connection error in words: a refused certificate names the host and
    /// what to check.
    fn explain(&self, detail: &str) -> String {
        if !detail.contains("invalid peer certificate") {
            return detail.to_owned();
        }
        let host = match self.config.get_hosts().first() {
            Some(Host::Tcp(name)) => name.clone(),
            _ => "the server".to_owned(),
        };
        let check = if self.mode == tls::Mode::VerifyFull {
            "signed by a root in sslrootcert (the system's when it is not given) and name the host as the URL writes it"
        } else {
            "signed by a root in sslrootcert (the system's when it is not given)"
        };
        format!(
            "the certificate of {host} was refused ({detail}): it must be {check}; give sslrootcert=FILE with the CA that signed it, or connect by the name the certificate holds"
        )
    }

    /// An idle connection, or a new one.
    pub(super) fn get(&self) -> Result<Pooled<'_>> {
        loop {
            let idle = self
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            match idle {
                Some(mut conn) => {
                    let stale = conn.client.is_closed()
                        || (conn.idle_since.elapsed() > CHECK_AFTER
                            && conn.client.is_valid(CHECK_TIMEOUT).is_err());
                    if !stale {
                        return Ok(self.pooled(conn));
                    }
                }
                None => return Ok(self.pooled(self.connect()?)),
            }
        }
    }

    /// Keeps `conn` for reuse.
    pub(super) fn give_back(&self, conn: Conn) {
        drop(self.pooled(conn));
    }

    /// `conn`, lent as if borrowed from the pool (given back when dropped).
    pub(super) fn pooled(&self, conn: Conn) -> Pooled<'_> {
        Pooled {
            pool: self,
            conn: Some(conn),
        }
    }
}

/// A name for one open log that no other has, on any machine: this process,
/// the time it was opened and a count. Each of the log's connections names it
/// in the setting `askuser.log`, so that an append through them does not wake
/// the log's own waits for the others' (see the schema's version 4).
fn log_name() -> String {
    static OPENED: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let count = OPENED.fetch_add(1, Ordering::Relaxed);
    format!("{}.{nanos}.{count}", std::process::id())
}

/// A connection borrowed from the pool; back to it when dropped (unless closed).
pub(super) struct Pooled<'a> {
    pool: &'a Pool,
    conn: Option<Conn>,
}

impl Pooled<'_> {
    /// The connection, no longer the pool's: it is not given back when done.
    pub(super) fn keep(mut self) -> Conn {
        self.conn.take().expect("present until dropped")
    }
}

impl std::ops::Deref for Pooled<'_> {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn.as_ref().expect("present until dropped")
    }
}

impl std::ops::DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn.as_mut().expect("present until dropped")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(mut conn) = self.conn.take()
            && !conn.client.is_closed()
        {
            conn.idle_since = Instant::now();
            let mut idle = self
                .pool
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < MAX_IDLE {
                idle.push(conn);
            }
        }
    }
}

/// A client error as [`StoreError::Database`] (by value, for `map_err`).
#[allow(clippy::needless_pass_by_value)]
pub(super) fn database(error: postgres::Error) -> StoreError {
    StoreError::Database(describe(&error))
}

/// The client's error with its causes (the client's own `Display` says only
/// "db error" for an error the server reported).
pub(super) fn describe(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let mut text = format!("{}: {}", db.severity(), db.message());
        if let Some(detail) = db.detail() {
            let _ = write!(text, " ({detail})");
        }
        if let Some(hint) = db.hint() {
            let _ = write!(text, " (hint: {hint})");
        }
        return text;
    }
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
