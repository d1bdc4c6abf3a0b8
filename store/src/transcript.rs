//! Transcripts: a stream told as plain sentences of what was asked and answered.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use askuser_core::text::{answer_words, duration_words};
use askuser_core::{AnsweredBy, Command, Ending, Event, Form, InquiryId, Slot, State, ValidForm};
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::log::Log;
use crate::replay::{fold, latest_snapshot};
use crate::types::{Recorded, Snapshot};
use crate::words::{agent_words, answer_sentence, note_words};

/// A readable summary of what was asked and answered in `stream`, one sentence per
/// line (`Asked "Which database?"; the answer was PostgreSQL.`): the text an agent
/// puts into a compacted conversation, and what `askuser log transcript` prints.
/// Events dropped by compaction are summarized by a note. Every control, bidi-control
/// and invisible character from a model or a person is shown as a visible escape
/// ([`askuser_core::text::for_display`]), so the text is safe to print.
///
/// # Errors
///
/// As [`replay_with`](crate::replay::replay_with).
pub fn transcript<L: Log + ?Sized>(log: &L, stream: &str) -> Result<String> {
    let (transcriber, state) = fold_kept(log, stream, Transcriber::new, Transcriber::observe)?;
    Ok(transcriber.finish(&state))
}

/// Replays every event `stream` keeps into an observer `make` builds (handed
/// the snapshot it starts from, when the stream was compacted), with
/// `observe` called for each event and its commands; the observer and the
/// state at the head.
///
/// # Errors
///
/// As [`replay_with`](crate::replay::replay_with).
pub(crate) fn fold_kept<L: Log + ?Sized, T>(
    log: &L,
    stream: &str,
    make: impl Fn(Option<&Snapshot>) -> T,
    observe: impl Fn(&mut T, &Recorded, &[Command]),
) -> Result<(T, State)> {
    let info = log.info(stream)?;
    let mut start: Option<Snapshot> = None;
    loop {
        let mut observer = make(start.as_ref());
        let result = fold(log, stream, start.clone(), info.head, &mut |r, c| {
            observe(&mut observer, r, c);
        });
        match result {
            Ok(replayed) => return Ok((observer, replayed.state)),
            Err(StoreError::Compacted { floor, .. })
                if start.as_ref().is_none_or(|s| s.seq < floor) =>
            {
                match latest_snapshot(log, stream, floor)? {
                    Some(snapshot) if snapshot.seq >= floor => start = Some(snapshot),
                    _ => {
                        return Err(StoreError::Compacted {
                            stream: stream.to_owned(),
                            floor,
                        });
                    }
                }
            }
            Err(other) => return Err(other),
        }
    }
}

/// Builds a transcript from replayed events and their commands. Holds only the
/// open inquiries' forms and the text written so far.
pub(crate) struct Transcriber {
    out: String,
    /// The forms of the inquiries seen requested and not finished yet.
    forms: HashMap<InquiryId, Arc<Form>>,
    /// The question each open inquiry is asking now (index into its form;
    /// [`REVIEWING`] while its review shows).
    asking: HashMap<InquiryId, usize>,
    /// The answers recorded for each open inquiry, in form order (Back drops
    /// them again), to tell what was given when a turn ends.
    given: HashMap<InquiryId, Vec<(String, Value)>>,
    /// What each open inquiry's client did that was not the person's choice,
    /// told at the end of its block.
    notes: HashMap<InquiryId, Vec<String>>,
}

/// The place of an inquiry showing its review, in [`Transcriber::asking`].
const REVIEWING: usize = usize::MAX;

impl Transcriber {
    pub(crate) fn new(start: Option<&Snapshot>) -> Self {
        let mut out = String::new();
        if let Some(snapshot) = start {
            let _ = writeln!(
                out,
                "(The first {} events were compacted; what they asked and answered is not retold here.)",
                snapshot.seq
            );
        }
        Self {
            out,
            forms: HashMap::new(),
            asking: HashMap::new(),
            given: HashMap::new(),
            notes: HashMap::new(),
        }
    }

