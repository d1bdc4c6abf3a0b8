//! Events: the engine's inputs, and the only thing persisted.
//!
//! An adapter turns what happened (a tool call arrived, a person answered, pressed
//! Back, chose Reply or End Turn) into an [`Event`], and passes every outside fact the
//! engine needs (is a person there to ask? which turn is this?) inside the event.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{AnswerError, Problem};
use crate::form::Form;

/// The id of one inquiry (typically the tool call's id). Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct InquiryId(Arc<str>);

impl<'de> Deserialize<'de> for InquiryId {
    /// As the `Arc<str>` it holds, with one allocation rather than two (serde
    /// builds an `Arc<str>` from a `Box<str>`): a replay reads one id per event.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_string(IdVisitor)
    }
}

/// Reads an [`InquiryId`] as serde reads a `String` (same accepted input, same
/// errors).
struct IdVisitor;

impl serde::de::Visitor<'_> for IdVisitor {
    type Value = InquiryId;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<InquiryId, E> {
        Ok(InquiryId::new(text))
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<InquiryId, E> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(InquiryId::new(text)),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(bytes), &self)),
        }
    }
}

impl InquiryId {
    /// An inquiry id.
    pub fn new(id: impl AsRef<str>) -> Self {
        Self(Arc::from(id.as_ref()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `self == other`, first by pointer (a reader that hands out one `Arc` for the
    /// events of one inquiry makes that the common case), and without `memcmp` on
    /// two empty ids (see `text::same_text`).
    pub(crate) fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || crate::text::same_text(&self.0, &other.0)
    }
}

impl fmt::Display for InquiryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for InquiryId {
    fn from(id: &str) -> Self {
        Self::new(id)
    }
}

impl std::borrow::Borrow<str> for InquiryId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// An input to the engine, and what the log records.
///
/// A host hands in the first five kinds (and [`Event::Rejected`] for a call its own
/// parser refused). [`State::decide`](crate::State::decide) turns an input into the
/// event to record: the same event when it is accepted, or a verdict that records
/// what a model or a person did wrong ([`Event::Rejected`], [`Event::AnswerRefused`],
/// [`Event::Denied`]), so that replaying never validates again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A tool call asks a form.
    Requested(Request),
    /// A tool call whose form was invalid: recorded with its problems (not its form).
    /// The model gets a tool error listing them.
    Rejected {
        /// The inquiry.
        inquiry: InquiryId,
        /// The tool's name as the model knows it, for the tool error text.
        tool: String,
        /// Every problem, each with the path of its field.
        problems: Vec<Problem>,
    },
    /// A request the policy refused at once (a sub-agent asked, or a configured
    /// answer does not fit its question): the model gets a tool error.
    Denied {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why.
        reason: CancelReason,
        /// The text for the model.
        message: String,
    },
    /// An answer to the question being asked.
    Answered {
        /// The inquiry.
        inquiry: InquiryId,
        /// The id of the question answered (it must be the one being asked).
        question: String,
        /// The answer as JSON: a boolean, a label or text, a list of labels, any value.
        value: Value,
        /// Who gave it.
        #[serde(default)]
        by: AnsweredBy,
        /// The person asked to reuse this answer for the rest of the turn.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        remember: bool,
        /// A note the person wrote beside the answer, for the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// An answer the person gave ahead of the engine, to a question after the one
    /// being asked, in a form that showed several questions at once (an MCP
    /// elicitation round). Kept among the answers so far, so a Reply's cancel
    /// marker carries it and a transcript lists it; an answer to the question when
    /// the engine reaches it replaces it, and Back moves it to the prefills with
    /// the others. The question's `when` must hold for the answers recorded, and
    /// the answer must fit the question.
    AnsweredAhead {
        /// The inquiry.
        inquiry: InquiryId,
        /// The id of a question after the one being asked.
        question: String,
        /// The answer as JSON, as for [`Event::Answered`].
        value: Value,
    },
    /// A surface showed these questions together, in this order, in one form (an
    /// MCP elicitation round), so a replay knows how the questions were grouped.
    /// The engine checks that the inquiry is open and the ids are its questions,
    /// and changes nothing else.
    Shown {
        /// The inquiry.
        inquiry: InquiryId,
        /// The ids of the questions shown, in the order shown.
        questions: Vec<String>,
    },
    /// An answer that did not fit its question, recorded with why; whoever answered
    /// is told and asked again. Too many in a row fail the inquiry
    /// ([`MAX_REFUSED_ANSWERS`](crate::limits::MAX_REFUSED_ANSWERS)).
    AnswerRefused {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question's id.
        question: String,
        /// Why, in words for whoever answered.
        message: String,
        /// Why, typed (`message` is its text); `None` in records written before
        /// reasons were recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<AnswerError>,
    },
    /// The person went back to the previous answered question.
    Back {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The inquiry was cancelled: by a Reply, or for a system reason.
    Cancelled {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why.
        reason: CancelReason,
        /// With a Reply: the message the person typed for the model, if any.
        /// Otherwise the host's own words, kept for a transcript (the model gets
        /// the reason's tool error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The person ended the turn; no tool result is sent.
    TurnEnded {
        /// The inquiry during which the turn ended.
        inquiry: InquiryId,
        /// Where the person ended it; `None` in logs written before the event
        /// said so (and from an input that did not say).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        surface: Option<Surface>,
    },
    /// The inquiry's time to answer ran out: the policy's [`OnTimeout`] action is
    /// taken. Recorded from an [`Input::TimeOut`](crate::Input::TimeOut) fired at
    /// or after the deadline the state knows (see there for who may fire, and
    /// [`State::deadline`](crate::State::deadline)).
    TimedOut {
        /// The inquiry that timed out.
        inquiry: InquiryId,
        /// A Reply message the person was typing when the time ran out: it goes
        /// to the model with the timeout's result, so no typed word is lost.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// When the timeout was fired, in milliseconds since the Unix epoch, by
        /// the firer's clock; `None` in logs written before timeouts carried
        /// their time (the engine then took it whenever it came).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fired_at_ms: Option<u64>,
    },
    /// The surface shows the person a review of every answer before they are
    /// sent: once the form is complete, the inquiry waits
    /// ([`Command::Review`](crate::Command::Review)) for [`Event::Submitted`], Back,
    /// a Reply, End Turn or the timeout, instead of responding at once. Recorded
    /// before the answer that completes the form, so that a Reply from the review
    /// sends every answer the review showed.
    ReviewWanted {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The person sent the answers they reviewed.
    Submitted {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// From the review, the person changes their answer to `question`
    /// ([`Input::Change`](crate::Input::Change)): the inquiry goes back to it
    /// (its answer and every later one kept as prefills), and once it is
    /// answered again, the later answers the person gave are given again where
    /// their question still shows, up to the review.
    ChangeWanted {
        /// The inquiry.
        inquiry: InquiryId,
        /// The id of the question whose answer changes.
        question: String,
    },
    /// A process started waiting on the stream (a `serve`, an `ask`, an MCP
    /// server, an embedder's session), recorded once per stream by each: who is
    /// asking and from where. It belongs to no inquiry and changes none; the state
    /// remembers the latest ([`State::agent`](crate::State::agent)).
    Attached {
        /// Who is asking, from where.
        origin: AgentOrigin,
    },
    /// A process that waited on the stream stopped cleanly (one killed records
    /// nothing: its presence lease expires instead). Changes no inquiry.
    Detached {
        /// Who stopped waiting, as it attached.
        origin: AgentOrigin,
    },
    /// The surface that asked the inquiry handed its result to its agent: an
    /// `askuser serve` wrote the result line, an MCP call returned it. Recorded
    /// only for an inquiry whose request says its asker takes a result it missed
    /// ([`Origin::resumes`]), once, after the inquiry finished; until then the
    /// state keeps the result owed ([`State::owed`](crate::State::owed)), so an
    /// asker that comes back (a restarted `serve`, a retried MCP call) is given
    /// what was finished while it was away, and only that. It moves no inquiry.
    Delivered {
        /// The finished inquiry whose result was handed over.
        inquiry: InquiryId,
    },
    /// What the client asking the inquiry did that is not the person's choice
    /// (no person at it, a form it cannot show, an answer after its own
    /// timeout), noted so a transcript and the inbox say so. The inquiry must be
    /// open; nothing else changes, so the questions stay answerable from every
    /// other surface.
    ClientNoted {
        /// The inquiry.
        inquiry: InquiryId,
        /// What the client did.
        note: ClientNote,
    },
}

/// What a client's form came back with, when that was not the person's doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormAction {
    /// `cancel`: dismissed.
    Cancel,
    /// `decline`: declined.
    Decline,
    /// `accept` with every answer left at its default: sent back unread.
    Accept,
}

impl std::fmt::Display for FormAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FormAction::Cancel => "cancel",
            FormAction::Decline => "decline",
            FormAction::Accept => "accept",
        })
    }
}

/// What a client did with an inquiry's form that is not the person's choice
/// ([`Event::ClientNoted`]). The host measures and judges; the core records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClientNote {
    /// The client has no forms: the questions wait for another surface.
    NoForms,
    /// The client's form came back cancelled or declined faster than a person
    /// can read one: nobody is at the client (a headless run), so that was not
    /// the person's choice, and the questions wait for another surface.
    NoPerson {
        /// What came back.
        action: FormAction,
        /// How long after the form went out, in milliseconds.
        after_ms: u64,
    },
    /// The client's form came back empty or unusable twice: it cannot show
    /// these questions, and they wait for another surface.
    CannotShow,
    /// The host said it runs with nobody at it, in a headless mode it names
    /// (`claude -p`, `codex exec`): no form was sent, and the questions wait
    /// for another surface.
    Headless {
        /// The host's headless mode, as its people type it (`claude -p`).
        mode: String,
    },
    /// What the client sent came after its own tool-call timeout had passed:
    /// the model had stopped waiting, so the answers it brings are late.
    Late {
        /// The client's tool-call timeout, in milliseconds.
        timeout_ms: u64,
        /// How long after the tool call it came, in milliseconds.
        after_ms: u64,
    },
    /// The client does not tell when its person stops a call (Gemini CLI:
    /// Esc sends no cancel), so a result given to the call may never reach
    /// the model. Noted when the call starts to wait; a result another surface
    /// gives it then stays owed ([`State::owed`](crate::State::owed)): the
    /// same call made again is answered with it.
    StopsSilently {
        /// The client, by its host's name (`Gemini CLI`).
        host: String,
    },
    /// A new call came in the same session while this one waited, from a
    /// client that stops calls silently ([`ClientNote::StopsSilently`]): the
    /// model had moved on, and nothing waits for this call's result any
    /// more. The questions stay answerable; their result stays owed.
    MovedOn {
        /// How long after this call the new one came, in milliseconds.
        after_ms: u64,
    },
    /// The client stopped the call while it waited for an answer from another
    /// window (no form of the client's was open): it sent
    /// `notifications/cancelled`, or went away (`disconnected`). The model
    /// stopped waiting, but the person may be answering elsewhere: the
    /// questions stay answerable, and their result stays owed for the same
    /// call made again.
    StoppedWaiting {
        /// Whether the client went away rather than cancelled the call.
        disconnected: bool,
    },
}

impl Event {
    /// The inquiry the event belongs to; `None` for an event that moves no
    /// inquiry: about the stream ([`Event::Attached`], [`Event::Detached`]), or a
    /// finished inquiry's result handed over ([`Event::Delivered`]).
    pub fn inquiry(&self) -> Option<&InquiryId> {
        Some(match self {
            Event::Requested(request) => &request.inquiry,
            Event::Rejected { inquiry, .. }
            | Event::Denied { inquiry, .. }
            | Event::Answered { inquiry, .. }
            | Event::AnsweredAhead { inquiry, .. }
            | Event::Shown { inquiry, .. }
            | Event::AnswerRefused { inquiry, .. }
            | Event::Back { inquiry }
            | Event::Cancelled { inquiry, .. }
            | Event::TurnEnded { inquiry, .. }
            | Event::TimedOut { inquiry, .. }
            | Event::ReviewWanted { inquiry }
            | Event::Submitted { inquiry }
            | Event::ChangeWanted { inquiry, .. }
            | Event::ClientNoted { inquiry, .. } => inquiry,
            Event::Attached { .. } | Event::Detached { .. } | Event::Delivered { .. } => {
                return None;
            }
        })
    }
}

/// Who is asking on a stream, and from where: what a process that waits on it
/// records once ([`Event::Attached`]) and holds its presence lease with. Every
/// field is a fact the host passed in (the core reads no host name, directory or
/// environment), one line of plain text of at most
/// [`MAX_ORIGIN_FIELD_BYTES`](crate::limits::MAX_ORIGIN_FIELD_BYTES); an absent
/// field is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentOrigin {
    /// The agent's "who's asking" label (`Claude (repo: billing-api)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The host program: an MCP client's name and version (`Claude Code 2.1`),
    /// the dialect, or what `--agent NAME` said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The machine's host name (`laptop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// The working directory, as the host saw it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// The name of the repository the directory is in (the directory holding
    /// `.git`), `billing-api`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
}

