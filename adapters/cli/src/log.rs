//! `askuser log ...`: the recorded sessions.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use askuser_app::Desk;
use askuser_app::log::{Log, Seq, Timestamp};
use askuser_core::text::{for_display, for_display_line};
use askuser_rpc::{describe_event, replay};

use crate::args::{LogCommand, StreamArgs};
use crate::common::{
    EXIT_ERROR, EXIT_MISMATCH, EXIT_RESULT, db_hint, db_path, json_for_display, open_journal,
    open_reading, print_out, shell_word,
};
use crate::error::CliError;

/// `askuser log SUBCOMMAND ...`
pub(crate) fn log(command: &LogCommand) -> Result<u8, CliError> {
    if let LogCommand::Salvage { from, to } = command {
        return salvage(from, to);
    }
    let (of, db) = match command {
        LogCommand::Salvage { .. } => unreachable!("salvage is handled above"),
        LogCommand::List { db, .. } => (None, db),
        LogCommand::Show(of)
        | LogCommand::Replay(of)
        | LogCommand::Transcript(of)
        | LogCommand::Export(of)
        | LogCommand::Fork { of, .. }
        | LogCommand::Compact { of, .. } => (Some(of), &of.db),
    };
    let db = db_path(db.db.as_deref())?;
    let writes = matches!(
        command,
        LogCommand::Fork { .. } | LogCommand::Compact { .. }
    );
    let log = if writes {
        open_journal(&db)?.log().clone()
    } else {
        open_reading(&db)?
    };
    let mut out = std::io::stdout().lock();
    let Some(StreamArgs { stream, .. }) = of else {
        let times = match command {
            LogCommand::List { json: true, .. } => Times::Json,
            LogCommand::List { utc: true, .. } => Times::Utc,
            _ => Times::Ago,
        };
        list(&log, &db, times, &mut out)?;
        out.flush()?;
        return Ok(EXIT_RESULT);
    };
    match command {
        LogCommand::List { .. } | LogCommand::Salvage { .. } => {}
        LogCommand::Show(_) => show(&*log, stream, &mut out)?,
        LogCommand::Replay(_) => {
            let report = replay(&*log, stream)?;
            write!(out, "{}", for_display(&report.to_text()))?;
            // An MCP session's elicitation rounds, derived again and compared.
            let rounds = askuser_mcp::check_rounds(&*log, stream)?;
            write!(out, "{}", for_display(&askuser_mcp::rounds_text(&rounds)))?;
            if !report.matches() || !rounds.iter().all(askuser_mcp::RoundCheck::matches) {
                out.flush()?;
                return Ok(EXIT_MISMATCH);
            }
        }
        LogCommand::Fork { at, into, .. } => {
            fork(&*log, stream, *at, into.as_deref(), &db, &mut out)?;
        }
        LogCommand::Compact { drop, .. } => {
            let done = askuser_app::log::compact::compact(&*log, stream, *drop)?;
            let shown = for_display_line(stream);
            write!(out, "stream \"{shown}\": snapshot at #{}", done.snapshot)?;
            if *drop {
                write!(out, "; dropped {} events", done.dropped)?;
            }
            // What is left, stored a few events at a time, becomes full blocks.
            let packed = askuser_app::log::compact::repack(&*log, stream)?;
            if packed.events > 0 {
                let blocks = if packed.values_after == 1 {
                    "block"
                } else {
                    "blocks"
                };
                write!(
                    out,
                    "; repacked {} events from {} values into {} {blocks}",
                    packed.events, packed.values_before, packed.values_after
                )?;
            }
            writeln!(out)?;
        }
        LogCommand::Transcript(_) => {
            let text = askuser_app::log::transcript(&*log, stream)?;
            writeln!(out, "{}", for_display(text.trim_end()))?;
        }
        LogCommand::Export(_) => export(&*log, stream, &mut out)?,
    }
    out.flush()?;
    Ok(EXIT_RESULT)
}

/// `askuser log salvage FROM TO`: exit 0 when every event was copied, 1 when some
/// were lost (the report says which).
fn salvage(from: &Path, to: &Path) -> Result<u8, CliError> {
    let report = askuser_app::location::salvage(from, to)?;
    print_out(&format!("{}\n", for_display(report.to_string().trim_end())))?;
    Ok(if report.is_complete() {
        EXIT_RESULT
    } else {
        EXIT_ERROR
    })
}

/// How `askuser log list` tells when each stream was created.
#[derive(Clone, Copy, PartialEq)]
enum Times {
    /// How long ago, in words (`5 min ago`), by the log's clock.
    Ago,
    /// Exact, in UTC (`--utc`).
    Utc,
    /// Every stream as a JSON object, times exact (`--json`).
    Json,
}

