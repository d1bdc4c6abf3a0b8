//! # askuser-cli: the `askuser` command-line program
//!
//! The `askuser` binary is [`run`] and nothing else: it parses the command line
//! ([`command`] holds its definitions: every command, option, `--help` and
//! `askuser help`), runs the command and returns its exit status. The commands
//! ask a person an LLM agent's questions (in the terminal, over JSON lines, as an
//! MCP server, in a web inbox, or through a pending file) and inspect, replay,
//! fork and compact the recorded sessions.
//!
//! ```
//! let matches = askuser_cli::command()
//!     .try_get_matches_from(["askuser", "schema", "--dialect", "jp-form"])?;
//! let (name, schema) = matches.subcommand().expect("a command");
//! assert_eq!(name, "schema");
//! assert_eq!(schema.get_raw("format").unwrap().next().unwrap(), "anthropic");
//!
//! let typo = askuser_cli::command().try_get_matches_from(["askuser", "schema", "--dilect"]);
//! assert!(typo.is_err());
//! # Ok::<(), clap::Error>(())
//! ```
#![warn(unreachable_pub)]

mod answer;
mod args;
mod ask;
mod common;
mod error;
mod log;
mod mcp;
mod serve;
mod setup;
mod tools;
mod usage;
mod web;

use std::process::ExitCode;

use clap::Parser as _;

use crate::args::{Cli, Commands};
use crate::common::{EXIT_ERROR, EXIT_RESULT, note};
use crate::error::CliError;

/// The command line's definitions, as a [`clap::Command`] named `askuser`: parse
/// with it (`try_get_matches_from`), walk its subcommands, or render its help.
#[must_use]
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// The `askuser` program: parses the process's arguments, runs the command and
/// returns its exit status (0 a result, 1 askuser could not run, 2 the call was
/// rejected, ...: `askuser help` lists them). Usage errors and failures are
/// reported on standard error, every character that could act on a terminal
/// escaped; a closed standard output ends it quietly.
#[must_use]
pub fn run() -> ExitCode {
    let code = match Cli::try_parse() {
        Err(error) => usage::usage(&error),
        Ok(cli) => match dispatch(cli) {
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

/// Runs a parsed command: its exit status, or why it could not run.
fn dispatch(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Commands::Ask(args) => ask::ask(&args),
        Commands::Answer(args) => answer::answer(&args),
        Commands::Resume(args) => ask::resume(&args),
        Commands::Serve(args) => serve::serve(&args),
        Commands::Mcp(args) => mcp::mcp(&args),
        Commands::Web(args) => web::web(&args),
        Commands::Log(command) => log::log(&command),
        Commands::Schema(args) => tools::schema(&args),
        Commands::Check(args) => tools::check(&args),
        Commands::Setup(args) => setup::setup(&args),
    }
}