impl AgentOrigin {
    /// Each field with its name, in order: what deciding checks.
    pub fn fields(&self) -> [(&'static str, Option<&str>); 5] {
        [
            ("label", self.label.as_deref()),
            ("host", self.host.as_deref()),
            ("machine", self.machine.as_deref()),
            ("directory", self.directory.as_deref()),
            ("repository", self.repository.as_deref()),
        ]
    }

    /// Whether the origin may be recorded: each field one line of plain text
    /// (no control, bidi-control or invisible character) within
    /// [`MAX_ORIGIN_FIELD_BYTES`](crate::limits::MAX_ORIGIN_FIELD_BYTES), counted
    /// as the log writes it, escapes included. What deciding
    /// [`Event::Attached`] checks; a store checks a presence lease's origin alike.
    ///
    /// # Errors
    /// [`Refusal::BadOrigin`](crate::Refusal::BadOrigin), naming the first field
    /// that does not fit.
    pub fn check(&self) -> Result<(), crate::Refusal> {
        use crate::limits::{MAX_ORIGIN_FIELD_BYTES, json_string_bytes};
        use crate::text::{Lines, forbidden_char};
        for (field, text) in self.fields() {
            let Some(text) = text else { continue };
            let bytes = json_string_bytes(text);
            let why = if bytes > MAX_ORIGIN_FIELD_BYTES {
                format!("is {bytes} bytes long; at most {MAX_ORIGIN_FIELD_BYTES} are kept")
            } else if let Some(found) = forbidden_char(text, Lines::One) {
                format!("holds {found}; write it as one line of plain text")
            } else {
                continue;
            };
            return Err(crate::Refusal::BadOrigin {
                field: field.to_owned(),
                why,
            });
        }
        Ok(())
    }

    /// The place: the repository's name, else the working directory's last
    /// component.
    pub fn place(&self) -> Option<&str> {
        self.repository.as_deref().or_else(|| {
            let directory = self.directory.as_deref()?;
            directory
                .trim_end_matches(['/', '\\'])
                .rsplit(['/', '\\'])
                .next()
                .filter(|name| !name.is_empty())
        })
    }

    /// Who asks and from where, in one line a person reads: the host (else the
    /// label), the place and the machine, joined by ` · ` (`Claude Code ·
    /// billing-api · laptop`); empty when nothing is known. As recorded: a
    /// surface shows it through [`for_display_line`](crate::text::for_display_line).
    pub fn line(&self) -> String {
        let who = self.host.as_deref().or(self.label.as_deref());
        [who, self.place(), self.machine.as_deref()]
            .into_iter()
            .flatten()
            .filter(|part| !part.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// A tool call that asks a form, with the facts that decide who answers it.
///
/// Its `Debug` is short, for logs and failed assertions: the questions by id and
/// the tool call by dialect (the form and the raw arguments can be 64 KiB each).
///
/// ```
/// use askuser_core::{InquiryId, Request, ToolCall, parse_form};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
///     {"id": "note", "text": "Why?", "answer_type": "text"}]})).unwrap();
/// let request = Request {
///     inquiry: InquiryId::new("call-1"),
///     form: form.form().clone(),
///     policy: Default::default(),
///     origin: Default::default(),
///     call: Some(ToolCall { dialect: "jp-form".into(), arguments: json!({"questions": []}) }),
/// };
/// assert_eq!(
///     format!("{request:?}"),
///     r#"Request { inquiry: "call-1", questions: ["apply", "note"], call: Some("jp-form"), .. }"#
/// );
/// ```
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The new inquiry's id; unique for the engine's lifetime.
    pub inquiry: InquiryId,
    /// The questions.
    pub form: Arc<Form>,
    /// Who may answer, and how.
    #[serde(default)]
    pub policy: Policy,
    /// Where the request comes from.
    #[serde(default)]
    pub origin: Origin,
    /// The tool call as the model wrote it, kept so that a host can render the
    /// dialect's result from the log alone. The engine does not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<ToolCall>,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let questions: Vec<&str> = self.form.questions.iter().map(|q| q.id.as_str()).collect();
        f.debug_struct("Request")
            .field("inquiry", &self.inquiry.as_str())
            .field("questions", &questions)
            .field(
                "call",
                &self.call.as_ref().map(|call| call.dialect.as_str()),
            )
            .finish_non_exhaustive()
    }
}

/// A tool call as the model wrote it: its dialect's name and its raw arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The dialect's name (`"claude"`, `"jp-form"`, ...).
    pub dialect: String,
    /// The arguments, unchanged.
    pub arguments: Value,
}

/// Who may answer an inquiry's questions, decided from configuration and facts.
///
/// A field a record leaves out reads as [`Policy::default`]'s. (Each field says
/// its own default: a default for the whole struct would be built, labels and
/// all, for every policy read, a replay's requests included.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// Who the questions are meant for.
    #[serde(default)]
    pub target: Target,
    /// Whether a person can be asked right now (a terminal or a UI is attached).
    #[serde(default = "yes")]
    pub interactive: bool,
    /// Only a human may answer: never route to the assistant. `ask_user` sets it.
    #[serde(default = "yes")]
    pub exclusive: bool,
    /// Whether an answer may be remembered for the rest of the turn.
    #[serde(default)]
    pub persistence: Persistence,
    /// Configured answers by question id; such a question is never shown.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub static_answers: BTreeMap<String, Value>,
    /// The "who's asking" label a prompt shows (`"Assistant"` for `ask_user`). Written
    /// even when `None` (as `null`), since an absent label reads as the default.
    #[serde(default = "assistant_label")]
    pub label: Option<String>,
    /// How long the person has to answer, and what happens then; `None` (the
    /// default): no time limit. Absent from records written before timeouts existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Timeout>,
}