fn list(log: &Arc<dyn Log>, db: &Path, times: Times, out: &mut impl Write) -> Result<(), CliError> {
    let streams = log.streams()?;
    let mut journal = Desk::new(Arc::clone(log));
    let now = journal.now();
    if streams.is_empty() && times != Times::Json {
        let shown = for_display_line(&db.to_string_lossy()).into_owned();
        writeln!(out, "no streams are recorded in {shown}")?;
    }
    for info in streams {
        let status = stream_status(&mut journal, &info.name);
        if times == Times::Json {
            let line = serde_json::json!({
                "stream": info.name,
                "events": info.head,
                "created_at": info.created_at.to_string(),
                "created_at_ms": info.created_at.millis(),
                "forked_from": info.parent.as_ref().map(|p| serde_json::json!({"stream": p.stream, "at": p.at})),
                "compacted_through": info.floor,
                "status": status,
            });
            writeln!(out, "{line}")?;
            continue;
        }
        let events = if info.head == 1 { "event" } else { "events" };
        let created = match times {
            Times::Ago => ago(info.created_at.millis(), now.millis()),
            _ => info.created_at.to_string(),
        };
        write!(
            out,
            "{}  {} {events}, created {created}",
            for_display_line(&info.name),
            info.head,
        )?;
        if let Some(parent) = &info.parent {
            let shown = for_display_line(&parent.stream);
            write!(out, ", forked from \"{shown}\" at #{}", parent.at)?;
        }
        if info.floor > 0 {
            write!(out, ", compacted through #{}", info.floor)?;
        }
        writeln!(out, "; {status}")?;
    }
    Ok(())
}

/// How long before `now` the time `then` was, in words a person reads at a
/// glance (both in milliseconds since the epoch): `just now`, `12 min ago`,
/// `3 h ago`, `yesterday`, `4 days ago`, then the date.
fn ago(then: u64, now: u64) -> String {
    const MINUTE: u64 = 60_000;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    const TWO_DAYS: u64 = 2 * DAY;
    const WEEK: u64 = 7 * DAY;
    match now.saturating_sub(then) {
        0..MINUTE => "just now".to_owned(),
        d @ MINUTE..HOUR => format!("{} min ago", d / MINUTE),
        d @ HOUR..DAY => format!("{} h ago", d / HOUR),
        DAY..TWO_DAYS => "yesterday".to_owned(),
        d @ TWO_DAYS..=WEEK => format!("{} days ago", d / DAY),
        _ => {
            let exact = Timestamp(then).to_string();
            format!("on {}", exact.get(..10).unwrap_or(&exact))
        }
    }
}

/// Where a stream stands, in words, from the read side (one replay of the
/// stream: [`askuser_app::Desk::view`]): `open` (with how many inquiries
/// wait), or how its last inquiry ended (`answered`, `replied`, `turn ended`, `timed
/// out`, `failed`, `rejected`); `unreadable` when it cannot be replayed.
fn stream_status(journal: &mut Desk, stream: &str) -> String {
    match journal.view(stream) {
        Ok(Some(view)) => view.status().words(),
        Ok(None) => "finished".to_owned(),
        Err(_) => "unreadable (see `askuser log show`)".to_owned(),
    }
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

/// The events of a stream as JSON lines. A stream whose first events were dropped
/// by compaction starts with its snapshot, one line
/// `{"stream":…,"snapshot":{"seq":…,"taken_at":…,"state":{…}}}`, then the events
/// after it; without that snapshot nothing is printed and the error says why.
fn export(log: &dyn Log, stream: &str, out: &mut impl Write) -> Result<(), CliError> {
    let mut lines = Vec::new();
    askuser_app::log::export::json_lines(log, stream, &mut lines)?;
    // Each line is JSON; what could act on a terminal becomes a `\uXXXX` escape.
    for line in String::from_utf8_lossy(&lines).lines() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(value) => writeln!(out, "{}", json_for_display(&value))?,
            Err(_) => writeln!(out, "{}", for_display_line(line))?,
        }
    }
    Ok(())
}

fn fork(
    log: &dyn Log,
    stream: &str,
    at: Seq,
    into: Option<&str>,
    db: &Path,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let name = into.map_or_else(|| format!("{stream}.fork-{at}"), str::to_owned);
    let created = log.fork(stream, at, &name)?;
    let (parent, fork) = (for_display_line(stream), for_display_line(&created.name));
    let command = format!(
        "askuser resume {}{}",
        shell_word(created.name.as_ref()),
        db_hint(db)
    );
    writeln!(
        out,
        "forked \"{parent}\" after #{at} into \"{fork}\"; continue it with `{command}`"
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ago;

    #[test]
    fn creation_times_read_as_how_long_ago() {
        let now = 1_796_000_000_000;
        let minutes = |m: u64| now - m * 60_000;
        assert_eq!(ago(now, now), "just now");
        assert_eq!(ago(now + 5_000, now), "just now");
        assert_eq!(ago(minutes(12), now), "12 min ago");
        assert_eq!(ago(minutes(3 * 60 + 5), now), "3 h ago");
        assert_eq!(ago(minutes(30 * 60), now), "yesterday");
        assert_eq!(ago(minutes(4 * 24 * 60), now), "4 days ago");
        assert_eq!(ago(minutes(40 * 24 * 60), now), "on 2026-10-21");
    }
}
