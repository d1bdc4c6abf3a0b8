//! `askuser mcp` without the rest of the program, for the end-to-end tests:
//! `stdio_server DB STREAM [PENDING_DIR]` serves one MCP session on stdin/stdout.
//! `ASKUSER_MCP_HEARTBEAT_MS` sets how often progress heartbeats go out;
//! `ASKUSER_MCP_POLICY` (a JSON object of policy fields, as `askuser mcp
//! --policy`) the policy calls are recorded with. `ASKUSER_MCP_WAIT_MS` sets how
//! long a call nobody can answer at the client waits for another window, and
//! `ASKUSER_MCP_NO_PERSON_MS` below how long a cancelled or declined form is
//! nobody's choice; both 0 when unset (a test's scripted client answers at once,
//! and a call without forms ends at once), unlike `askuser mcp`.
//! `ASKUSER_MCP_CLIENT_TIMEOUT_MS` stands for the client's own tool-call timeout
//! (Claude Code's `MCP_TOOL_TIMEOUT`); `CLAUDE_CODE_ENTRYPOINT=sdk-cli` says
//! the host runs headless (`claude -p`: no form is sent);
//! `ASKUSER_MCP_TOOL_PREFIX` (as `askuser mcp --tool-prefix`) the prefix the tools are served behind. With
//! `ASKUSER_MCP_MACHINE` set, the server records where it runs as `askuser mcp`
//! does (that machine, its working directory, or the client's root); with
//! `ASKUSER_MCP_CLAIM` set too, STREAM is only the name taken when no place is
//! known: the first call claims a stream named after the client's root, else
//! the working directory, as `askuser mcp` without `--stream` does. With
//! `ASKUSER_MCP_SHARED_LOG` set, the server holds the shared sled log for its
//! life, as `askuser mcp` does, so other processes (`examples/inbox.rs`) use it
//! meanwhile.

use std::path::PathBuf;
use std::time::Duration;

use askuser_mcp::{AskServer, Config, Waiting, WithoutElicitation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(stream)) = (args.next(), args.next()) else {
        return Err("usage: stdio_server DB STREAM [PENDING_DIR]".into());
    };
    let without = match args.next() {
        Some(dir) => WithoutElicitation::Pending {
            dir: PathBuf::from(dir),
        },
        None => WithoutElicitation::Fail,
    };
    let mut config = Config::sled(PathBuf::from(&db), stream.parse()?, without);
    if let Ok(policy) = std::env::var("ASKUSER_MCP_POLICY") {
        config.policy = Some(askuser_mcp::policy_with(&policy)?);
    }
    let millis = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(Duration::ZERO, Duration::from_millis)
    };
    config.waiting = Waiting {
        wait: Some(millis("ASKUSER_MCP_WAIT_MS")),
        no_person_below: millis("ASKUSER_MCP_NO_PERSON_MS"),
        client_timeout: std::env::var("ASKUSER_MCP_CLIENT_TIMEOUT_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map(Duration::from_millis),
        // As `askuser mcp` reads Claude Code's print mode.
        headless: askuser_mcp::Headless::detect(
            std::env::var("CLAUDE_CODE_ENTRYPOINT").ok().as_deref(),
            &[],
        ),
    };
    if let Ok(prefix) = std::env::var("ASKUSER_MCP_TOOL_PREFIX") {
        config.tool_names = askuser_mcp::ToolNames::prefixed(&prefix)?;
    }
    if let Ok(machine) = std::env::var("ASKUSER_MCP_MACHINE") {
        let mut origin = askuser_app::origin::here(None, None);
        origin.machine = Some(machine);
        config.origin = Some(origin);
        config.claim = std::env::var_os("ASKUSER_MCP_CLAIM").is_some();
        // One log for the server's life, as `askuser mcp` holds it: its
        // presence is held in it while calls record.
        let log: std::sync::Arc<dyn askuser_app::log::Log> =
            std::sync::Arc::new(askuser_app::location::SledLog::open(&db)?);
        config.open_desk =
            std::sync::Arc::new(move || Ok(askuser_app::Desk::new(std::sync::Arc::clone(&log))));
    }
    if std::env::var_os("ASKUSER_MCP_SHARED_LOG").is_some() {
        let log = askuser_app::open_log(&db)?;
        config.open_desk =
            std::sync::Arc::new(move || Ok(askuser_app::Desk::new(std::sync::Arc::clone(&log))));
    }
    let mut server = AskServer::new(config);
    if let Some(ms) = std::env::var("ASKUSER_MCP_HEARTBEAT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        server = server.with_heartbeat(std::time::Duration::from_millis(ms));
    }
    askuser_mcp::serve_stdio(server)?;
    Ok(())
}
