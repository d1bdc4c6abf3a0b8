//! Builders for the events, requests, forms and policies tests use most: each
//! takes what a test varies and fills the rest with the defaults (a user's
//! answer, the default policy, no origin, no raw call).

use std::sync::Arc;

use askuser_core::{
    AnswerError, AnswerInput, AnsweredBy, CancelReason, Event, Form, Input, InquiryId, Origin,
    Persistence, Policy, Problem, Request, State, Surface, Target, parse_form,
};
use askuser_store::{Log, ManualClock, MemLog, Timestamp};
use serde_json::{Value, json};

/// 2025-03-01T00:00:00Z: where the test clock starts.
pub const T0: Timestamp = Timestamp(1_740_787_200_000);

/// A manual clock at [`T0`].
pub fn clock() -> Arc<ManualClock> {
    ManualClock::new(T0)
}

/// An in-memory log stamped by a clock at [`T0`].
pub fn mem() -> MemLog {
    MemLog::new().with_clock(clock())
}

/// The form of a tool call's `arguments` (askuser's own form format).
///
/// # Panics
///
/// If `arguments` is not a valid form.
pub fn form(arguments: &Value) -> Arc<Form> {
    Arc::clone(parse_form(arguments).expect("a valid form").form())
}

/// "Which database should we use?" (`db`, select: `PostgreSQL`, `SQLite`, `MySQL`), then
/// "Migrate the data now?" (`migrate`, boolean).
pub fn db_form() -> Arc<Form> {
    form(&json!({"questions": [
        {"id": "db", "text": "Which database should we use?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite", "MySQL"]},
        {"id": "migrate", "text": "Migrate the data now?", "answer_type": "boolean"},
    ]}))
}

/// Tags to attach (`tags`, multi-select, others allowed), then a free-text
/// `comment` with a default.
pub fn tags_form() -> Arc<Form> {
    form(&json!({"questions": [
        {"id": "tags", "text": "Which tags apply?", "answer_type": "multi_select",
         "options": ["bug", "feature", "docs"], "allow_other": true},
        {"id": "comment", "text": "Any comment?", "answer_type": "text", "default": "none"},
    ]}))
}

/// A request for `form` under the default policy, no origin, no raw call.
pub fn request(inquiry: &str, form: Arc<Form>) -> Request {
    Request {
        inquiry: InquiryId::new(inquiry),
        form,
        policy: Policy::default(),
        origin: Origin::default(),
        call: None,
    }
}

/// [`Input::Ask`] of [`request`]: a request as a host hands it in.
pub fn ask(inquiry: &str, form: Arc<Form>) -> Input {
    Input::Ask(request(inquiry, form))
}

/// The person's answer `value` to what `state` shows of `inquiry` now (its
/// question, or review, at its step), as a surface showing it hands it in.
///
/// # Panics
///
/// If `inquiry` is not open in `state`.
pub fn answer_shown(state: &State, inquiry: &str, value: Value) -> Input {
    let shown = state
        .at(&InquiryId::new(inquiry))
        .expect("the inquiry is open");
    AnswerInput::new(shown, value).into()
}

/// [`Event::Requested`] of [`request`].
pub fn requested(inquiry: &str, form: Arc<Form>) -> Event {
    Event::Requested(request(inquiry, form))
}

/// [`Event::Requested`] under `policy`, in the agent's turn `turn`.
pub fn requested_with(inquiry: &str, form: Arc<Form>, policy: Policy, turn: &str) -> Event {
    Event::Requested(Request {
        policy,
        origin: Origin {
            turn: turn.to_owned(),
            ..Origin::default()
        },
        ..request(inquiry, form)
    })
}

/// The person answered `question` of `inquiry` with `value`.
pub fn answered(inquiry: &str, question: &str, value: Value) -> Event {
    answered_by(inquiry, question, value, AnsweredBy::User, false)
}

/// `question` of `inquiry` answered with `value` by `by`, remembered or not.
pub fn answered_by(
    inquiry: &str,
    question: &str,
    value: Value,
    by: AnsweredBy,
    remember: bool,
) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
        value,
        by,
        remember,
        note: None,
    }
}

/// The person answered `question` of `inquiry` with `value`, with a note beside it.
pub fn answered_with_note(inquiry: &str, question: &str, value: Value, note: &str) -> Event {
    let mut event = answered(inquiry, question, value);
    if let Event::Answered { note: slot, .. } = &mut event {
        *slot = Some(note.to_owned());
    }
    event
}

/// The person went back a question in `inquiry`.
pub fn back(inquiry: &str) -> Event {
    Event::Back {
        inquiry: InquiryId::new(inquiry),
    }
}

/// The result of the finished `inquiry` was handed to its asker.
pub fn delivered(inquiry: &str) -> Event {
    Event::Delivered {
        inquiry: InquiryId::new(inquiry),
    }
}

/// `inquiry` was cancelled for `reason`, with no message.
pub fn cancelled(inquiry: &str, reason: CancelReason) -> Event {
    Event::Cancelled {
        inquiry: InquiryId::new(inquiry),
        reason,
        message: None,
    }
}

