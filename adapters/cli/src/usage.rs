//! What askuser answers when the command line is not a command to run: the help
//! and version clap prints, and usage errors (with a tip for a mistyped command).

use clap::error::ErrorKind;

use crate::args::Cli;
use crate::common::{EXIT_ERROR, EXIT_RESULT, note, print_out};

/// Shows a command-line error (or the help and version clap answers with) and
/// returns the exit status: 0 for `--help` and `--version` (on stdout), 1 for a
/// usage error (on stderr, as `askuser: ...`, every character that could act on a
/// terminal escaped).
pub(crate) fn usage(error: &clap::Error) -> u8 {
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
    let command = <Cli as clap::CommandFactory>::command();
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
