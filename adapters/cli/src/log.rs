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
    /// How long ago, in words (`5 min ago`, `yesterday 17:02` in local
    /// time), by the log's clock.
    Ago,
    /// Exact, in UTC, to the second (`--utc`: `2026-11-30 02:33:39 UTC`).
    Utc,
    /// Every stream as a JSON object, times exact (`--json`).
    Json,
}

fn list(log: &Arc<dyn Log>, db: &Path, times: Times, out: &mut impl Write) -> Result<(), CliError> {
    let streams = log.streams()?;
    let mut journal = Desk::new(Arc::clone(log));
    let now = journal.now();
    let offset_ms = local_offset_ms(now.millis());
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
            Times::Ago => ago(info.created_at.millis(), now.millis(), offset_ms),
            _ => utc_words(info.created_at),
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

/// How far the local time (`TZ`, or the system's time zone) is ahead of UTC
/// at `at` (milliseconds since the epoch), in milliseconds: what `log list`
/// reads once to say "yesterday 17:02".
fn local_offset_ms(at: u64) -> i64 {
    use chrono::{Local, Offset, TimeZone};
    i64::try_from(at)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or(0, |utc| {
            let offset = Local.offset_from_utc_datetime(&utc.naive_utc());
            i64::from(offset.fix().local_minus_utc()) * 1000
        })
}

/// When `then` was, seen from `now` (both in milliseconds since the epoch),
/// in words a person reads at a glance, in the local time `offset_ms` ahead
/// of UTC: `just now`, `12 min ago`, `today 09:14`, `yesterday 17:02`,
/// `4 days ago`, then the date.
fn ago(then: u64, now: u64, offset_ms: i64) -> String {
    const MINUTE: u64 = 60_000;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: i64 = 86_400_000;
    const WEEK: u64 = 7 * 86_400_000;
    let local = |at: u64| {
        i64::try_from(at)
            .unwrap_or(i64::MAX)
            .saturating_add(offset_ms)
    };
    let day = |at: u64| local(at).div_euclid(DAY);
    let clock = |at: u64| {
        let minutes = local(at).rem_euclid(DAY) / 60_000;
        format!("{:02}:{:02}", minutes / 60, minutes % 60)
    };
    let days = day(now) - day(then);
    match now.saturating_sub(then) {
        0..MINUTE => "just now".to_owned(),
        d @ MINUTE..HOUR => format!("{} min ago", d / MINUTE),
        _ if days <= 0 => format!("today {}", clock(then)),
        _ if days == 1 => format!("yesterday {}", clock(then)),
        HOUR..=WEEK => format!("{days} days ago"),
        _ => {
            let local = u64::try_from(local(then)).unwrap_or(0);
            let exact = Timestamp(local).to_string();
            format!("on {}", exact.get(..10).unwrap_or(&exact))
        }
    }
}

/// A moment exactly, in UTC, to the second: `2026-11-30 02:33:39 UTC`.
fn utc_words(at: Timestamp) -> String {
    let exact = at.to_string();
    match (exact.get(..10), exact.get(11..19)) {
        (Some(date), Some(time)) => format!("{date} {time} UTC"),
        _ => exact,
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
    use super::{ago, utc_words};
    use askuser_app::log::Timestamp;

    #[test]
    fn creation_times_read_as_how_long_ago_in_local_time() {
        // 2026-11-30 12:00 local, an hour east of UTC.
        let offset = 3_600_000;
        let now = 1_796_036_400_000;
        let minutes = |m: u64| now - m * 60_000;
        let ago = |then: u64| ago(then, now, offset);
        assert_eq!(ago(now), "just now");
        assert_eq!(ago(now + 5_000), "just now");
        assert_eq!(ago(minutes(3)), "3 min ago");
        assert_eq!(ago(minutes(3 * 60 + 5)), "today 08:55");
        assert_eq!(ago(minutes(12 * 60 + 1)), "yesterday 23:59");
        assert_eq!(ago(minutes(18 * 60 + 58)), "yesterday 17:02");
        assert_eq!(ago(minutes(4 * 24 * 60)), "4 days ago");
        assert_eq!(ago(minutes(40 * 24 * 60)), "on 2026-10-21");
    }

    #[test]
    fn an_exact_time_is_utc_to_the_second() {
        assert_eq!(
            utc_words(Timestamp(1_796_002_419_123)),
            "2026-11-30 01:33:39 UTC"
        );
    }
}
