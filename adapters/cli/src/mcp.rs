//! `askuser mcp`: the MCP server on stdin/stdout (see the askuser-mcp crate).

use std::path::PathBuf;

use askuser_mcp::{AskServer, Config, WithoutElicitation};

use crate::args::parse;
use crate::common::{EXIT_RESULT, db_path, new_stream_name, open_journal};
use crate::error::CliError;

/// `askuser mcp [--db PATH] [--stream NAME] [--pending-dir DIR] [--http ADDR]`:
/// without `--pending-dir`, a client that cannot show forms gets the "no
/// interactive terminal" error; with `--http 127.0.0.1:PORT`, streamable HTTP on
/// that loopback address instead of stdio.
pub fn mcp(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("mcp", args, &["db", "stream", "pending-dir", "http"], &[])?;
    parsed.expect_positionals("mcp", &[], 0)?;
    let db = db_path(&parsed)?;
    drop(open_journal(&db)?); // creates the database and its directory, and checks it opens
    let stream = parsed
        .option("stream")
        .map_or_else(|| new_stream_name("mcp"), str::to_owned);
    let without_elicitation = match parsed.option("pending-dir") {
        Some(dir) => WithoutElicitation::Pending {
            dir: PathBuf::from(dir),
        },
        None => WithoutElicitation::Fail,
    };
    let config = Config::sled(db, stream, without_elicitation);
    let served = match parsed.option("http") {
        Some(addr) => {
            let addr = addr.parse().map_err(|_| {
                CliError::Usage(format!(
                    "--http {addr} is not an address; give 127.0.0.1:PORT or [::1]:PORT"
                ))
            })?;
            askuser_mcp::serve_http(config, addr, |bound| {
                eprintln!("askuser: MCP over streamable HTTP at http://{bound}/mcp");
            })
        }
        None => askuser_mcp::serve_stdio(AskServer::new(config)),
    };
    served.map_err(|e| CliError::Other(e.to_string()))?;
    Ok(EXIT_RESULT)
}
