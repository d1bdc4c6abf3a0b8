//! `askuser mcp` without the rest of the program, for the end-to-end tests:
//! `stdio_server DB STREAM [PENDING_DIR]` serves one MCP session on stdin/stdout.

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
    let server = AskServer::new(Config::sled(PathBuf::from(db), stream, without));
    askuser_mcp::serve_stdio(server)?;
    Ok(())
}
