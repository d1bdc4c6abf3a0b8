//! How the server records and what it does for clients that cannot show forms.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use askuser_app::Desk;
use askuser_app::log::StreamName;
use askuser_core::{AgentOrigin, ClientNote, FormAction, Policy};
use serde_json::Value;

use crate::clients::Client;
use crate::headless::Headless;
use crate::recorder::OpenDesk;
use crate::tools::ToolNames;

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
    /// Opens a desk over the log for each step (see [`OpenDesk`]).
    pub open_desk: OpenDesk,
    /// The log database's path, written into pending files so `askuser answer`
    /// finds it; `None` for a log that is not a file.
    pub db: Option<PathBuf>,
    /// The stream this MCP session is recorded as (checked where the host named
    /// it: `askuser mcp --stream`).
    pub stream: StreamName,
    /// What to do for a client without elicitation.
    pub without_elicitation: WithoutElicitation,
    /// The policy every call is recorded with, in place of its dialect's (whether
    /// a person is present is still the server's to say); `None`: the dialect's
    /// (a person answers). A policy targeting the assistant and not exclusive
    /// (RFD 028) has its questions answered through the client's sampling.
    pub policy: Option<Policy>,
    /// Where this server runs (machine, directory, repository; `host` from
    /// `--agent NAME`, else the client's `clientInfo` fills it): with it, the
    /// server records it in its stream and holds a presence lease there while it
    /// serves, so the inbox sees who asks and whether anyone waits; `None`: neither
    /// (a log opened for each step, which must not be held).
    pub origin: Option<AgentOrigin>,
    /// How a call waits for an answer from another surface when nobody can
    /// answer at the client.
    pub waiting: Waiting,
    /// The names the tools are served under (`askuser mcp --tool-prefix`): their
    /// own, or behind a prefix for a host whose own tools would shadow them.
    pub tool_names: ToolNames,
    /// Whether [`Self::stream`] was made by claiming its name
    /// ([`Desk::claim_stream`](askuser_app::Desk::claim_stream): its first event records where the
    /// server runs): its first call is still `call-1`.
    pub claimed: bool,
    /// No stream was named (`askuser mcp` without `--stream`, on stdio): the
    /// session's first call claims one ([`Desk::claim_stream`](askuser_app::Desk::claim_stream)),
    /// named after where the agent works: the client's first root where it
    /// offers roots, else [`Config::origin`]'s directory. [`Config::stream`] is
    /// the name taken when neither names a place. Only with `origin`.
    pub claim: bool,
}

/// How a call waits for an answer from another surface (the web inbox,
/// `askuser answer`, `askuser resume`) when nobody can answer at the client: it
/// has no forms, its form came back faster than a person reads, or it could not
/// show the questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    /// How long a call waits (`--wait`); `None`: what fits the client's own
    /// tool-call timeout ([`Waiting::wait_for`]).
    pub wait: Option<Duration>,
    /// A round cancelled or declined sooner than this after it went out was
    /// nobody's choice: no person is at the client (`--no-person-below`). Zero:
    /// every response is the person's.
    pub no_person_below: Duration,
    /// The client's tool-call timeout when the environment it started the server
    /// in says it (Claude Code's `MCP_TOOL_TIMEOUT`); `None`: the client table's.
    pub client_timeout: Option<Duration>,
    /// The host's own headless mode, when it says it runs with nobody at it
    /// ([`Headless::detect`]): no form is sent, and every call waits for
    /// another window at once. `None`: forms are sent, and a quick dismissal
    /// (`no_person_below`) is the only sign of nobody.
    pub headless: Option<Headless>,
}

/// The longest a call waits by default, whatever the client's timeout.
pub const MOST_WAIT: Duration = Duration::from_secs(600);

/// How much sooner than the client's timeout a default wait ends, so the tool
/// result reaches the client before it gives up.
const MARGIN: Duration = Duration::from_secs(5);

/// A response sooner than this after its form went out is nobody's choice, by
/// default: `claude -p` cancels in 15–40 ms and `codex exec` declines in about
/// 1 ms, while a person takes seconds to read even one question.
pub const NO_PERSON_BELOW: Duration = Duration::from_millis(500);

impl Default for Waiting {
    fn default() -> Self {
        Waiting {
            wait: None,
            no_person_below: NO_PERSON_BELOW,
            client_timeout: None,
            headless: None,
        }
    }
}

