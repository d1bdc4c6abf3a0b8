//! The reducer: `(State, Event) → (State', [Command])`, total and deterministic.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::command::{Command, OutcomeStatus, Slot, failure_message};
use crate::error::EngineError;
use crate::event::{
    AnsweredBy, CancelReason, Event, InquiryId, Persistence, Policy, Request, Target,
};
use crate::inquiry::Open;
use crate::valid_form::ValidForm;
use crate::validate::validate;

/// How many finished inquiries a [`State`] keeps a record of, the oldest forgotten
/// first: a late event for one of them is answered "already finished" rather than
/// "never requested", and the state's size does not grow with the log's length.
pub const FINISHED_REMEMBERED: usize = 1024;

/// Everything the engine knows: the open inquiries, a record of the last
/// [`FINISHED_REMEMBERED`] finished ones, and the answers remembered for the current
/// turn. Built only by applying events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    inquiries: BTreeMap<InquiryId, Inquiry>,
    /// The finished inquiries still in `inquiries`, oldest first.
    #[serde(default)]
    finished_order: VecDeque<InquiryId>,
    /// The current turn, once a request named one.
    turn: Option<String>,
    /// Answers remembered for the turn: tool name → question id → answer.
    remembered: BTreeMap<String, BTreeMap<String, Value>>,
}

/// One inquiry: open, or finished (kept so that late events get a clear error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Inquiry {
    Open(Box<Open>),
    Finished(Finished),
}

/// How an inquiry finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finished {
    /// The model got the answers.
    Completed,
    /// The person chose Reply.
    Cancelled,
    /// The model got a tool error (a policy failure or a system cancellation).
    Failed,
    /// The turn ended.
    TurnEnded,
}

/// Applies one event and returns the commands it yields. See [`State::apply`].
pub fn reduce(state: &mut State, event: &Event) -> Vec<Command> {
    let mut commands = Vec::with_capacity(1);
    state.apply(event, &mut commands);
    commands
}

impl State {
    /// A state with nothing in it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event, appending the commands it yields to `out` (reuse `out` to
    /// avoid allocating). Total: any event in any state gives commands and never
    /// panics; an event that does not fit leaves the state unchanged and yields a
    /// command that says why.
    pub fn apply(&mut self, event: &Event, out: &mut Vec<Command>) {
        match event {
            Event::Requested(request) => self.requested(request, out),
            Event::Answered {
                inquiry,
                question,
                value,
                by,
                remember,
            } => self.answered(inquiry, question, value, *by, *remember, out),
            Event::Back { inquiry } => self.back(inquiry, out),
            Event::Cancelled { inquiry, reason } => self.cancelled(inquiry, reason, out),
            Event::TurnEnded { inquiry } => self.turn_ended(inquiry, out),
        }
    }

    /// The ids of the open inquiries, in id order.
    pub fn open_inquiries(&self) -> impl Iterator<Item = &InquiryId> {
        self.inquiries
            .iter()
            .filter(|(_, inquiry)| matches!(inquiry, Inquiry::Open(_)))
            .map(|(id, _)| id)
    }

    /// How an inquiry finished, if it has.
    pub fn finished(&self, inquiry: &str) -> Option<Finished> {
        match self.inquiries.get(inquiry)? {
            Inquiry::Finished(how) => Some(*how),
            Inquiry::Open(_) => None,
        }
    }

    /// The form of an open inquiry.
    pub fn form(&self, inquiry: &str) -> Option<&ValidForm> {
        match self.inquiries.get(inquiry)? {
            Inquiry::Open(open) => Some(&open.form),
            Inquiry::Finished(_) => None,
        }
    }

    /// The answers collected so far by an open inquiry, one slot per question.
    pub fn answers(&self, inquiry: &str) -> Option<&[Option<Slot>]> {
        match self.inquiries.get(inquiry)? {
            Inquiry::Open(open) => Some(&open.answers),
            Inquiry::Finished(_) => None,
        }
    }

    /// The command an open inquiry is waiting on (its current prompt or assistant
    /// request), rebuilt from the state: what to show again after a restart.
    pub fn pending(&self, inquiry: &str) -> Option<Command> {
        match self.inquiries.get_key_value(inquiry)? {
            (id, Inquiry::Open(open)) => Some(open.current(id)),
            (_, Inquiry::Finished(_)) => None,
        }
    }

    /// The turn the last accepted request belonged to, until the turn ends.
    pub fn turn(&self) -> Option<&str> {
        self.turn.as_deref()
    }

