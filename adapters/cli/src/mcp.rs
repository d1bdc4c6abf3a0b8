//! `askuser mcp`: the MCP server on stdin/stdout (see the askuser-mcp crate).

use std::sync::Arc;
use std::time::Duration;

use askuser_mcp::{AskServer, Config, ToolNames, Waiting, WithoutElicitation};

use crate::args::McpArgs;
use crate::common::{EXIT_RESULT, agent_stream, db_path, open_journal, stream_option};
use crate::error::CliError;

/// `askuser mcp`: without `--pending-dir`, a client that cannot show forms gets the
/// "cannot show forms" error; with `--http 127.0.0.1:PORT`, streamable HTTP
/// on that loopback address instead of stdio; with `--policy JSON`, every call is
/// recorded with that policy (one targeting the assistant is answered through
/// the client's sampling); with `--tool-prefix PREFIX`, the tools are served as
/// `PREFIX_ask_user` and `PREFIX_AskUserQuestion`.
pub(crate) fn mcp(args: &McpArgs) -> Result<u8, CliError> {
    let policy = args
        .policy
        .as_deref()
        .map(askuser_mcp::policy_with)
        .transpose()?;
    let tool_names = match &args.tool_prefix {
        Some(prefix) => ToolNames::prefixed(prefix)?,
        None => ToolNames::plain(),
    };
    // Checked before anything is opened.
    let stream = stream_option(args.stream.as_deref())?;
    let db = db_path(args.db.db.as_deref())?;
    // One log for the server's life, shared with every other askuser process.
    let log = Arc::clone(open_journal(&db)?.log());
    // The client's name comes with its first call, when `--agent` does not say.
    let origin = askuser_app::origin::here(args.agent.as_deref(), None);
    let (stream, _) = agent_stream(&log, stream, "mcp", &origin, false)?;
    let without_elicitation = match &args.pending_dir {
        Some(dir) => WithoutElicitation::Pending { dir: dir.clone() },
        None => WithoutElicitation::Fail,
    };
    let config = Config {
        open_log: Arc::new(move || Ok(Arc::clone(&log))),
        db: Some(db),
        stream,
        without_elicitation,
        policy,
        origin: Some(origin),
        waiting: Waiting {
            wait: args.wait.map(Duration::from_secs),
            no_person_below: Duration::from_millis(args.no_person_below),
            client_timeout: client_timeout(),
        },
        tool_names,
    };
    let served = match args.http {
        Some(addr) => askuser_mcp::serve_http(config, addr, |bound| {
            crate::common::note(&format!(
                "askuser: MCP over streamable HTTP at http://{bound}/mcp"
            ));
        }),
        None => askuser_mcp::serve_stdio(AskServer::new(config)),
    };
    served?;
    Ok(EXIT_RESULT)
}

/// The client's tool-call timeout when the environment it started this server
/// in says it: Claude Code passes its own `MCP_TOOL_TIMEOUT` (milliseconds) to
/// the servers it starts. Anything but a whole number is ignored.
fn client_timeout() -> Option<Duration> {
    let millis = std::env::var("MCP_TOOL_TIMEOUT").ok()?;
    millis.trim().parse().ok().map(Duration::from_millis)
}
