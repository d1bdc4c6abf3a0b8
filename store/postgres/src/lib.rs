//! # askuser-postgres: the shared event log, in PostgreSQL
//!
//! [`PgLog`] is the [`Log`](askuser_store::Log) in a PostgreSQL database that
//! every host of a team shares: any host records requests in it, any surface (a
//! terminal in another window, another machine) records answers in it, and
//! whoever waits is woken by `LISTEN`/`NOTIFY`. Writing goes through the store's
//! [`Session`](askuser_store::Session), as on any log.
//!
//! ```no_run
//! use std::sync::Arc;
//! use askuser_postgres::PgLog;
//! use askuser_store::{Log, Session};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let log: Arc<dyn Log> = Arc::new(PgLog::connect(
//!     "postgres://askuser:change-me@db.internal:5432/askuser?sslmode=verify-full",
//! )?);
//! let session = Session::open(log, "chat-42")?;
//! println!("chat-42 is at event {}", session.head());
//! # Ok(())
//! # }
//! ```
//!
//! ## One log for a team
//!
//! The sled log lives in one directory on one machine. When a team's agents run on
//! many machines, point every host at one PostgreSQL database instead: any host
//! records requests in it, any surface (a terminal in another window, another
//! machine) records answers in it, and whoever waits is woken by `LISTEN`/`NOTIFY`.
//!
//! 1. The `askuser` program speaks PostgreSQL as it is; a program that embeds
//!    askuser depends on this crate (or opens logs by location with
//!    `askuser_app::open_log`).
//! 2. Create a role and a database for askuser once (an administrator, with `psql`
//!    as a superuser; skip a statement whose role or database already exists):
//!    ```sql
//!    CREATE ROLE askuser LOGIN PASSWORD 'change-me';
//!    CREATE DATABASE askuser OWNER askuser;
//!    ```
//!    askuser creates its tables itself on first use, in the schema `askuser`, and
//!    migrates them when a newer askuser opens the database (a `schema_version`
//!    table records their version; an older askuser refuses a newer schema rather
//!    than damage it).
//! 3. Give every host the same URL, with `--db` or in the environment:
//!    ```sh
//!    export ASKUSER_DB='postgres://askuser:change-me@db.internal:5432/askuser?sslmode=verify-full'
//!    askuser serve                       # or: askuser serve --db "$ASKUSER_DB"
//!    ```
//!    Across a network, use `sslmode=verify-full`: TLS, with the server's
//!    certificate checked against the system's roots (or the PEM file of
//!    `sslrootcert=/path/to/ca.crt`) and the host name. The other modes are read
//!    as libpq reads them: `disable`, `prefer` (the default: TLS when the server
//!    offers it, its certificate not checked), `require` (TLS, not checked unless
//!    `sslrootcert` is given), `verify-ca` (checked, but not the name). A refused
//!    certificate is an error naming the host. A server on a Unix socket is
//!    written with the socket's directory, percent-encoded, as the host:
//!    `postgres://askuser@%2Fvar%2Frun%2Fpostgresql/askuser` (never encrypted: it
//!    is local).
//!
//! A program calls `askuser_app::open_log` with that value and gets an
//! `Arc<dyn Log>`: a `postgres://` URL opens the shared database ([`PgLog::connect`]),
//! anything else a sled directory.
//! The first answer to an inquiry wins through the expected-head append, whichever
//! host records it; the others are told the inquiry is already answered. A bad URL
//! or an unreachable server is an error that shows the URL without its password
//! ([`StoreError::BadLocation`](askuser_store::StoreError::BadLocation),
//! [`StoreError::Connect`](askuser_store::StoreError::Connect)).
//!
//! For the tests and benchmarks, `scripts/postgres.sh` starts a private server (a
//! data directory and a Unix socket under `target/test-postgres`, installing
//! PostgreSQL from Debian's packages if needed) and prints its URL:
//! `export ASKUSER_TEST_PG="$(scripts/postgres.sh | tail -n 1)"`.
//!
//! ## The client
//!
//! The client is the blocking [`postgres`](https://docs.rs/postgres/0.19) crate:
//! the [`Log`](askuser_store::Log) API is synchronous, so an async client (`tokio-postgres`
//! alone, or `sqlx`) would need a runtime inside the store and a `block_on` around
//! every call, and `sqlx`'s compile-time checks bring a much larger build for six
//! statements. `postgres` wraps `tokio-postgres` on a small private runtime, speaks
//! the extended protocol (prepared statements, binary `bytea` and arrays), and gives
//! `LISTEN`/`NOTIFY` notifications with a timeout. TLS is rustls (`ring`, through
//! `tokio-postgres-rustls`), configured from the URL's `sslmode` and
//! `sslrootcert` as libpq reads them (see `tls.rs`); a Unix socket is never
//! encrypted.

