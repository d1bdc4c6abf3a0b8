//! `askuser`: ask a person an LLM agent's questions, in the terminal, over JSON
//! lines, or through a pending file; and inspect, replay, fork and compact the
//! recorded sessions. Run `askuser help` for the commands.

mod answer;
mod args;
mod ask;
mod common;
mod error;
mod log;
mod mcp;
mod serve;
mod tools;
mod web;

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

use crate::args::{Cli, Commands};
use crate::common::{EXIT_ERROR, EXIT_RESULT, note, print_out};
use crate::error::CliError;

fn run(cli: Cli) -> Result<u8, CliError> {
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
            let shown = match subcommand_tip(error, &shown) {
                Some(tip) => shown.replacen("\n\nUsage:", &format!("\n\n{tip}\n\nUsage:"), 1),
                None => shown.into_owned(),
            };
            note(&format!("askuser: {shown}"));
            EXIT_ERROR
        }
    }
}

/// `tip: did you mean 'ask'?` for a mistyped subcommand clap found nothing
/// for (`aks`, a swap of two letters, is too far for clap's measure).
fn subcommand_tip(error: &clap::Error, shown: &str) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let root = shown.contains("Usage: askuser <COMMAND>");
    if error.kind() != ErrorKind::InvalidSubcommand || shown.contains("tip:") || !root {
        return None;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let command = <args::Cli as clap::CommandFactory>::command();
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let best = names
        .iter()
        .map(|name| (swap_distance(typed, name), name))
        .filter(|(distance, name)| *distance <= 1 || (*distance == 2 && name.len() > 4))
        .min()?;
    Some(format!("  tip: a similar subcommand exists: '{}'", best.1))
}

/// The edits (insert, delete, replace, or swap two neighbours) from `a` to `b`.
fn swap_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in table[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[i - 1][j] + 1)
                .min(table[i][j - 1] + 1)
                .min(table[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
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
