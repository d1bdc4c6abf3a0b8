//! The store's error type.

use std::fmt;

use crate::Seq;

/// Which kind of record a [`StoreError::Corrupt`] error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// An event of a stream.
    Event,
    /// A stream's metadata (head, parent, creation time).
    Stream,
    /// A snapshot of a stream's state.
    Snapshot,
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordKind::Event => "event",
            RecordKind::Stream => "stream record",
            RecordKind::Snapshot => "snapshot",
        })
    }
}

/// Everything that can go wrong in a [`Log`](crate::Log).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Optimistic concurrency: the stream's head is not what the appender expected.
    /// Nothing was written. Re-read the stream, decide again, and retry.
    #[error("stream \"{stream}\": expected head {expected}, but the head is {actual}")]
    Conflict {
        /// The stream.
        stream: String,
        /// The head the appender expected.
        expected: Seq,
        /// The stream's actual head.
        actual: Seq,
    },
    /// The stream does not exist.
    #[error("no stream named \"{0}\"")]
    NoSuchStream(String),
    /// A stream with that name already exists (a fork must name a new stream).
    #[error("a stream named \"{0}\" already exists")]
    StreamExists(String),
    /// A stream name that breaks the rule of [`StreamName`](crate::StreamName):
    /// name the stream as the reason says.
    #[error("invalid stream name {name:?}: it {reason}")]
    InvalidStreamName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: crate::StreamNameError,
    },
    /// A sequence number past the stream's head (a fork point, a snapshot point, or
    /// the end of a range).
    #[error("stream \"{stream}\" has no event {seq}: its head is {head}")]
    OutOfRange {
        /// The stream.
        stream: String,
        /// The sequence number asked for.
        seq: Seq,
        /// The stream's head.
        head: Seq,
    },
    /// The events asked for were dropped by a compaction; only the snapshot taken at
    /// `floor` and the events after it remain.
    #[error("stream \"{stream}\": events up to {floor} were dropped by compaction")]
    Compacted {
        /// The stream whose events were dropped (the one read, or an ancestor of it).
        stream: String,
        /// The last dropped sequence number.
        floor: Seq,
    },
    /// Compaction may not drop events that a fork still reads.
    #[error(
        "cannot drop the events of stream \"{stream}\" up to {upto}: the fork \"{fork}\" branches from it at {at}"
    )]
    ForkDependsOnEvents {
        /// The stream being compacted.
        stream: String,
        /// The last event that would be dropped.
        upto: Seq,
        /// The fork that needs them.
        fork: String,
        /// The fork's branch point.
        at: Seq,
    },
    /// A record failed its checksum, has an unknown format version, does not decode,
    /// or is missing where the stream's head says it must be. The record is named;
    /// the rest of the log stays readable.
    #[error("corrupt {kind} in stream \"{stream}\" at sequence {seq}: {detail}")]
    Corrupt {
        /// Which kind of record.
        kind: RecordKind,
        /// The stream.
        stream: String,
        /// The record's sequence number (0 for a stream record).
        seq: Seq,
        /// What is wrong with it.
        detail: String,
    },
    /// An event or state could not be encoded (it is not representable as
    /// `MessagePack`; this indicates a bug rather than bad input).
    #[error("could not encode a record: {0}")]
    Encode(String),
    /// The storage engine could not recover the database: it failed (panicked)
    /// while reading a damaged file. Nothing was changed by this store.
    #[error("the database could not be recovered (is the file damaged?): {0}")]
    Recovery(String),
    /// Another process holds the database (sled allows one process at a time); opening
    /// waited about a second for it to let go.
    #[error("the log is in use by another process; close it and try again")]
    Locked,
    /// The log's location cannot be used: a PostgreSQL URL that does not parse, a
    /// `postgres://` URL given to a build without PostgreSQL support, an `sslmode` libpq does not know or an `sslrootcert`
    /// that cannot be read, or a schema name outside `a-z`, `0-9` and `_`. The
    /// location is shown without its password.
    #[error("cannot open the log at {location}: {reason}")]
    BadLocation {
        /// Where the log was to be opened (a URL without its password, a path).
        location: String,
        /// What is wrong with it, and what to write instead.
        reason: String,
    },
    /// The PostgreSQL server could not be reached, or refused the connection (no
    /// such role or database, a wrong password). The URL is shown without its
    /// password.
    #[error(
        "cannot connect to the PostgreSQL server at {url}: {detail}. Check that the server is running and that the URL names the right host (or socket directory), port, user, password and database"
    )]
    Connect {
        /// The URL, without its password.
        url: String,
        /// What the client reported.
        detail: String,
    },
    /// The PostgreSQL server reported an error, or the connection to it failed,
    /// while using the log (the server's message, with its detail and hint), or the
    /// log's tables are of a newer version than this build knows.
    #[error("postgres: {0}")]
    Database(String),
    /// A database path that cannot be used as a log directory (see
    /// `askuser_sled::check_db_path`); nothing was created or changed.
    #[error("cannot use {path:?} as an askuser log: {problem}")]
    DbPath {
        /// The path as given.
        path: std::path::PathBuf,
        /// What is wrong with it and what to do.
        problem: String,
    },
    /// The database's files are damaged where sled cannot read past them: opening
    /// them read-only failed. The files were not changed.
    #[error(
        "the askuser log at {path:?} is damaged: {detail}. Nothing was changed; \
         `askuser log salvage` copies every event that can still be read into a new log"
    )]
    Damaged {
        /// The database directory.
        path: std::path::PathBuf,
        /// What sled found, in words.
        detail: String,
    },
    /// A write to a log opened read-only
    /// (`askuser_sled::SledLog::open_read_only`); nothing was written.
    #[error("the askuser log at {0:?} was opened read-only; nothing was written")]
    ReadOnly(std::path::PathBuf),
    /// The storage engine failed (an I/O error, or the engine reported a problem):
    /// the backend's own error, which says what in words.
    #[error("storage: {0}")]
    Storage(Box<dyn std::error::Error + Send + Sync>),
    /// An I/O error outside the storage engine (writing an export, say).
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// Another askuser process holds the log and serves it on a socket (see
    /// `askuser_sled::SharedSledLog`), and that socket could not be used,
    /// and the log could not be taken over either, within a few seconds.
    #[error(
        "the log is held by another askuser process, which does not answer on {}: {detail}",
        socket.display()
    )]
    OwnerUnreachable {
        /// The socket beside the database.
        socket: std::path::PathBuf,
        /// What went wrong, last, and what to do (said once).
        detail: String,
    },
    /// The askuser process that holds the log failed to carry out the operation
    /// (its storage, say); its own error's text.
    #[error("the askuser process that holds the log failed: {0}")]
    OwnerFailed(String),
    /// A message on the log's socket broke the protocol (too large, malformed, or an
    /// answer to another question); the connection was dropped.
    #[error("a malformed message on the log's socket: {0}")]
    BadMessage(String),
    /// A presence lease the log cannot keep (a holder id or origin that does not
    /// fit, too many processes waiting); what is wrong, in words.
    #[error("a presence lease cannot be kept: {0}")]
    BadLease(String),
}

/// `Ok` when a stream's head is the one the appender expected, else the
/// [`StoreError::Conflict`] that carries both.
///
/// # Errors
///
/// [`StoreError::Conflict`] when they differ.
pub fn expect_head(stream: &str, expected: u64, actual: u64) -> Result<()> {
    if actual == expected {
        Ok(())
    } else {
        Err(StoreError::Conflict {
            stream: stream.to_owned(),
            expected,
            actual,
        })
    }
}

/// The store's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
