//! `askuser mcp --http` without the rest of the program, for the end-to-end tests:
//! `http_server DB STREAM TOKEN` serves streamable HTTP on 127.0.0.1 (a free
//! port), taking requests that carry `Authorization: Bearer TOKEN`, and prints
//! its URL on the first line of standard output. As `stdio_server`, a
//! call nobody can answer at the client does not wait, and no response is
//! taken as nobody's choice.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use askuser_mcp::{Config, Waiting, WithoutElicitation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(stream), Some(token)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: http_server DB STREAM TOKEN".into());
    };
    let mut config = Config::sled(PathBuf::from(db), stream.parse()?, WithoutElicitation::Fail);
    config.waiting = Waiting {
        wait: Some(Duration::ZERO),
        no_person_below: Duration::ZERO,
        client_timeout: None,
        headless: None,
    };
    askuser_mcp::serve_http(config, "127.0.0.1:0".parse()?, &token, |addr| {
        println!("http://{addr}/mcp");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
