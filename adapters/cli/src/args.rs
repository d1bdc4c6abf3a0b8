//! The command line, defined once with clap: the parser, `askuser help`, every
//! `--help`, and the README's command table (`command_table`, built for the
//! tests) all come from these definitions.

use std::path::PathBuf;

use askuser_app::log::Seq;
use askuser_dialects::{Dialect, Provider};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

const EXIT_STATUS: &str = "\
The log: --db PATH, else $ASKUSER_DB, else $XDG_DATA_HOME/askuser/log.db, else
~/.local/share/askuser/log.db.

Exit status: 0 a result (answers, or a Reply's cancel marker); 1 askuser could
not run (a usage error, a file, the log); 2 the call was rejected (its problems
on stdout), or `answer` refused the answers or a pending file that no longer
matches the log (why on stderr; nothing recorded); 3 no person can be asked (the
message for the model on stdout); 4 the person ended the turn (nothing on
stdout); 5 questions pending in a file; 6 a replay differs from the record. When
another surface finishes the inquiry while `ask` or `resume` waits, they say how
it ended, print its result and exit with its status, as if they had finished it.
A closed standard output ends askuser quietly.";

/// `askuser`: ask a person an LLM agent's questions, and record every step.
#[derive(Debug, Parser)]
#[command(
    name = "askuser",
    version,
    about = "askuser: ask a person an LLM agent's questions, and record every step",
    after_help = EXIT_STATUS,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub(crate) command: Commands,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Commands {
    /// Runs a tool call's arguments as a form in the terminal and prints the dialect's tool result (prompts on stderr)
    Ask(AskArgs),
    /// Answers a pending file (from --answers, or from its filled-in "answer" fields) and prints the tool result
    Answer(AnswerArgs),
    /// Asks the open inquiry of a recorded stream (a fork, say) in the terminal
    Resume(ResumeArgs),
    /// The engine over JSON lines on stdin/stdout (see docs/protocol.md)
    Serve(ServeArgs),
    /// An MCP server on stdin/stdout (or loopback HTTP): `ask_user` and `AskUserQuestion` through the client's forms
    Mcp(McpArgs),
    /// A web inbox of every open question of every stream, answered from a browser (prints its secret URL)
    Web(WebArgs),
    /// The recorded sessions: every run is a stream in the log
    #[command(subcommand)]
    Log(LogCommand),
    /// Prints the dialect's tool definition, to give a model
    Schema(SchemaArgs),
    /// Checks a call's arguments and prints every problem
    Check(CheckArgs),
    /// Adds askuser's MCP server to a host's configuration (claude-code, codex, gemini-cli, opencode, vscode, cursor), keeping the rest of the file; `setup inbox` runs the web inbox as your own service
    Setup(SetupArgs),
}

/// `askuser web`.
#[derive(Debug, Args)]
pub(crate) struct WebArgs {
    /// The address to listen on (loopback unless --tls-cert or --insecure-http)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    pub(crate) listen: std::net::SocketAddr,
    /// Serve HTTPS with this PEM certificate chain (with --tls-key)
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub(crate) tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub(crate) tls_key: Option<std::path::PathBuf>,
    /// A name people use to reach the server (inbox.example, or inbox.example:8443); repeat for more. The Host header must be one of them or the address
    #[arg(long, value_name = "NAME")]
    pub(crate) allow_host: Vec<String>,
    /// Serve plain HTTP on a non-loopback address: anyone on the network path can read the questions and the token
    #[arg(long, conflicts_with = "tls_cert")]
    pub(crate) insecure_http: bool,
    /// Post a small JSON (stream, inquiry, question, link) to this http(s) URL each time a question starts waiting (an IPv6 host in brackets; 3 tries of at most 5 s each)
    #[arg(long, value_name = "URL")]
    pub(crate) notify: Option<String>,
    /// Keep the secret token in FILE (made readable by you only when missing), so the link and the browser's cookie outlive a restart
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<std::path::PathBuf>,
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
}

/// `--db`: where the log is.
#[derive(Debug, Args)]
pub(crate) struct DbArg {
    /// The log database
    #[arg(long, value_name = "PATH", env = "ASKUSER_DB")]
    pub(crate) db: Option<PathBuf>,
}

/// `askuser ask`.
#[derive(Debug, Args)]
pub(crate) struct AskArgs {
    /// The call's dialect (read from the call's shape when not given)
    #[arg(long, value_name = "DIALECT", value_parser = dialect_parser())]
    pub(crate) dialect: Option<Dialect>,
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// The stream to record in (default: a new one named after the repository or directory, billing-api-1; ask-TIME-PID when there is no usable name)
    #[arg(long, value_name = "NAME")]
    pub(crate) stream: Option<String>,
    /// The agent's name, shown in the inbox as who is asking (default: the agent host that runs askuser, told by the variable it sets, such as CLAUDECODE=1 for Claude Code; else none)
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The inquiry's id (default: call-N, where N is the next event number)
    #[arg(long, value_name = "ID")]
    pub(crate) inquiry: Option<String>,
    /// Writes the questions to this file instead of asking, and prints how to answer them
    #[arg(long, value_name = "PENDING")]
    pub(crate) pending: Option<PathBuf>,
    /// Seconds the person has for each question (a countdown shows in the last 20; any key resets it)
    #[arg(long, value_name = "SECONDS", env = "ASKUSER_TIMEOUT",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub(crate) timeout: Option<u64>,
    /// When the time is up: `cancel` (send the answers so far), `defaults` (fill the rest with their defaults) or `end_turn`
    #[arg(long, value_name = "ACTION", env = "ASKUSER_ON_TIMEOUT", requires = "timeout",
          value_parser = ["cancel", "defaults", "end_turn"], default_value = "cancel")]
    pub(crate) on_timeout: String,
    /// The call's arguments as JSON (- or nothing: standard input)
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}

