//! The application layer's one error type.

use std::path::PathBuf;

use askuser_store::StoreError;

/// What can go wrong outside the protocol itself (a bad line from a host is not an
/// error: it is answered with an `error` line and the server goes on).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The event log failed (it could not be opened, read or appended to).
    #[error("the event log: {0}")]
    Store(#[from] StoreError),
    /// The log at this path is held by another process (sled allows one at a time).
    #[error(
        "the log at {path} is in use by another askuser process; wait for it to finish or pass another --db"
    )]
    Locked {
        /// The database directory.
        path: PathBuf,
    },
    /// A record of askuser's own beside the events (a call's arguments, the outputs
    /// of an event) could not be stored or read back.
    #[error("the call records in the log ({key}): {detail}")]
    Record {
        /// Which record, in words (`call "call-1" of stream "s"`).
        key: String,
        /// What went wrong.
        detail: String,
    },
    /// Reading input or writing output failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A pending-questions file could not be read, or does not have the expected
    /// shape; `field` names the offending field (empty for the file as a whole).
    #[error("the pending file {}: {}{message}", path.display(), field_prefix(field))]
    PendingFile {
        /// The file.
        path: PathBuf,
        /// A JSON pointer to the offending field; empty for the whole file.
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The stream named does not hold the inquiry a pending file names.
    #[error(
        "stream \"{stream}\" holds no inquiry \"{inquiry}\": is this the database the pending file was written with? (pass --db)"
    )]
    NoSuchInquiry {
        /// The stream, shown safely.
        stream: String,
        /// The inquiry, shown safely.
        inquiry: String,
    },
    /// Other processes kept writing to the stream while a pending file's answers
    /// were decided; nothing was recorded.
    #[error(
        "other processes kept writing to stream \"{stream}\" while the answers were decided {tries} times; nothing was recorded: run `askuser answer` again"
    )]
    KeptChanging {
        /// The stream, shown safely.
        stream: String,
        /// How many times the answers were decided.
        tries: usize,
    },
    /// The engine refused a pending file's answer outright (not as an invalid
    /// answer, which is listed with the others).
    #[error("answer {number} (question \"{question}\") was not taken: {refusal}")]
    AnswerNotTaken {
        /// The answer's place in the file, from 1.
        number: usize,
        /// The question's id, shown safely.
        question: String,
        /// Why.
        refusal: Box<askuser_core::Refusal>,
    },
    /// The engine refused an input the application made for a surface (where
    /// an agent runs, recorded as it starts to wait: an origin too long, say).
    #[error("{0}")]
    Refused(Box<askuser_core::Refusal>),
    /// The engine refused to send a pending file's answers from the review.
    #[error("the answers could not be sent: {0}")]
    NotSent(Box<askuser_core::Refusal>),
    /// A file holding a secret (the token of `askuser mcp --http`) cannot be
    /// used: a link, readable by others, not a secret; nothing was written
    /// over it.
    #[error("the secret file {}: {reason}", path.display())]
    SecretFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why, and what to do.
        reason: String,
    },
}

fn field_prefix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("{field}: ")
    }
}

/// The crate's result type.
pub type Result<T, E = AppError> = std::result::Result<T, E>;