impl Waiting {
    /// The client's tool-call timeout: the environment's, else the table's.
    #[must_use]
    pub fn timeout_of(&self, client: &Client) -> Option<Duration> {
        self.client_timeout.or(client.tool_timeout)
    }

    /// The note for a form that came back `action`ed `took` after it went out,
    /// when that is sooner than a person reads one (`--no-person-below`).
    #[must_use]
    pub fn no_person(&self, action: FormAction, took: Duration) -> Option<ClientNote> {
        (took < self.no_person_below).then(|| ClientNote::NoPerson {
            action,
            after_ms: millis(took),
        })
    }

    /// Whether a form accepted `took` after it went out was read by a person
    /// (not sooner than `--no-person-below`): once one has, a later quick
    /// dismissal in the same call or session is theirs, never "no person".
    #[must_use]
    pub fn read_by_a_person(&self, took: Duration) -> bool {
        took >= self.no_person_below
    }

    /// The note for a form accepted `took` after it went out with every answer
    /// at its default (`all_defaults`), sooner than a person reads one: noted
    /// like a dismissal, since nobody read it.
    #[must_use]
    pub fn unread(&self, all_defaults: bool, took: Duration) -> Option<ClientNote> {
        all_defaults
            .then(|| self.no_person(FormAction::Accept, took))
            .flatten()
    }

    /// The note for what `client` sends `after` its call came, when that is past
    /// the client's own tool-call timeout (the model had stopped waiting).
    #[must_use]
    pub fn late(&self, client: &Client, after: Duration) -> Option<ClientNote> {
        let timeout = self.timeout_of(client)?;
        (after > timeout).then(|| ClientNote::Late {
            timeout_ms: millis(timeout),
            after_ms: millis(after),
        })
    }

    /// How long a call of `client` waits: `--wait`, else 5 s less than the
    /// client's timeout, at most [`MOST_WAIT`].
    #[must_use]
    pub fn wait_for(&self, client: &Client) -> Duration {
        self.wait.unwrap_or_else(|| {
            self.timeout_of(client)
                .map_or(MOST_WAIT, |timeout| timeout.saturating_sub(MARGIN))
                .min(MOST_WAIT)
        })
    }
}

/// A `--policy` that does not read as a policy.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// Not a JSON object.
    #[error(
        "--policy must be a JSON object of policy fields, such as {{\"target\": \"assistant\", \"exclusive\": false}}"
    )]
    NotAnObject,
    /// A field of the wrong name or type.
    #[error("--policy does not read as a policy ({0}); see docs/protocol.md for its fields")]
    Invalid(#[source] serde_json::Error),
}

/// The tools' policy (a person answers, exclusive, labelled "Assistant") with
/// the fields of the JSON object `overrides` in place of its own, as the
/// JSON-lines protocol's `"policy"` reads them.
///
/// # Errors
/// [`PolicyError`] when `overrides` is not an object of policy fields.
pub fn policy_with(overrides: &str) -> Result<Policy, PolicyError> {
    let Ok(Value::Object(overrides)) = serde_json::from_str::<Value>(overrides) else {
        return Err(PolicyError::NotAnObject);
    };
    let mut base = match serde_json::to_value(Policy::default()) {
        Ok(Value::Object(base)) => base,
        _ => serde_json::Map::new(),
    };
    base.extend(overrides);
    serde_json::from_value(Value::Object(base)).map_err(PolicyError::Invalid)
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("db", &self.db)
            .field("stream", &self.stream)
            .field("without_elicitation", &self.without_elicitation)
            .field("policy", &self.policy)
            .field("origin", &self.origin)
            .field("waiting", &self.waiting)
            .field("tool_names", &self.tool_names)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// A configuration recording into the sled database at `db` (opened for each
    /// step and closed again, so `askuser answer` can use it meanwhile).
    pub fn sled(db: PathBuf, stream: StreamName, without_elicitation: WithoutElicitation) -> Self {
        let path = db.clone();
        Config {
            open_desk: Arc::new(move || Desk::open(&path)),
            db: Some(db),
            stream,
            without_elicitation,
            policy: None,
            origin: None,
            waiting: Waiting::default(),
            tool_names: ToolNames::plain(),
            claimed: false,
            claim: false,
        }
    }
}

/// `duration` in whole milliseconds, as a note records it.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
