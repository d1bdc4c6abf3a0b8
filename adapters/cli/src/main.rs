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

use crate::common::EXIT_ERROR;
use crate::error::CliError;

const HELP: &str = "\
askuser: ask a person an LLM agent's questions, and record every step

Usage:
  askuser ask [--dialect D] [--db PATH] [--stream NAME] [--inquiry ID] [FILE|-]
      Runs one tool call's arguments as a form in the terminal and prints the
      dialect's tool result on stdout (the prompts are drawn on stderr).
  askuser ask --pending PENDING [--dialect D] [--db PATH] [FILE|-]
      Writes the questions to the file PENDING instead, and prints how to answer.
  askuser answer PENDING [--answers JSON] [--db PATH]
      Answers a pending file (from --answers, one per question by position, or
      from the file's filled-in \"answer\" fields) and prints the tool result.
  askuser resume STREAM [--db PATH]
      Asks the open inquiry of a recorded stream (a fork, say) in the terminal.
  askuser serve [--db PATH] [--stream NAME]
      The engine over JSON lines on stdin/stdout (see docs/protocol.md).
  askuser mcp [--db PATH] [--stream NAME] [--pending-dir DIR] [--http ADDR]
      An MCP server on stdin/stdout (or streamable HTTP on a loopback ADDR):
      ask_user and AskUserQuestion, asked through the client's elicitation forms
      (a client without them: a pending file in DIR, else the \"no interactive
      terminal\" error).
  askuser log list|show|replay|fork|compact|transcript|export [STREAM] [--db PATH]
      show: the events; replay: re-derive every line and compare with what was
      sent; fork STREAM --at SEQ [--into NAME]; compact STREAM [--drop];
      transcript: what was asked and answered; export: the events as JSON lines.
  askuser schema [--dialect D] [--format anthropic|openai|mcp]
      Prints the dialect's tool definition.
  askuser check [--dialect D] FILE|-
      Checks a call's arguments and prints every problem.

Dialects: jp, jp-form (the default), claude, pi.
The log: --db PATH, else $ASKUSER_DB, else $XDG_DATA_HOME/askuser/log.db, else
~/.local/share/askuser/log.db.

Exit status: 0 a result (answers, or a Reply's cancel marker); 1 askuser could
not run; 2 the call (or the answers) was rejected, its problems on stdout; 3 no
person can be asked (the message for the model on stdout); 4 the person ended the
turn (nothing on stdout); 5 questions pending in a file; 6 a replay differs from
the record.
";

fn run(args: &[String]) -> Result<u8, CliError> {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{HELP}");
        return Ok(EXIT_ERROR);
    };
    match command.as_str() {
        "ask" => ask::ask(rest),
        "answer" => ask::answer(rest),
        "resume" => ask::resume(rest),
        "serve" => serve::serve(rest),
        "mcp" => mcp::mcp(rest),
        "log" => log::log(rest),
        "schema" => tools::schema(rest),
        "check" => tools::check(rest),
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(0)
        }
        "--version" | "-V" => {
            println!("askuser {}", env!("CARGO_PKG_VERSION"));
            Ok(0)
        }
        other => Err(CliError::Usage(format!(
            "\"{other}\" is not a command; use one of ask, answer, resume, serve, log, schema, check, help"
        ))),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            // Messages may quote a file's or a model's text: shown, never obeyed.
            eprintln!(
                "askuser: {}",
                askuser_core::text::for_display(&error.to_string())
            );
            ExitCode::from(EXIT_ERROR)
        }
    }
}
