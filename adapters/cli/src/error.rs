//! The program's errors: each is printed as `askuser: <message>` and exits with 1.

use std::path::PathBuf;

use askuser_app::AppError;
use askuser_store::StoreError;

/// Why a command could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The command line is wrong.
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The log or the records beside it failed.
    #[error("{0}")]
    App(#[from] AppError),
    /// The event log failed.
    #[error("the event log: {0}")]
    Store(#[from] StoreError),
    /// Reading standard input or writing standard output failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// Something else, explained.
    #[error("{0}")]
    Other(String),
}

impl CliError {
    /// Whether this is a write to a closed standard output (`askuser schema | head`):
    /// the reader went away, so the program ends quietly.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        let io = match self {
            CliError::Io(error)
            | CliError::App(AppError::Io(error) | AppError::Store(StoreError::Io(error)))
            | CliError::Store(StoreError::Io(error)) => Some(error),
            _ => None,
        };
        io.is_some_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
