//! How an inquiry ended ([`Ending`], the one derivation every surface reads)
//! and what a finished one ended with, kept in the [`State`](crate::State).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::command::{Command, Outcome, OutcomeStatus};
use crate::event::{CancelReason, InquiryId, Surface, ToolCall};

/// How an inquiry ended: the one set of names every surface uses, derived in one
/// place from the command that ended it ([`Ending::of`]).
///
/// ```
/// use askuser_core::{Command, Ending, InquiryId};
///
/// let ended = Command::EndTurn { inquiry: InquiryId::new("c1") };
/// assert_eq!(Ending::of(&ended), Some(Ending::TurnEnded));
/// assert_eq!(Ending::TurnEnded.words(), "turn ended");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The model got the answers ([`Command::Respond`], completed).
    #[serde(rename = "completed")]
    Answered,
    /// The person chose Reply: the model got a reply instead, with the answers
    /// so far ([`Command::Respond`], cancelled).
    #[serde(rename = "cancelled")]
    Replied,
    /// The person did not answer in time; the model got what the timeout left
    /// ([`Command::Respond`], timed out).
    TimedOut,
    /// The person ended the turn; the model gets no result ([`Command::EndTurn`]).
    TurnEnded,
    /// The model got a tool error: a policy failure, no person to ask, or a
    /// system cancellation ([`Command::Fail`]).
    Failed,
    /// The call was rejected as invalid; the model got its problems
    /// ([`Command::Reject`]). Such a call never opens an inquiry, so the state
    /// never says an inquiry ended so.
    Rejected,
}

impl Ending {
    /// How `command` ends its inquiry; `None` for a command that does not (a
    /// prompt, a review, a question for the assistant, an invalid answer).
    pub fn of(command: &Command) -> Option<Self> {
        Some(match command {
            Command::Respond { outcome, .. } => Self::responded(outcome.status),
            Command::EndTurn { .. } => Self::TurnEnded,
            Command::Fail { .. } => Self::Failed,
            Command::Reject { .. } => Self::Rejected,
            _ => return None,
        })
    }

    /// How `command` ends `inquiry`: `None` when it is not about `inquiry` or
    /// does not end it. Among the commands a catch-up applied, the last one
    /// with an ending is how the inquiry ended.
    pub fn of_inquiry(command: &Command, inquiry: &InquiryId) -> Option<Self> {
        let (Command::Respond { inquiry: about, .. }
        | Command::Fail { inquiry: about, .. }
        | Command::Reject { inquiry: about, .. }
        | Command::EndTurn { inquiry: about }) = command
        else {
            return None;
        };
        (about == inquiry).then(|| Self::of(command)).flatten()
    }

    /// How a response with `status` ends its inquiry.
    fn responded(status: OutcomeStatus) -> Self {
        match status {
            OutcomeStatus::Completed => Self::Answered,
            OutcomeStatus::Cancelled => Self::Replied,
            OutcomeStatus::TimedOut { .. } => Self::TimedOut,
        }
    }

    /// The ending in a word or two, for a list or a status: `answered`,
    /// `replied`, `timed out`, `turn ended`, `failed`, `rejected`.
    pub fn words(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::Replied => "replied",
            Self::TimedOut => "timed out",
            Self::TurnEnded => "turn ended",
            Self::Failed => "failed",
            Self::Rejected => "rejected",
        }
    }

    /// Whether the model gets no tool result at all (the turn ended).
    pub fn sends_nothing(self) -> bool {
        self == Self::TurnEnded
    }
}

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
    ending: Sent,
    /// The tool call the request recorded, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Arc<ToolCall>>,
    /// The result is owed to the inquiry's asker: it takes results it missed
    /// ([`Origin::resumes`](crate::Origin::resumes)) and none was recorded
    /// handed over ([`Event::Delivered`](crate::Event::Delivered)) yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    owed: bool,
    /// The turn was ended by the time to answer running out (its length in
    /// milliseconds), not by a person: see [`FinishedInquiry::turn_ended_by_timeout`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) turn_ended_by_timeout: Option<u64>,
    /// Where a person ended the turn, when the log said: see
    /// [`FinishedInquiry::turn_ended_in`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) turn_ended_in: Option<Surface>,
}

/// The result a finished inquiry sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Sent {
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
    Unrecorded(Ending),
}

