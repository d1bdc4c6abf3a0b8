//! The log's vocabulary, as the surfaces speak it: the types and functions of
//! `askuser-store` that a surface names (a stream's name, a sequence number, the
//! time the log recorded an event, what a stream holds, its words and its
//! transcript), reached through the application layer so that no surface depends
//! on the store crate itself.
//!
//! What is here is what the surfaces still use directly. Each item a surface
//! stops needing (because the application layer does the work for it) leaves
//! this list; nothing is added here that a surface could ask the application
//! layer for instead.
//!
//! ```
//! use askuser_app::log::{Log, MemLog, StreamName};
//!
//! let log = MemLog::new();
//! let name = StreamName::try_from("chat-42").unwrap();
//! assert_eq!(log.stream(name.as_str()).unwrap(), None);
//! ```

pub use askuser_store::{
    Caught, Clock, Lease, Leases, Log, ManualClock, MemLog, Presence, PresenceGuard, Recorded,
    Result, Seq, Session, SessionError, StoreError, StreamInfo, StreamName, SystemClock, Timestamp,
    compact, export, presence, replay, transcript, words,
};
