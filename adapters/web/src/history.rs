//! A stream's history: every event as a line of a timeline (asked, answered,
//! back, replied, ended, timed out, forked), links to its transcript and its
//! export, and "Answer again from here", which forks the stream before an answer
//! (or just after a question was asked) so the person can answer again from
//! there. Forking is the store's own [`Log::fork`](askuser_app::log::Log::fork):
//! the original stream is never changed.

use std::collections::HashMap;

use askuser_app::log::Recorded;
use askuser_app::log::words::{Length, event_words};
use askuser_core::{Event, Form};
use maud::{Markup, html};

use crate::pages::{Shape, Since, hidden, layout, links, relative, shown, stream_path};

/// The most events a history page shows (the latest); the export has them all.
pub(crate) const MAX_SHOWN: u64 = 1000;

/// What a history page shows: the desk's [`askuser_app::History`] of the
/// stream, its latest [`MAX_SHOWN`] events.
pub(crate) use askuser_app::History;

/// The history page of a stream at `now`: every time relative to it.
pub(crate) fn page(history: &History, csrf: &str, now: u64) -> String {
    let info = &history.info;
    let path = stream_path(&info.name);
    let transcript = format!("{path}/transcript");
    let first = history.events.first().map_or(0, |r| r.seq);
    let body = html! {
        (links("Inbox", &[("/", "← All questions")]))
        h1 { "Stream " (shown(&info.name)) }
        p.meta { (info.head) " events · started " (relative(info.created_at, now, Since::Ago)) }
        nav.links aria-label="This stream" {
            a href=(transcript) { "Transcript" }
            a href=(format!("{path}/export")) download { "Export (JSON lines)" }
        }
        @if let Some(parent) = &info.parent {
            p {
                "Forked from " a.inline href=(stream_path(&parent.stream)) { (shown(&parent.stream)) }
                " after its event #" (parent.at) "."
            }
        }
        @if !history.forks.is_empty() {
            p {
                "Forks: "
                @for (n, fork) in history.forks.iter().enumerate() {
                    @if n > 0 { ", " }
                    a.inline href=(stream_path(fork)) { (shown(fork)) }
                }
            }
        }
        @if info.floor > 0 {
            p { "Events up to #" (info.floor) " were compacted (their state is kept)." }
        }
        @if first > info.floor + 1 {
            p { "Events before #" (first) " are not shown here; the export has every event kept." }
        }
        (timeline(history, &path, csrf, now))
    };
    layout(&format!("History of {}", info.name), &body, &Shape::Other)
}

/// The events, each a line: when, what, and "Answer again from here" where a
/// fork can start.
fn timeline(history: &History, path: &str, csrf: &str, now: u64) -> Markup {
    let floor = history.info.floor;
    let mut forms: HashMap<&str, &Form> = HashMap::new();
    let fork_path = format!("{path}/fork");
    html! {
        ol.timeline {
            @for recorded in &history.events {
                @let words = {
                    if let Event::Requested(request) = &recorded.event {
                        forms.insert(request.inquiry.as_str(), &request.form);
                    }
                    let form = (recorded.event.inquiry())
                        .and_then(|inquiry| forms.get(inquiry.as_str()).copied());
                    event_words(&recorded.event, form, Length::Short)
                };
                @let fork_at = fork_at(recorded).filter(|at| *at > floor);
                li value=(recorded.seq) {
                    (relative(recorded.at, now, Since::Ago))
                    " "
                    span.what { (shown(&words)) }
                    @if let Some(at) = fork_at {
                        " "
                        form.inline method="post" action=(fork_path) {
                            (hidden(csrf))
                            input type="hidden" name="at" value=(at);
                            button type="submit" { "Answer again from here" }
                        }
                    }
                }
            }
        }
    }
}

/// Where "Answer again from here" forks for `recorded`: just after a question
/// was asked, or just before an answer.
fn fork_at(recorded: &Recorded) -> Option<u64> {
    match &recorded.event {
        Event::Requested(_) => Some(recorded.seq),
        Event::Answered { .. } => Some(recorded.seq - 1),
        _ => None,
    }
}
