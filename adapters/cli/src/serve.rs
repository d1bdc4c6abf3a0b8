//! `askuser serve`: the engine over JSON lines on stdin/stdout.

use askuser_rpc::Server;

use crate::args::parse;
use crate::common::{EXIT_RESULT, db_path, open_journal, stream_option};
use crate::error::CliError;

/// `askuser serve [--db PATH] [--stream NAME]`
pub fn serve(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("serve", args, &["db", "stream"], &[])?;
    parsed.expect_positionals("serve", &[], 0)?;
    let stream = stream_option(&parsed, "serve")?;
    let journal = open_journal(&db_path(&parsed)?)?;
    let mut server = Server::new(journal, stream)?;
    server.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(EXIT_RESULT)
}
