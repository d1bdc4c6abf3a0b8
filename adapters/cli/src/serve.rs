//! `askuser serve`: the engine over JSON lines on stdin/stdout.

use askuser_rpc::Server;

use crate::args::ServeArgs;
use crate::common::{EXIT_RESULT, db_path, open_journal, stream_option};
use crate::error::CliError;

/// `askuser serve [--db PATH] [--stream NAME]`
pub fn serve(args: &ServeArgs) -> Result<u8, CliError> {
    let stream = stream_option(args.stream.as_deref(), "serve")?;
    let journal = open_journal(&db_path(args.db.db.as_deref())?)?;
    let mut server = Server::new(journal, stream)?;
    // Input is read on a thread of its own while the log is watched, so an answer
    // another process records (`askuser answer`, another terminal) reaches the
    // host at once.
    let input = std::io::BufReader::new(std::io::stdin());
    // The server flushes after each group of lines it writes.
    let output = std::io::BufWriter::new(std::io::stdout().lock());
    server.serve_watching(input, output)?;
    Ok(EXIT_RESULT)
}
