//! `askuser log ...`: the recorded sessions.

use std::io::Write;

use askuser_core::text::{for_display, for_display_line};
use askuser_rpc::{describe_event, replay};
use std::path::Path;

use askuser_store::{Log, Seq};

use crate::args::{Parsed, parse};
use crate::common::{EXIT_MISMATCH, EXIT_RESULT, db_path, json_for_display, open_journal};
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
            write!(out, "{}", for_display(&report.to_text()))?;
            if !report.matches() {
                return Ok(EXIT_MISMATCH);
            }
        }
        "fork" => fork(&*log, stream, &parsed, &mut out)?,
        "compact" => {
            let done = askuser_store::compact::compact(&*log, stream, parsed.flag("drop"))?;
            let shown = for_display_line(stream);
            write!(out, "stream \"{shown}\": snapshot at #{}", done.snapshot)?;
            if parsed.flag("drop") {
                write!(out, "; dropped {} events", done.dropped)?;
            }
            writeln!(out)?;
        }
        "transcript" => {
            let text = askuser_store::transcript(&*log, stream)?;
            writeln!(out, "{}", for_display(text.trim_end()))?;
        }
        "export" => {
            // Each line is JSON; what could act on a terminal becomes a `\uXXXX` escape.
            let mut lines = Vec::new();
            askuser_store::export::json_lines(&*log, stream, &mut lines)?;
            for line in String::from_utf8_lossy(&lines).lines() {
                match serde_json::from_str::<serde_json::Value>(line) {
                    Ok(value) => writeln!(out, "{}", json_for_display(&value))?,
                    Err(_) => writeln!(out, "{}", for_display_line(line))?,
                }
            }
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
            for_display_line(&info.name),
            info.head,
            info.created_at
        )?;
        if let Some(parent) = &info.parent {
            let shown = for_display_line(&parent.stream);
            write!(out, ", forked from \"{shown}\" at #{}", parent.at)?;
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
    let shown = for_display_line(stream);
    writeln!(out, "stream \"{shown}\": {} {events}", info.head)?;
    if info.floor > 0 {
        writeln!(out, "(events through #{} were compacted away)", info.floor)?;
    }
    for recorded in log.read(stream, info.floor + 1)? {
        match recorded {
            Ok(r) => {
                let event = describe_event(&r.event);
                writeln!(out, "#{} {}  {}", r.seq, r.at, for_display(&event))?;
            }
            Err(error) => writeln!(out, "unreadable: {}", for_display(&error.to_string()))?,
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
    let (parent, fork) = (for_display_line(stream), for_display_line(&info.name));
    writeln!(
        out,
        "forked \"{parent}\" after #{at} into \"{fork}\"; continue it with `askuser resume {fork}`"
    )?;
    Ok(())
}