#![warn(unreachable_pub)]

mod leases;
mod password;
mod pool;
mod redact;
mod scan;
mod schema;
mod sql;
mod storage;
#[cfg(test)]
mod tests;
mod tls;
mod wait;

use std::sync::Arc;

use askuser_store::Result;
use askuser_store::{Clock, Durability, Seq, SystemClock};
use pool::{Conn, Pool};

/// The schema [`PgLog::connect`] keeps the log's tables in.
pub const DEFAULT_SCHEMA: &str = "askuser";

/// A durable [`Log`](askuser_store::Log) in a PostgreSQL database , for
/// teams whose agents run on many machines: every host opens the same database, and
/// any of them may record an answer to an inquiry another asked.
///
/// The tables (in the schema `askuser`, or one chosen with [`PgLog::connect_in`]):
/// `streams` (name, head, parent and fork point, creation time, compaction floor),
/// `events` and `snapshots`; `presence` (the leases of who waits on a stream)
/// and `watchers` (which connection waits on which stream now). Events are stored in blocks, as the sled log stores
/// them (format 3): the events of one append together, up to 256 events or 16 KiB
/// per block, a row `(stream, seq, last_seq, record)` per block, keyed by its first
/// event `(stream, seq)`, with `last_seq` its last; an append of 1,000 events is a
/// handful of rows, and a replay reads a row per block. The `record` (`bytea`) holds
/// the exact bytes the sled log stores under the block's key (the store's envelope
/// with its format version and a CRC-32 covering that key, so a row is decoded with
/// its own first sequence number), so the two logs share one record format. Rows
/// written before blocks (schema version 1) hold one event each (`last_seq = seq`)
/// and are still read. A snapshot is a row `(stream, seq, record)`. A damaged row is
/// reported as [`StoreError::Corrupt`](askuser_store::StoreError::Corrupt) for each event it
/// held, naming its range; a missing one as a gap. Reading `from..=to` is one range
/// of the primary key, from the last row starting at or before `from`: a block may
/// straddle either end (or a fork point), and only the events in the range are
/// decoded. Compacting up to a floor inside a block writes the block's events after
/// the floor again as new rows. askuser creates and migrates the tables itself; a
/// `schema_version` table records their version (see [`PgLog::connect`]).
///
/// **Appends** are one statement, so one transaction: a function locks the stream's
/// row (`SELECT … FOR UPDATE`), compares its head with the expected one, inserts the
/// append's blocks under the primary key `(stream, seq)`, moves the head and, when
/// somebody else waits on the stream, sends a notification. Writers on any number of connections and machines are serialized
/// per stream by the row lock; the loser of a race gets
/// [`StoreError::Conflict`](askuser_store::StoreError::Conflict) with the head it lost to,
/// and nothing of its append is written.
///
/// **Durability**: [`Durability::Flush`] (the default) commits synchronously: the
/// append returns once the server has flushed its write-ahead log (and, with
/// synchronous replication, per the server's settings). [`Durability::Buffered`]
/// commits with `synchronous_commit = off`: the append is visible to every reader
/// at once, and the server writes it out within a fraction of a second; a server
/// crash (not a client crash) may lose the last buffered appends, never half of one.
/// [`Log::flush`](askuser_store::Log::flush) waits until everything committed is flushed.
///
/// **Waiting**: [`Log::wait_past`](askuser_store::Log::wait_past) blocks until a stream's
/// head passes a sequence number, woken by `LISTEN`/`NOTIFY` rather than polling:
/// a waiter `LISTEN`s on the log's channel (`askuser_` ++ the schema name) on a
/// connection of its own and records in `watchers` that it waits on its stream;
/// an append to a stream somebody waits on sends a `NOTIFY` with the stream's name
/// when it commits, and the waiter reads the head again only when its stream is
/// named. An append on any machine wakes it within a round trip of the commit.
/// Appends nobody waits for send nothing: PostgreSQL commits the transactions
/// that notify one at a time (a lock of the whole cluster, held through the
/// commit's flush), so 32 agents whose every append notified managed about 0.6×
/// the inquiries per second of one, and reach 1.5–1.8× without (benches/README.md).
/// A wait for any change ([`Log::wait_changed`](askuser_store::Log::wait_changed),
/// the web inbox's) is woken by every append. A log keeps the connection its last
/// wait listened on, still recorded, until it waits on something else or is
/// dropped: a host that waits in slices on one stream (`askuser serve` every
/// 250 ms) records itself once, instead of taking the stream's lock for every
/// slice (which held the stream's appends back: lock waits of 20-90 ms with 32
/// agents), and meanwhile an append to that stream by another log notifies as
/// if the wait were on. A wait for others' appends
/// ([`Log::wait_for_others`](askuser_store::Log::wait_for_others)) on that kept
/// connection starts and ends on the head the last one read, while no
/// notification since names the stream and that read is under 5 s old: a
/// watcher's idle slices send the database nothing (they read the head three
/// times a slice before: with 32 agents, a third of the database's work went
/// to their reads). Every host of a log runs the same
/// askuser: a process started before the tables moved to version 4 waits without
/// recording itself, and is woken only by its timeout. Typical
/// use, with a [`Session`](askuser_store::Session) on the same log:
///
/// ```no_run
/// # use std::{sync::Arc, time::Duration};
/// # use askuser_postgres::PgLog;
/// # use askuser_store::{Log, Session};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let log = Arc::new(PgLog::connect("postgres://askuser@db.example/askuser")?);
/// let mut session = Session::open(log.clone(), "chat-42")?;
/// // ... the session recorded a request; wait for someone to answer it:
/// while log.wait_past("chat-42", session.head(), Duration::from_secs(30))? > session.head() {
///     for caught in session.catch_up()? {
///         // caught.commands holds the `Respond` once the inquiry is answered.
///         # let _ = caught;
///     }
///     # break;
/// }
/// # Ok(())
/// # }
/// ```
///
/// The log is `Send + Sync`; share one per process. It keeps a few idle connections
/// for reuse and opens more while many threads use it at once.
pub struct PgLog {
    pool: Arc<Pool>,
    schema: String,
    clock: Arc<dyn Clock>,
    durability: Durability,
    /// The presence leases this process took, bounded (see [`leases`]).
    held: Arc<leases::Held>,
    /// The connection the last wait left listening (see [`wait::Kept`]).
    kept: wait::Kept,
}

