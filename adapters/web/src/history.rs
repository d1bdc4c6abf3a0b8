//! A stream's history: every event as a line of a timeline (asked, answered,
//! back, replied, ended, timed out, forked), links to its transcript and its
//! export, and "Answer again from here", which forks the stream before an answer
//! (or just after a question was asked) so the person can answer again from
//! there. Forking is the store's own [`Log::fork`](askuser_store::Log::fork):
//! the original stream is never changed.

use std::collections::HashMap;
use std::fmt::Write as _;

use askuser_core::{Event, Form};
use askuser_store::words::{Length, event_words};
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
        let form =
            (recorded.event.inquiry()).and_then(|inquiry| forms.get(inquiry.as_str()).copied());
        let words = event_words(&recorded.event, form, Length::Short);
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
