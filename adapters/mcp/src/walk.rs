//! Walking one form through elicitation rounds: what to ask next, and the answers
//! of a round handed to the engine in the order it asks them.

use std::collections::{BTreeMap, BTreeSet};

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
    /// The held answers already recorded ([`Event::AnsweredAhead`]).
    ahead: BTreeSet<usize>,
    /// Why a question's last answer was refused, until it is answered.
    refused: BTreeMap<usize, String>,
    /// The question the engine asks the assistant now, if it does.
    assistant: Option<usize>,
}

/// What became of an answer by the assistant.
pub(crate) enum Sampled {
    /// It finished the walk, with this command.
    Finished(Finished),
    /// Recorded; the walk goes on.
    Next,
    /// Refused, and why: the engine asks the assistant again.
    Refused(String),
}

/// A walk's position, to carry between requests (sealed in MRTR's `requestState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Saved {
    current: usize,
    settled: Vec<bool>,
    answers: Vec<Option<Value>>,
    held: BTreeMap<usize, Value>,
    #[serde(default)]
    ahead: BTreeSet<usize>,
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
            ahead: BTreeSet::new(),
            refused: BTreeMap::new(),
            assistant: None,
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
            ahead: self.ahead.clone(),
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
                .chain(saved.ahead.iter())
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
            ahead: saved.ahead,
            refused: saved.refused,
            assistant: None,
        })
    }

    /// Moves to the engine's prompt; the final command when there is one.
    fn follow(&mut self, commands: Vec<Command>) -> Option<Finished> {
        let mut prompt = None;
        let mut assistant = None;
        for command in commands {
            match command {
                Command::Prompt(p) => {
                    prompt = Some(p.index);
                    assistant = None;
                }
                Command::AskAssistant { question, .. } => {
                    assistant = self.form.index_of(&question);
                    prompt = assistant.or(prompt);
                }
                Command::InvalidAnswer { .. } => {}
                finished => return Some(Box::new(finished)),
            }
        }
        if let Some(index) = prompt {
            for skipped in self.current..index {
                self.settled[skipped] = true;
            }
            self.current = index;
            self.assistant = assistant;
        }
        None
    }

    /// The form walked.
    pub(crate) fn form(&self) -> &ValidForm {
        &self.form
    }

    /// The question the engine asks the assistant now, if it does.
    pub(crate) fn for_assistant(&self) -> Option<usize> {
        self.assistant
    }

    /// Hands the assistant's answer to the question it is asked to the engine
    /// (recorded `by: assistant` when it fits).
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn answer_by_assistant(
        &mut self,
        recorder: &Recorder,
        index: usize,
        value: &Value,
    ) -> Result<Sampled, StoreError> {
        let event = Event::Answered {
            inquiry: self.inquiry.clone(),
            question: self.form.question(index).id.clone(),
            value: value.clone(),
            by: AnsweredBy::Assistant,
            remember: false,
            note: None,
        };
        let commands = match recorder.handle(&event)? {
            Recorded::Commands(commands) => commands,
            Recorded::Refused(refusal) => return Ok(Sampled::Refused(refusal.to_string())),
        };
        let refused = match commands.first() {
            Some(Command::InvalidAnswer { message, .. }) => Some(message.clone()),
            _ => None,
        };
        if let Some(finished) = self.follow(commands) {
            return Ok(Sampled::Finished(finished));
        }
        if let Some(message) = refused {
            return Ok(Sampled::Refused(message));
        }
        self.answers[index] = self.form.check(index, value).ok();
        Ok(Sampled::Next)
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

    /// Records that `round` is shown ([`Event::Shown`]), so a replay knows how
    /// the questions were grouped.
    ///
    /// # Errors
    /// When the log fails, or the engine refuses it (a message for the model).
    pub(crate) fn show(&self, recorder: &Recorder, round: &Round) -> Result<(), String> {
        let event = Event::Shown {
            inquiry: self.inquiry.clone(),
            questions: round
                .questions
                .iter()
                .map(|&i| self.form.question(i).id.clone())
                .collect(),
        };
        match recorder.handle(&event) {
            Ok(Recorded::Commands(_)) => Ok(()),
            Ok(Recorded::Refused(refusal)) => Err(refusal.to_string()),
            Err(error) => Err(error.to_string()),
        }
    }

    /// Hands an accepted round's answers to the engine, in the order it asks, and
    /// records the rest as given ahead: the final command when the walk is over.
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
                    self.ahead.remove(&index);
                }
                Err(message) => {
                    self.refused.insert(index, message);
                }
            }
        }
        if let Some(finished) = self.hand_in(recorder)? {
            return Ok(Some(finished));
        }
        self.record_ahead(recorder)?;
        Ok(None)
    }

    /// Hands the held answers to the engine while it asks one of them.
    fn hand_in(&mut self, recorder: &Recorder) -> Result<Option<Finished>, StoreError> {
        while let Some(value) = self.held.remove(&self.current) {
            let index = self.current;
            self.ahead.remove(&index);
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

    /// Records every held answer not yet recorded as given ahead, so a decline,
    /// a dismissal or a client that goes away loses none of them. One that does
    /// not fit its question is not held: it is asked again with the reason.
    fn record_ahead(&mut self, recorder: &Recorder) -> Result<(), StoreError> {
        let waiting: Vec<usize> = self
            .held
            .keys()
            .copied()
            .filter(|i| *i > self.current && !self.ahead.contains(i))
            .collect();
        for index in waiting {
            let Some(value) = self.held.get(&index).cloned() else {
                continue;
            };
            let refusal = if let Err(reason) = self.form.check(index, &value) {
                Some(reason.to_string())
            } else {
                let event = Event::AnsweredAhead {
                    inquiry: self.inquiry.clone(),
                    question: self.form.question(index).id.clone(),
                    value,
                };
                match recorder.handle(&event)? {
                    Recorded::Commands(_) => None,
                    Recorded::Refused(refusal) => Some(refusal.to_string()),
                }
            };
            match refusal {
                None => {
                    self.ahead.insert(index);
                }
                Some(message) => {
                    self.held.remove(&index);
                    self.refused.insert(index, message);
                }
            }
        }
        Ok(())
    }
}