impl std::fmt::Debug for PgLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLog")
            .field("url", &self.pool.shown())
            .field("schema", &self.schema)
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

impl PgLog {
    /// Connects to the database at `url` and opens the log in the schema
    /// [`DEFAULT_SCHEMA`], creating or migrating its tables if needed.
    ///
    /// `url` is a `postgres://` (or `postgresql://`) URL such as
    /// `postgres://askuser:PASSWORD@db.example:5432/askuser`, or for a server on a
    /// Unix socket `postgres://askuser@%2Fvar%2Frun%2Fpostgresql/askuser` (the socket's
    /// directory, percent-encoded, as the host); libpq's `key=value` form
    /// (`host=/var/run/postgresql user=askuser dbname=askuser`) works too. The role
    /// needs the right to create a schema in the database the first time (or an
    /// administrator opens the log once); after that, to read and write its tables.
    ///
    /// A URL without a password takes it where `psql` does: from `PGPASSWORD`,
    /// else from the password file (`PGPASSFILE`, else `~/.pgpass`, lines of
    /// `host:port:database:user:password`), read only when no one but its owner
    /// may read it. So a password need not be written where the URL is (a
    /// host's configuration file).
    ///
    /// TLS is read from the URL as libpq reads it: `sslmode` (`disable`, `prefer`
    /// (the default), `require`, `verify-ca`, `verify-full`: recommended across a
    /// network) and `sslrootcert` (a PEM file of the CA to trust, or `system`), as
    /// in `postgres://askuser@db.example/askuser?sslmode=verify-full`.
    ///
    /// # Errors
    ///
    /// [`StoreError::BadLocation`](askuser_store::StoreError::BadLocation) when `url` does not
    /// parse, its `sslmode` is none of those, or its `sslrootcert` cannot be read; [`StoreError::Connect`](askuser_store::StoreError::Connect) when the server
    /// cannot be reached or refuses the login (the message shows the URL without its
    /// password); [`StoreError::Database`](askuser_store::StoreError::Database) when the
    /// tables cannot be created, or are of a newer version than this build knows.
    pub fn connect(url: &str) -> Result<Self> {
        Self::connect_in(url, DEFAULT_SCHEMA)
    }

