//! How the server records and what it does for clients that cannot show forms.

use std::path::PathBuf;
use std::sync::Arc;

use askuser_store::{Log, SledLog};

use crate::recorder::OpenLog;

/// What the server does when the client declared no elicitation capability. It
/// never answers on the person's behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WithoutElicitation {
    /// Write the questions to a pending file in `dir` and return a result that
    /// says how the person answers (`askuser answer FILE`).
    Pending {
        /// The directory pending files are created in.
        dir: PathBuf,
    },
    /// Fail the call with the "no interactive terminal" tool error.
    Fail,
}

/// The server's configuration.
#[derive(Clone)]
pub struct Config {
    /// Opens the log for each step (see [`OpenLog`]).
    pub open_log: OpenLog,
    /// The log database's path, written into pending files so `askuser answer`
    /// finds it; `None` for a log that is not a file.
    pub db: Option<PathBuf>,
    /// The stream this MCP session is recorded as.
    pub stream: String,
    /// What to do for a client without elicitation.
    pub without_elicitation: WithoutElicitation,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("db", &self.db)
            .field("stream", &self.stream)
            .field("without_elicitation", &self.without_elicitation)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// A configuration recording into the sled database at `db` (opened for each
    /// step and closed again, so `askuser answer` can use it meanwhile).
    pub fn sled(db: PathBuf, stream: String, without_elicitation: WithoutElicitation) -> Self {
        let path = db.clone();
        Config {
            open_log: Arc::new(move || Ok(Arc::new(SledLog::open(&path)?) as Arc<dyn Log>)),
            db: Some(db),
            stream,
            without_elicitation,
        }
    }
}
