//! A stream's history: every event as a line of a timeline (asked, answered,
//! back, replied, ended, timed out, forked), links to its transcript and its
//! export, and "Answer again from here", which forks the stream before an answer
//! (or just after a question was asked) so the person can answer again from
//! there. Forking is the store's own [`Log::fork`](askuser_store::Log::fork):
//! the original stream is never changed.

use std::collections::HashMap;
use std::fmt::Write as _;

use askuser_core::{CancelReason, Event, Form};
use askuser_store::{Recorded, StreamInfo};

use crate::pages::{Shape, esc, hidden, layout, stream_path};

/// The most events a history page shows (the latest); the export has them all.
pub(crate) const MAX_SHOWN: u64 = 1000;

/// What a history page shows.
pub(crate) struct History {
    /// The stream.
    pub(crate) info: StreamInfo,
    /// Its events (the latest [`MAX_SHOWN`]), oldest first.
    pub(crate) events: Vec<Recorded>,
    /// The names of the streams forked from it.
    pub(crate) forks: Vec<String>,
}

/// The history page of a stream.
pub(crate) fn page(history: &History, csrf: &str) -> String {
    let info = &history.info;
    let path = stream_path(&info.name);
    let mut body = format!(
        "<p class=\"who\"><a href=\"/\">all questions</a></p>\n<h1>Stream {}</h1>\n\
         <p>{} events since {} · <a href=\"{path}/transcript\">transcript</a> · \
         <a href=\"{path}/export\" download>export (JSON lines)</a></p>\n",
        esc(&info.name),
        info.head,
        info.created_at
    );
    if let Some(parent) = &info.parent {
        let _ = writeln!(
            body,
            "<p>Forked from <a href=\"{}\">{}</a> after its event #{}.</p>",
            stream_path(&parent.stream),
            esc(&parent.stream),
            parent.at
        );
    }
    if !history.forks.is_empty() {
        body.push_str("<p>Forks: ");
        for (n, fork) in history.forks.iter().enumerate() {
            let comma = if n == 0 { "" } else { ", " };
            let _ = write!(
                body,
                "{comma}<a href=\"{}\">{}</a>",
                stream_path(fork),
                esc(fork)
            );
        }
        body.push_str("</p>\n");
    }
    if info.floor > 0 {
        let _ = writeln!(
            body,
            "<p>Events up to #{} were compacted (their state is kept).</p>",
            info.floor
        );
    }
    let first = history.events.first().map_or(0, |r| r.seq);
    if first > info.floor + 1 {
        let _ = writeln!(
            body,
            "<p>Events before #{first} are not shown here; the export has every event kept.</p>"
        );
    }
    body.push_str("<ol class=\"timeline\">\n");
    let mut forms: HashMap<&str, &Form> = HashMap::new();
    for recorded in &history.events {
        if let Event::Requested(request) = &recorded.event {
            forms.insert(request.inquiry.as_str(), &request.form);
        }
        let words = event_words(&recorded.event, &forms);
        let fork_at = match &recorded.event {
            Event::Requested(_) => Some(recorded.seq),
            Event::Answered { .. } => Some(recorded.seq - 1),
            _ => None,
        }
        .filter(|at| *at > info.floor);
        let _ = write!(
            body,
            "<li value=\"{}\"><time>{}</time> {}",
            recorded.seq,
            recorded.at,
            esc(&words)
        );
        if let Some(at) = fork_at {
            let _ = write!(
                body,
                " <form method=\"post\" action=\"{path}/fork\" class=\"inline\">{}\
                 <input type=\"hidden\" name=\"at\" value=\"{at}\">\
                 <button type=\"submit\">Answer again from here</button></form>",
                hidden(csrf).trim_end()
            );
        }
        body.push_str("</li>\n");
    }
    body.push_str("</ol>\n");
    layout(
        &format!("History of {}", esc(&info.name)),
        &body,
        &Shape::Other,
    )
}

/// One event in words, with the question's text where the form is known.
fn event_words(event: &Event, forms: &HashMap<&str, &Form>) -> String {
    let inquiry = event.inquiry().as_str();
    let question_text = |id: &str| {
        forms
            .get(inquiry)
            .and_then(|form| form.questions.iter().find(|q| q.id == id))
            .map_or_else(|| id.to_owned(), |q| q.text.clone())
    };
    match event {
        Event::Requested(request) => {
            let count = request.form.questions.len();
            let first = request
                .form
                .questions
                .first()
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
                askuser_core::AnsweredBy::User => "",
                askuser_core::AnsweredBy::Assistant => " (by the assistant)",
                askuser_core::AnsweredBy::Config => " (from the configuration)",
                askuser_core::AnsweredBy::Cache => " (remembered)",
                askuser_core::AnsweredBy::Timeout => " (filled by the timeout)",
            };
            let note = note
                .as_deref()
                .map(|note| format!(", note: {note}"))
                .unwrap_or_default();
            format!(
                "Answered “{}”: {}{by}{note}",
                question_text(question),
                askuser_core::text::answer_words(value)
            )
        }
        Event::AnsweredAhead {
            question, value, ..
        } => format!(
            "Answered “{}” ahead, in a form of several questions: {}",
            question_text(question),
            askuser_core::text::answer_words(value)
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
    }
}