    pub(crate) fn observe(&mut self, recorded: &Recorded, commands: &[Command]) {
        if let Event::Requested(request) = &recorded.event
            && !commands.is_empty()
        {
            self.forms
                .insert(request.inquiry.clone(), Arc::clone(&request.form));
        }
        match &recorded.event {
            Event::Answered {
                inquiry,
                question,
                value,
                by,
                ..
            } if !commands.is_empty() && *by != AnsweredBy::Assistant => {
                let given = self.given.entry(inquiry.clone()).or_default();
                // An answer given ahead is now given in its turn.
                given.retain(|(id, _)| id != question);
                given.push((question.clone(), value.clone()));
            }
            Event::AnsweredAhead {
                inquiry,
                question,
                value,
            } => {
                let given = self.given.entry(inquiry.clone()).or_default();
                given.push((question.clone(), value.clone()));
            }
            Event::Back { inquiry } if !commands.is_empty() => {
                // Told at the end of the inquiry's block, as a step the person took.
                if let Some(text) = self.asked(inquiry) {
                    let notes = self.notes.entry(inquiry.clone()).or_default();
                    notes.push(format!("The user went back from \"{text}\"."));
                }
                // Back drops the last answer the person gave (and any after it).
                if let Some(given) = self.given.get_mut(inquiry) {
                    given.pop();
                }
            }
            Event::ChangeWanted { inquiry, question } if !commands.is_empty() => {
                let was = self.given.get(inquiry).and_then(|given| {
                    given
                        .iter()
                        .rev()
                        .find(|(id, _)| id == question)
                        .map(|(_, v)| answer_words(v))
                });
                let text = self.forms.get(inquiry).and_then(|form| {
                    form.questions
                        .iter()
                        .find(|q| &q.id == question)
                        .map(|q| q.text.clone())
                });
                let text = text.unwrap_or_else(|| question.clone());
                let notes = self.notes.entry(inquiry.clone()).or_default();
                notes.push(match was {
                    Some(was) => {
                        format!("The user changed the answer to \"{text}\" (it was {was}).")
                    }
                    None => format!("The user changed the answer to \"{text}\"."),
                });
            }
            Event::Attached { origin } => {
                let _ = writeln!(self.out, "{} started waiting.", agent_words(origin));
            }
            Event::Detached { origin } => {
                let _ = writeln!(self.out, "{} stopped waiting.", agent_words(origin));
            }
            Event::ClientNoted { inquiry, note } => {
                let notes = self.notes.entry(inquiry.clone()).or_default();
                notes.push(format!("{}.", note_words(note)));
            }
            _ => {}
        }
        for command in commands {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Prompt(prompt) => {
                self.asking.insert(prompt.inquiry.clone(), prompt.index);
            }
            Command::AskAssistant {
                inquiry, question, ..
            } => {
                let index = self
                    .forms
                    .get(inquiry)
                    .and_then(|form| form.questions.iter().position(|q| &q.id == question));
                if let Some(index) = index {
                    self.asking.insert(inquiry.clone(), index);
                }
            }
            Command::Review { inquiry, .. } => {
                self.asking.insert(inquiry.clone(), REVIEWING);
            }
            Command::Respond { inquiry, outcome } => {
                let ending = Ending::of(command);
                self.block_start();
                answers(
                    &mut self.out,
                    &outcome.form,
                    &outcome.answers,
                    ending == Some(Ending::Answered),
                );
                if ending == Some(Ending::Replied) {
                    let reviewing = self.asking.get(inquiry) == Some(&REVIEWING);
                    let _ = match self.asked(inquiry) {
                        _ if reviewing => writeln!(
                            self.out,
                            "The user reviewed these answers and chose to reply instead of sending them."
                        ),
                        Some(text) => writeln!(
                            self.out,
                            "The user chose to reply instead of answering \"{text}\"."
                        ),
                        None => writeln!(self.out, "The user chose to reply instead of answering."),
                    };
                    if let Some(message) = &outcome.message {
                        let _ = writeln!(self.out, "The user replied: {message}");
                    }
                }
                self.timed_out(outcome);
                self.done(inquiry);
            }
            Command::Fail {
                inquiry, reason, ..
            } => {
                self.block_start();
                let why = reason.as_str().replace('_', " ");
                self.given_before_the_end(inquiry, &why);
                let _ = match self.asked(inquiry) {
                    Some(text) => writeln!(self.out, "Could not ask \"{text}\" ({why})."),
                    None => writeln!(self.out, "Could not ask the questions ({why})."),
                };
                self.done(inquiry);
            }
            Command::EndTurn { inquiry } => {
                self.block_start();
                self.given_before_the_end(inquiry, "the turn ended");
                let reviewing = self.asking.get(inquiry) == Some(&REVIEWING);
                let _ = match self.asked(inquiry) {
                    _ if reviewing => writeln!(
                        self.out,
                        "The user ended the turn on the review of these answers; none was sent."
                    ),
                    Some(text) => writeln!(
                        self.out,
                        "The user ended the turn while being asked \"{text}\"."
                    ),
                    None => writeln!(self.out, "The user ended the turn."),
                };
                self.done(inquiry);
            }
            Command::Reject {
                inquiry, problems, ..
            } => {
                self.block_start();
                let first = problems
                    .first()
                    .map(|p| format!("{}: {}", p.path, p.message))
                    .unwrap_or_default();
                let _ = writeln!(
                    self.out,
                    "A form was rejected as invalid ({} problem{}; first: {first}).",
                    problems.len(),
                    if problems.len() == 1 { "" } else { "s" }
                );
                self.done(inquiry);
            }
            Command::InvalidAnswer { .. } => {}
        }
    }