    fn requested(&mut self, request: &Request, out: &mut Vec<Command>) {
        let inquiry = &request.inquiry;
        if self.inquiries.contains_key(inquiry) {
            out.push(error(EngineError::DuplicateInquiry {
                inquiry: inquiry.to_string(),
            }));
            return;
        }
        if request.origin.subagent {
            out.push(Command::Fail {
                inquiry: inquiry.clone(),
                reason: CancelReason::SubagentDenied,
                message: failure_message(&CancelReason::SubagentDenied, &request.origin.tool, ""),
            });
            return;
        }
        let form = match validate(Arc::clone(&request.form)) {
            Ok(form) => form,
            Err(errors) => {
                out.push(Command::Reject {
                    inquiry: inquiry.clone(),
                    errors: errors.0,
                });
                return;
            }
        };
        if self.turn.as_deref() != Some(request.origin.turn.as_str()) {
            self.remembered.clear();
            self.turn = Some(request.origin.turn.clone());
        }
        let mut open = Open {
            answers: vec![None; form.len()],
            form,
            label: request.policy.label.as_deref().map(Arc::from),
            // The label is kept once, shared by every prompt (`label` above).
            policy: Policy {
                label: None,
                static_answers: request.policy.static_answers.clone(),
                ..request.policy
            },
            origin: request.origin.clone(),
            cursor: 0,
            awaiting: Target::User,
            prefill: None,
        };
        let step = open.advance(inquiry, &self.remembered, out);
        match step {
            Some(finished) => {
                self.inquiries
                    .insert(inquiry.clone(), Inquiry::Finished(finished));
                self.remember_finished(inquiry);
            }
            None => {
                self.inquiries
                    .insert(inquiry.clone(), Inquiry::Open(Box::new(open)));
            }
        }
    }

    /// The open inquiry `id`, or an error command saying why there is none.
    fn open_mut(&mut self, id: &InquiryId, out: &mut Vec<Command>) -> Option<&mut Open> {
        match self.inquiries.get_mut(id) {
            Some(Inquiry::Open(open)) => Some(open),
            Some(Inquiry::Finished(_)) => {
                out.push(error(EngineError::InquiryFinished {
                    inquiry: id.to_string(),
                }));
                None
            }
            None => {
                out.push(error(EngineError::UnknownInquiry {
                    inquiry: id.to_string(),
                }));
                None
            }
        }
    }

    fn finish(&mut self, id: &InquiryId, how: Finished) {
        if let Some(entry) = self.inquiries.get_mut(id) {
            *entry = Inquiry::Finished(how);
            self.remember_finished(id);
        }
    }

    /// Records that `id` finished, forgetting the oldest finished inquiry beyond
    /// [`FINISHED_REMEMBERED`].
    fn remember_finished(&mut self, id: &InquiryId) {
        self.finished_order.push_back(id.clone());
        while self.finished_order.len() > FINISHED_REMEMBERED {
            if let Some(oldest) = self.finished_order.pop_front() {
                self.inquiries.remove(&oldest);
            }
        }
    }

    fn answered(
        &mut self,
        id: &InquiryId,
        question: &str,
        value: &Value,
        by: AnsweredBy,
        remember: bool,
        out: &mut Vec<Command>,
    ) {
        let remembered = &mut self.remembered;
        let Some(Inquiry::Open(open)) = self.inquiries.get_mut(id) else {
            self.open_mut(id, out);
            return;
        };
        let current = &open.form.question(open.cursor).id;
        if current != question {
            out.push(error(EngineError::UnexpectedQuestion {
                inquiry: id.to_string(),
                expected: current.clone(),
                got: question.to_owned(),
            }));
            return;
        }
        let answer = match open.form.check(open.cursor, value) {
            Ok(answer) => answer,
            Err(reason) => {
                out.push(Command::InvalidAnswer {
                    inquiry: id.clone(),
                    question: question.to_owned(),
                    message: reason.to_string(),
                });
                out.push(open.current(id));
                return;
            }
        };
        if remember && open.policy.persistence == Persistence::Turn {
            remembered
                .entry(open.origin.tool.clone())
                .or_default()
                .insert(question.to_owned(), value.clone());
        }
        open.answers[open.cursor] = Some(Slot { answer, by });
        open.prefill = None;
        open.cursor += 1;
        if let Some(finished) = open.advance(id, remembered, out) {
            self.finish(id, finished);
        }
    }

    fn back(&mut self, id: &InquiryId, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id, out) else {
            return;
        };
        let Some(target) = open.answers[..open.cursor].iter().rposition(|slot| {
            matches!(
                slot,
                Some(Slot {
                    by: AnsweredBy::User,
                    ..
                })
            )
        }) else {
            out.push(error(EngineError::NothingToGoBackTo {
                inquiry: id.to_string(),
            }));
            return;
        };
        open.prefill = open.answers[target].take().map(|slot| slot.answer);
        for slot in &mut open.answers[target..] {
            *slot = None;
        }
        open.cursor = target;
        open.awaiting = Target::User;
        out.push(Command::Prompt(open.prompt(id)));
    }

    fn cancelled(&mut self, id: &InquiryId, reason: &CancelReason, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id, out) else {
            return;
        };
        let how = if *reason == CancelReason::UserReply {
            out.push(open.respond(id, OutcomeStatus::Cancelled));
            Finished::Cancelled
        } else {
            open.fail(id, reason.clone(), "", out)
        };
        self.finish(id, how);
    }

    fn turn_ended(&mut self, id: &InquiryId, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id, out) else {
            return;
        };
        let turn = open.origin.turn.clone();
        let others: Vec<InquiryId> = self
            .inquiries
            .iter()
            .filter(|(other, inquiry)| {
                *other != id && matches!(inquiry, Inquiry::Open(o) if o.origin.turn == turn)
            })
            .map(|(other, _)| other.clone())
            .collect();
        for ended in std::iter::once(id).chain(&others) {
            out.push(Command::EndTurn {
                inquiry: ended.clone(),
            });
            self.finish(ended, Finished::TurnEnded);
        }
        self.remembered.clear();
        self.turn = None;
    }
}

fn error(error: EngineError) -> Command {
    Command::Error { error }
}
