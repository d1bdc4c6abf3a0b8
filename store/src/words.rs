//! Events in words: the one renderer every surface uses to tell what an event
//! was. [`Length::Short`] is a sentence for a person (the web inbox's timeline:
//! `Answered “Deploy now?”: Yes`); [`Length::Long`] is the full line of the
//! record, every id and value as recorded (`askuser log replay` and `log show`:
//! `answered c1: ok = true (by assistant)`). The transcript tells its answers
//! with [`answer_sentence`]. Every answer is told in the words of
//! [`askuser_core::text::answer_words`].
//!
//! ```
//! use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
//! use askuser_store::words::{Length, event_words};
//! use serde_json::json;
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "ok", "text": "Ok?", "answer_type": "boolean"},
//!     {"id": "why", "text": "Why?", "answer_type": "text"}]})).unwrap();
//! let mut state = State::new();
//! # let id = InquiryId::new("c1");
//! # let request = Request { inquiry: id.clone(), form: form.form().clone(),
//! #     policy: Default::default(), origin: Default::default(), call: None };
//! # let answer = askuser_core::AnswerInput::new(askuser_core::At::question(id.clone(), "ok", 0), json!(true));
//! # reduce(&mut state, &Input::Ask(request)).unwrap();
//! # reduce(&mut state, &answer.into()).unwrap();
//! // The person went back from the second question of inquiry c1.
//! let decision = state.decide(&Input::Back(state.at(&id).unwrap())).unwrap();
//! let back = decision.event();
//! assert_eq!(event_words(&back, None, Length::Short), "Went back to the previous question");
//! assert_eq!(event_words(&back, None, Length::Long), "back c1");
//! ```

use std::fmt::Write as _;

use askuser_core::text::{answer_words, for_display_line};
use askuser_core::{
    AgentOrigin, AnsweredBy, CancelReason, ClientNote, Event, Form, FormAction, InquiryId,
};
use serde_json::Value;

/// How much an event's words say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// A sentence for a person, with the question's text where the form is known
    /// (the web timeline).
    Short,
    /// The record's line: ids and values as recorded (`log replay`, `log show`).
    Long,
}

