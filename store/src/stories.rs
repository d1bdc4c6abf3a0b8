//! A stream told inquiry by inquiry, as data: each inquiry with when it was
//! asked, the steps the person took (answers with their notes, Backs, changes,
//! what the client did), and how and when it ended with what it sent. The
//! history page groups a conversation by it, and the inbox's "Answered today"
//! lists the inquiries that ended today from it. Made by the same replay as the
//! transcript ([`transcript`](crate::transcript)), so both tell the same thing.

use std::collections::HashMap;
use std::sync::Arc;

use askuser_core::text::answer_words;
use askuser_core::{AnsweredBy, Command, Ending, Event, Form, InquiryId, Surface};

use crate::error::Result;
use crate::log::Log;
use crate::transcript::fold_kept;
use crate::types::{Recorded, Seq, Timestamp};
use crate::words::{agent_words, note_words};

/// An event's place in its stream and when the log recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    /// Its sequence number.
    pub seq: Seq,
    /// When it was recorded.
    pub at: Timestamp,
}

impl Moment {
    fn of(recorded: &Recorded) -> Self {
        Self {
            seq: recorded.seq,
            at: recorded.at,
        }
    }
}

/// One step of an inquiry, in the order it was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A question was answered.
    Answered {
        /// The question's text (Markdown).
        question: String,
        /// The answer in words ([`answer_words`]).
        answer: String,
        /// The note written beside it.
        note: Option<String>,
        /// Who answered it.
        by: AnsweredBy,
    },
    /// The person went back from a question (its text, Markdown).
    Back {
        /// The question they went back from, when known.
        from: Option<String>,
    },
    /// The person changed an answer from the review.
    Changed {
        /// The question's text (Markdown).
        question: String,
        /// The answer it had, in words, when known.
        was: Option<String>,
    },
    /// Something the client did that was not the person's choice, in words.
    Noted(String),
}

/// How an inquiry ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    /// When.
    pub moment: Moment,
    /// How ([`Ending::of`] the command).
    pub how: Ending,
    /// The command that ended it (what the agent was sent).
    pub command: Command,
    /// Where a person ended the turn, when the log says
    /// ([`Event::TurnEnded`]'s surface); `None` for every other ending.
    pub turn_ended_in: Option<Surface>,
}

impl Ended {
    /// What the agent got, a line per question answered: its text (Markdown),
    /// the answer in words and the note beside it. Empty when nothing was sent
    /// or no question was answered.
    pub fn answers(&self) -> Vec<(String, String, Option<String>)> {
        answers_sent(&self.command)
    }

    /// The message of a Reply or a timeout, when one went with it.
    pub fn message(&self) -> Option<&str> {
        match &self.command {
            Command::Respond { outcome, .. } => outcome.message.as_deref(),
            _ => None,
        }
    }

    /// How long the time to answer was, when it ran out.
    pub fn timed_out_after_ms(&self) -> Option<u64> {
        match &self.command {
            Command::Respond { outcome, .. } => outcome.timed_out_after_ms(),
            _ => None,
        }
    }
}

/// What `result` sent, a line per question answered: its text (Markdown),
/// the answer in words ([`answer_words`]) and the note beside it. Empty when
/// it sent no answers. The one rule for "what the agent got" on every page.
pub fn answers_sent(result: &Command) -> Vec<(String, String, Option<String>)> {
    let Command::Respond { outcome, .. } = result else {
        return Vec::new();
    };
    let answers = outcome.to_map();
    (outcome.form.questions().iter().enumerate())
        .filter_map(|(index, question)| {
            let answer = answers.get(&question.id).filter(|a| !a.is_null())?;
            let note = (outcome.answers.get(index))
                .and_then(Option::as_ref)
                .and_then(|slot| slot.note.clone())
                .filter(|note| !note.trim().is_empty());
            Some((question.text.clone(), answer_words(answer), note))
        })
        .collect()
}

/// One inquiry of a stream, as its history tells it.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    /// The inquiry.
    pub inquiry: InquiryId,
    /// When it was asked.
    pub asked: Moment,
    /// Who asks (its policy's label), when named.
    pub label: Option<String>,
    /// The texts of its questions (Markdown), in the form's order.
    pub questions: Vec<String>,
    /// What was done, in order.
    pub steps: Vec<(Moment, Step)>,
    /// How it ended; `None` while it is open.
    pub ended: Option<Ended>,
}

/// A stream's history, an entry per inquiry or per agent coming and going.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// An inquiry, from its request on.
    Inquiry(Box<Story>),
    /// An agent started or stopped waiting on the stream, in words.
    Agent(Moment, String),
}

/// Every inquiry of `stream` (and every agent coming and going), in the order
/// they started; events a compaction dropped are not told.
///
/// # Errors
///
/// As [`transcript`](crate::transcript).
pub fn stories<L: Log + ?Sized>(log: &L, stream: &str) -> Result<Vec<Entry>> {
    let (teller, _) = fold_kept(log, stream, |_| Teller::default(), Teller::observe)?;
    Ok(teller.entries)
}

/// Builds the entries from replayed events and their commands.
#[derive(Default)]
struct Teller {
    entries: Vec<Entry>,
    /// Where each open inquiry's story is in `entries`.
    open: HashMap<InquiryId, usize>,
    /// The forms of the open inquiries.
    forms: HashMap<InquiryId, Arc<Form>>,
    /// The question each open inquiry asks now (its form's index).
    asking: HashMap<InquiryId, usize>,
}