/// A time limit on an inquiry. The deadline is `after_ms` milliseconds after the
/// log recorded the event that put the current question (or review) up, the
/// same for every surface that shows it ([`State::deadline`](crate::State::deadline));
/// a surface fires [`Input::TimeOut`](crate::Input::TimeOut) once it passes
/// without an answer, and the engine takes the first one fired at or after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeout {
    /// Milliseconds the person has to answer.
    pub after_ms: u64,
    /// What happens when the time is up.
    pub on_timeout: OnTimeout,
}

/// What happens when an inquiry times out. The model is told plainly that the
/// person did not answer in time, and which answers the timeout filled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// Respond with the answers given so far (like a Reply).
    #[default]
    Cancel,
    /// Fill each remaining question that applies (gates re-checked in order) with
    /// its default, or else the first option whose label contains
    /// `"(Recommended)"`, then respond. A question with neither stays unanswered.
    Defaults,
    /// End the turn: no tool result is sent.
    EndTurn,
}

impl Default for Policy {
    /// `ask_user`'s policy: for the user, exclusive, not remembered, a person present,
    /// labelled "Assistant".
    fn default() -> Self {
        Self {
            target: Target::User,
            interactive: yes(),
            exclusive: yes(),
            persistence: Persistence::None,
            static_answers: BTreeMap::new(),
            label: assistant_label(),
            timeout: None,
        }
    }
}

