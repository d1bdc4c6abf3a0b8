//! `askuser mcp` without the rest of the program, for the end-to-end tests:
//! `stdio_server DB STREAM [PENDING_DIR]` serves one MCP session on stdin/stdout.
//! `ASKUSER_MCP_HEARTBEAT_MS` sets how often progress heartbeats go out;
//! `ASKUSER_MCP_POLICY` (a JSON object of policy fields, as `askuser mcp
//! --policy`) the policy calls are recorded with; `ASKUSER_MCP_TOOL_PREFIX` (as
//! `askuser mcp --tool-prefix`) the prefix the tools are served behind.

use std::path::PathBuf;

use askuser_mcp::{AskServer, Config, WithoutElicitation};

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
    let mut config = Config::sled(PathBuf::from(db), stream.parse()?, without);
    if let Ok(policy) = std::env::var("ASKUSER_MCP_POLICY") {
        config.policy = Some(askuser_mcp::policy_with(&policy)?);
    }
    if let Ok(prefix) = std::env::var("ASKUSER_MCP_TOOL_PREFIX") {
        config.tool_names = askuser_mcp::ToolNames::prefixed(&prefix)?;
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
