//! Replaying a recorded stream: re-deriving every command and protocol line from
//! the events alone, and comparing them with the lines recorded when they were sent.

use std::fmt::Write as _;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use askuser_app::log::Recorded;
use askuser_app::log::replay::{
    Check, ReplayOptions, Sent, latest_snapshot, legacy_outputs, load, replay as replay_all,
    replay_with, verify_with,
};
use askuser_app::log::{Log, Seq, StoreError, Timestamp};
use askuser_core::{Command, Event, InquiryId, State};
use askuser_dialects::Call;
use serde_json::Value;

use crate::output::command_line;
use askuser_app::Result;
use askuser_app::parse_recorded;

/// One event of a replay, with what it re-derives and what was recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedEvent {
    /// The event's sequence number.
    pub seq: Seq,
    /// When it was appended.
    pub at: Timestamp,
    /// The event.
    pub event: Event,
    /// The protocol lines its commands re-derive to.
    pub outputs: Vec<Value>,
    /// The lines recorded when it was applied, in a log of the first format (which
    /// kept them beside the events); `None` where none were recorded (today's format
    /// records the events alone: their lines are re-derived from them).
    pub recorded: Option<Vec<Value>>,
    /// Whether the re-derived lines are the recorded ones (`None`: nothing
    /// recorded), read as the first format wrote them (a `prompt` or `review`
    /// line's `step`, which the protocol gained since, is not compared), as the
    /// library's replay check ([`verify_with`]) found.
    matched: Option<bool>,
}

impl ReplayedEvent {
    /// Whether the re-derived lines are the recorded ones (`None`: nothing recorded),
    /// read as the first format wrote them: a `prompt` or `review` line's `step`,
    /// which the protocol gained since, is not compared.
    pub fn matches(&self) -> Option<bool> {
        self.matched
    }
}

