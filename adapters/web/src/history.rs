//! A stream's history: the conversation grouped by inquiry (each with its
//! questions, the steps the person took, its notes, and how and when it
//! ended, Markdown rendered), with the agents coming and going between them;
//! links to its transcript and its export; and, once per inquiry, "Answer
//! again from here", which leads to a page that says what a fork does and
//! forks only once confirmed ([`fork_page`]). Forking is the store's own
//! [`Log::fork`](askuser_app::log::Log::fork): the original stream is never
//! changed.

use askuser_app::{Entry, Step, Story, UnheardOf};
use maud::{Markup, html};

use crate::markdown::{self, Flow};
use crate::pages::{
    Shape, Since, hidden, inquiry_path, layout, links, relative, shown, stream_path,
};
use crate::today::{ended_anchor, got_list, how_words};

/// The most inquiries a history page shows (the latest); the export has them all.
pub(crate) const MAX_INQUIRIES: usize = 200;

/// What a history page shows: the desk's [`askuser_app::History`] of the
/// stream (its name, head and forks).
pub(crate) use askuser_app::History;

/// The history page of a stream at `now` (every time relative to it), told
/// by `entries` (its inquiries and its agents, in order), each ending saying
/// what the agent got as `unheard` knows it.
pub(crate) fn page(history: &History, entries: &[Entry], unheard: &UnheardOf, now: u64) -> String {
    let info = &history.info;
    let path = stream_path(&info.name);
    let transcript = format!("{path}/transcript");
    let inquiries = entries
        .iter()
        .filter(|e| matches!(e, Entry::Inquiry(_)))
        .count();
    let skip = latest(entries, MAX_INQUIRIES);
    let body = html! {
        (links("Inbox", &[("/", "← All questions")]))
        h1 { "Conversation " (shown(&info.name)) }
        p.meta {
            (inquiries) @if inquiries == 1 { " inquiry" } @else { " inquiries" }
            " · " (info.head) " events · started " (relative(info.created_at, now, Since::Ago))
        }
        nav.links aria-label="This stream" {
            a href=(transcript) { "Transcript" }
            a href=(format!("{path}/export")) download { "Export (JSON lines)" }
        }
        @if let Some(parent) = &info.parent {
            p {
                "A branch of " a.inline href=(stream_path(&parent.stream)) { (shown(&parent.stream)) }
                " from after its event #" (parent.at) "."
            }
        }
        @if !history.forks.is_empty() {
            p {
                "Branches: "
                @for (n, fork) in history.forks.iter().enumerate() {
                    @if n > 0 { ", " }
                    a.inline href=(stream_path(fork)) { (shown(fork)) }
                }
            }
        }
        @if info.floor > 0 {
            p { "Events up to #" (info.floor) " were compacted (their state is kept)." }
        }
        @if skip > 0 {
            p { "The " (skip) " earliest entries are not shown here; the export has every event kept." }
        }
        @for entry in &entries[skip..] {
            @match entry {
                Entry::Agent(moment, words) => p.agent-line {
                    (relative(moment.at, now, Since::Ago)) " " (shown(words))
                },
                Entry::Inquiry(story) => (inquiry(&info.name, story, info.floor, unheard, now)),
            }
        }
    };
    layout(&format!("History of {}", info.name), &body, &Shape::Other)
}

/// Where the latest `most` inquiries start among `entries`.
fn latest(entries: &[Entry], most: usize) -> usize {
    let mut seen = 0;
    for (index, entry) in entries.iter().enumerate().rev() {
        if matches!(entry, Entry::Inquiry(_)) {
            seen += 1;
            if seen > most {
                return index + 1;
            }
        }
    }
    0
}

