//! The pages, as HTML built on the server. Every text from a model or a person
//! goes through [`esc`]: neutralised as the terminal neutralises it (control,
//! bidi-control and invisible characters shown as visible escapes), then escaped
//! for HTML. Forms work without JavaScript; the one script (`app.js`) only
//! keeps pages live and never answers by itself.

use std::fmt::Write as _;

use crate::queue::{Timing, Waiting};
use askuser_core::AgentOrigin;
use askuser_core::text::for_display;

/// The stylesheet, served as `/style.css`.
pub(crate) const STYLE: &str = include_str!("style.css");

/// The script, served as `/app.js`.
pub(crate) const SCRIPT: &str = include_str!("app.js");

/// `text` safe in HTML text and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let shown = for_display(text);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` for a URL path segment: every byte but letters, digits, `-`, `_` and
/// `.` percent-encoded.
pub(crate) fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// The path of an inquiry's page.
pub(crate) fn inquiry_path(stream: &str, inquiry: &str) -> String {
    format!("/q/{}/{}", segment(stream), segment(inquiry))
}

/// What a page is, for the script that keeps it live: the inbox is replaced
/// whenever the log changes; an inquiry's page is left alone (the person may be
/// typing) and told when what it shows changed elsewhere.
pub(crate) enum Shape {
    /// The inbox.
    Inbox,
    /// An inquiry's page, with what it shows (`prompt 2`, `review`, `done`).
    Inquiry(String),
    /// Any other page.
    Other,
}

/// A whole page: `title` (already escaped) and `body`. Every page loads
/// `/app.js` (live updates, the countdown, notifications, shortcuts), and has a
/// live region where they are announced; without JavaScript the inbox reloads
/// itself every five seconds instead.
pub(crate) fn layout(title: &str, body: &str, shape: &Shape) -> String {
    let (refresh, main) = match shape {
        Shape::Inbox => (
            "<noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>\n",
            "<main data-page=\"inbox\">".to_owned(),
        ),
        Shape::Inquiry(state) => (
            "",
            format!("<main data-page=\"inquiry\" data-state=\"{}\">", esc(state)),
        ),
        Shape::Other => ("", "<main>".to_owned()),
    };
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n{refresh}\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n\
         <script src=\"/app.js\" defer></script>\n</head>\n\
         <body>\n{main}\n{body}</main>\n\
         <div id=\"live\" class=\"live\" role=\"status\" aria-live=\"polite\"></div>\n\
         </body>\n</html>\n"
    )
}

/// A duration in words: `12 s`, `3 min`, `2 h 5 min`.
pub(crate) fn duration_words(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        _ if secs % 3600 / 60 == 0 => format!("{} h", secs / 3600),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

/// How long a question has waited and, with a timeout, the countdown: the
/// script counts it down each second (from the time left when the page was
/// made, so the browser's clock does not matter).
pub(crate) fn timing(timing: &Timing) -> String {
    let mut out = format!(
        "<span class=\"waited\">waiting for {}</span>",
        duration_words(timing.waited_ms)
    );
    if let Some(left) = timing.left_ms {
        let _ = write!(
            out,
            " · <span class=\"countdown\" data-left-ms=\"{left}\">{} left</span>",
            duration_words(left)
        );
    }
    out
}

/// The path of a stream's history.
pub(crate) fn stream_path(stream: &str) -> String {
    format!("/s/{}", segment(stream))
}

/// The inbox: every inquiry that waits, grouped by stream, each with how long it
/// has waited and its countdown. Its title counts what waits.
pub(crate) fn inbox(waiting: &[Waiting]) -> String {
    let mut body = String::from(
        "<h1>Questions waiting for you</h1>\n\
         <p><button type=\"button\" id=\"notify\" hidden>Notify me of new questions</button></p>\n",
    );
    if waiting.is_empty() {
        body.push_str("<p>No agent is waiting for an answer.</p>\n");
    }
    let mut stream = None;
    for item in waiting {
        if stream != Some(&item.stream) {
            if stream.is_some() {
                body.push_str("</ul>\n</section>\n");
            }
            // Who asks and from where, in place of the stream's name (one click
            // away, on the history link), and whether anyone still waits.
            let origin_line = item
                .origin
                .as_ref()
                .map(AgentOrigin::line)
                .unwrap_or_default();
            let (who, link) = if origin_line.is_empty() {
                (
                    format!("Stream {}", esc(&item.stream)),
                    "history".to_owned(),
                )
            } else {
                (esc(&origin_line), format!("stream {}", esc(&item.stream)))
            };
            let presence = (item.presence.words())
                .map(|words| format!("{} · ", esc(&words)))
                .unwrap_or_default();
            let _ = write!(
                body,
                "<section>\n<h2>{who} <small>{presence}since {} · <a href=\"{}\">{link}</a></small></h2>\n<ul>\n",
                esc(&item.since),
                stream_path(&item.stream)
            );
            stream = Some(&item.stream);
        }
        let what = match (&item.question, &item.progress) {
            (Some(question), Some(progress)) => format!("{} {}", esc(progress), esc(question)),
            (Some(question), None) => esc(question),
            (None, _) => "Review the answers before they are sent".to_owned(),
        };
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a> <span class=\"who\">{} asks (call {}) · {}</span></li>",
            inquiry_path(&item.stream, &item.inquiry),
            what,
            esc(&item.label),
            esc(&item.inquiry),
            timing(&item.timing)
        );
    }
    if stream.is_some() {
        body.push_str("</ul>\n</section>\n");
    }
    let title = match waiting.len() {
        0 => "askuser inbox".to_owned(),
        n => format!("({n}) askuser inbox"),
    };
    layout(&title, &body, &Shape::Inbox)
}

/// The hidden fields every form carries.
pub(crate) fn hidden(csrf: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">\n",
        esc(csrf)
    )
}

/// A finished inquiry's page.
pub(crate) fn finished(text: &str) -> String {
    let body = format!(
        "<h1>Done</h1>\n<p role=\"status\">{}</p>\n<p><a href=\"/\">All questions</a></p>\n",
        esc(text)
    );
    layout("Done", &body, &Shape::Inquiry("done".into()))
}

/// A page that says why a request was refused.
/// The page of an inquiry that does not wait in `stream`: never asked there, or
/// answered long enough ago that only the stream's history still tells it.
pub(crate) fn missing(stream: &str) -> String {
    let body = format!(
        "<h1>No such question</h1>\n<p role=\"alert\">No question of that name waits in stream {}. \
         If it was asked there, it was answered or ended earlier: <a href=\"{}\">the stream's history</a> \
         tells how. <a href=\"/\">All questions</a></p>\n",
        esc(stream),
        stream_path(stream)
    );
    layout("No such question", &body, &Shape::Other)
}

pub(crate) fn refused(title: &str, text: &str) -> String {
    let body = format!(
        "<h1>{}</h1>\n<p role=\"alert\">{}</p>\n",
        esc(title),
        esc(text)
    );
    layout(&esc(title), &body, &Shape::Other)
}
