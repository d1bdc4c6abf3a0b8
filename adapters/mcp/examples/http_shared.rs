//! `askuser mcp --http` as it runs for a person, without the rest of the
//! program, for the flood tests: `http_shared DB STREAM TOKEN MOST UNANSWERED_SECS`
//! opens the log shared with every other askuser process (its owner started when
//! none runs), records where it runs and holds presence like `askuser mcp`, and
//! serves streamable HTTP on 127.0.0.1 (a free port) with at most MOST sessions
//! and stateless calls, a stateless call ended `UNANSWERED_SECS` after its agent
//! last came. It prints its URL on the first line of standard output. As
//! `http_server`, a call nobody can answer at the client does not wait.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use askuser_mcp::{Config, HttpLimits, ToolNames, Waiting, WithoutElicitation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, stream, token, most, unanswered] = args.as_slice() else {
        return Err("usage: http_shared DB STREAM TOKEN MOST UNANSWERED_SECS".into());
    };
    let log = askuser_app::location::open_log(db)?;
    let config = Config {
        open_desk: Arc::new(move || Ok(askuser_app::Desk::new(Arc::clone(&log)))),
        db: Some(PathBuf::from(db)),
        stream: stream.parse()?,
        without_elicitation: WithoutElicitation::Fail,
        policy: None,
        origin: Some(askuser_app::origin::here(None, None)),
        waiting: Waiting {
            wait: Some(Duration::ZERO),
            no_person_below: Duration::ZERO,
            client_timeout: None,
            headless: None,
        },
        tool_names: ToolNames::plain(),
        claimed: false,
        claim: false,
    };
    let limits = HttpLimits {
        most: most.parse()?,
        unanswered: Duration::from_secs(unanswered.parse()?),
        ..HttpLimits::DEFAULT
    };
    askuser_mcp::serve_http_with(config, "127.0.0.1:0".parse()?, limits, token, |addr| {
        println!("http://{addr}/mcp");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