/// `askuser answer`.
#[derive(Debug, Args)]
pub(crate) struct AnswerArgs {
    /// The pending file that `askuser ask --pending` wrote
    #[arg(value_name = "PENDING")]
    pub(crate) file: PathBuf,
    /// The answers as a JSON list, one per question in order (null for one that is skipped)
    #[arg(long, value_name = "JSON")]
    pub(crate) answers: Option<String>,
    /// The log (default: the one the pending file names)
    #[arg(long, value_name = "PATH")]
    pub(crate) db: Option<PathBuf>,
}

/// `askuser resume`.
#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The stream
    #[arg(value_name = "STREAM")]
    pub(crate) stream: String,
    /// The inquiry to ask (default: the stream's open one)
    #[arg(long, value_name = "ID")]
    pub(crate) inquiry: Option<String>,
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
}

/// `askuser serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// The stream to record in (default: a new one named after the repository or directory, billing-api-1; serve-TIME-PID when there is no usable name)
    #[arg(long, value_name = "NAME")]
    pub(crate) stream: Option<String>,
    /// The agent's name, shown in the inbox as who is asking (`Claude Code`)
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
}

/// `askuser mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// The stream to record in (default: a new one named after the repository or directory, billing-api-1; mcp-TIME-PID when there is no usable name)
    #[arg(long, value_name = "NAME")]
    pub(crate) stream: Option<String>,
    /// The agent's name, shown in the inbox as who is asking (default: the name and version the MCP client gives)
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// For a client that cannot show forms: also write the questions to a pending file in DIR, answered later with askuser answer (else, once the wait runs out, the call fails, saying this client cannot show forms)
    #[arg(long, value_name = "DIR")]
    pub(crate) pending_dir: Option<PathBuf>,
    /// When nobody can answer at the client (no forms, no person at it): how many seconds the call waits for an answer from another window (askuser web, askuser answer, askuser resume); 0: not at all (default: 5 s less than the client's own tool-call timeout, at most 600)
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub(crate) wait: Option<u64>,
    /// A form cancelled or declined sooner than this many milliseconds after it went out is taken as no person at the client (a headless run), not as the person's choice; 0: never
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub(crate) no_person_below: u64,
    /// Serve streamable HTTP at this loopback address (`127.0.0.1:PORT` or `[::1]:PORT`) instead of stdio
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// Policy fields every call is recorded with, as a JSON object (`{"target": "assistant", "exclusive": false}`: the client's model answers, through sampling)
    #[arg(long, value_name = "JSON")]
    pub(crate) policy: Option<String>,
    /// Serve the tools as `PREFIX_ask_user` and `PREFIX_AskUserQuestion`, for a host whose own tools would shadow theirs (Gemini CLI's `ask_user`)
    #[arg(long, value_name = "PREFIX")]
    pub(crate) tool_prefix: Option<String>,
}