/// `true`, as a field's default.
fn yes() -> bool {
    true
}

/// `ask_user`'s label, [`Policy::label`]'s default.
#[expect(
    clippy::unnecessary_wraps,
    reason = "serde's default for an optional field"
)]
fn assistant_label() -> Option<String> {
    Some("Assistant".to_owned())
}

/// Who a question is meant for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The person at the terminal or UI.
    #[default]
    User,
    /// The assistant, through structured output.
    Assistant,
}

/// Whether an answer may be remembered for the rest of the turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Persistence {
    /// Ask every time (`ask_user`'s policy).
    #[default]
    None,
    /// An answer the person chose to remember is reused until the turn ends.
    Turn,
}

/// Where a request comes from.
///
/// A field a record leaves out reads as [`Origin::default`]'s (each field says
/// its own, as [`Policy`]'s do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The tool's name, used in messages to the model (`"ask_user"`).
    #[serde(default = "ask_user_tool")]
    pub tool: String,
    /// The conversation turn. Remembered answers expire when it changes or ends.
    #[serde(default)]
    pub turn: String,
    /// Whether a sub-agent made the call. Only the parent conversation may ask a person.
    #[serde(default)]
    pub subagent: bool,
    /// The asker takes a result it missed when it comes back (an `askuser serve`
    /// restarted on the stream, an MCP call retried): it records each result it
    /// hands over ([`Event::Delivered`]), and a result not handed over stays owed
    /// to it ([`State::owed`](crate::State::owed)). Absent from records written
    /// before results were kept for an asker, and off for an asker that does not
    /// come back for them (a terminal's `askuser ask`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resumes: bool,
}