impl Teller {
    fn observe(&mut self, recorded: &Recorded, commands: &[Command]) {
        let moment = Moment::of(recorded);
        match &recorded.event {
            Event::Requested(request) if !commands.is_empty() => {
                self.forms
                    .insert(request.inquiry.clone(), Arc::clone(&request.form));
                self.open
                    .insert(request.inquiry.clone(), self.entries.len());
                self.entries.push(Entry::Inquiry(Box::new(Story {
                    inquiry: request.inquiry.clone(),
                    asked: moment,
                    label: request.policy.label.clone(),
                    questions: (request.form.questions.iter())
                        .map(|q| q.text.clone())
                        .collect(),
                    steps: Vec::new(),
                    ended: None,
                })));
            }
            Event::Attached { origin } => self.entries.push(Entry::Agent(
                moment,
                format!("{} started waiting", agent_words(origin)),
            )),
            Event::Detached { origin } => self.entries.push(Entry::Agent(
                moment,
                format!("{} stopped waiting", agent_words(origin)),
            )),
            event if !commands.is_empty() || matches!(event, Event::ClientNoted { .. }) => {
                if let Some(step) = self.step(event) {
                    self.push(event.inquiry(), moment, step);
                }
            }
            _ => {}
        }
        let turn_ended_in = match &recorded.event {
            Event::TurnEnded { surface, .. } => *surface,
            _ => None,
        };
        for command in commands {
            self.command(moment, command, turn_ended_in);
        }
    }

    /// The step `event` is, when it is one the person (or the client) took.
    fn step(&self, event: &Event) -> Option<Step> {
        Some(match event {
            Event::Answered {
                inquiry,
                question,
                value,
                by,
                note,
                ..
            } => Step::Answered {
                question: self.text(inquiry, question),
                answer: answer_words(value),
                note: note.clone().filter(|note| !note.trim().is_empty()),
                by: *by,
            },
            Event::Back { inquiry } => Step::Back {
                from: self.asked(inquiry),
            },
            Event::ChangeWanted { inquiry, question } => Step::Changed {
                question: self.text(inquiry, question),
                was: self.was(inquiry, question),
            },
            Event::ClientNoted { note, .. } => Step::Noted(note_words(note)),
            _ => return None,
        })
    }

    fn push(&mut self, inquiry: Option<&InquiryId>, moment: Moment, step: Step) {
        let Some(index) = inquiry.and_then(|inquiry| self.open.get(inquiry)) else {
            return;
        };
        if let Some(Entry::Inquiry(story)) = self.entries.get_mut(*index) {
            story.steps.push((moment, step));
        }
    }

    /// Follows `command`, given when the event recorded at `moment` was
    /// applied (a turn ended `turn_ended_in`, when one was).
    fn command(&mut self, moment: Moment, command: &Command, turn_ended_in: Option<Surface>) {
        match command {
            Command::Prompt(prompt) => {
                self.asking.insert(prompt.inquiry.clone(), prompt.index);
            }
            Command::Review { inquiry, .. } => {
                self.asking.remove(inquiry);
            }
            _ => {
                let Some(how) = Ending::of(command) else {
                    return;
                };
                let Some(inquiry) = command_inquiry(command) else {
                    return;
                };
                if let Some(index) = self.open.remove(inquiry)
                    && let Some(Entry::Inquiry(story)) = self.entries.get_mut(index)
                {
                    story.ended = Some(Ended {
                        moment,
                        how,
                        command: command.clone(),
                        turn_ended_in: turn_ended_in.filter(|_| how == Ending::TurnEnded),
                    });
                }
                self.forms.remove(inquiry);
                self.asking.remove(inquiry);
            }
        }
    }

    /// The text of `question` of `inquiry` (its id when the form is unknown).
    fn text(&self, inquiry: &InquiryId, question: &str) -> String {
        (self.forms.get(inquiry))
            .and_then(|form| form.questions.iter().find(|q| q.id == question))
            .map_or_else(|| question.to_owned(), |q| q.text.clone())
    }

    /// The text of the question `inquiry` asks now.
    fn asked(&self, inquiry: &InquiryId) -> Option<String> {
        let form = self.forms.get(inquiry)?;
        let index = *self.asking.get(inquiry)?;
        form.questions.get(index).map(|q| q.text.clone())
    }

    /// The last answer given to `question` of `inquiry`, in words.
    fn was(&self, inquiry: &InquiryId, question: &str) -> Option<String> {
        let text = self.text(inquiry, question);
        let index = self.open.get(inquiry)?;
        let Some(Entry::Inquiry(story)) = self.entries.get(*index) else {
            return None;
        };
        story.steps.iter().rev().find_map(|(_, step)| match step {
            Step::Answered {
                question, answer, ..
            } if *question == text => Some(answer.clone()),
            _ => None,
        })
    }
}

/// The inquiry a command that ends one ends.
fn command_inquiry(command: &Command) -> Option<&InquiryId> {
    match command {
        Command::Respond { inquiry, .. }
        | Command::Fail { inquiry, .. }
        | Command::EndTurn { inquiry }
        | Command::Reject { inquiry, .. } => Some(inquiry),
        _ => None,
    }
}
