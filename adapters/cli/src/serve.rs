//! `askuser serve`: the engine over JSON lines on stdin/stdout.

use askuser_rpc::Server;

use crate::args::ServeArgs;
use crate::common::{
    EXIT_RESULT, agent_stream, db_path, hold_presence, open_journal, stream_option,
};
use crate::error::CliError;

/// `askuser serve [--db PATH] [--stream NAME] [--agent NAME]`
pub(crate) fn serve(args: &ServeArgs) -> Result<u8, CliError> {
    let stream = stream_option(args.stream.as_deref())?;
    let mut journal = open_journal(&db_path(args.db.db.as_deref())?)?;
    let origin = askuser_app::origin::here(args.agent.as_deref(), None);
    let (stream, attached) = agent_stream(&journal, stream, "serve", &origin, true)?;
    // Held while this process serves: the inbox sees whether anyone waits.
    let presence = hold_presence(&mut journal, &stream, origin, attached);
    let mut server = Server::new(journal, stream.clone())?;
    // The log is watched while input is read, so an answer another process
    // records (`askuser answer`, another terminal) reaches the host at once. The
    // server flushes after each group of lines it writes (from either thread:
    // the output is not locked to this one).
    let output = std::io::BufWriter::new(std::io::stdout());
    server.serve_watching(std::io::stdin(), output)?;
    drop(presence);
    // The stream's events were appended one step at a time: store them as full
    // blocks now that this host is done with it, so a later replay reads them fast.
    if let Err(error) = server.desk().repack(&stream) {
        crate::common::note(&format!(
            "askuser: the events of stream \"{}\" stay as they were appended (repacking them failed: {error})",
            askuser_core::text::for_display_line(&stream)
        ));
    }
    Ok(EXIT_RESULT)
}