/// The serialized shapes of [`FinishedInquiry`]: today's, and state format 1's
/// bare status (`"completed"`), so that a snapshot taken before results were
/// kept still loads (a compacted log may have nothing else to start from).
#[derive(Deserialize)]
#[serde(untagged)]
enum FinishedRecord {
    Status(Ending),
    Full {
        ending: Sent,
        #[serde(default)]
        call: Option<Arc<ToolCall>>,
        #[serde(default)]
        owed: bool,
        #[serde(default)]
        turn_ended_by_timeout: Option<u64>,
        #[serde(default)]
        turn_ended_in: Option<Surface>,
    },
}

impl From<FinishedRecord> for FinishedInquiry {
    fn from(record: FinishedRecord) -> Self {
        match record {
            FinishedRecord::Status(how) => Self {
                ending: Sent::Unrecorded(how),
                call: None,
                owed: false,
                turn_ended_by_timeout: None,
                turn_ended_in: None,
            },
            FinishedRecord::Full {
                ending,
                call,
                owed,
                turn_ended_by_timeout,
                turn_ended_in,
            } => Self {
                ending,
                call,
                owed,
                turn_ended_by_timeout,
                turn_ended_in,
            },
        }
    }
}

impl FinishedInquiry {
    /// The record of an inquiry that finished with `result` (a [`Command::Respond`],
    /// [`Command::Fail`] or [`Command::EndTurn`]; anything else reads as the end of
    /// the turn, which the engine never gives).
    pub(crate) fn new(result: Option<&Command>, call: Option<Arc<ToolCall>>, owed: bool) -> Self {
        let ending = match result {
            Some(Command::Respond { outcome, .. }) => Sent::Responded(outcome.clone()),
            Some(Command::Fail {
                reason, message, ..
            }) => Sent::Failed {
                reason: reason.clone(),
                message: message.clone(),
            },
            _ => Sent::TurnEnded,
        };
        Self::sent(ending, call, owed)
    }

    /// [`FinishedInquiry::new`], keeping `result` itself rather than a copy: for a
    /// result nobody else reads (a replay for the state alone).
    pub(crate) fn taking(result: Option<Command>, call: Option<Arc<ToolCall>>, owed: bool) -> Self {
        let ending = match result {
            Some(Command::Respond { outcome, .. }) => Sent::Responded(outcome),
            Some(Command::Fail {
                reason, message, ..
            }) => Sent::Failed { reason, message },
            _ => Sent::TurnEnded,
        };
        Self::sent(ending, call, owed)
    }

    fn sent(ending: Sent, call: Option<Arc<ToolCall>>, owed: bool) -> Self {
        Self {
            ending,
            call,
            owed,
            turn_ended_by_timeout: None,
            turn_ended_in: None,
        }
    }

    /// When the time to answer ran out and its timeout ended the turn (no
    /// person did): that time's length in milliseconds; `None` otherwise.
    pub fn turn_ended_by_timeout(&self) -> Option<u64> {
        self.turn_ended_by_timeout
    }

    /// Where a person ended the turn ([`Surface::words`]): `None` unless the
    /// turn ended, when its time to answer ended it, and in logs written before
    /// the end of a turn said where.
    pub fn turn_ended_in(&self) -> Option<Surface> {
        self.turn_ended_in
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

    /// How the inquiry ended.
    pub fn how(&self) -> Ending {
        match &self.ending {
            Sent::Responded(outcome) => Ending::responded(outcome.status),
            Sent::Failed { .. } => Ending::Failed,
            Sent::TurnEnded => Ending::TurnEnded,
            Sent::Unrecorded(how) => *how,
        }
    }

    /// The answers sent to the model (completed, cancelled by a Reply, or timed
    /// out); `None` after a tool error or the end of the turn (or for a record of
    /// state format 1, see [`FinishedInquiry::command`]).
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.ending {
            Sent::Responded(outcome) => Some(outcome),
            Sent::Failed { .. } | Sent::TurnEnded | Sent::Unrecorded(_) => None,
        }
    }

    /// The tool error sent to the model, with its reason; `None` unless the
    /// inquiry failed.
    pub fn failure(&self) -> Option<(&CancelReason, &str)> {
        match &self.ending {
            Sent::Failed { reason, message } => Some((reason, message)),
            Sent::Responded(_) | Sent::TurnEnded | Sent::Unrecorded(_) => None,
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
            Sent::Responded(outcome) => Command::Respond {
                inquiry,
                outcome: outcome.clone(),
            },
            Sent::Failed { reason, message } => Command::Fail {
                inquiry,
                reason: reason.clone(),
                message: message.clone(),
            },
            Sent::TurnEnded => Command::EndTurn { inquiry },
            Sent::Unrecorded(_) => return None,
        })
    }
}
