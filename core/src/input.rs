//! Inputs: what a host or a person may do, before the engine decides what it means.
//!
//! An [`Input`] is an action; an [`Event`](crate::Event) is what the log records.
//! [`State::decide`](crate::State::decide) turns one input into the
//! events to append together (an answer on a surface that reviews is recorded with
//! the [`ReviewWanted`](crate::Event::ReviewWanted) it implies), or refuses it.
//! Verdicts (a refused answer, a denied request) are never inputs: the engine
//! records them itself.
//!
//! Every answer, Back, Reply and submit names **what it answers** with an [`At`]:
//! the inquiry, the question on show (or its review), and the step at which it was
//! shown. One given for anything but what is current now is refused with
//! what is current: [`Refusal::Stale`](crate::Refusal::Stale) when it was shown
//! at an earlier step, so a stale page, a terminal that lost a race or an edited
//! file never puts an answer on another question; and, for what was never shown,
//! the refusal that names the mistake (a question the form does not have, another
//! question, a review that is not showing, a step not reached yet: see
//! [`State::decide`](crate::State::decide)).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Problem;
use crate::event::{AgentOrigin, AnsweredBy, CancelReason, InquiryId, Request, Surface};

/// What a person was shown when they acted: the inquiry, the question on show
/// (`None`: the review of every answer), and the inquiry's step then.
///
/// The step counts the moves of one inquiry (an answer taken, an answer given
/// ahead, Back, a review wanted); a [`Prompt`](crate::Prompt) and a
/// [`Command::Review`](crate::Command::Review) carry the step they were made at,
/// and [`Prompt::at`](crate::Prompt::at) builds the `At` to answer it with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct At {
    /// The inquiry.
    pub inquiry: InquiryId,
    /// The question shown, by id; `None` for the review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The inquiry's step when it was shown.
    pub step: u32,
}

impl At {
    /// The question `question` of `inquiry`, shown at `step`.
    pub fn question(inquiry: InquiryId, question: impl Into<String>, step: u32) -> Self {
        Self {
            inquiry,
            question: Some(question.into()),
            step,
        }
    }

    /// The review of `inquiry`, shown at `step`.
    pub fn review(inquiry: InquiryId, step: u32) -> Self {
        Self {
            inquiry,
            question: None,
            step,
        }
    }
}

impl fmt::Display for At {
    /// `question "env" (step 2)` or `the review (step 3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.question {
            Some(question) => write!(f, "question \"{question}\" (step {})", self.step),
            None => write!(f, "the review (step {})", self.step),
        }
    }
}