/// `event` in words, at `length`. `form` is the form of the event's inquiry,
/// when known: the short form names a question by its text (else by its id); the
/// long form always names ids.
pub fn event_words(event: &Event, form: Option<&Form>, length: Length) -> String {
    match length {
        Length::Short => short(event, form),
        Length::Long => long(event),
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The short form: a sentence for a person.
fn short(event: &Event, form: Option<&Form>) -> String {
    let inquiry = event.inquiry().map_or("", InquiryId::as_str);
    let question_text = |id: &str| {
        form.and_then(|form| form.questions.iter().find(|q| q.id == id))
            .map_or_else(|| id.to_owned(), |q| q.text.clone())
    };
    match event {
        Event::Requested(request) => {
            let count = request.form.questions.len();
            let first = (request.form.questions.first())
                .map(|q| q.text.as_str())
                .unwrap_or_default();
            let who = request.policy.label.as_deref().unwrap_or("The assistant");
            if count == 1 {
                format!("{who} asked (call {inquiry}): “{first}”")
            } else {
                format!("{who} asked {count} questions (call {inquiry}), first “{first}”")
            }
        }
        Event::Rejected { problems, .. } => {
            format!(
                "The call {inquiry} was refused: {} problem(s)",
                problems.len()
            )
        }
        Event::Denied { message, .. } => format!("The call {inquiry} was denied: {message}"),
        Event::Answered {
            question,
            value,
            by,
            note,
            ..
        } => {
            let by = match by {
                AnsweredBy::User => "",
                AnsweredBy::Assistant => " (by the assistant)",
                AnsweredBy::Config => " (from the configuration)",
                AnsweredBy::Cache => " (remembered)",
                AnsweredBy::Timeout => " (filled by the timeout)",
            };
            let note = (note.as_deref())
                .map(|note| format!(", note: {note}"))
                .unwrap_or_default();
            format!(
                "Answered “{}”: {}{by}{note}",
                question_text(question),
                answer_words(value)
            )
        }
        Event::AnsweredAhead {
            question, value, ..
        } => format!(
            "Answered “{}” ahead, in a form of several questions: {}",
            question_text(question),
            answer_words(value)
        ),
        Event::Shown { questions, .. } => {
            format!("Showed {} question(s) in one form", questions.len())
        }
        Event::AnswerRefused { message, .. } => format!("An answer was refused: {message}"),
        Event::Back { .. } => "Went back to the previous question".to_owned(),
        Event::Cancelled {
            reason, message, ..
        } => match (reason, message) {
            (CancelReason::UserReply, Some(message)) => {
                format!("Replied to the assistant instead: {message}")
            }
            (CancelReason::UserReply, None) => "Replied to the assistant instead".to_owned(),
            (reason, _) => format!("Cancelled ({})", reason.as_str()),
        },
        Event::TurnEnded { .. } => "Ended the turn".to_owned(),
        Event::TimedOut { message, .. } => match message {
            Some(message) => format!("Timed out, with the reply being typed: {message}"),
            None => "Timed out".to_owned(),
        },
        Event::ReviewWanted { .. } => "A review before sending was asked for".to_owned(),
        Event::Submitted { .. } => "Sent the reviewed answers".to_owned(),
        Event::ChangeWanted { question, .. } => format!(
            "Went back from the review to change the answer to “{}” (the later answers are kept)",
            question_text(question)
        ),
        Event::Attached { origin } => format!("{} started waiting", agent_words(origin)),
        Event::Detached { origin } => format!("{} stopped waiting", agent_words(origin)),
        Event::Delivered { .. } => "The result was given to the agent".to_owned(),
        Event::ClientNoted { note, .. } => note_words(note),
    }
}

/// A client's note, for a person.
pub(crate) fn note_words(note: &ClientNote) -> String {
    match note {
        ClientNote::NoForms => {
            "The client cannot show forms: the questions waited for another window".to_owned()
        }
        ClientNote::NoPerson { action, after_ms } => {
            let done = match action {
                FormAction::Cancel => "dismissed",
                FormAction::Decline => "declined",
                FormAction::Accept => "accepted with every answer at its default",
            };
            format!(
                "No person at the client: its form was {done} {after_ms} ms after it went out, faster than anyone reads; the questions waited for another window"
            )
        }
        ClientNote::CannotShow => {
            "The client's form came back empty twice, so it may not show these questions; they waited for another window".to_owned()
        }
        ClientNote::Headless { mode } => format!(
            "No person at the client: it runs headless ({}), so no form was sent; the questions waited for another window",
            for_display_line(mode)
        ),
        ClientNote::Late {
            timeout_ms,
            after_ms,
        } => format!(
            "Late: what the client sent came {} s after the call, past its own {} s timeout; the model had stopped waiting",
            after_ms / 1000,
            timeout_ms / 1000
        ),
        ClientNote::StopsSilently { host } => format!(
            "{} does not tell when its person stops a call (Esc sends no cancel): an answer given in another window is kept for the same call made again",
            for_display_line(host)
        ),
        ClientNote::MovedOn { after_ms } => format!(
            "The model moved on: a new call came {} s into this one's wait; the model had stopped waiting, and the answers are kept for the same call made again",
            after_ms / 1000
        ),
        ClientNote::StoppedWaiting { disconnected } => format!(
            "The call stopped waiting ({}): the questions stayed open, and the answers are kept for the same call made again",
            stop_words(*disconnected)
        ),
    }
}

/// How a client stopped a waiting call, in words.
fn stop_words(disconnected: bool) -> &'static str {
    if disconnected {
        "the client disconnected"
    } else {
        "the client cancelled it"
    }
}

/// Who is asking and from where, for a sentence: the origin's line
/// (`Claude Code · billing-api · laptop`), or `An agent` when nothing is known.
pub fn agent_words(origin: &AgentOrigin) -> String {
    let line = origin.line();
    if line.is_empty() {
        "An agent".to_owned()
    } else {
        line
    }
}

/// The long form: `requested c1 (3 questions: apply, env, note)`,
/// `answered c1: apply = true`, `back c1`, `reply c1`, `turn ended c1`,
/// `timed out c1`.
fn long(event: &Event) -> String {
    match event {
        Event::Requested(request) => {
            let ids: Vec<&str> = (request.form.questions.iter())
                .map(|q| q.id.as_str())
                .collect();
            let count = ids.len();
            let mut text = format!(
                "requested {} ({count} question{}: {})",
                request.inquiry,
                plural(count),
                ids.join(", ")
            );
            if !request.policy.interactive {
                text.push_str(", no person present");
            }
            if request.origin.subagent {
                text.push_str(", from a sub-agent");
            }
            text
        }
        Event::Answered {
            inquiry,
            question,
            value,
            by,
            ..
        } => {
            let mut text = format!("answered {inquiry}: {question} = {value}");
            if *by != AnsweredBy::User {
                let by = serde_json::to_value(by).unwrap_or(Value::Null);
                let _ = write!(text, " (by {})", by.as_str().unwrap_or("?"));
            }
            text
        }
        Event::AnsweredAhead {
            inquiry,
            question,
            value,
        } => format!("answered ahead {inquiry}: {question} = {value}"),
        Event::Shown { inquiry, questions } => format!("shown {inquiry}: {}", questions.join(", ")),
        Event::Rejected {
            inquiry, problems, ..
        } => format!(
            "rejected {inquiry} ({} problem{})",
            problems.len(),
            plural(problems.len())
        ),
        Event::Denied {
            inquiry, reason, ..
        } => format!("denied {inquiry} ({reason})"),
        Event::AnswerRefused {
            inquiry,
            question,
            message,
            ..
        } => format!("refused an answer to {inquiry}: {question} ({message})"),
        Event::Back { inquiry } => format!("back {inquiry}"),
        Event::Cancelled {
            inquiry,
            reason,
            message,
        } => match (reason, message) {
            (CancelReason::UserReply, None) => format!("reply {inquiry}"),
            (CancelReason::UserReply, Some(message)) => format!("reply {inquiry}: {message}"),
            (other, _) => format!("cancelled {inquiry} ({other})"),
        },
        Event::TurnEnded { inquiry, surface } => match surface {
            Some(surface) => format!("turn ended {inquiry} {}", surface.words()),
            None => format!("turn ended {inquiry}"),
        },
        Event::TimedOut {
            inquiry,
            message: None,
            ..
        } => format!("timed out {inquiry}"),
        Event::TimedOut {
            inquiry,
            message: Some(message),
            ..
        } => format!("timed out {inquiry}, replying: {message}"),
        Event::ReviewWanted { inquiry } => format!("review wanted {inquiry}"),
        Event::Submitted { inquiry } => format!("submitted {inquiry}"),
        Event::ChangeWanted { inquiry, question } => format!("change {inquiry}: {question}"),
        Event::Attached { origin } => format!("attached {}", fields(origin)),
        Event::Detached { origin } => format!("detached {}", fields(origin)),
        Event::Delivered { inquiry } => format!("delivered {inquiry}"),
        Event::ClientNoted { inquiry, note } => noted(inquiry, note),
    }
}

/// A client's note on `inquiry`, in a line of `askuser log show`.
fn noted(inquiry: &InquiryId, note: &ClientNote) -> String {
    match note {
        ClientNote::NoForms => format!("client noted {inquiry}: no forms"),
        ClientNote::NoPerson { action, after_ms } => {
            format!("client noted {inquiry}: no person ({action} after {after_ms} ms)")
        }
        ClientNote::CannotShow => format!("client noted {inquiry}: cannot show the form"),
        ClientNote::Headless { mode } => {
            format!(
                "client noted {inquiry}: no person ({})",
                for_display_line(mode)
            )
        }
        ClientNote::Late {
            timeout_ms,
            after_ms,
        } => format!("client noted {inquiry}: late ({after_ms} ms, timeout {timeout_ms} ms)"),
        ClientNote::StopsSilently { host } => format!(
            "client noted {inquiry}: stops silently ({} sends no cancel)",
            for_display_line(host)
        ),
        ClientNote::MovedOn { after_ms } => {
            format!("client noted {inquiry}: moved on (a new call {after_ms} ms in)")
        }
        ClientNote::StoppedWaiting { disconnected } => format!(
            "client noted {inquiry}: stopped waiting ({})",
            stop_words(*disconnected)
        ),
    }
}

/// Every known field of an origin, as recorded: `host=Claude Code, machine=laptop`
/// (`nothing known` when none is).
fn fields(origin: &AgentOrigin) -> String {
    let known: Vec<String> = (origin.fields().into_iter())
        .filter_map(|(name, text)| Some(format!("{name}={}", text?)))
        .collect();
    if known.is_empty() {
        "(nothing known)".to_owned()
    } else {
        known.join(", ")
    }
}

/// A question's answer as one sentence of a transcript: who answered the question
/// whose text is `text`, and with what (`Asked "Which database?"; the answer was
/// PostgreSQL.`).
pub fn answer_sentence(text: &str, value: &Value, by: AnsweredBy) -> String {
    let value = answer_words(value);
    match by {
        AnsweredBy::User => format!("Asked \"{text}\"; the answer was {value}."),
        AnsweredBy::Assistant => format!("Asked \"{text}\"; the assistant answered {value}."),
        AnsweredBy::Config => format!("\"{text}\" was answered by configuration: {value}."),
        AnsweredBy::Cache => format!("\"{text}\" was answered as earlier in the turn: {value}."),
        AnsweredBy::Timeout => {
            format!("\"{text}\" was not answered in time; the timeout filled {value}.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_testkit::build::answered_by;
    use serde_json::json;

    #[test]
    fn an_answer_reads_short_and_long() {
        let answered = answered_by("c1", "ok", json!(true), AnsweredBy::Assistant, false);
        assert_eq!(
            event_words(&answered, None, Length::Short),
            "Answered “ok”: Yes (by the assistant)"
        );
        assert_eq!(
            event_words(&answered, None, Length::Long),
            "answered c1: ok = true (by assistant)"
        );
        assert_eq!(
            answer_sentence("Deploy?", &json!(true), AnsweredBy::Config),
            "\"Deploy?\" was answered by configuration: Yes."
        );
    }
}