    /// That the time to answer ran out, in words, when it did, with the
    /// message the person was typing then (it went with the timeout).
    fn timed_out(&mut self, outcome: &askuser_core::Outcome) {
        let Some(after_ms) = outcome.timed_out_after_ms() else {
            return;
        };
        let _ = writeln!(
            self.out,
            "The user did not answer within {}; the question timed out.",
            duration_words(after_ms)
        );
        if let Some(message) = &outcome.message {
            let _ = writeln!(
                self.out,
                "The user's message, sent as the time ran out: {message}"
            );
        }
    }

    /// The text of the question `inquiry` is asking (or its first, if none yet).
    fn asked(&self, inquiry: &InquiryId) -> Option<String> {
        let form = self.forms.get(inquiry)?;
        let index = self.asking.get(inquiry).copied().unwrap_or(0);
        form.questions.get(index).map(|q| q.text.clone())
    }

    fn done(&mut self, inquiry: &InquiryId) {
        self.tell_notes(inquiry);
        self.forms.remove(inquiry);
        self.asking.remove(inquiry);
        self.given.remove(inquiry);
    }

    /// What `inquiry`'s client did that was not the person's choice, one
    /// sentence a line.
    fn tell_notes(&mut self, inquiry: &InquiryId) {
        for note in self.notes.remove(inquiry).unwrap_or_default() {
            let _ = writeln!(self.out, "{note}");
        }
    }

    /// One sentence per answer the person gave to an inquiry whose turn ends.
    /// The answers given to `inquiry` that were never sent, and `why` not.
    fn given_before_the_end(&mut self, inquiry: &InquiryId, why: &str) {
        let (Some(form), Some(given)) = (self.forms.get(inquiry), self.given.get(inquiry)) else {
            return;
        };
        for (question, value) in given {
            let text = form
                .questions
                .iter()
                .find(|q| &q.id == question)
                .map_or(question.as_str(), |q| q.text.as_str());
            let _ = writeln!(
                self.out,
                "Asked \"{text}\"; the answer was {} (not sent: {why}).",
                answer_words(value)
            );
        }
    }

    fn block_start(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    /// The transcript, with the inquiries still open in `state` at the end.
    pub(crate) fn finish(mut self, state: &State) -> String {
        for inquiry in state.open_inquiries() {
            let (Some(form), Some(slots)) = (state.form(inquiry), state.answers(inquiry)) else {
                continue;
            };
            self.block_start();
            answers(&mut self.out, form, slots, false);
            let waiting = match state.pending(inquiry) {
                Some(Command::Prompt(prompt)) => Some(prompt.question().text.clone()),
                Some(Command::AskAssistant { question, .. }) => form
                    .index_of(&question)
                    .map(|index| form.question(index).text.clone()),
                _ => None,
            };
            if let Some(text) = waiting {
                let _ = writeln!(self.out, "Still waiting for an answer to \"{text}\".");
            }
            self.tell_notes(inquiry);
        }
        // Every text in it came from a model or a person: shown, never obeyed.
        askuser_core::text::for_display(&self.out).into_owned()
    }
}

/// One sentence per answered question (and, when `skipped`, per skipped one).
fn answers(out: &mut String, form: &ValidForm, slots: &[Option<Slot>], skipped: bool) {
    for (index, question) in form.questions().iter().enumerate() {
        let text = &question.text;
        let _ = match slots.get(index).and_then(Option::as_ref) {
            Some(slot) => {
                let sentence = answer_sentence(text, &slot.answer.to_value(question), slot.by);
                match slot.note.as_deref().filter(|note| !note.trim().is_empty()) {
                    Some(note) => writeln!(out, "{sentence} The user's note beside it: {note}"),
                    None => writeln!(out, "{sentence}"),
                }
            }
            None if skipped => writeln!(out, "Did not ask \"{text}\" (it did not apply)."),
            None => Ok(()),
        };
    }
}