/// `askuser setup`.
#[derive(Debug, Args)]
pub(crate) struct SetupArgs {
    /// The host to set up, or `inbox`: the web inbox as your own systemd user service
    #[arg(value_name = "HOST", value_parser = host_parser())]
    pub(crate) host: String,
    /// The log the host's askuser records in (made absolute)
    #[command(flatten)]
    pub(crate) db: DbArg,
    /// Whose configuration: the person's own (user), or the project's in this directory (project)
    #[arg(long, value_name = "SCOPE", value_parser = ["user", "project"], default_value = "user")]
    pub(crate) scope: String,
    /// Print the change as a diff of the file, and write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Connect the host to `askuser mcp --http ADDR` (a loopback address) with the log's token in its headers, in your own configuration only
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// Do not allow askuser's tools in the host's permissions (Claude Code's allow rule, Codex's approval, Gemini CLI's trust): the host then asks before each call, and a headless run cannot call them
    #[arg(long)]
    pub(crate) no_allow: bool,
    /// With `inbox`: stop, disable and remove the inbox's systemd user unit
    #[arg(long)]
    pub(crate) remove: bool,
}

/// `askuser schema`.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The dialect
    #[arg(long, value_name = "DIALECT", value_parser = dialect_parser(), default_value = "jp-form")]
    pub(crate) dialect: Dialect,
    /// The provider's shape of a tool definition
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(), default_value = "anthropic")]
    pub(crate) format: Provider,
}

/// `askuser check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The call's dialect (read from the call's shape when not given)
    #[arg(long, value_name = "DIALECT", value_parser = dialect_parser())]
    pub(crate) dialect: Option<Dialect>,
    /// The call's arguments as JSON (- for standard input)
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
}

/// A stream of the log, and the log.
#[derive(Debug, Args)]
pub(crate) struct StreamArgs {
    /// The stream
    #[arg(value_name = "STREAM")]
    pub(crate) stream: String,
    /// The log.
    #[command(flatten)]
    pub(crate) db: DbArg,
}

/// `askuser log ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum LogCommand {
    /// Lists the streams, with their events, when each was created (`3 min ago`, `yesterday 17:02` in local time; `--utc`: exact, to the second; `--json`: exact, with milliseconds), forks, compaction and status (open, answered, replied, ended, timed out)
    List {
        /// The log.
        #[command(flatten)]
        db: DbArg,
        /// Creation times exact, in UTC, rather than how long ago
        #[arg(long)]
        utc: bool,
        /// One JSON object per stream, one per line (exact times)
        #[arg(long, conflicts_with = "utc")]
        json: bool,
    },
    /// Prints a stream's events
    Show(StreamArgs),
    /// Re-derives every line of a stream from its events and compares them with what was sent
    Replay(StreamArgs),
    /// Branches a stream after an event, to answer differently from there
    Fork {
        /// The stream and the log.
        #[command(flatten)]
        of: StreamArgs,
        /// The last event to keep
        #[arg(long, value_name = "SEQ")]
        at: Seq,
        /// The new stream's name (default: STREAM.fork-SEQ)
        #[arg(long, value_name = "NAME")]
        into: Option<String>,
    },
    /// Saves a snapshot of a stream's state at its head, and rewrites events stored a few at a time as full blocks
    Compact {
        /// The stream and the log.
        #[command(flatten)]
        of: StreamArgs,
        /// Also drops the events the snapshot covers
        #[arg(long)]
        drop: bool,
    },
    /// Prints what was asked and answered, in words: notes, Backs and changed answers included
    Transcript(StreamArgs),
    /// Prints a stream's events as JSON lines (after a snapshot line for a compacted stream)
    Export(StreamArgs),
    /// Copies every event of a damaged sled log that can still be read into a new log, and says what was lost
    Salvage {
        /// The damaged log (it is only read)
        #[arg(value_name = "FROM")]
        from: PathBuf,
        /// Where to write the new log (a path that does not exist yet)
        #[arg(value_name = "TO")]
        to: PathBuf,
    },
}

