//! # askuser-mcp: askuser as an MCP server
//!
//! Any MCP client gets askuser's typed, branching forms through its own
//! elicitation forms. Two tools: `ask_user` (the `jp-form` dialect: typed questions
//! with `when` branching and schema answers) and `AskUserQuestion` (Claude Code's
//! shape, so prompts written for Claude Code work unchanged). A form is walked in
//! as few elicitation rounds as its branches allow: each round holds every question
//! visible now that does not depend on another question of the same round
//! (`Questions 3–5 of 7`); a schema question outside the flat subset is a string
//! field holding JSON, re-asked with the validator's message when it does not fit.
//! `decline` is a Reply (the cancel marker with the answers so far), `cancel` a
//! dismissal (a tool error telling the model not to retry this turn). A client
//! without elicitation is never answered for: per [`WithoutElicitation`], the
//! questions go to a pending file (`askuser answer FILE`), or the call fails.
//! Questions whose policy ([`Config::policy`]) targets the assistant are asked
//! of the client's model through sampling (`sampling/createMessage`), checked by
//! the engine and recorded `by: assistant`.
//!
//! Both protocol generations: server-to-client `elicitation/create` (2025-06-18,
//! 2025-11-25), and for 2026-07-28 clients multi round-trip requests, whose
//! `requestState` is sealed (HMAC) and checked against the log. On stdio
//! ([`serve_stdio`]) or streamable HTTP on loopback ([`serve_http`]).
//!
//! Every step goes through the store's session driver into one stream per MCP
//! session, so `askuser log replay` re-derives it: each round is recorded as it
//! goes out, and every answer as it comes back (those for questions after the
//! one the engine asks as given ahead, so a decline keeps them); [`check_rounds`]
//! derives each round again from the events before it.
//!
//! The log is shared: while a form is shown, the web inbox, a terminal or
//! `askuser answer` may answer the same questions. Every answer of a round names
//! what the round showed (`askuser_core::At`), so a round sent back after another
//! surface moved the inquiry is refused and nothing of it is recorded; the model
//! never gets the refusal. When the other surface finished the inquiry, the tool
//! result is the one it produced, said in words; when the inquiry is still open,
//! the next round asks what is open now, with what the person typed filled in.
//!
//! ```
//! use std::sync::Arc;
//! use askuser_mcp::{AskServer, Config, ToolNames, WithoutElicitation};
//! use askuser_app::Desk;
//! use askuser_app::log::{Log, MemLog};
//!
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! let server = AskServer::new(Config {
//!     open_desk: Arc::new(move || Ok(Desk::new(Arc::clone(&log)))),
//!     db: None,
//!     stream: "mcp-1".parse().unwrap(),
//!     without_elicitation: WithoutElicitation::Fail,
//!     policy: None,
//!     origin: None,
//!     waiting: Default::default(),
//!     tool_names: ToolNames::plain(),
//!     claimed: false,
//!     claim: false,
//! });
//! // askuser_mcp::serve_stdio(server) serves it on stdin/stdout.
//! # drop(server);
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod check;
pub mod clients;
mod config;
mod elsewhere;
#[cfg(fuzzing)]
pub mod fuzzing;
mod headless;
mod http;
mod moved_on;
mod mrtr;
mod pending;
mod progress;
mod recorder;
mod reply_message;
mod rounds;
mod sampling;
mod server;
mod tools;
mod unanswered;
mod waiting;
mod walk;
#[cfg(test)]
mod walk_props;

pub use check::{RoundCheck, check_rounds, rounds_text};
pub use config::{
    Config, MOST_WAIT, NO_PERSON_BELOW, PolicyError, Waiting, WithoutElicitation, policy_with,
};
pub use headless::Headless;
pub use http::{HttpLimits, serve_http, serve_http_with};
pub use recorder::OpenDesk;
pub use server::AskServer;
pub use tools::{MAX_PREFIX_CHARS, TOOLS, ToolNames, ToolPrefixError};

/// Why the server stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The tokio runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The MCP session could not be set up (the client did not initialize).
    #[error("the MCP session did not start: {0}")]
    Start(String),
    /// The session ended with an error.
    #[error("the MCP session failed: {0}")]
    Session(String),
    /// HTTP was asked on an address other than loopback.
    #[error("{0} is not a loopback address; askuser mcp listens on 127.0.0.1 or ::1 only")]
    NotLoopback(std::net::SocketAddr),
}

/// Serves `server` over MCP on stdin/stdout until the client closes the session.
///
/// # Errors
/// [`ServeError`] when the runtime, the handshake or the session fails.
pub fn serve_stdio(server: AskServer) -> Result<(), ServeError> {
    use rmcp::ServiceExt as _;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let asking = server.asking();
    runtime.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Start(e.to_string()))?;
        let ended = running.waiting().await;
        // A client gone mid-form: its calls record how they ended before the
        // process exits (they see the session's cancellation at once).
        let start = std::time::Instant::now();
        while asking.load(std::sync::atomic::Ordering::SeqCst) > 0
            && start.elapsed() < std::time::Duration::from_secs(2)
        {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        ended.map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    })
}
