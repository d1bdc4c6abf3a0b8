//! Checking a replay against what a session handed its host: "record what I was
//! sent, check it later", as a library feature.
//!
//! A host keeps a [`Recording`] of what its [`Session`](crate::Session) returned,
//! per append ([`Recording::handled`]; what it caught up on with
//! [`Recording::caught`]), serialized as JSON wherever it likes (the commands have
//! a stable JSON: see [`Command`]). Later, in any process, [`verify`] replays the
//! stream from the log alone, re-derives the commands of each append, and
//! compares them with the recording: [`Verification::matches`] and a report in
//! words ([`Verification::to_text`]). `askuser log replay` does the same with the
//! protocol lines a first-format log kept beside its events
//! ([`verify_with`], comparing lines instead of commands).
//!
//! ```
//! use std::sync::Arc;
//! use askuser_core::{AnswerInput, Command, Input, InquiryId, Request, parse_form};
//! use askuser_store::{MemLog, Session};
//! use askuser_store::replay::{Recording, verify};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let log = Arc::new(MemLog::new());
//! let mut session = Session::open(log.clone(), "chat-42")?;
//! let mut recording = Recording::default();
//! let form = parse_form(&json!({"questions": [
//!     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))?;
//! let asked = session.handle(&Input::Ask(Request {
//!     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
//!     policy: Default::default(), origin: Default::default(), call: None,
//! }))?;
//! recording.handled(&asked);
//! let Command::Prompt(prompt) = &asked.commands[0] else { panic!() };
//! recording.handled(&session.handle(&AnswerInput::new(prompt.at(), json!(true)).into())?);
//!
//! // Kept as JSON, read back elsewhere, checked against the log.
//! let kept = serde_json::to_string(&recording)?;
//! let verified = verify(&*log, "chat-42", &serde_json::from_str::<Recording>(&kept)?)?;
//! assert!(verified.matches());
//! assert_eq!(
//!     verified.to_text(),
//!     "verified stream \"chat-42\": the 2 appends recorded re-derive exactly the commands recorded\n"
//! );
//! # Ok(())
//! # }
//! ```

use std::fmt::Write as _;

use askuser_core::Command;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::log::Log;
use crate::replay::{ReplayOptions, replay_with};
use crate::session::{Caught, Handled};
use crate::types::{Recorded, Seq};

/// What a host was handed for one append: the sequence number of its last
/// event and the commands it yielded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sent<T = Command> {
    /// The last event of the append.
    pub seq: Seq,
    /// What it yielded, in order.
    pub commands: Vec<T>,
}

/// What a session handed its host, append by append, in the order they were
/// recorded: `{"appends": [{"seq": 1, "commands": [...]}, ...]}`.
///
/// Record every [`Handled`] (its [`Handled::caught`] comes first) and every
/// catch-up: an append is the events after the one before it in the recording,
/// so a gap would be counted into the next append.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Each append, in order.
    pub appends: Vec<Sent>,
}

impl Recording {
    /// Records what [`Session::handle`](crate::Session::handle) (or
    /// `handle_batch`, or `create`) returned: the events it caught up on first,
    /// then its own append.
    pub fn handled(&mut self, handled: &Handled) {
        self.caught(&handled.caught);
        self.appends.push(Sent {
            seq: handled.seq,
            commands: handled.commands.clone(),
        });
    }

    /// Records what a catch-up ([`Session::catch_up`](crate::Session::catch_up),
    /// [`Session::wait`](crate::Session::wait)) applied, each event an append
    /// of its own.
    pub fn caught(&mut self, caught: &[Caught]) {
        self.appends.extend(caught.iter().map(|caught| Sent {
            seq: caught.seq,
            commands: caught.commands.clone(),
        }));
    }
}

/// One append, checked: what was recorded and what the replay re-derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Check<T = Command> {
    /// Its first event.
    pub first: Seq,
    /// Its last event.
    pub seq: Seq,
    /// What the host was handed.
    pub recorded: Vec<T>,
    /// What the replay re-derived from the events.
    pub replayed: Vec<T>,
}

