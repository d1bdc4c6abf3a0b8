//! # askuser-sled: the embedded event log, on sled
//!
//! The durable [`Log`](askuser_store::Log) of one machine, on
//! [sled](https://docs.rs/sled/0.34): [`SledLog`] for one process, and
//! [`SharedSledLog`], the same database used by many processes at once through an
//! owner's Unix socket. What a damaged database keeps, how to read it without
//! changing it, and how to copy what is left of it into a new log ([`salvage()`])
//! is told in [`SledLog`]'s docs. Writing goes through the store's
//! [`Session`](askuser_store::Session), as on any log.
//!
//! ```
//! use std::sync::Arc;
//! use askuser_core::{Command, Input};
//! use askuser_sled::SledLog;
//! use askuser_store::{Durability, Log, Session};
//! use askuser_testkit::build::{db_form, request};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("askuser.db");
//! // Open (or create) a durable log; appends return after sled's flush.
//! let log: Arc<dyn Log> = Arc::new(SledLog::open(&path)?.with_durability(Durability::Flush));
//! let mut session = Session::open(Arc::clone(&log), "session")?;
//! let asked = session.handle(&Input::Ask(request("call-1", db_form())))?;
//! assert!(matches!(asked.commands[0], Command::Prompt(_)));
//!
//! // The host restarts: reopening replays the stream, and it carries on.
//! drop((session, log));
//! let log: Arc<dyn Log> = Arc::new(SledLog::open(&path)?);
//! let session = Session::open(log, "session")?;
//! assert_eq!(session.head(), 1);
//! # Ok(())
//! # }
//! ```
//!
//! ## Many processes on one log: [`SharedSledLog`]
//!
//! Unix only: the owner serves the log on a Unix socket, and finds and ends a
//! stopped owner through the process table (`rustix`); on other systems this crate
//! offers [`SledLog`] alone.
//!
//! sled lets one process open a database at a time. [`SharedSledLog::open`] is the
//! log the `askuser` program opens: the first process to open a path becomes its
//! *owner* (it holds sled) and serves every [`Log`](askuser_store::Log) operation on a Unix socket in
//! the database directory, `askuser.sock` (mode 0600, bound in a private directory
//! and renamed into place; a socket left by a killed owner is replaced, by the
//! holder of sled's lock only). The others find the database locked, connect, and
//! use the same operations over length-framed `MessagePack` requests (frames capped
//! at 64 MiB, every frame decoded as hostile input). So a terminal waiting for a
//! person, a `serve`, `askuser answer` and `askuser log list` all use one log at
//! once, and a [`Session`](askuser_store::Session) works unchanged on any of them: two processes answering
//! one question race through the expected-head append, the first wins, and the
//! other catches up and is told the inquiry is already finished.
//!
//! When the owner exits or is killed, a client's next call fails to reach it; the
//! client then opens the database itself and becomes the owner, or connects to
//! whichever process did (trying for five seconds). An append whose answer was lost
//! with its owner is settled by reading the stream back, so it is neither lost nor
//! made twice. A client ends an owner that is stopped or hung only when it is
//! the owner recorded beside the socket (`askuser.owner`: checked against
//! `/proc`, never a process that inherited the lock or the socket, or reused a
//! pid), and never a person's process, which lets the log go before it stops
//! ([`hand_over_when_stopped`]). The socket is bounded: 512 connections, and one
//! 128 MiB budget for the frames being read across them.
//!
//! [`Log::wait_past`](askuser_store::Log::wait_past) blocks until a stream's head passes a sequence number, and
//! [`Session::wait`](askuser_store::Session::wait) catches up when it does: the owner wakes its waiters from the
//! append itself (a condition variable), and a client's wait is one request that the
//! owner answers when the append lands. The append-to-wake latency between two
//! processes is about 0.5–0.7 ms with the append's flush (`benches/README.md`).
//! [`Log::wait_changed`](askuser_store::Log::wait_changed) is the same for the whole log: it returns when any stream
//! is appended to, forked or compacted (the log's [`Version`](askuser_store::Version) moves).
//!
//! What it does not do: an owner that is stopped (Ctrl-Z) keeps the lock and answers
//! nothing, so its clients fail after 30 s with [`StoreError::OwnerUnreachable`](askuser_store::StoreError::OwnerUnreachable);
//! a client's [`Durability::Buffered`](askuser_store::Durability::Buffered) append lives in the owner's buffers and dies
//! with it; and a database path too long for a Unix socket (about 100 bytes) is
//! used by its owner alone.
//!
//! ## Records on disk
//!
//! The records are the store's ([`askuser_store::codec`], [`askuser_store::block`]).
//! Every value is inside an envelope `[format version: u8][crc32: u32 BE][payload]`;
//! the CRC-32 covers the record's key, the version and the payload. Events are
//! stored in blocks (format 3): the events of one append together, up to 16 KiB
//! (256 events) per sled value, keyed by the block's first sequence number,
//! `MessagePack` with named fields, a form stored once per block, LZ4-compressed.
//! Logs of formats 1 and 2 (one value per event) are still read. The PostgreSQL
//! log (`askuser-postgres`) stores the same values, a row per block. A torn, flipped or
//! misplaced value is reported as [`StoreError::Corrupt`](askuser_store::StoreError::Corrupt) for each event it held,
//! naming the stream, the sequence number and the range of the damaged block, never
//! a panic and never a silently different event, and the rest of the log stays
//! readable. What sled itself does with a damaged
//! file when it opens it, what stays readable, and how to read a damaged log without
//! changing it ([`SledLog::open_read_only`]) or copy what is left of it into a new log
//! ([`salvage()`]) is told in [`SledLog`]'s docs. A snapshot also carries the state format ([`STATE_FORMAT`](askuser_store::STATE_FORMAT)); one of
//! another format is skipped and the replay starts from an older one or the start.
//!
//! The binary `askuser-store-crashtest` is test support: the crash test runs it as a
//! child process and kills it (see `tests/crash.rs`); `askuser-store-sharedtest` plays the other processes of
//! the shared log's tests.

#![warn(unreachable_pub)]

mod error;
mod salvage;
#[cfg(unix)]
mod shared;
mod sled_files;
mod sled_legacy;
mod sled_log;
mod sled_scan;
mod sled_tail;
#[cfg(feature = "test-support")]
pub mod test_support;

pub use error::SledError;
pub use salvage::{SalvageReport, StreamSalvage, salvage};
#[cfg(unix)]
pub use shared::{SharedSledLog, hand_over_when_stopped};
pub use sled_files::{DbIntent, DbPathState, Discarded, check_db_path, open_to_others};
pub use sled_log::{DEFAULT_CACHE_CAPACITY, SledLog};
