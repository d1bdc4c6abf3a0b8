//! Walking one form through elicitation rounds: what to ask next, and the answers
//! of a round handed to the engine in the order it asks them.

use std::collections::BTreeMap;

use askuser_core::{Answer, AnsweredBy, Command, Event, InquiryId, ValidForm};
use askuser_llm::dialect::mcp::{read_field, round_schema};
use askuser_store::StoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::recorder::{Recorded, Recorder};
use crate::rounds::{plan, progress};

/// One round: the message and `requestedSchema` to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Round {
    /// The questions it holds (indices into the form).
    pub(crate) questions: Vec<usize>,
    /// The elicitation's message.
    pub(crate) message: String,
    /// The flat `requestedSchema`.
    pub(crate) schema: Value,
}

/// Where a form's walk stands.
pub(crate) struct Walk {
    form: ValidForm,
    inquiry: InquiryId,
    /// The question the engine asks now.
    current: usize,
    /// Answered in the engine, or skipped.
    settled: Vec<bool>,
    /// The engine's answers so far, for the gates.
    answers: Vec<Option<Answer>>,
    /// Answers given in a round, waiting for the engine to reach their question.
    held: BTreeMap<usize, Value>,
    /// Why a question's last answer was refused, until it is answered.
    refused: BTreeMap<usize, String>,
}

/// A walk's position, to carry between requests (sealed in MRTR's `requestState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Saved {
    current: usize,
    settled: Vec<bool>,
    answers: Vec<Option<Value>>,
    held: BTreeMap<usize, Value>,
    refused: BTreeMap<usize, String>,
}

impl Saved {
    /// The question the engine was asking.
    pub(crate) fn current(&self) -> usize {
        self.current
    }
}

/// The end of a walk: the command that finished it.
pub(crate) type Finished = Box<Command>;

impl Walk {
    /// A walk from the engine's first commands; the command that already finished
    /// it (a failure, say) when there is nothing to ask.
    pub(crate) fn start(
        form: ValidForm,
        inquiry: InquiryId,
        commands: Vec<Command>,
    ) -> Result<Walk, Finished> {
        let count = form.len();
        let mut walk = Walk {
            form,
            inquiry,
            current: 0,
            settled: vec![false; count],
            answers: vec![None; count],
            held: BTreeMap::new(),
            refused: BTreeMap::new(),
        };
        match walk.follow(commands) {
            Some(finished) => Err(finished),
            None => Ok(walk),
        }
    }

    /// The inquiry walked.
    pub(crate) fn inquiry(&self) -> &InquiryId {
        &self.inquiry
    }

    /// The walk's position, to restore later with [`Walk::restore`].
    pub(crate) fn save(&self) -> Saved {
        let answers = self
            .answers
            .iter()
            .enumerate()
            .map(|(i, a)| a.as_ref().map(|a| a.to_value(self.form.question(i))))
            .collect();
        Saved {
            current: self.current,
            settled: self.settled.clone(),
            answers,
            held: self.held.clone(),
            refused: self.refused.clone(),
        }
    }

    /// A walk at a saved position; `None` when it does not fit the form.
    pub(crate) fn restore(form: ValidForm, inquiry: InquiryId, saved: Saved) -> Option<Walk> {
        let count = form.len();
        let fits = saved.current < count
            && saved.settled.len() == count
            && saved.answers.len() == count
            && saved
                .held
                .keys()
                .chain(saved.refused.keys())
                .all(|i| *i < count);
        if !fits {
            return None;
        }
        let answers = saved
            .answers
            .iter()
            .enumerate()
            .map(|(i, v)| v.as_ref().and_then(|v| form.check(i, v).ok()))
            .collect();
        Some(Walk {
            form,
            inquiry,
            current: saved.current,
            settled: saved.settled,
            answers,
            held: saved.held,
            refused: saved.refused,
        })
    }

    /// Moves to the engine's prompt; the final command when there is one.
    fn follow(&mut self, commands: Vec<Command>) -> Option<Finished> {
        let mut prompt = None;
        for command in commands {
            match command {
                Command::Prompt(p) => prompt = Some(p.index),
                Command::InvalidAnswer { .. } | Command::AskAssistant { .. } => {}
                finished => return Some(Box::new(finished)),
            }
        }
        if let Some(index) = prompt {
            for skipped in self.current..index {
                self.settled[skipped] = true;
            }
            self.current = index;
        }
        None
    }

    /// The next round to send.
    pub(crate) fn round(&self) -> Round {
        let held: Vec<bool> = (0..self.form.len())
            .map(|i| self.held.contains_key(&i))
            .collect();
        let questions = plan(
            &self.form,
            self.current,
            &self.settled,
            &held,
            &self.answers,
        );
        let done = self.settled.iter().filter(|s| **s).count() + self.held.len();
        let mut message = progress(done, questions.len(), self.form.len());
        if questions.iter().any(|i| self.refused.contains_key(i)) {
            message.push_str(
                "\nAn answer was not accepted; the note beside it says why. Please answer it again.",
            );
        }
        let schema = round_schema(&self.form, &questions, |i| {
            self.refused.get(&i).map(String::as_str)
        });
        Round {
            questions,
            message,
            schema,
        }
    }

    /// Hands an accepted round's answers to the engine, in the order it asks: the
    /// final command when the walk is over.
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn accept(
        &mut self,
        recorder: &Recorder,
        round: &Round,
        content: &Map<String, Value>,
    ) -> Result<Option<Finished>, StoreError> {
        for &index in &round.questions {
            match read_field(&self.form, index, content) {
                Ok(value) => {
                    self.held.insert(index, value);
                }
                Err(message) => {
                    self.refused.insert(index, message);
                }
            }
        }
        while let Some(value) = self.held.remove(&self.current) {
            let index = self.current;
            let event = Event::Answered {
                inquiry: self.inquiry.clone(),
                question: self.form.question(index).id.clone(),
                value: value.clone(),
                by: AnsweredBy::User,
                remember: false,
                note: None,
            };
            let commands = match recorder.handle(&event)? {
                Recorded::Commands(commands) => commands,
                Recorded::Refused(refusal) => {
                    self.refused.insert(index, refusal.to_string());
                    return Ok(None);
                }
            };
            if let Some(Command::InvalidAnswer { message, .. }) = commands.first() {
                self.refused.insert(index, message.clone());
                return Ok(self.follow(commands));
            }
            self.refused.remove(&index);
            self.settled[index] = true;
            self.answers[index] = self.form.check(index, &value).ok();
            if let Some(finished) = self.follow(commands) {
                return Ok(Some(finished));
            }
        }
        Ok(None)
    }
}