/// What a host or a person may do. [`State::decide`](crate::State::decide)
/// decides it into the events to record: the only way into the engine (a replay
/// only applies what was recorded, [`State::apply`](crate::State::apply)).
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A tool call asks a form.
    Ask(Request),
    /// A tool call the host's own parser refused: recorded with its problems.
    RejectCall {
        /// The inquiry.
        inquiry: InquiryId,
        /// The tool's name as the model knows it.
        tool: String,
        /// Every problem, each with the path of its field.
        problems: Vec<Problem>,
    },
    /// An answer to the question shown.
    ///
    /// An answer of the wrong type or outside the options is not a [`Refusal`]:
    /// it is recorded ([`Event::AnswerRefused`](crate::Event::AnswerRefused), with
    /// its typed [`AnswerError`](crate::AnswerError)) and the engine answers
    /// [`Command::InvalidAnswer`](crate::Command::InvalidAnswer) and the same
    /// prompt. Each counts toward
    /// [`MAX_REFUSED_ANSWERS`](crate::limits::MAX_REFUSED_ANSWERS) (ten in a row
    /// to one question fail the inquiry with a tool error), so a host that
    /// checks an answer itself before handing it in (with
    /// [`ValidForm::check`](crate::ValidForm::check)) keeps a person's typos off
    /// that count.
    ///
    /// [`Refusal`]: crate::Refusal
    Answer(AnswerInput),
    /// An answer to a question after the one being asked, in a form that showed
    /// several questions at once (an MCP elicitation round).
    ///
    /// It names its inquiry and question but no [`At`]: the question is not the
    /// one on show, and a round's answers are handed in one after another, each
    /// moving the inquiry's step, so a step would make every answer but the first
    /// stale. It is checked against the inquiry as it stands instead: the question
    /// must come after the one being asked, its `when` must hold for the answers
    /// recorded, and the answer must fit
    /// ([`Refusal::NotForThisQuestion`](crate::Refusal::NotForThisQuestion)
    /// otherwise).
    AnswerAhead {
        /// The inquiry.
        inquiry: InquiryId,
        /// The id of a question after the one being asked.
        question: String,
        /// The answer as JSON.
        value: Value,
    },
    /// A surface showed these questions together, in this order.
    ///
    /// No [`At`]: it records how questions were grouped (for a replay and a
    /// transcript), not an action on something shown, and it moves nothing; the
    /// questions must be the open inquiry's, and not while its review shows.
    Show {
        /// The inquiry.
        inquiry: InquiryId,
        /// The ids of the questions shown, in the order shown.
        questions: Vec<String>,
    },
    /// The client asking `inquiry` did something that is not the person's
    /// choice ([`ClientNote`](crate::ClientNote)): noted, with no [`At`], for it
    /// moves nothing; the inquiry must be open.
    NoteClient {
        /// The inquiry.
        inquiry: InquiryId,
        /// What the client did.
        note: crate::ClientNote,
    },
    /// Back from what was shown to the previous answered question.
    Back(At),
    /// The person replies to the assistant instead, from what was shown, with an
    /// optional message: the form is cancelled with the answers so far.
    Reply {
        /// What was shown.
        at: At,
        /// The message for the model, if any.
        message: Option<String>,
    },
    /// The host cancels the inquiry for a reason of its own (not the person's
    /// Reply: use [`Input::Reply`] for that). The model gets the reason's tool
    /// error.
    Cancel {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why.
        reason: CancelReason,
        /// The host's own words, recorded with the cancellation
        /// ([`Event::Cancelled`](crate::Event::Cancelled)'s `message`) for a
        /// transcript; the model's tool error is the reason's. Blank is none.
        message: Option<String>,
    },
    /// The person ends the turn; no tool result is sent.
    EndTurn {
        /// The inquiry.
        inquiry: InquiryId,
        /// Where the person ended it: recorded, so that every other surface
        /// says where ([`Event::TurnEnded`](crate::Event::TurnEnded)); `None`
        /// when the surface does not know.
        surface: Option<Surface>,
    },
    /// The time to answer ran out, by the firer's clock at `fired_at_ms`.
    ///
    /// **Who may fire: any surface showing the question** (the terminal that
    /// asked, the JSON-lines host, the web inbox, a page left open), once its
    /// clock passes the deadline. The engine judges the time, so firing is safe
    /// from everywhere: it takes the first timeout fired at or after the
    /// deadline it knows ([`State::deadline`](crate::State::deadline): the
    /// policy's `after_ms` after the time the log recorded the event that put
    /// the current question or review up), and refuses the others, an early one
    /// with [`Refusal::NotYetDue`](crate::Refusal::NotYetDue) (fire again once
    /// the time it names has passed) and a second one with
    /// [`Refusal::InquiryFinished`](crate::Refusal::InquiryFinished) (show the
    /// recorded result). Each surface counts to that deadline and, when refused,
    /// tells the person what is so in words.
    ///
    /// A state that learned no recorded time (a host driving the pure core with
    /// [`reduce`](crate::reduce) or [`State::apply`](crate::State::apply),
    /// with no log) has no deadline to hold a timeout to: it takes the first one
    /// fired, the host's clock being the only one there is.
    ///
    /// ```
    /// use askuser_core::{Input, InquiryId, OnTimeout, Policy, Refusal, Request, State, Timeout, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]})).unwrap();
    /// let id = InquiryId::new("call-1");
    /// let timeout = Some(Timeout { after_ms: 60_000, on_timeout: OnTimeout::Cancel });
    /// let ask = Input::Ask(Request {
    ///     inquiry: id.clone(), form: form.form().clone(), call: None,
    ///     policy: Policy { timeout, ..Policy::default() }, origin: Default::default(),
    /// });
    /// let mut state = State::new();
    /// let mut commands = Vec::new();
    /// // The log recorded the request at 1,000 ms: the deadline is 61,000 ms.
    /// state.apply_decision_at(state.decide(&ask).unwrap(), 1_000, &mut commands);
    /// assert_eq!(state.deadline(&id), Some(61_000));
    ///
    /// let early = Input::TimeOut { inquiry: id.clone(), message: None, fired_at_ms: 31_000 };
    /// let Err(refusal @ Refusal::NotYetDue { .. }) = state.decide(&early) else { panic!() };
    /// assert_eq!(
    ///     refusal.to_string(),
    ///     "inquiry \"call-1\" is not due to time out yet: 30.000 s of its time to answer \
    ///      are left; fire the timeout again at or after its deadline, 61000 ms after the Unix epoch"
    /// );
    /// let due = Input::TimeOut { inquiry: id.clone(), message: None, fired_at_ms: 61_000 };
    /// assert!(state.decide(&due).is_ok());
    /// ```
    TimeOut {
        /// The inquiry.
        inquiry: InquiryId,
        /// A Reply message the person was typing, kept for the model.
        message: Option<String>,
        /// When it was fired, in milliseconds since the Unix epoch, by the
        /// firer's clock (the core reads none). Recorded with the timeout.
        fired_at_ms: u64,
    },
    /// The surface will show a review of every answer before they are sent.
    WantReview {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The person sends the answers of the review that was shown.
    Submit(At),
    /// From the review that was shown, the person changes their answer to
    /// `question`, in one step: the inquiry goes back to it (its answer and
    /// every later one kept as prefills, as [`Input::Back`] keeps them), and
    /// once it is answered again, every later answer the person gave is given
    /// again where its question still shows, up to the review. A question that
    /// shows only now (its `when` holds after the change) is asked.
    ///
    /// Refused unless the review is showing
    /// ([`Refusal::NotInReview`](crate::Refusal::NotInReview)) and the person
    /// answered `question` ([`Refusal::NotTheirAnswer`](crate::Refusal::NotTheirAnswer)).
    Change {
        /// The review that was shown.
        at: At,
        /// The id of the question whose answer the person changes.
        question: String,
    },
    /// The surface that asked `inquiry` handed its result to its agent
    /// ([`Event::Delivered`](crate::Event::Delivered)): only for a finished
    /// inquiry whose result is owed ([`State::owed`](crate::State::owed)), else
    /// refused ([`Refusal::NothingOwed`](crate::Refusal::NothingOwed)), so of
    /// two surfaces handing one result over, one is told it was handed already.
    Deliver {
        /// The finished inquiry.
        inquiry: InquiryId,
    },
    /// A process starts waiting on the stream, from this origin
    /// ([`Event::Attached`](crate::Event::Attached)): it changes no inquiry and
    /// yields no command. Refused with
    /// [`Refusal::BadOrigin`](crate::Refusal::BadOrigin) for an origin too long
    /// or not plain text.
    Attach(AgentOrigin),
    /// A process that waited on the stream stops cleanly
    /// ([`Event::Detached`](crate::Event::Detached)), checked as
    /// [`Input::Attach`] is.
    Detach(AgentOrigin),
}

