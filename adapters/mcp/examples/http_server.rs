//! `askuser mcp --http` without the rest of the program, for the end-to-end tests:
//! `http_server DB STREAM` serves streamable HTTP on 127.0.0.1 (a free port) and
//! prints its URL on the first line of standard output.

use std::io::Write as _;
use std::path::PathBuf;

use askuser_mcp::{Config, WithoutElicitation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(stream)) = (args.next(), args.next()) else {
        return Err("usage: http_server DB STREAM".into());
    };
    let config = Config::sled(PathBuf::from(db), stream.parse()?, WithoutElicitation::Fail);
    askuser_mcp::serve_http(config, "127.0.0.1:0".parse()?, |addr| {
        println!("http://{addr}/mcp");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