fn dialect_parser() -> impl TypedValueParser<Value = Dialect> {
    PossibleValuesParser::new(Dialect::ALL.map(Dialect::name))
        .try_map(|name| Dialect::from_name(&name).ok_or("an unknown dialect"))
}

/// The hosts `askuser setup` knows, by key.
fn host_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        askuser_mcp::clients::KNOWN_CLIENTS
            .iter()
            .filter(|client| client.setup.is_some())
            .map(|client| client.key)
            .chain(["inbox"]),
    )
}

fn format_parser() -> impl TypedValueParser<Value = Provider> {
    PossibleValuesParser::new(Provider::ALL.map(Provider::name))
        .try_map(|name| Provider::from_name(&name).ok_or("an unknown format"))
}

#[cfg(test)]
/// The README's table of commands, rendered from the definitions: one row per
/// command (and per `log` subcommand) with its synopsis and what it does.
pub(crate) fn command_table() -> String {
    use std::fmt::Write as _;
    let mut root = <Cli as clap::CommandFactory>::command();
    root.build();
    let mut table = String::from("| command | what it does |\n|---|---|\n");
    let visible = |command: &&clap::Command| command.get_name() != "help";
    for command in root.get_subcommands().filter(visible) {
        let mut rows = vec![(vec![command.get_name()], command)];
        if command.has_subcommands() {
            rows = command
                .get_subcommands()
                .filter(visible)
                .map(|sub| (vec![command.get_name(), sub.get_name()], sub))
                .collect();
        }
        for (names, command) in rows {
            let synopsis = synopsis(&names, command).replace('|', "\\|");
            let about = command.get_about().map(ToString::to_string);
            let about = about.unwrap_or_default().replace('|', "\\|");
            // Writing to a String cannot fail.
            let _ = writeln!(table, "| `{synopsis}` | {about} |");
        }
    }
    table
}

