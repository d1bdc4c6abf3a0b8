//! `askuser serve`: the engine over JSON lines on stdin/stdout.

use askuser_rpc::Server;

use crate::args::parse;
use crate::common::{EXIT_RESULT, db_path, new_stream_name, open_journal};
use crate::error::CliError;

/// `askuser serve [--db PATH] [--stream NAME]`
pub fn serve(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("serve", args, &["db", "stream"], &[])?;
    parsed.expect_positionals("serve", &[], 0)?;
    let journal = open_journal(&db_path(&parsed)?)?;
    let stream = parsed
        .option("stream")
        .map_or_else(|| new_stream_name("serve"), str::to_owned);
    let mut server = Server::new(journal, stream)?;
    server.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(EXIT_RESULT)
}