/// The person ended the agent's turn at `inquiry`.
pub fn turn_ended(inquiry: &str) -> Event {
    Event::TurnEnded {
        inquiry: InquiryId::new(inquiry),
        surface: None,
    }
}

/// The turn ended in `surface` during `inquiry`.
pub fn turn_ended_in(inquiry: &str, surface: Surface) -> Event {
    Event::TurnEnded {
        inquiry: InquiryId::new(inquiry),
        surface: Some(surface),
    }
}

/// `inquiry` was cancelled for `reason`, with the message `message`.
pub fn cancelled_with(inquiry: &str, reason: CancelReason, message: &str) -> Event {
    Event::Cancelled {
        inquiry: InquiryId::new(inquiry),
        reason,
        message: Some(message.to_owned()),
    }
}

/// A surface showed `questions` of `inquiry` together, in this order.
pub fn shown(inquiry: &str, questions: &[&str]) -> Event {
    Event::Shown {
        inquiry: InquiryId::new(inquiry),
        questions: questions
            .iter()
            .map(|&question| question.to_owned())
            .collect(),
    }
}

/// The client asking `inquiry` did something that is not the person's choice.
pub fn client_noted(inquiry: &str, note: askuser_core::ClientNote) -> Event {
    Event::ClientNoted {
        inquiry: InquiryId::new(inquiry),
        note,
    }
}

/// `question` of `inquiry`, after the one being asked, answered ahead with `value`.
pub fn answered_ahead(inquiry: &str, question: &str, value: Value) -> Event {
    Event::AnsweredAhead {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
        value,
    }
}

/// An answer to `question` of `inquiry` refused with `message` (and `reason`,
/// when typed).
pub fn answer_refused(
    inquiry: &str,
    question: &str,
    message: &str,
    reason: Option<AnswerError>,
) -> Event {
    Event::AnswerRefused {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
        message: message.to_owned(),
        reason,
    }
}

/// `inquiry` timed out (`message`: a Reply the person was typing), as a log
/// written before timeouts carried the time they were fired at records it.
pub fn timed_out(inquiry: &str, message: Option<&str>) -> Event {
    Event::TimedOut {
        inquiry: InquiryId::new(inquiry),
        message: message.map(str::to_owned),
        fired_at_ms: None,
    }
}

/// `inquiry` timed out, fired at `fired_at_ms` (milliseconds since the Unix
/// epoch), as an [`Input::TimeOut`] records it.
pub fn timed_out_at(inquiry: &str, message: Option<&str>, fired_at_ms: u64) -> Event {
    Event::TimedOut {
        inquiry: InquiryId::new(inquiry),
        message: message.map(str::to_owned),
        fired_at_ms: Some(fired_at_ms),
    }
}

/// A surface of `inquiry` will show a review before sending.
pub fn review_wanted(inquiry: &str) -> Event {
    Event::ReviewWanted {
        inquiry: InquiryId::new(inquiry),
    }
}

/// The person sent the answers of `inquiry`'s review.
pub fn submitted(inquiry: &str) -> Event {
    Event::Submitted {
        inquiry: InquiryId::new(inquiry),
    }
}

/// An agent's origin: the host program `host` in the repository
/// `billing-api` on the machine `laptop`.
pub fn agent(host: &str) -> askuser_core::AgentOrigin {
    askuser_core::AgentOrigin {
        host: Some(host.into()),
        machine: Some("laptop".into()),
        repository: Some("billing-api".into()),
        ..askuser_core::AgentOrigin::default()
    }
}

/// From the review of `inquiry`, the person changes the answer to `question`.
pub fn change_wanted(inquiry: &str, question: &str) -> Event {
    Event::ChangeWanted {
        inquiry: InquiryId::new(inquiry),
        question: question.to_owned(),
    }
}

/// A call to `tool` rejected with `problems`.
pub fn rejected(inquiry: &str, tool: &str, problems: Vec<Problem>) -> Event {
    Event::Rejected {
        inquiry: InquiryId::new(inquiry),
        tool: tool.to_owned(),
        problems,
    }
}

/// A request of `inquiry` denied by its policy for `reason`, with `message`.
pub fn denied(inquiry: &str, reason: CancelReason, message: &str) -> Event {
    Event::Denied {
        inquiry: InquiryId::new(inquiry),
        reason,
        message: message.to_owned(),
    }
}

/// A policy that routes to the assistant and remembers answers for the turn.
pub fn assistant_policy() -> Policy {
    Policy {
        target: Target::Assistant,
        exclusive: false,
        persistence: Persistence::Turn,
        label: None,
        ..Policy::default()
    }
}

/// A policy with no person present (exclusive: the inquiry fails).
pub fn headless_policy() -> Policy {
    Policy {
        interactive: false,
        ..Policy::default()
    }
}

/// A user policy that remembers answers for the turn.
pub fn remembering_policy() -> Policy {
    Policy {
        persistence: Persistence::Turn,
        ..Policy::default()
    }
}

/// Every event of `stream`, read from its first.
///
/// # Panics
///
/// If the stream cannot be read or an event is damaged.
pub fn events_of(log: &dyn Log, stream: &str) -> Vec<Event> {
    log.read(stream, 1)
        .unwrap()
        .map(|r| r.unwrap().event)
        .collect()
}