#[cfg(test)]
/// `askuser NAMES [--option VALUE]... POSITIONAL...`, without `--help`.
fn synopsis(names: &[&str], command: &clap::Command) -> String {
    let mut words = vec!["askuser".to_owned()];
    words.extend(names.iter().map(|n| (*n).to_owned()));
    let arguments = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help");
    let (positionals, options): (Vec<_>, Vec<_>) = arguments.partition(|a| a.is_positional());
    for option in options {
        let long = option.get_long().unwrap_or_default();
        let choices: Vec<_> = option.get_possible_values();
        let word = match option.get_value_names() {
            _ if (1..=3).contains(&choices.len()) => {
                let names: Vec<&str> = choices
                    .iter()
                    .map(clap::builder::PossibleValue::get_name)
                    .collect();
                format!("--{long} {}", names.join("|"))
            }
            Some([value, ..]) if option.get_action().takes_values() => {
                format!("--{long} {value}")
            }
            _ => format!("--{long}"),
        };
        words.push(if option.is_required_set() {
            word
        } else {
            format!("[{word}]")
        });
    }
    for positional in positionals {
        let value = positional
            .get_value_names()
            .and_then(|v| v.first())
            .map_or_else(|| positional.get_id().to_string(), ToString::to_string);
        words.push(if positional.is_required_set() {
            value
        } else {
            format!("[{value}]")
        });
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// Every `askuser` command written in a shell block (or as an MCP client's
    /// `command`/`args`) of the README, the docs and the store crate's docs parses
    /// with these definitions, as written.
    #[test]
    fn every_documented_command_parses_as_written() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = vec![root.join("README.md"), root.join("store/src/lib.rs")];
        let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
            .expect("docs/ exists")
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
        let mut checked = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a documentation file");
            for command in documented_commands(&text) {
                checked += 1;
                let words = shell_words(&command);
                match Cli::try_parse_from(&words) {
                    Ok(_) => {}
                    Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {}
                    Err(e) => panic!(
                        "{}: `{command}` does not parse as written:\n{e}",
                        file.display()
                    ),
                }
            }
        }
        assert!(
            checked >= 5,
            "only {checked} documented commands were found"
        );
    }

    /// The `askuser` command lines of `text`'s shell blocks (in Markdown or in
    /// `//!` docs; a `# comment` and a `| pipe` cut off), and the `args` of a JSON
    /// line whose `command` is `askuser`.
    fn documented_commands(text: &str) -> Vec<String> {
        let mut commands = Vec::new();
        let mut in_shell = false;
        for line in text.lines() {
            let line = line.trim_start_matches("//!").trim();
            if let Some(fence) = line.strip_prefix("```") {
                in_shell = !in_shell && matches!(fence, "sh" | "bash" | "console" | "shell");
                continue;
            }
            if in_shell {
                let line = line.strip_prefix("$ ").unwrap_or(line);
                let line = line.split(" # ").next().unwrap_or(line);
                let line = line.split(" | ").next().unwrap_or(line).trim();
                if line.starts_with("askuser ") {
                    commands.push(line.to_owned());
                } else if let Some(args) = line
                    .strip_prefix("cargo run -p askuser-cli -- ")
                    .or_else(|| line.strip_prefix("cargo run --release -p askuser-cli -- "))
                {
                    commands.push(format!("askuser {args}"));
                }
            }
            if line.contains("\"command\": \"askuser\"")
                && let Some(at) = line.find("\"args\": [")
            {
                let rest = &line[at + "\"args\": ".len()..];
                let end = rest.find(']').map_or(rest.len(), |i| i + 1);
                let args: Vec<String> =
                    serde_json::from_str(&rest[..end]).expect("args is a JSON list");
                let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
                commands.push(format!("askuser {}", quoted.join(" ")));
            }
        }
        commands
    }

    /// A command line split as a shell would (single and double quotes, `$VAR`
    /// left as it is).
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quote = None;
        let mut started = false;
        for c in line.chars() {
            match (quote, c) {
                (None, '\'' | '"') => {
                    quote = Some(c);
                    started = true;
                }
                (Some(q), c) if c == q => quote = None,
                (None, c) if c.is_whitespace() => {
                    if started {
                        words.push(std::mem::take(&mut word));
                        started = false;
                    }
                }
                (_, c) => {
                    word.push(c);
                    started = true;
                }
            }
        }
        if started {
            words.push(word);
        }
        words
    }

    /// `askuser setup`'s line in `askuser help` names every host it knows.
    #[test]
    fn the_setup_command_names_every_host_of_the_table() {
        let keys: Vec<&str> = askuser_mcp::clients::KNOWN_CLIENTS
            .iter()
            .map(|client| client.key)
            .collect();
        let command = Cli::command();
        let setup = command.find_subcommand("setup").expect("askuser setup");
        let about = setup
            .get_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(about.contains(&format!("({})", keys.join(", "))), "{about}");
    }

    #[test]
    fn the_readme_table_is_rendered_from_the_definitions() {
        let readme = include_str!("../../../README.md");
        let table = command_table();
        assert!(
            readme.contains(&table),
            "README.md must hold this table exactly (rendered from adapters/cli/src/args.rs):\n{table}"
        );
    }
}
