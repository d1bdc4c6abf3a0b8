//! What a finished inquiry ended with, kept in the [`State`](crate::State).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::command::{Command, Outcome, OutcomeStatus};
use crate::event::{CancelReason, InquiryId, ToolCall};
use crate::reducer::Finished;

/// What a finished inquiry ended with: the result the engine told the host to
/// send (the answers of a [`Command::Respond`], the tool error of a
/// [`Command::Fail`], or nothing when the turn ended) and the tool call its
/// request recorded, so that a host renders the dialect's result again from the
/// state alone: after a restart, after a compaction dropped the events, or for a
/// surface told [`Refusal::InquiryFinished`](crate::Refusal::InquiryFinished).
///
/// [`State::outcome`](crate::State::outcome) gives it for each of the last
/// [`FINISHED_REMEMBERED`](crate::FINISHED_REMEMBERED) inquiries to finish; it is
/// part of the state's snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "FinishedRecord")]
pub struct FinishedInquiry {
    /// The result sent.
    ending: Ending,
    /// The tool call the request recorded, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Arc<ToolCall>>,
    /// The result is owed to the inquiry's asker: it takes results it missed
    /// ([`Origin::resumes`](crate::Origin::resumes)) and none was recorded
    /// handed over ([`Event::Delivered`](crate::Event::Delivered)) yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    owed: bool,
}

/// The result a finished inquiry sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ending {
    /// [`Command::Respond`]: completed, cancelled by a Reply, or timed out.
    Responded(Outcome),
    /// [`Command::Fail`]: a tool error.
    Failed {
        reason: CancelReason,
        message: String,
    },
    /// [`Command::EndTurn`]: no result is sent.
    TurnEnded,
    /// Read from a snapshot of state format 1, which kept how an inquiry
    /// finished but not what it sent.
    Unrecorded(Finished),
}

/// The serialized shapes of [`FinishedInquiry`]: today's, and state format 1's
/// bare status (`"completed"`), so that a snapshot taken before results were
/// kept still loads (a compacted log may have nothing else to start from).
#[derive(Deserialize)]
#[serde(untagged)]
enum FinishedRecord {
    Status(Finished),
    Full {
        ending: Ending,
        #[serde(default)]
        call: Option<Arc<ToolCall>>,
        #[serde(default)]
        owed: bool,
    },
}

impl From<FinishedRecord> for FinishedInquiry {
    fn from(record: FinishedRecord) -> Self {
        match record {
            FinishedRecord::Status(how) => Self {
                ending: Ending::Unrecorded(how),
                call: None,
                owed: false,
            },
            FinishedRecord::Full { ending, call, owed } => Self { ending, call, owed },
        }
    }
}

impl FinishedInquiry {
    /// The record of an inquiry that finished with `result` (a [`Command::Respond`],
    /// [`Command::Fail`] or [`Command::EndTurn`]; anything else reads as the end of
    /// the turn, which the engine never gives).
    pub(crate) fn new(result: Option<&Command>, call: Option<Arc<ToolCall>>, owed: bool) -> Self {
        let ending = match result {
            Some(Command::Respond { outcome, .. }) => Ending::Responded(outcome.clone()),
            Some(Command::Fail {
                reason, message, ..
            }) => Ending::Failed {
                reason: reason.clone(),
                message: message.clone(),
            },
            _ => Ending::TurnEnded,
        };
        Self { ending, call, owed }
    }

    /// Whether the result is owed to the inquiry's asker: it takes results it
    /// missed ([`Origin::resumes`](crate::Origin::resumes)), and no surface
    /// recorded handing this one over ([`Event::Delivered`](crate::Event::Delivered)).
    pub fn owed(&self) -> bool {
        self.owed
    }

    /// Records the result handed over.
    pub(crate) fn delivered(&mut self) {
        self.owed = false;
    }

    /// How the inquiry finished.
    pub fn how(&self) -> Finished {
        match &self.ending {
            Ending::Responded(outcome) => match outcome.status {
                OutcomeStatus::Completed => Finished::Completed,
                OutcomeStatus::Cancelled => Finished::Cancelled,
                OutcomeStatus::TimedOut { .. } => Finished::TimedOut,
            },
            Ending::Failed { .. } => Finished::Failed,
            Ending::TurnEnded => Finished::TurnEnded,
            Ending::Unrecorded(how) => *how,
        }
    }

    /// The answers sent to the model (completed, cancelled by a Reply, or timed
    /// out); `None` after a tool error or the end of the turn (or for a record of
    /// state format 1, see [`FinishedInquiry::command`]).
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.ending {
            Ending::Responded(outcome) => Some(outcome),
            Ending::Failed { .. } | Ending::TurnEnded | Ending::Unrecorded(_) => None,
        }
    }

    /// The tool error sent to the model, with its reason; `None` unless the
    /// inquiry failed.
    pub fn failure(&self) -> Option<(&CancelReason, &str)> {
        match &self.ending {
            Ending::Failed { reason, message } => Some((reason, message)),
            Ending::Responded(_) | Ending::TurnEnded | Ending::Unrecorded(_) => None,
        }
    }

    /// The tool call the inquiry's request recorded, if it recorded one: what a
    /// host renders the dialect's result with. (A request denied at once never
    /// recorded one.)
    pub fn call(&self) -> Option<&ToolCall> {
        self.call.as_deref()
    }

    /// The result command the inquiry finished with, rebuilt: a
    /// [`Command::Respond`], a [`Command::Fail`] or a [`Command::EndTurn`], equal
    /// to the one applying its last event gave. `None` only for a record read
    /// from a snapshot taken before results were kept (state format 1).
    pub fn command(&self, inquiry: &InquiryId) -> Option<Command> {
        let inquiry = inquiry.clone();
        Some(match &self.ending {
            Ending::Responded(outcome) => Command::Respond {
                inquiry,
                outcome: outcome.clone(),
            },
            Ending::Failed { reason, message } => Command::Fail {
                inquiry,
                reason: reason.clone(),
                message: message.clone(),
            },
            Ending::TurnEnded => Command::EndTurn { inquiry },
            Ending::Unrecorded(_) => return None,
        })
    }
}