/// `ask_user`, [`Origin::tool`]'s default.
fn ask_user_tool() -> String {
    "ask_user".to_owned()
}

impl Default for Origin {
    fn default() -> Self {
        Self {
            tool: ask_user_tool(),
            turn: String::new(),
            subagent: false,
            resumes: false,
        }
    }
}

/// Who answered a question.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The person.
    #[default]
    User,
    /// The assistant, for a question routed to it.
    Assistant,
    /// A configured static answer.
    Config,
    /// An answer remembered earlier in the turn.
    Cache,
    /// Filled when the person did not answer in time ([`OnTimeout::Defaults`]):
    /// the question's default or its recommended option, not the person's choice.
    Timeout,
}

/// Where a person acted: the surface an input came from, recorded where its
/// words matter (on [`Event::TurnEnded`], so every other surface can say where
/// the turn was ended, not "elsewhere").
///
/// ```
/// use askuser_core::Surface;
///
/// assert_eq!(Surface::Web.words(), "in the web inbox");
/// assert_eq!(serde_json::to_string(&Surface::Host).unwrap(), "\"host\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    /// A terminal prompt (`askuser ask`, `askuser resume`).
    Terminal,
    /// The web inbox (`askuser web`).
    Web,
    /// The agent's own window: its host's form (an MCP client's dialog) or
    /// the program driving askuser over JSON lines.
    Host,
}