/// A protocol line as the first log format recorded it: without the `step` a
/// `prompt` or `review` line has carried since.
fn as_first_format(line: &Value) -> Value {
    let mut line = line.clone();
    if matches!(line["type"].as_str(), Some("prompt" | "review"))
        && let Value::Object(object) = &mut line
    {
        object.remove("step");
    }
    line
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayReport {
    /// The stream.
    pub stream: String,
    /// The snapshot the replay had to start from (the events before it were dropped
    /// by compaction); `None` when it started from the first event.
    pub from_snapshot: Option<Seq>,
    /// Every event replayed, in order.
    pub events: Vec<ReplayedEvent>,
    /// When the stream has a snapshot and its events were kept: whether the state
    /// loaded from the latest snapshot plus the tail equals the state replayed from
    /// the first event, and the snapshot's sequence number.
    pub snapshot_check: Option<(Seq, bool)>,
}

impl ReplayReport {
    /// Whether everything that was recorded was re-derived exactly (and the
    /// snapshot, if any, agrees with the events).
    pub fn matches(&self) -> bool {
        self.events.iter().all(|e| e.matches() != Some(false))
            && self.snapshot_check.is_none_or(|(_, same)| same)
    }

    /// The final lines (`result`, `failed`, `turn_ended`, `rejected`), in order.
    pub fn final_lines(&self) -> Vec<&Value> {
        self.events
            .iter()
            .flat_map(|e| &e.outputs)
            .filter(|line| {
                matches!(
                    line["type"].as_str(),
                    Some("result" | "failed" | "turn_ended" | "rejected")
                )
            })
            .collect()
    }

    /// The report as text: each event with its re-derived lines (and the recorded
    /// ones where they differ), the final results, and the verdict.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let count = self.events.len();
        let _ = match self.from_snapshot {
            None => writeln!(
                text,
                "replaying stream \"{}\": {count} event{} from the start",
                self.stream,
                plural(count)
            ),
            Some(seq) => writeln!(
                text,
                "replaying stream \"{}\": {count} event{} after the snapshot at #{seq} (the events before it were compacted away)",
                self.stream,
                plural(count)
            ),
        };
        for event in &self.events {
            let _ = writeln!(text, "#{} {}", event.seq, describe_event(&event.event));
            for line in &event.outputs {
                let _ = writeln!(text, "  -> {line}");
            }
            // Today's format records events alone: there is nothing to compare.
            if let (Some(recorded), Some(false)) = (&event.recorded, event.matches()) {
                for line in recorded {
                    let _ = writeln!(text, "  recorded: {line}");
                }
                text.push_str("  DIFFERS from what was recorded\n");
            }
        }
        for line in self.final_lines() {
            let inquiry = line["inquiry"].as_str().unwrap_or("?");
            let _ = match line["type"].as_str() {
                Some("result") => writeln!(text, "result of {inquiry}: {}", line["result"]),
                Some("turn_ended") => writeln!(text, "{inquiry}: the turn ended (no tool result)"),
                _ => writeln!(
                    text,
                    "tool error of {inquiry}: {}",
                    line["tool_error"].as_str().unwrap_or("")
                ),
            };
        }
        if let Some((seq, same)) = self.snapshot_check {
            let _ = writeln!(
                text,
                "the state loaded from the snapshot at #{seq} {} the state replayed from the first event",
                if same { "equals" } else { "DIFFERS from" }
            );
        }
        let recorded: Vec<&ReplayedEvent> = self
            .events
            .iter()
            .filter(|e| e.recorded.is_some())
            .collect();
        let differing: Vec<String> = recorded
            .iter()
            .filter(|e| e.matches() == Some(false))
            .map(|e| format!("#{}", e.seq))
            .collect();
        let unrecorded = count - recorded.len();
        if recorded.is_empty() {
            let _ = write!(
                text,
                "replayed: the {count} event{} re-derive their lines from the log alone (this log records events, not the lines sent)",
                plural(count)
            );
            text.push('\n');
            return text;
        }
        if differing.is_empty() {
            let _ = write!(
                text,
                "match: the {} recorded event{} re-derive exactly the lines that were sent",
                recorded.len(),
                plural(recorded.len())
            );
        } else {
            let _ = write!(
                text,
                "MISMATCH: {} of {} recorded events re-derive lines other than those sent ({})",
                differing.len(),
                recorded.len(),
                differing.join(", ")
            );
        }
        if unrecorded > 0 {
            let _ = write!(
                text,
                "; {unrecorded} event{} had no recorded lines to compare",
                plural(unrecorded)
            );
        }
        text.push('\n');
        text
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// Replays `stream` from its first event (or, if compaction dropped events, from
/// the snapshot that replaced them), re-deriving each event's protocol lines and
/// reading the recorded ones; the library's replay check ([`verify_with`])
/// compares them, each recorded event an append of its own.
///
/// # Errors
/// When the log or the records cannot be read (a missing stream included).
pub fn replay(log: &dyn Log, stream: &str) -> Result<ReplayReport> {
    let info = log.info(stream)?;
    // Each recorded event an append of its own, in order.
    let mut sent: Vec<Sent<Value>> = Vec::new();
    for seq in 1..=info.head {
        if let Some(commands) = recorded_outputs(log, stream, seq)? {
            sent.push(Sent { seq, commands });
        }
    }
    let mut recorded: HashMap<Seq, Vec<Value>> = sent
        .iter()
        .map(|append| (append.seq, append.commands.clone()))
        .collect();
    let mut lines = Lines::default();
    let derived: RefCell<Vec<ReplayedEvent>> = RefCell::default();
    let mut derive = |event: &Recorded, commands: &[Command]| {
        let outputs = lines.of(&event.event, commands);
        let compared = if recorded.contains_key(&event.seq) {
            outputs.iter().map(as_first_format).collect()
        } else {
            Vec::new()
        };
        derived.borrow_mut().push(ReplayedEvent {
            seq: event.seq,
            at: event.at,
            event: event.event.clone(),
            outputs,
            recorded: None,
            matched: None,
        });
        compared
    };
    let (from_snapshot, matched) = match verify_with(log, stream, &sent, &mut derive) {
        Ok(verification) => {
            let matched = verification
                .checks
                .iter()
                .map(|check| (check.seq, check.matches()))
                .collect();
            (None, matched)
        }
        // The events before a snapshot were compacted away: replayed from it,
        // each recorded event after it is checked alone.
        Err(StoreError::Compacted { .. }) => {
            derived.borrow_mut().clear();
            let mut matched = HashMap::new();
            let replayed = replay_with(
                log,
                stream,
                ReplayOptions::latest(),
                &mut |event, commands| {
                    let compared = derive(event, commands);
                    if let Some(lines) = recorded.get(&event.seq) {
                        let check = Check {
                            first: event.seq,
                            seq: event.seq,
                            recorded: lines.clone(),
                            replayed: compared,
                        };
                        matched.insert(event.seq, check.matches());
                    }
                },
            )?;
            (replayed.snapshot, matched)
        }
        Err(other) => return Err(other.into()),
    };
    let mut events = derived.into_inner();
    for event in &mut events {
        event.matched = matched.get(&event.seq).copied();
        event.recorded = recorded.remove(&event.seq);
    }
    // A snapshot of events still kept: the state loaded from it must be the
    // state replayed from the first event.
    let snapshot_check = match latest_snapshot(log, stream, info.head)? {
        Some(snapshot) if from_snapshot.is_none() => {
            let loaded = load(log, stream)?.state;
            let replayed = replay_all(log, stream, ReplayOptions::from_start())?.state;
            Some((snapshot.seq, same_state(&loaded, &replayed)))
        }
        _ => None,
    };
    Ok(ReplayReport {
        stream: stream.to_owned(),
        from_snapshot,
        events,
        snapshot_check,
    })
}

/// Renders replayed commands as protocol lines: each inquiry's call (for its
/// dialect's result) and timeout, learnt from its `Requested` event.
#[derive(Default)]
struct Lines {
    calls: HashMap<InquiryId, Option<Arc<Call>>>,
    timeouts: HashMap<InquiryId, askuser_core::Timeout>,
}

impl Lines {
    /// The lines `commands`, yielded by `event`, re-derive to.
    fn of(&mut self, event: &Event, commands: &[Command]) -> Vec<Value> {
        if let Event::Requested(request) = event {
            let call = request.call.as_ref().and_then(parse_recorded).map(Arc::new);
            self.calls.insert(request.inquiry.clone(), call);
            if let Some(timeout) = request.policy.timeout {
                self.timeouts.insert(request.inquiry.clone(), timeout);
            }
        }
        commands
            .iter()
            .map(|command| {
                let inquiry = command_inquiry(command);
                let call = self.calls.get(inquiry).and_then(Option::as_deref);
                command_line(command, call, self.timeouts.get(inquiry).copied())
            })
            .collect()
    }
}

fn same_state(a: &State, b: &State) -> bool {
    a == b
}

/// The lines recorded for event `seq` of `stream`, looked up in the stream it was
/// forked from when the event is inherited.
fn recorded_outputs(log: &dyn Log, stream: &str, seq: Seq) -> Result<Option<Vec<Value>>> {
    let mut name = stream.to_owned();
    for _ in 0..1000 {
        let parent = log.stream(&name)?.and_then(|info| info.parent);
        match parent {
            Some(parent) if seq <= parent.at => name = parent.stream,
            _ => return Ok(legacy_outputs(log, &name, seq)?),
        }
    }
    Ok(None)
}

/// One event in words, as `log replay` and `log show` print it: the long form of
/// the one renderer ([`askuser_app::log::words`]): `requested c1 (3 questions: apply,
/// env, note)`, `answered c1: apply = true`, `back c1`, `reply c1`, `turn ended
/// c1`, `timed out c1`.
pub fn describe_event(event: &Event) -> String {
    askuser_app::log::words::event_words(event, None, askuser_app::log::words::Length::Long)
}

/// The inquiry a command is about.
fn command_inquiry(command: &Command) -> &InquiryId {
    match command {
        Command::Prompt(prompt) => &prompt.inquiry,
        Command::AskAssistant { inquiry, .. }
        | Command::Respond { inquiry, .. }
        | Command::Fail { inquiry, .. }
        | Command::EndTurn { inquiry }
        | Command::Reject { inquiry, .. }
        | Command::Review { inquiry, .. }
        | Command::InvalidAnswer { inquiry, .. } => inquiry,
    }
}