    /// [`PgLog::connect`], with the tables in `schema` (1 to 40 of `a-z`, `0-9`
    /// and `_`, not starting with a digit): several independent logs in one
    /// database.
    ///
    /// # Errors
    ///
    /// As [`PgLog::connect`], and
    /// [`StoreError::BadLocation`](askuser_store::StoreError::BadLocation) for a schema name
    /// outside those characters.
    pub fn connect_in(url: &str, schema: &str) -> Result<Self> {
        off_runtime(|| Self::connect_here(url, schema))
    }

    /// [`PgLog::connect_in`] on this thread.
    fn connect_here(url: &str, schema: &str) -> Result<Self> {
        schema::check_schema_name(schema)?;
        let pool = Arc::new(Pool::new(url, schema)?);
        let mut conn = pool.connect()?;
        schema::migrate(&mut conn.client, schema)?;
        let log = Self {
            pool,
            schema: schema.to_owned(),
            clock: Arc::new(SystemClock),
            durability: Durability::Flush,
            held: Arc::default(),
            kept: wait::Kept::default(),
        };
        log.pool.give_back(conn);
        Ok(log)
    }

    /// The same log, with `durability` for [`Backend::append`](askuser_store::backend::Backend::append).
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// The same log, stamping records with `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The schema holding the log's tables.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// Runs `work` on a pooled connection, off any async runtime's thread
    /// (see [`off_runtime`]).
    fn with_conn<T: Send>(&self, work: impl FnOnce(&mut Conn) -> Result<T> + Send) -> Result<T> {
        off_runtime(|| {
            let mut conn = self.pool.get()?;
            work(&mut conn)
        })
    }
}

/// Runs `work` here, or, when this thread drives an async runtime (an MCP
/// server's, say, which calls the log from its handlers), on a thread of its
/// own while this one waits: the blocking `postgres` client drives a runtime of
/// its own for every call, and tokio refuses to start a runtime inside another
/// ("Cannot start a runtime from within a runtime"), which panicked the first
/// tool call of `askuser mcp` on PostgreSQL.
///
/// # Errors
///
/// `work`'s, or [`StoreError::Io`] when no thread can be started.
fn off_runtime<T: Send>(work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("askuser-postgres-call".to_owned())
            .spawn_scoped(scope, work)?;
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// A sequence number as a `bigint` (no log reaches 2^63 events; larger numbers,
/// which can only be asked for, are clamped).
fn to_sql(seq: Seq) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

/// A stored `bigint` as a sequence number or timestamp (never negative: the log
/// writes only what [`to_sql`] gives).
fn from_sql(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}