impl Input {
    /// The inquiry the input is for; `None` for an input about the stream
    /// ([`Input::Attach`], [`Input::Detach`]).
    pub fn inquiry(&self) -> Option<&InquiryId> {
        Some(match self {
            Input::Attach(_) | Input::Detach(_) => return None,
            Input::Ask(request) => &request.inquiry,
            Input::Answer(answer) => &answer.at.inquiry,
            Input::Back(at)
            | Input::Reply { at, .. }
            | Input::Submit(at)
            | Input::Change { at, .. } => &at.inquiry,
            Input::RejectCall { inquiry, .. }
            | Input::AnswerAhead { inquiry, .. }
            | Input::Show { inquiry, .. }
            | Input::NoteClient { inquiry, .. }
            | Input::Cancel { inquiry, .. }
            | Input::EndTurn { inquiry, .. }
            | Input::TimeOut { inquiry, .. }
            | Input::WantReview { inquiry }
            | Input::Deliver { inquiry } => inquiry,
        })
    }
}

/// An answer, with what it answers and how the surface shows the form.
///
/// One that does not fit its question is recorded and counts toward the limit of
/// refused answers (see [`Input::Answer`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerInput {
    /// What was shown when the person answered.
    pub at: At,
    /// The answer as JSON: a boolean, a label or text, a list of labels, any value.
    pub value: Value,
    /// Who gave it.
    pub by: AnsweredBy,
    /// Reuse the answer for the rest of the turn (kept only where the inquiry's
    /// persistence allows it).
    pub remember: bool,
    /// A note beside the answer, for the model.
    pub note: Option<String>,
    /// The surface shows a review before the answers are sent: the engine records
    /// that it is wanted (once, with the first answer) when the form calls for one
    /// (see [`wants_review`](crate::ValidForm::wants_review)).
    pub reviews: bool,
}