impl Surface {
    /// Where, in words that follow a verb: `"in the terminal"`, `"in the web
    /// inbox"`, `"in the agent's own window"`.
    pub fn words(self) -> &'static str {
        match self {
            Surface::Terminal => "in the terminal",
            Surface::Web => "in the web inbox",
            Surface::Host => "in the agent's own window",
        }
    }
}

/// Why an inquiry was cancelled.
///
/// Serialized as a string; a reason this version does not know is kept as
/// [`CancelReason::Unknown`] and written back unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CancelReason {
    /// The person chose Reply: the model gets a cancel marker and the answers so far.
    UserReply,
    /// No person can be asked and the question is exclusive.
    NoPromptBackend,
    /// The question targets the assistant but is exclusive.
    AssistantRoutingDenied,
    /// A configured static answer does not fit the question.
    InvalidStaticAnswer,
    /// A sub-agent asked; only the parent conversation may ask the person.
    SubagentDenied,
    /// The assistant backend failed to answer.
    BackendError,
    /// Whoever answered gave too many answers in a row that did not fit.
    TooManyInvalidAnswers,
    /// A reason this version does not know, kept as written.
    Unknown(String),
}

impl CancelReason {
    const NAMED: [(&'static str, CancelReason); 7] = [
        ("user_reply", CancelReason::UserReply),
        ("no_prompt_backend", CancelReason::NoPromptBackend),
        (
            "assistant_routing_denied",
            CancelReason::AssistantRoutingDenied,
        ),
        ("invalid_static_answer", CancelReason::InvalidStaticAnswer),
        ("subagent_denied", CancelReason::SubagentDenied),
        ("backend_error", CancelReason::BackendError),
        (
            "too_many_invalid_answers",
            CancelReason::TooManyInvalidAnswers,
        ),
    ];

    /// The reason's name (`"user_reply"`, ...; an unknown reason's own text).
    pub fn as_str(&self) -> &str {
        match self {
            CancelReason::Unknown(name) => name,
            known => Self::NAMED
                .iter()
                .find(|(_, reason)| reason == known)
                .map_or("unknown", |(name, _)| name),
        }
    }

    /// The reason with this name; unknown names become [`CancelReason::Unknown`].
    pub fn from_name(name: &str) -> Self {
        Self::NAMED
            .iter()
            .find(|(known, _)| *known == name)
            .map_or_else(
                || CancelReason::Unknown(name.to_owned()),
                |(_, reason)| reason.clone(),
            )
    }
}

impl fmt::Display for CancelReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CancelReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CancelReason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(Self::from_name(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_round_trips_with_or_without_a_label() {
        for label in [
            None,
            Some("Assistant".to_owned()),
            Some("Deploy bot".to_owned()),
        ] {
            let policy = Policy {
                label,
                ..Policy::default()
            };
            let json = serde_json::to_value(&policy).unwrap();
            assert_eq!(serde_json::from_value::<Policy>(json).unwrap(), policy);
        }
        let absent: Policy = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(absent, Policy::default());
    }

    /// Each field a record leaves out reads as the default's, alone or beside
    /// the others (the defaults are the fields' own, not a default struct's).
    #[test]
    fn a_policy_or_an_origin_missing_fields_reads_each_as_the_default() {
        let policy: Policy = serde_json::from_value(serde_json::json!({
            "target": "assistant", "exclusive": false, "label": null
        }))
        .unwrap();
        assert_eq!(
            policy,
            Policy {
                target: Target::Assistant,
                exclusive: false,
                label: None,
                ..Policy::default()
            }
        );
        let policy: Policy =
            serde_json::from_value(serde_json::json!({"interactive": false})).unwrap();
        assert_eq!(
            policy,
            Policy {
                interactive: false,
                ..Policy::default()
            }
        );
        let origin: Origin = serde_json::from_value(serde_json::json!({"turn": "t1"})).unwrap();
        assert_eq!(
            origin,
            Origin {
                turn: "t1".to_owned(),
                ..Origin::default()
            }
        );
        assert_eq!(
            serde_json::from_value::<Origin>(serde_json::json!({})).unwrap(),
            Origin::default()
        );
        assert_eq!(Origin::default().tool, "ask_user");
    }

    #[test]
    fn an_origin_reads_as_one_line_of_who_and_where() {
        let origin = AgentOrigin {
            label: Some("Claude (repo: billing-api)".into()),
            host: Some("Claude Code".into()),
            machine: Some("laptop".into()),
            directory: Some("/home/ana/src/billing-api/web/".into()),
            repository: None,
        };
        assert_eq!(origin.line(), "Claude Code · web · laptop");
        let named = AgentOrigin {
            repository: Some("billing-api".into()),
            host: None,
            ..origin
        };
        assert_eq!(
            named.line(),
            "Claude (repo: billing-api) · billing-api · laptop"
        );
        assert_eq!(AgentOrigin::default().line(), "");
        let json = serde_json::to_value(&named).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"label": "Claude (repo: billing-api)", "machine": "laptop",
                "directory": "/home/ana/src/billing-api/web/", "repository": "billing-api"})
        );
        assert_eq!(serde_json::from_value::<AgentOrigin>(json).unwrap(), named);
    }

    #[test]
    fn an_inquiry_id_reads_as_a_string_does() {
        let id: InquiryId = serde_json::from_value(serde_json::json!("toolu_01")).unwrap();
        assert_eq!(id.as_str(), "toolu_01");
        for bad in [
            serde_json::json!(5),
            serde_json::json!(null),
            serde_json::json!(["a"]),
        ] {
            assert_eq!(
                serde_json::from_value::<InquiryId>(bad.clone())
                    .unwrap_err()
                    .to_string(),
                serde_json::from_value::<Arc<str>>(bad)
                    .unwrap_err()
                    .to_string()
            );
        }
    }

    #[test]
    fn cancel_reasons_round_trip_including_unknown_ones() {
        for name in [
            "user_reply",
            "no_prompt_backend",
            "assistant_routing_denied",
            "invalid_static_answer",
            "subagent_denied",
            "backend_error",
            "timed_out_by_host",
        ] {
            let reason: CancelReason = serde_json::from_value(name.into()).unwrap();
            assert_eq!(serde_json::to_value(&reason).unwrap(), name);
        }
        assert_eq!(
            CancelReason::from_name("timed_out_by_host"),
            CancelReason::Unknown("timed_out_by_host".into())
        );
    }
}
