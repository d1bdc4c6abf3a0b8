//! The pages, as HTML built on the server with [`maud`]: every value put in a
//! page is escaped by construction, and every text from a model or a person is
//! first neutralised as the terminal neutralises it ([`shown`]: control,
//! bidi-control and invisible characters shown as visible escapes), in text
//! and attribute values alike. Markdown from the model is built as markup by
//! [`crate::markdown`], never passed through. Forms work without JavaScript;
//! the one script (`app.js`) keeps pages live, shows times in the person's
//! time zone and offers shortcuts, and never answers by itself.

use askuser_app::log::Timestamp;
use askuser_core::AgentOrigin;
use askuser_core::text::{for_display, for_display_line};
use maud::{DOCTYPE, Markup, Render, html};

use crate::markdown::{self, Flow};
use askuser_app::{Liveness, Timing};

use crate::answer::Answered;
use crate::queue::Waiting;

/// Who asks on an inquiry's pages: the label its prompts carry (`Assistant`
/// when none) and the agent's origin, as the inbox tells agents apart (its
/// host, its project or directory, its machine).
#[derive(Debug, Clone)]
pub(crate) struct Asker {
    /// The policy's label (`Assistant` when it has none).
    pub(crate) label: String,
    /// The latest process to attach to the stream, when one did.
    pub(crate) origin: Option<AgentOrigin>,
}

impl Asker {
    /// The agent's name as a title and a heading give it: the host (else the
    /// label), in its project or directory, on its machine: `Claude Code in
    /// shop on laptop`; the label alone when no origin says more.
    pub(crate) fn name(&self) -> String {
        let text = |t: &Option<String>| t.clone().filter(|t| !t.trim().is_empty());
        let origin = self.origin.as_ref();
        let who = (origin.and_then(|o| text(&o.host).or_else(|| text(&o.label))))
            .unwrap_or_else(|| self.label.clone());
        let mut name = for_display_line(&who).into_owned();
        if let Some(place) = origin.and_then(AgentOrigin::place) {
            name.push_str(" in ");
            name.push_str(&for_display_line(place));
        }
        if let Some(machine) = origin.and_then(|o| text(&o.machine)) {
            name.push_str(" on ");
            name.push_str(&for_display_line(&machine));
        }
        name
    }

    /// A page's title: what it shows, then who asks (`Which database? —
    /// Claude Code in shop on laptop`), so that two agents' tabs never read
    /// the same.
    pub(crate) fn title(&self, subject: &str) -> String {
        format!("{subject} — {}", self.name())
    }
}

/// The stylesheet, served as `/style.css`.
pub(crate) const STYLE: &str = include_str!("style.css");

/// The script, served as `/app.js`.
pub(crate) const SCRIPT: &str = include_str!("app.js");

/// Text from outside (a model, a person, the log), safe to put in a page: shown
/// as [`for_display`] shows it, then escaped for HTML by [`maud`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown<'a>(&'a str);

impl Render for Shown<'_> {
    fn render_to(&self, buffer: &mut String) {
        for_display(self.0).as_ref().render_to(buffer);
    }
}

/// `text`, to be shown in a page (see [`Shown`]).
pub(crate) fn shown(text: &str) -> Shown<'_> {
    Shown(text)
}

/// `text` for a URL path segment: every byte but letters, digits, `-`, `_` and
/// `.` percent-encoded.
pub(crate) fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_segment(&mut out, text);
    out
}

/// [`segment`], written at the end of `out` (the inbox writes two paths per
/// question, a thousand questions a page).
fn push_segment(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in text.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => out.push(char::from(b)),
            b => {
                out.push('%');
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 15)]));
            }
        }
    }
}

/// The path of an inquiry's page.
pub(crate) fn inquiry_path(stream: &str, inquiry: &str) -> String {
    let mut out = String::with_capacity(4 + stream.len() + inquiry.len());
    out.push_str("/q/");
    push_segment(&mut out, stream);
    out.push('/');
    push_segment(&mut out, inquiry);
    out
}