impl AnswerInput {
    /// The person's answer `value` to what `at` names, with no note, on a surface
    /// that shows no review.
    pub fn new(at: At, value: Value) -> Self {
        Self {
            at,
            value,
            by: AnsweredBy::User,
            remember: false,
            note: None,
            reviews: false,
        }
    }

    /// With a note beside the answer (`None` or blank: no note).
    #[must_use]
    pub fn with_note(mut self, note: Option<String>) -> Self {
        self.note = note.filter(|note| !note.trim().is_empty());
        self
    }

    /// On a surface that shows a review before sending.
    #[must_use]
    pub fn reviewed(mut self) -> Self {
        self.reviews = true;
        self
    }

    /// Given by `by` (the assistant, for a question routed to it).
    #[must_use]
    pub fn by(mut self, by: AnsweredBy) -> Self {
        self.by = by;
        self
    }
}

impl From<AnswerInput> for Input {
    fn from(answer: AnswerInput) -> Self {
        Input::Answer(answer)
    }
}

/// `text` with every line break written as `\n` (a browser's `\r\n`, an old
/// Mac's `\r`), so an answer reaches the model the same from every surface.
pub fn normalize_line_breaks(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\r') {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// `value` with the line breaks of every string in it normalised (see
/// [`normalize_line_breaks`]); `None` when nothing changed.
pub(crate) fn normalize_value(value: &Value) -> Option<Value> {
    match value {
        Value::String(text) if text.contains('\r') => {
            Some(Value::String(normalize_line_breaks(text).into_owned()))
        }
        Value::Array(items) if items.iter().any(has_cr) => Some(Value::Array(
            items
                .iter()
                .map(|item| normalize_value(item).unwrap_or_else(|| item.clone()))
                .collect(),
        )),
        Value::Object(map) if map.values().any(has_cr) => Some(Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let item = normalize_value(item).unwrap_or_else(|| item.clone());
                    (key.clone(), item)
                })
                .collect(),
        )),
        _ => None,
    }
}

fn has_cr(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains('\r'),
        Value::Array(items) => items.iter().any(has_cr),
        Value::Object(map) => map.values().any(has_cr),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn line_breaks_read_the_same_from_every_surface() {
        assert_eq!(normalize_line_breaks("a\r\nb\rc\nd"), "a\nb\nc\nd");
        assert!(matches!(
            normalize_line_breaks("a\nb"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            normalize_value(&json!(["x\r\ny", "z"])),
            Some(json!(["x\ny", "z"]))
        );
        assert_eq!(
            normalize_value(&json!({"a": {"b": "1\r\n2"}})),
            Some(json!({"a": {"b": "1\n2"}}))
        );
        assert_eq!(normalize_value(&json!("plain")), None);
    }

    #[test]
    fn an_at_says_what_was_shown() {
        let id = InquiryId::new("call-1");
        assert_eq!(
            At::question(id.clone(), "env", 2).to_string(),
            "question \"env\" (step 2)"
        );
        assert_eq!(At::review(id, 3).to_string(), "the review (step 3)");
    }
}
