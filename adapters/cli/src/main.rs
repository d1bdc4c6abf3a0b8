//! `askuser`: ask a person an LLM agent's questions, in the terminal, over JSON
//! lines, or through a pending file; and inspect, replay, fork and compact the
//! recorded sessions. Run `askuser help` for the commands.

mod args;
mod ask;
mod common;
mod error;
mod log;
mod mcp;
mod serve;
mod tools;

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

use crate::args::{Cli, Commands};
use crate::common::{EXIT_ERROR, EXIT_RESULT, note, print_out};
use crate::error::CliError;

fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Commands::Ask(args) => ask::ask(&args),
        Commands::Answer(args) => ask::answer(&args),
        Commands::Resume(args) => ask::resume(&args),
        Commands::Serve(args) => serve::serve(&args),
        Commands::Mcp(args) => mcp::mcp(&args),
        Commands::Log(command) => log::log(&command),
        Commands::Schema(args) => tools::schema(&args),
        Commands::Check(args) => tools::check(&args),
    }
}

/// Shows a command-line error (or the help and version clap answers with) and
/// returns the exit status: 0 for `--help` and `--version` (on stdout), 1 for a
/// usage error (on stderr, as `askuser: ...`, every character that could act on a
/// terminal escaped).
fn usage(error: &clap::Error) -> u8 {
    let text = error.render().to_string();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => match print_out(&text) {
            Ok(()) => EXIT_RESULT,
            Err(error) if error.is_broken_pipe() => EXIT_RESULT,
            Err(_) => EXIT_ERROR,
        },
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            note(text.trim_end());
            EXIT_ERROR
        }
        _ => {
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            let shown = askuser_core::text::for_display(text.trim_end());
            note(&format!("askuser: {shown}"));
            EXIT_ERROR
        }
    }
}

fn main() -> ExitCode {
    let code = match Cli::try_parse() {
        Err(error) => usage(&error),
        Ok(cli) => match run(cli) {
            Ok(code) => code,
            // The reader of standard output went away (`askuser schema | head`).
            Err(error) if error.is_broken_pipe() => EXIT_RESULT,
            Err(error) => {
                // Messages may quote a file's or a model's text: shown, never obeyed.
                note(&format!(
                    "askuser: {}",
                    askuser_core::text::for_display(&error.to_string())
                ));
                EXIT_ERROR
            }
        },
    };
    ExitCode::from(code)
}