/// The path of a stream's history.
pub(crate) fn stream_path(stream: &str) -> String {
    let mut out = String::with_capacity(3 + stream.len());
    out.push_str("/s/");
    push_segment(&mut out, stream);
    out
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

/// `html`, a whole page, carrying `moved` (what moved its inquiry on while a
/// page showed it, in words) hidden as `#moved` at the end of its `main`, for
/// the script to tell.
pub(crate) fn with_moved(html: String, moved: Option<&str>) -> String {
    let Some(moved) = moved else {
        return html;
    };
    let note = html! { p #moved hidden { (shown(moved)) } }.into_string();
    match html.rfind("</main>") {
        Some(at) => {
            let mut page = html;
            page.insert_str(at, &note);
            page
        }
        None => html,
    }
}

/// A whole page titled `title` (plain text) around `body`. Every page loads
/// `/app.js` (live updates, times, the countdown, notifications, shortcuts),
/// and has a live region where they are announced; without JavaScript the
/// inbox reloads itself every five seconds instead.
pub(crate) fn layout(title: &str, body: &Markup, shape: &Shape) -> String {
    // Every piece is built by the templates; they are joined around `body`
    // (already escaped) so that the inbox's large body is copied once, into a
    // page sized for it, rather than once per enclosing element.
    let main = match shape {
        Shape::Inbox => html! { main data-page="inbox" {} },
        Shape::Inquiry(state) => html! { main data-page="inquiry" data-state=(shown(state)) {} },
        Shape::Other => html! { main {} },
    }
    .into_string();
    let main_open = main.strip_suffix("</main>").unwrap_or(&main);
    let head = html! {
        (DOCTYPE)
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="color-scheme" content="light dark";
            @if matches!(shape, Shape::Inbox) {
                noscript { meta http-equiv="refresh" content="5"; }
            }
            title { (shown(title)) }
            link rel="stylesheet" href="/style.css";
            script src="/app.js" defer {}
        }
    }
    .into_string();
    let (doctype, head) = head.split_at(head.find("<head>").unwrap_or(0));
    let live = html! { div #live .live role="status" aria-live="polite" {} }.into_string();
    let body = body.0.as_str();
    let mut page = String::with_capacity(doctype.len() + head.len() + body.len() + 256);
    for piece in [
        doctype,
        "<html lang=\"en\">",
        head,
        "<body>",
        main_open,
        body,
        "</main>",
        &live,
        "</body></html>",
    ] {
        page.push_str(piece);
    }
    page
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

/// A duration in one unit, as an age is read: `14 s`, `3 min`, `2 h`, `5 d`.
pub(crate) fn age_words(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h", secs / 3600),
        _ => format!("{} d", secs / 86_400),
    }
}

/// A moment as a person reads it exactly: `2026-11-27 14:01:24 UTC` (the
/// script shows it in the person's own time zone).
pub(crate) fn exact(at: Timestamp) -> String {
    exact_of(&at.to_string())
}

/// [`exact`] of a moment already written as RFC 3339 (`rfc3339`).
fn exact_of(rfc3339: &str) -> String {
    let (date, time) = rfc3339.split_once('T').unwrap_or((rfc3339, ""));
    let mut out = String::with_capacity(24);
    out.push_str(date);
    out.push(' ');
    out.push_str(time.get(..8).unwrap_or(time));
    out.push_str(" UTC");
    out
}

/// How a time reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Since {
    /// `3 min ago`.
    Ago,
    /// `3 min` (after "waiting").
    For,
}

/// The moment `at` relative to `now`, in a `<time>` with the exact moment as
/// its `datetime` and `title`; the script counts it on from the age the server
/// gave (so the browser's clock does not matter).
pub(crate) fn relative(at: Timestamp, now: u64, since: Since) -> Markup {
    age_of(at, now.saturating_sub(at.millis()), since)
}

/// The moment `at`, `age` milliseconds ago, as [`relative`] shows it.
fn age_of(at: Timestamp, age: u64, since: Since) -> Markup {
    let (class, words) = match since {
        Since::Ago => ("ago", format!("{} ago", age_words(age))),
        Since::For => ("for", age_words(age)),
    };
    let datetime = at.to_string();
    html! {
        time class=(class) datetime=(datetime) title=(exact_of(&datetime)) data-age-ms=(age) { (words) }
    }
}

/// What the timeout does at zero, in the one wording of every surface
/// ([`askuser_core::text::on_timeout_words`]), for beside a question's
/// countdown; nothing without a timeout.
pub(crate) fn at_zero(timing: &Timing) -> Markup {
    html! {
        @if let (Some(then), Some(_)) = (timing.on_timeout, timing.left_ms) {
            span.then { " (at zero, " (askuser_core::text::on_timeout_words(then)) ")" }
        }
    }
}

/// How long a question has waited and, with a timeout, the countdown to its
/// deadline: the script counts it down each second (from the time left when
/// the page was made).
pub(crate) fn timing(timing: &Timing, now: u64) -> Markup {
    let started = timing.started;
    html! {
        span.waited { "waiting " (age_of(started, timing.waited_ms, Since::For)) }
        @if let Some(left) = timing.left_ms {
            " · "
            @let deadline = Timestamp(now.saturating_add(left));
            time.countdown datetime=(deadline) title=(exact(deadline)) data-left-ms=(left) {
                (duration_words(left)) " left"
            }
        }
    }
}

/// A keyboard shortcut's hint, shown beside its control when the script runs
/// (the keys are the script's).
pub(crate) fn keys(keys: &[&str]) -> Markup {
    html! {
        span.keys aria-hidden="true" {
            @for (n, key) in keys.iter().enumerate() {
                @if n > 0 { "+" }
                kbd { (key) }
            }
        }
    }
}

/// The inquiries of one stream, for the inbox.
fn groups(waiting: &[Waiting]) -> Vec<&[Waiting]> {
    let mut groups = Vec::new();
    let mut rest = waiting;
    while let Some(first) = rest.first() {
        let len = rest.iter().take_while(|w| w.stream == first.stream).count();
        let (group, after) = rest.split_at(len);
        groups.push(group);
        rest = after;
    }
    groups
}

/// How many waiting questions one inbox page lists.
pub(crate) const PAGE: usize = 50;

/// The path of the inbox's page `n` (the first is `/`).
fn inbox_page_path(n: usize) -> String {
    match n {
        0 | 1 => "/".to_owned(),
        n => format!("/?page={n}"),
    }
}

/// The inbox's page `n` (from 1; past the last, the last): at most [`PAGE`]
/// of the inquiries that wait, newest stream first, each under the agent that
/// asks (one stream is one agent's conversation), with how long it has waited
/// and its countdown; the stream and the call stay one line below. The first
/// nine of the page have the shortcut that opens them. Below them, how many
/// more wait, with the next page's link; on a later page, which of them it
/// shows, with the way back. Its title counts every question that waits.
///
/// Below them, `today`: how many inquiries ended today, and the "Answered
/// today" section ([`crate::today::answered_today`]), reached from a link at
/// the top when some did.
pub(crate) fn inbox(waiting: &[Waiting], now: u64, n: usize, today: (usize, &Markup)) -> String {
    let pages = waiting.len().div_ceil(PAGE).max(1);
    let n = n.clamp(1, pages);
    let start = (n - 1) * PAGE;
    let listed = &waiting[start..waiting.len().min(start + PAGE)];
    let more = waiting.len() - start - listed.len();
    let mut shortcut = 0;
    let body = html! {
        h1 { "Questions waiting for you" }
        p { button #notify type="button" hidden { "Notify me of new questions" } }
        @if today.0 > 0 {
            p.today-link { a href="#today" { "Answered today: " (today.0) } }
        }
        @if waiting.is_empty() {
            p.empty { "No agent is waiting for an answer." }
        }
        @if n > 1 {
            p.pages {
                "Questions " (start + 1) "–" (start + listed.len()) " of " (waiting.len())
                " · " a href=(inbox_page_path(n - 1)) { "newer questions" }
            }
        }
        @for (k, group) in groups(listed).into_iter().enumerate() {
            @let first = &group[0];
            section.agent aria-labelledby=(format!("agent-{k}")) {
                div.agent-head {
                    h2 #(format!("agent-{k}")) { (shown(&first.label)) }
                    (presence_badge(first.liveness))
                }
                @if let Some(place) = first.origin.as_ref().map(AgentOrigin::line).filter(|l| !l.is_empty()) {
                    p.place { (shown(&place)) }
                }
                p.meta {
                    "stream " span.id { (shown(&first.stream)) }
                    " · started " (relative(first.since, now, Since::Ago))
                    " · " a href=(stream_path(&first.stream)) { "history" }
                }
                ul.questions {
                    @for item in group {
                        @let key = { shortcut += 1; shortcut };
                        li { (inbox_line(item, &first.label, key, now)) }
                    }
                }
            }
        }
        @if more > 0 {
            p.pages {
                (more) " more waiting · " a href=(inbox_page_path(n + 1)) { "older questions" }
            }
        }
        (today.1)
    };
    let title = match waiting.len() {
        0 => "askuser inbox".to_owned(),
        n => format!("({n}) askuser inbox"),
    };
    layout(&title, &body, &Shape::Inbox)
}

/// Whether anyone still waits on a stream, as a badge (nothing when it is not
/// known).
pub(crate) fn presence_badge(presence: Liveness) -> Markup {
    let class = match presence {
        Liveness::Waiting => "badge waiting",
        Liveness::Stopped { .. } => "badge gone",
        Liveness::Fork => "badge fork",
        Liveness::Unknown => "badge",
    };
    html! {
        @if let Some(words) = presence.words() {
            span class=(class) { (words) }
        }
    }
}

/// One inquiry of the inbox: its question (a link to its page), how long it
/// has waited, and its call; who asks when it is not the stream's agent.
fn inbox_line(item: &Waiting, agent: &str, key: usize, now: u64) -> Markup {
    html! {
        a.question href=(inquiry_path(&item.stream, &item.inquiry)) {
            @if key <= 9 { (keys(&[&key.to_string()])) }
            span {
                @match (&item.question, &item.progress) {
                    (Some(question), progress) => {
                        @if let Some(progress) = progress {
                            span.progress { "[" (progress.n) "/" (progress.m) "]" } " "
                        }
                        (markdown::render(question, Flow::InlineNoLinks))
                    }
                    (None, _) => "Review the answers before they are sent",
                }
            }
        }
        p.meta {
            @if item.label != agent { (shown(&item.label)) " asks · " }
            (timing(&item.timing, now))
            " · call " span.id { (shown(&item.inquiry)) }
        }
    }
}

/// The hidden field every form carries: the form token.
pub(crate) fn hidden(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

/// Links of a page, named `label` for those who move by landmarks: each a
/// target a finger can hit.
pub(crate) fn links(label: &str, links: &[(&str, &str)]) -> Markup {
    html! {
        nav.links aria-label=(label) {
            @for (href, text) in links { a href=(href) { (text) } }
        }
    }
}

/// What the person typed and the page they landed on cannot take (the time ran
/// out, the question ended or moved on elsewhere): each text in a read-only
/// box, ready to copy, under the terminal's words for it. Nothing when there is
/// none.
pub(crate) fn unsent(typed: &[(String, String)]) -> Markup {
    let texts: Vec<_> = (typed.iter())
        .filter(|(_, text)| !text.trim().is_empty())
        .collect();
    html! {
        @if !texts.is_empty() {
            section.unsent aria-labelledby="unsent" {
                h2 #unsent { "What you were typing was not sent; here it is, to copy:" }
                @for (n, (name, text)) in texts.iter().enumerate() {
                    @let id = format!("unsent-{}", n + 1);
                    div.field {
                        label for=(id) { (unsent_label(name)) }
                        textarea #(id) readonly rows="3" { (shown(text)) }
                    }
                }
            }
        }
    }
}

/// What a typed field was, as [`unsent`] names it.
fn unsent_label(name: &str) -> &'static str {
    match name {
        "note" => "Your note",
        "other" => "Your own answer",
        "message" => "Your message",
        _ => "Your answer",
    }
}

/// An answer as a page shows it ([`Answered`]): a line of words, or one
/// labelled line per field (`Replicas: 3`).
pub(crate) fn answered(answer: &Answered) -> Markup {
    html! {
        @match answer {
            Answered::Words(words) => span.answer { (shown(words)) },
            Answered::Fields(fields) => ul.fields {
                @for (label, value) in fields {
                    li { span.label { (shown(label)) ": " } span.answer { (shown(value)) } }
                }
            },
        }
    }
}

/// A moment as a clock reads it (`10:42 UTC`, with its date when it is not
/// `now`'s day: `2026-11-29 10:42 UTC`), in a `<time>` whose `datetime` is
/// exact: the script shows it in the person's own time zone.
pub(crate) fn clock(at: Timestamp, now: u64) -> Markup {
    let datetime = at.to_string();
    let today = Timestamp(now).to_string();
    let (date, time) = datetime.split_once('T').unwrap_or((&datetime, ""));
    let hm = time.get(..5).unwrap_or(time);
    let words = if today.starts_with(date) {
        format!("{hm} UTC")
    } else {
        format!("{date} {hm} UTC")
    };
    html! {
        time.clock datetime=(datetime) title=(exact_of(&datetime)) { (words) }
    }
}

/// A finished inquiry's page, its heading naming who asked (`asker`): what
/// happened, the answers the assistant got as labelled lines (a schema's
/// answer field by field), when it got them, what the person typed and did
/// not send (see [`unsent`]), and the way on: the next question waiting
/// (`next`: its path and text), else the inbox.
pub(crate) fn finished(
    done: &crate::queue::Done,
    asker: &Asker,
    now: u64,
    typed: &[(String, String)],
    next: Option<&(String, String)>,
) -> String {
    let name = asker.name();
    let body = html! {
        h1 { "Done for " (name) }
        p.outcome role="status" { (shown(&done.text)) }
        @if !done.answers.is_empty() {
            dl.answers {
                @for (question, answer, note) in &done.answers {
                    dt { (markdown::render(question, Flow::Inline)) }
                    dd {
                        span {
                            (answered(answer))
                            @if let Some(note) = note {
                                " " span.note { "(note: " (shown(note)) ")" }
                            }
                        }
                    }
                }
            }
        }
        @if let Some((at, words)) = &done.when {
            p.when { (words) " " (clock(*at, now)) "." }
        }
        (unsent(typed))
        nav.links aria-label="Next" {
            @if let Some((path, question)) = next {
                a href=(path) {
                    "Next waiting question: " (markdown::plain(question))
                }
            }
            a href="/" { "All questions" }
        }
    };
    layout(&asker.title("Done"), &body, &Shape::Inquiry("done".into()))
}

/// The page of an inquiry that does not wait in `stream`: never asked there, or
/// answered long enough ago that only the stream's history still tells it.
pub(crate) fn missing(stream: &str) -> String {
    let history = stream_path(stream);
    let body = html! {
        h1 { "No such question" }
        p role="alert" {
            "No question of that name waits in stream " (shown(stream)) ". If it was asked there, \
             it was answered or ended earlier: the stream's history tells how."
        }
        (links("Next", &[(&history, "The stream's history"), ("/", "All questions")]))
    };
    layout("No such question", &body, &Shape::Other)
}

/// A page that says why a request was refused.
pub(crate) fn refused(title: &str, text: &str) -> String {
    let body = html! {
        h1 { (shown(title)) }
        p role="alert" { (shown(text)) }
    };
    layout(title, &body, &Shape::Other)
}

#[cfg(test)]
mod tests {
    use askuser_app::log::Timestamp;
    use maud::html;

    use super::{Since, Timing, age_words, exact, relative, shown, timing};

    /// 2026-11-27T14:01:24.651Z.
    const AT: Timestamp = Timestamp(1_795_788_084_651);

    #[test]
    fn a_time_is_relative_with_its_exact_moment_in_datetime_and_title() {
        assert_eq!(
            relative(AT, AT.0 + 125_000, Since::Ago).into_string(),
            "<time class=\"ago\" datetime=\"2026-11-27T14:01:24.651Z\" \
             title=\"2026-11-27 14:01:24 UTC\" data-age-ms=\"125000\">2 min ago</time>"
        );
        let waited = Timing {
            waited_ms: 14_000,
            started: AT,
            left_ms: Some(600_000),
            on_timeout: Some(askuser_core::OnTimeout::EndTurn),
        };
        assert_eq!(
            timing(&waited, AT.0 + 14_000).into_string(),
            "<span class=\"waited\">waiting <time class=\"for\" datetime=\"2026-11-27T14:01:24.651Z\" \
             title=\"2026-11-27 14:01:24 UTC\" data-age-ms=\"14000\">14 s</time></span> · \
             <time class=\"countdown\" datetime=\"2026-11-27T14:11:38.651Z\" \
             title=\"2026-11-27 14:11:38 UTC\" data-left-ms=\"600000\">10 min left</time>"
        );
        assert_eq!(exact(AT), "2026-11-27 14:01:24 UTC");
        let ages = [59_999, 60_000, 3_599_999, 3_600_000, 86_400_000 * 3];
        assert_eq!(
            ages.map(age_words),
            ["59 s", "1 min", "59 min", "1 h", "3 d"]
        );
    }

    #[test]
    fn outside_text_is_neutralised_then_escaped_in_text_and_attributes() {
        let hostile = "a\"><script>x</script>\u{202e}&";
        assert_eq!(
            html! { p title=(shown(hostile)) { (shown(hostile)) } }.into_string(),
            "<p title=\"a&quot;&gt;&lt;script&gt;x&lt;/script&gt;\\u{202e}&amp;\">\
             a&quot;&gt;&lt;script&gt;x&lt;/script&gt;\\u{202e}&amp;</p>"
        );
    }
}
