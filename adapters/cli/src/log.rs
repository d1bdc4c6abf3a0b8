//! `askuser log ...`: the recorded sessions.

use std::io::Write;

use askuser_rpc::{describe_event, replay};
use std::path::Path;

use askuser_store::{Log, Seq};

use crate::args::{Parsed, parse};
use crate::common::{EXIT_MISMATCH, EXIT_RESULT, db_path, open_journal};
use crate::error::CliError;

const SUBCOMMANDS: &str = "list, show, replay, fork, compact, transcript, export";

/// `askuser log SUBCOMMAND ...`
pub fn log(args: &[String]) -> Result<u8, CliError> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(CliError::Usage(format!(
            "`askuser log` needs a subcommand: {SUBCOMMANDS}"
        )));
    };
    let (options, flags): (&[&'static str], &[&'static str]) = match sub.as_str() {
        "fork" => (&["db", "at", "into"], &[]),
        "compact" => (&["db"], &["drop"]),
        "list" | "show" | "replay" | "transcript" | "export" => (&["db"], &[]),
        other => {
            return Err(CliError::Usage(format!(
                "`askuser log {other}` is not a subcommand; use one of {SUBCOMMANDS}"
            )));
        }
    };
    let command = format!("log {sub}");
    let parsed = parse(&command, rest, options, flags)?;
    if sub == "list" {
        parsed.expect_positionals(&command, &[], 0)?;
    } else {
        parsed.expect_positionals(&command, &["stream"], 0)?;
    }
    let db = db_path(&parsed)?;
    let journal = open_journal(&db)?;
    let log = journal.log().clone();
    let mut out = std::io::stdout().lock();
    if sub == "list" {
        list(&*log, &db, &mut out)?;
        return Ok(EXIT_RESULT);
    }
    let stream = parsed.positionals[0].as_str();
    match sub.as_str() {
        "show" => show(&*log, stream, &mut out)?,
        "replay" => {
            let report = replay(&*log, stream)?;
            write!(out, "{}", report.to_text())?;
            if !report.matches() {
                return Ok(EXIT_MISMATCH);
            }
        }
        "fork" => fork(&*log, stream, &parsed, &mut out)?,
        "compact" => {
            let done = askuser_store::compact::compact(&*log, stream, parsed.flag("drop"))?;
            write!(out, "stream \"{stream}\": snapshot at #{}", done.snapshot)?;
            if parsed.flag("drop") {
                write!(out, "; dropped {} events", done.dropped)?;
            }
            writeln!(out)?;
        }
        "transcript" => {
            let text = askuser_store::transcript(&*log, stream)?;
            writeln!(out, "{}", text.trim_end())?;
        }
        "export" => {
            askuser_store::export::json_lines(&*log, stream, &mut out)?;
        }
        _ => unreachable!("subcommands are checked above"),
    }
    out.flush()?;
    Ok(EXIT_RESULT)
}

fn list(log: &dyn Log, db: &Path, out: &mut impl Write) -> Result<(), CliError> {
    let streams = log.streams()?;
    if streams.is_empty() {
        writeln!(out, "no streams are recorded in {}", db.display())?;
    }
    for info in streams {
        let events = if info.head == 1 { "event" } else { "events" };
        write!(
            out,
            "{}  {} {events}, created {}",
            info.name, info.head, info.created_at
        )?;
        if let Some(parent) = &info.parent {
            write!(out, ", forked from \"{}\" at #{}", parent.stream, parent.at)?;
        }
        if info.floor > 0 {
            write!(out, ", compacted through #{}", info.floor)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn show(log: &dyn Log, stream: &str, out: &mut impl Write) -> Result<(), CliError> {
    let info = log.info(stream)?;
    let events = if info.head == 1 { "event" } else { "events" };
    writeln!(out, "stream \"{stream}\": {} {events}", info.head)?;
    if info.floor > 0 {
        writeln!(out, "(events through #{} were compacted away)", info.floor)?;
    }
    for recorded in log.read(stream, info.floor + 1)? {
        match recorded {
            Ok(r) => writeln!(out, "#{} {}  {}", r.seq, r.at, describe_event(&r.event))?,
            Err(error) => writeln!(out, "unreadable: {error}")?,
        }
    }
    Ok(())
}

fn fork(
    log: &dyn Log,
    stream: &str,
    parsed: &Parsed,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let at: Seq = match parsed.option("at") {
        Some(text) => text.parse().map_err(|_| {
            CliError::Usage(format!(
                "--at {text} is not an event number; see `askuser log show {stream}`"
            ))
        })?,
        None => {
            return Err(CliError::Usage(
                "`askuser log fork` needs --at SEQ: the last event to keep".into(),
            ));
        }
    };
    let name = parsed
        .option("into")
        .map_or_else(|| format!("{stream}.fork-{at}"), str::to_owned);
    let info = log.fork(stream, at, &name)?;
    writeln!(
        out,
        "forked \"{stream}\" after #{at} into \"{}\"; continue it with `askuser resume {}`",
        info.name, info.name
    )?;
    Ok(())
}