/// One inquiry as a group: its first question as the heading, when it was
/// asked, each step, how and when it ended (and whether its agent got it:
/// `unheard`), and the way to answer it again.
fn inquiry(stream: &str, story: &Story, floor: u64, unheard: &UnheardOf, now: u64) -> Markup {
    let anchor = ended_anchor(story);
    let head = format!("i-{anchor}-head");
    let first = story.questions.first().map_or("", String::as_str);
    html! {
        section.inquiry #(format!("i-{anchor}")) aria-labelledby=(head) {
            h2 #(head) { (markdown::render(first, Flow::Inline)) }
            p.meta {
                @match story.label.as_deref().filter(|label| *label != "Assistant") {
                    Some(label) => { (shown(label)) " asked " },
                    None => "Asked ",
                }
                (relative(story.asked.at, now, Since::Ago))
                @match story.questions.len() {
                    1 => {},
                    n => { " · " (n) " questions" },
                }
                " · call " span.id { (shown(story.inquiry.as_str())) }
            }
            @if told_steps(story) {
                ol.steps {
                    @for (_, step) in &story.steps { li { (step_markup(step)) } }
                }
            }
            @match &story.ended {
                Some(ended) => {
                    @let answers = ended.answers();
                    p.ended {
                        "Ended " (relative(ended.moment.at, now, Since::Ago)) ": "
                        (how_words(ended, !answers.is_empty(), unheard.get(&story.inquiry)))
                    }
                    (got_list(&answers))
                },
                None => p.ended {
                    "Still waiting · " a href=(inquiry_path(stream, story.inquiry.as_str())) { "answer it" }
                },
            }
            @if story.asked.seq > floor {
                p.fork {
                    a href=(format!("{}/fork?at={}", stream_path(stream), story.asked.seq)) {
                        "Answer again from here…"
                    }
                }
            }
        }
    }
}

/// Whether `story`'s steps say more than the answers it sent: a Back, a
/// change, a note from the client, or answers that were never sent (the
/// turn ended, a Reply, an open inquiry).
fn told_steps(story: &Story) -> bool {
    let sent_all = story.ended.as_ref().is_some_and(|ended| {
        ended.how == askuser_app::Ending::Answered && ended.answers().len() == story.steps.len()
    });
    !story.steps.is_empty()
        && (!sent_all
            || story
                .steps
                .iter()
                .any(|(_, step)| !matches!(step, Step::Answered { .. })))
}

/// One step, in words (question texts rendered as Markdown).
fn step_markup(step: &Step) -> Markup {
    html! {
        @match step {
            Step::Answered { question, answer, note, by } => {
                span.q { (markdown::render(question, Flow::Inline)) }
                " " b { (shown(answer)) }
                @match by {
                    askuser_core::AnsweredBy::Assistant => " (answered by the assistant)",
                    askuser_core::AnsweredBy::Config => " (answered by configuration)",
                    askuser_core::AnsweredBy::Cache => " (remembered from earlier in the turn)",
                    askuser_core::AnsweredBy::Timeout => " (filled in when the time ran out)",
                    askuser_core::AnsweredBy::User => "",
                }
                @if let Some(note) = note {
                    " " span.note { "(note: " (shown(note)) ")" }
                }
            },
            Step::Back { from: Some(from) } => {
                "Went back from " span.q { (markdown::render(from, Flow::Inline)) }
            },
            Step::Back { from: None } => "Went back to the previous question",
            Step::Changed { question, was } => {
                "Changed the answer to " span.q { (markdown::render(question, Flow::Inline)) }
                @if let Some(was) = was { " (it was " (shown(was)) ")" }
            },
            Step::Noted(words) => (shown(words)),
        }
    }
}

/// The page that asks before forking `stream` after its event `at` (just
/// after `question`, the inquiry's first, was asked): what answering again
/// does, in words, with the button that does it and the way back. `name`:
/// the branch's name, as it will be made.
pub(crate) fn fork_page(
    stream: &str,
    at: u64,
    question: Option<&str>,
    name: &str,
    csrf: &str,
) -> String {
    let path = stream_path(stream);
    let body = html! {
        (links("Conversation", &[(path.as_str(), "← Back to the conversation")]))
        h1 { "Answer again from here?" }
        p {
            "This starts a new branch of the conversation " b { (shown(stream)) } ", named "
            b { (shown(name)) } ", from the moment "
            @match question {
                Some(question) => { "“" (markdown::render(question, Flow::Inline)) "” was asked" },
                None => { "after its event #" (at) },
            }
            ". You answer its questions again there."
        }
        p { "The original conversation stays as it is: nothing in it changes, and the answers the assistant got stay as they were." }
        p { "No agent waits on a branch, so what you answer there is sent to no agent. It is kept in the branch's history, transcript and export." }
        form method="post" action=(format!("{path}/fork")) {
            (hidden(csrf))
            input type="hidden" name="at" value=(at);
            div.actions {
                button.primary type="submit" { "Start the branch and answer again" }
                a href=(path) { "Keep the conversation as it is" }
            }
        }
    };
    layout("Answer again from here?", &body, &Shape::Other)
}
