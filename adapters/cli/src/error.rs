//! The program's errors: each is printed as `askuser: <message>` and exits with 1.
//! Every failure has a variant of its own (what went wrong, and what to do); the
//! layers below are wrapped once each (the log's errors come through the
//! application layer's [`AppError`]).

use std::path::PathBuf;

use askuser_app::AppError;
use askuser_app::log::StoreError;
use askuser_core::Refusal;
use askuser_terminal::TerminalError;

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
    /// A file (or standard input) to read is not a readable regular file of at
    /// most 1 MiB.
    #[error("{name}: {reason}")]
    Unreadable {
        /// The file, shown safely (`standard input` for `-`).
        name: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The log or the records beside it failed.
    #[error("{0}")]
    App(#[from] AppError),
    /// Reading standard input or writing standard output failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A value could not be written as JSON.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// `--policy` of `askuser mcp` is not a policy.
    #[error("{0}")]
    Policy(#[from] askuser_mcp::PolicyError),
    /// `--tool-prefix` of `askuser mcp` cannot begin a tool's name.
    #[error("{0}")]
    ToolPrefix(#[from] askuser_mcp::ToolPrefixError),
    /// `askuser setup` refused a host's configuration file that it cannot
    /// merge into.
    #[error(
        "{path}: {refusal}. askuser setup changed nothing: fix the file (or move it away), then run it again"
    )]
    ConfigRefused {
        /// The file.
        path: String,
        /// Where and why.
        refusal: String,
    },
    /// A host's configuration file changed while `askuser setup` wrote it.
    #[error("{path} changed while askuser setup was writing it; nothing was changed: run it again")]
    ConfigChanged {
        /// The file.
        path: String,
    },
    /// `askuser setup inbox` could not have systemd run the inbox.
    #[error(
        "{command} failed ({why}); askuser setup inbox stopped there: run it yourself to see why, then run askuser setup inbox again"
    )]
    Service {
        /// The command that failed.
        command: String,
        /// What it said.
        why: String,
    },
    /// The MCP server failed.
    #[error("{0}")]
    Mcp(#[from] askuser_mcp::ServeError),
    /// The web inbox could not listen or serve.
    #[error("{0}")]
    Web(#[from] askuser_web::WebError),
    /// The terminal could not ask the person.
    #[error("{0}")]
    Terminal(#[from] TerminalError),
    /// The engine refused a new request (its inquiry id is taken, say).
    #[error("{refusal} (stream \"{stream}\"; pass another --inquiry or --stream)")]
    RequestRefused {
        /// Why.
        refusal: Box<Refusal>,
        /// The stream, shown safely.
        stream: String,
    },
    /// The engine refused what was done.
    #[error("{0}")]
    Refused(Box<Refusal>),
    /// `askuser resume` found nothing open in the stream.
    #[error("stream \"{stream}\" has no open inquiry to resume: {ended} (see `{show}`)")]
    NothingToResume {
        /// The stream, shown safely.
        stream: String,
        /// How its last inquiry ended, in words.
        ended: String,
        /// The command that shows the stream.
        show: String,
    },
    /// `askuser resume --inquiry` named an inquiry that is not open.
    #[error("inquiry \"{inquiry}\" of stream \"{stream}\" is not open")]
    NotOpen {
        /// The inquiry, shown safely.
        inquiry: String,
        /// The stream, shown safely.
        stream: String,
    },
    /// The call of the inquiry to resume is not in the log.
    #[error("the call of inquiry \"{inquiry}\" was not recorded in {db}; it cannot be resumed")]
    CannotResume {
        /// The inquiry, shown safely.
        inquiry: String,
        /// The log, shown safely.
        db: String,
    },
    /// The call a pending file's inquiry was asked with is not in the log.
    #[error(
        "the call of inquiry \"{inquiry}\" is not recorded in {db}; pass the --db it was asked with"
    )]
    CallNotRecorded {
        /// The inquiry, shown safely.
        inquiry: String,
        /// The log, shown safely.
        db: String,
    },
    /// A pending file's inquiry is not in the log it names.
    #[error(
        "{file} names {inquiry}, which the log {db} does not hold; nothing was recorded. Pass the --db the questions were asked with, or, if the file's \"stream\" or \"inquiry\" was edited, write the pending file again with `askuser ask --pending`"
    )]
    NotInLog {
        /// The pending file.
        file: String,
        /// The inquiry and its stream, in words.
        inquiry: String,
        /// The log.
        db: String,
    },
    /// A pending file says it was answered, and its log holds no result.
    #[error(
        "{file} says its questions were answered, but the log {db} holds no result for inquiry \"{inquiry}\"; pass the --db it was asked with"
    )]
    AnsweredWithoutResult {
        /// The pending file.
        file: String,
        /// The log.
        db: String,
        /// The inquiry, shown safely.
        inquiry: String,
    },
    /// A pending file names a log that is not there.
    #[error(
        "the pending file names the log {db}, which is not an askuser log; askuser creates no log for a pending file: pass --db with the log the questions were asked with"
    )]
    NotALog {
        /// The log, shown safely.
        db: String,
    },
    /// A pending file's answers were recorded but did not finish its inquiry.
    #[error("the answers did not finish the inquiry")]
    AnswersDidNotFinish,
    /// The inquiry ended with nothing for the model.
    #[error("the inquiry ended without a result")]
    NoResult,
}

/// The log's errors are the application layer's ([`AppError::Store`]): one road.
impl From<StoreError> for CliError {
    fn from(error: StoreError) -> Self {
        CliError::App(AppError::Store(error))
    }
}

impl CliError {
    /// Whether this is a write to a closed standard output (`askuser schema | head`):
    /// the reader went away, so the program ends quietly.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        let io = match self {
            CliError::Io(error)
            | CliError::App(AppError::Io(error) | AppError::Store(StoreError::Io(error))) => {
                Some(error)
            }
            _ => None,
        };
        io.is_some_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