impl<T: PartialEq> Check<T> {
    /// Whether the replay re-derived exactly what was recorded.
    pub fn matches(&self) -> bool {
        self.recorded == self.replayed
    }
}

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification<T = Command> {
    /// The stream.
    pub stream: String,
    /// Each append recorded, in order.
    pub checks: Vec<Check<T>>,
    /// Events of the stream after the last append recorded, which nothing
    /// recorded covers (another writer's, appended after the recording ended).
    pub unrecorded: Vec<Seq>,
    /// Appends recorded past the stream's head: the log lost them, or the
    /// recording is of another stream.
    pub missing: Vec<Seq>,
}

impl<T: PartialEq + Serialize> Verification<T> {
    /// Whether every append recorded was re-derived exactly, and the log holds
    /// each of them.
    pub fn matches(&self) -> bool {
        self.missing.is_empty() && self.checks.iter().all(Check::matches)
    }

    /// The report in words: each append that differs, with what was recorded
    /// and what was re-derived (one JSON line each), then the verdict.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let differing: Vec<&Check<T>> = self.checks.iter().filter(|c| !c.matches()).collect();
        for check in &differing {
            let span = if check.first == check.seq {
                format!("#{}", check.seq)
            } else {
                format!("#{}..#{}", check.first, check.seq)
            };
            let _ = writeln!(text, "append {span} DIFFERS:");
            for command in &check.recorded {
                let _ = writeln!(text, "  recorded: {}", json(command));
            }
            for command in &check.replayed {
                let _ = writeln!(text, "  replayed: {}", json(command));
            }
        }
        for seq in &self.missing {
            let _ = writeln!(text, "append #{seq} is not in the log");
        }
        let count = self.checks.len();
        let appends = if count == 1 { "append" } else { "appends" };
        if self.matches() {
            let _ = write!(
                text,
                "verified stream \"{}\": the {count} {appends} recorded re-derive exactly the commands recorded",
                self.stream
            );
        } else {
            let _ = write!(
                text,
                "MISMATCH in stream \"{}\": {} of {count} {appends} recorded re-derive other commands, {} not in the log",
                self.stream,
                differing.len(),
                self.missing.len()
            );
        }
        if !self.unrecorded.is_empty() {
            let _ = write!(
                text,
                "; {} later event(s) were not recorded",
                self.unrecorded.len()
            );
        }
        text.push('\n');
        text
    }
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| format!("(not serializable: {error})"))
}

/// Replays `stream` of `log` from its first event and compares the commands of
/// each append with what `recording` says the host was handed.
///
/// # Errors
///
/// As [`replay_with`]: a missing or damaged stream, or
/// [`StoreError::Compacted`](crate::StoreError::Compacted)
/// when the events were dropped (a compacted stream cannot be checked from the
/// start).
pub fn verify<L: Log + ?Sized>(
    log: &L,
    stream: &str,
    recording: &Recording,
) -> Result<Verification<Command>> {
    verify_with(log, stream, &recording.appends, &mut |_, commands| {
        commands.to_vec()
    })
}

/// [`verify`] for what a host was handed in a form of its own: `derive` turns
/// each replayed event and the commands it yielded into what the host got for
/// it (`askuser log replay` renders protocol lines), and `sent` holds what was
/// recorded per append.
///
/// # Errors
///
/// As [`verify`].
pub fn verify_with<L: Log + ?Sized, T: Clone>(
    log: &L,
    stream: &str,
    sent: &[Sent<T>],
    derive: &mut dyn FnMut(&Recorded, &[Command]) -> Vec<T>,
) -> Result<Verification<T>> {
    let mut derived: Vec<(Seq, Vec<T>)> = Vec::new();
    replay_with(
        log,
        stream,
        ReplayOptions::from_start(),
        &mut |recorded, commands| {
            derived.push((recorded.seq, derive(recorded, commands)));
        },
    )?;
    let mut events = derived.into_iter().peekable();
    let mut checks = Vec::with_capacity(sent.len());
    let mut missing = Vec::new();
    for append in sent {
        let mut replayed = Vec::new();
        let mut first = None;
        while let Some((seq, commands)) = events.next_if(|(seq, _)| *seq <= append.seq) {
            first.get_or_insert(seq);
            replayed.extend(commands);
        }
        let Some(first) = first else {
            missing.push(append.seq);
            continue;
        };
        checks.push(Check {
            first,
            seq: append.seq,
            recorded: append.commands.clone(),
            replayed,
        });
    }
    Ok(Verification {
        stream: stream.to_owned(),
        checks,
        unrecorded: events.map(|(seq, _)| seq).collect(),
        missing,
    })
}
