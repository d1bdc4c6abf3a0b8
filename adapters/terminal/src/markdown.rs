//! Markdown in the terminal: a question's context, text and option descriptions
//! read as a `CommonMark` subset ([`pulldown_cmark`]) and drawn as rows.
//!
//! - **Bold** and *emphasis* are the bold and italic attributes, inline `code` a
//!   colour of its own; headings are bold lines.
//! - Lists are bullets (`- `) or numbers (`1. `), their items wrapped under their
//!   first word, nested lists indented further.
//! - A line break stays one (as in a GitHub comment, not a Markdown file).
//! - Links are `text (target)` (the target alone when it is the text).
//! - Fenced and indented code blocks are indented by four columns and never
//!   reflowed (a row too long for the screen is split, not rewrapped).
//! - Raw HTML is shown as the text it is, never interpreted.
//!
//! Every piece of text (code included) passes [`for_display_line`], so no escape
//! or bidi character reaches the terminal, not even inside a code block. On a
//! plain screen (`NO_COLOR`, `TERM=dumb`) a [`Line`] is written as
//! [`Line::text`]: the marks removed, no escape sequence at all.

use askuser_core::text::for_display_line;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthChar;

use crate::render::keeps_whole;

/// How a piece of text is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Style {
    /// Strong emphasis, or a heading.
    pub(crate) bold: bool,
    /// Emphasis.
    pub(crate) italic: bool,
    /// Inline code, or a code block.
    pub(crate) code: bool,
}

/// One row: pieces of text, each already safe to show, with their style.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Line {
    /// The pieces, left to right.
    pub(crate) spans: Vec<(Style, String)>,
}

impl Line {
    /// A row of unstyled text (already safe to show).
    pub(crate) fn plain(text: impl Into<String>) -> Self {
        Self {
            spans: vec![(Style::default(), text.into())],
        }
    }

    /// The row's text without any style: what a plain screen writes.
    pub(crate) fn text(&self) -> String {
        self.spans.iter().map(|(_, text)| text.as_str()).collect()
    }

    /// The row with its styles as SGR escape sequences; each styled piece
    /// turns off only what it turned on (a highlighted row stays highlighted).
    pub(crate) fn styled(&self) -> String {
        let mut out = String::new();
        for (style, text) in &self.spans {
            let codes = [
                (style.bold, "\u{1b}[1m", "\u{1b}[22m"),
                (style.italic, "\u{1b}[3m", "\u{1b}[23m"),
                (style.code, "\u{1b}[36m", "\u{1b}[39m"),
            ];
            for (on, start, _) in codes {
                if on {
                    out.push_str(start);
                }
            }
            out.push_str(text);
            for (on, _, end) in codes.iter().rev() {
                if *on {
                    out.push_str(end);
                }
            }
        }
        out
    }

    /// The row broken into rows of at most `width` columns, between words,
    /// each piece keeping its style.
    pub(crate) fn wrap(&self, width: usize) -> Vec<Line> {
        let chars: Vec<(char, Style)> = self
            .spans
            .iter()
            .flat_map(|(style, text)| text.chars().map(|c| (c, *style)))
            .collect();
        wrap(&chars, width)
            .iter()
            .map(|row| Line { spans: group(row) })
            .collect()
    }
}

/// The most quotes, and the most list levels, drawn as such: a model may nest
/// them without end (1,000 quotes is 3 KB), and each level widens every row it
/// holds. Deeper levels are drawn at this depth, and [`FLATTENED`] says so once,
/// so what is written stays in proportion to what was sent.
pub(crate) const MAX_NESTING: usize = 8;

/// What a text nested deeper than [`MAX_NESTING`] ends with, once.
pub(crate) const FLATTENED: &str =
    "(Nested more than 8 levels deep: the deeper levels are shown flat.)";

/// How far a code block is indented.
const CODE_INDENT: &str = "    ";

/// `markdown` (a question's context) as rows of at most `width` columns.
pub(crate) fn lines(markdown: &str, width: usize) -> Vec<Line> {
    let mut writer = Writer::new(width);
    for event in Parser::new_ext(markdown, Options::empty()) {
        writer.event(event);
    }
    writer.flush();
    if writer.flattened {
        writer.out.push(Line::default());
        // Wrapped as every row is: a narrow screen is not widened.
        writer.out.extend(Line::plain(FLATTENED).wrap(width));
    }
    writer.out
}

/// One line of Markdown (a question's text, an option's description) as the
/// text it shows, marks removed (`Is **this** ok?` is `Is this ok?`), safe for
/// one line. A line that Markdown would read as a block of its own (a heading,
/// a list item, a quote, HTML) is shown as written: `1. Pick one` keeps its `1.`.
pub(crate) fn inline(text: &str) -> String {
    inline_line(text).text()
}

/// [`inline`] with its styles (bold, emphasis, code).
pub(crate) fn inline_line(text: &str) -> Line {
    let mut events = Parser::new_ext(text, Options::empty());
    let written = || Line::plain(for_display_line(text));
    if !matches!(events.next(), Some(Event::Start(Tag::Paragraph))) {
        return written();
    }
    let mut writer = Writer::new(usize::MAX);
    for event in events {
        if is_block(&event) {
            return written();
        }
        writer.event(event);
    }
    writer.flush();
    let mut line = Line::default();
    for (at, row) in writer.out.into_iter().enumerate() {
        if at > 0 {
            line.spans.push((Style::default(), " ".to_owned()));
        }
        line.spans.extend(row.spans);
    }
    line
}

/// Turns parser events into rows.
struct Writer {
    width: usize,
    out: Vec<Line>,
    /// The paragraph being gathered, a character at a time with its style.
    inline: Vec<(char, Style)>,
    bold: usize,
    italic: usize,
    /// The open lists: the next item's number (`None`: bullets).
    lists: Vec<Option<u64>>,
    /// The open items' indents (their marker's width).
    items: Vec<usize>,
    /// The marker the next row starts with (`- `, `2. `).
    marker: Option<String>,
    /// How many block quotes are open.
    quotes: usize,
    /// The code block being gathered.
    code: Option<String>,
    /// The open links: their target, and where their text starts.
    links: Vec<(String, usize)>,
    /// A blank row is due before the next block.
    gap: bool,
    /// Quotes or lists were nested past [`MAX_NESTING`] (and drawn flat there).
    flattened: bool,
}

impl Writer {
    fn new(width: usize) -> Self {
        Self {
            width: width.max(1),
            out: Vec::new(),
            inline: Vec::new(),
            bold: 0,
            italic: 0,
            lists: Vec::new(),
            items: Vec::new(),
            marker: None,
            quotes: 0,
            code: None,
            links: Vec::new(),
            gap: false,
            flattened: false,
        }
    }

    fn style(&self) -> Style {
        Style {
            bold: self.bold > 0,
            italic: self.italic > 0,
            code: false,
        }
    }

    fn push(&mut self, text: &str, style: Style) {
        let safe = for_display_line(text);
        self.inline.extend(safe.chars().map(|c| (c, style)));
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => match &mut self.code {
                Some(code) => code.push_str(&text),
                None => self.push(&text, self.style()),
            },
            Event::Code(text) => {
                let style = Style {
                    code: true,
                    ..self.style()
                };
                self.push(&text, style);
            }
            Event::InlineHtml(html) => self.push(&html, self.style()),
            Event::Html(html) => self.html_rows(&html),
            // A line break in the text is one on the screen (as in a GitHub
            // comment): a context written as lines keeps them.
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.block_start();
                let rule = "─".repeat(self.width.min(20));
                self.out.push(Line::plain(rule));
                self.block_end();
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.block_start(),
            Tag::Heading { .. } => {
                self.block_start();
                self.bold += 1;
            }
            Tag::BlockQuote(_) => {
                self.block_start();
                self.quotes += 1;
            }
            Tag::CodeBlock(_) => {
                self.block_start();
                self.code = Some(String::new());
            }
            Tag::List(first) => {
                self.block_start();
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(number)) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    _ => "- ".to_owned(),
                };
                self.items.push(marker.chars().count());
                self.marker = Some(marker);
            }
            Tag::Emphasis => self.italic += 1,
            Tag::Strong => self.bold += 1,
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push((dest_url.into_string(), self.inline.len()));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.block_end(),
            TagEnd::Heading(_) => {
                self.block_end();
                self.bold = self.bold.saturating_sub(1);
            }
            TagEnd::BlockQuote(_) => {
                self.block_end();
                self.quotes = self.quotes.saturating_sub(1);
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                self.code_rows(&code);
                self.block_end();
            }
            TagEnd::List(_) => {
                self.block_end();
                self.lists.pop();
            }
            TagEnd::Item => {
                self.flush();
                self.items.pop();
            }
            TagEnd::Emphasis => self.italic = self.italic.saturating_sub(1),
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::Link | TagEnd::Image => self.link_end(),
            _ => {}
        }
    }

    /// A link's text is followed by its target, unless it is the target.
    fn link_end(&mut self) {
        let Some((target, start)) = self.links.pop() else {
            return;
        };
        let shown: String = self.inline[start.min(self.inline.len())..]
            .iter()
            .map(|(c, _)| *c)
            .collect();
        let target_shown = for_display_line(&target).into_owned();
        if target.is_empty() || shown.trim() == target_shown {
            return;
        }
        let text = if shown.trim().is_empty() {
            target
        } else {
            format!(" ({target})")
        };
        self.push(&text, Style::default());
    }

    /// Before a block: the paragraph so far is written, and a blank row goes
    /// between blocks outside lists.
    fn block_start(&mut self) {
        self.flush();
        if self.gap && self.items.is_empty() && !self.out.is_empty() {
            self.out.push(Line::default());
        }
        self.gap = false;
    }

    fn block_end(&mut self) {
        self.flush();
        self.gap = true;
    }

    /// The columns before a row: the quotes' bars, then the open items' indents
    /// (the last one's marker instead when `first` and a marker is due).
    fn indent(&mut self, first: bool) -> String {
        if self.quotes > MAX_NESTING || self.items.len() > MAX_NESTING {
            self.flattened = true;
        }
        let mut prefix = "│ ".repeat(self.quotes.min(MAX_NESTING));
        let marker = if first { self.marker.take() } else { None };
        let items: usize = self.items.iter().take(MAX_NESTING).sum();
        match marker {
            Some(marker) => {
                let before = items.saturating_sub(marker.chars().count());
                prefix.push_str(&" ".repeat(before));
                prefix.push_str(&marker);
            }
            None => prefix.push_str(&" ".repeat(items)),
        }
        prefix
    }

    /// Writes the paragraph gathered so far, wrapped under its indent.
    fn flush(&mut self) {
        let chars = std::mem::take(&mut self.inline);
        let start = chars.iter().position(|(c, _)| *c != ' ');
        let end = chars.iter().rposition(|(c, _)| *c != ' ');
        let (Some(start), Some(end)) = (start, end) else {
            return;
        };
        let rest = self.indent(false);
        let first = self.indent(true);
        let room = self.width.saturating_sub(columns(&rest)).max(10);
        for (at, row) in wrap(&chars[start..=end], room).into_iter().enumerate() {
            let prefix = if at == 0 { &first } else { &rest };
            let mut line = Line::default();
            if !prefix.is_empty() {
                line.spans.push((Style::default(), prefix.clone()));
            }
            line.spans.extend(group(&row));
            self.out.push(line);
        }
    }

    /// A block of raw HTML's rows, as written: a row too long for the screen
    /// goes on under itself, broken at a space (as a code block's does; a token
    /// longer than a row is kept whole on a row of its own).
    fn html_rows(&mut self, html: &str) {
        for row in html.lines() {
            let prefix = self.indent(false);
            let room = self.width.saturating_sub(columns(&prefix)).max(10);
            let chars: Vec<(char, Style)> = for_display_line(row)
                .chars()
                .map(|c| (c, Style::default()))
                .collect();
            for piece in wrap(&chars, room) {
                let piece: String = piece.iter().map(|(c, _)| c).collect();
                self.out.push(Line::plain(format!("{prefix}{piece}")));
            }
        }
    }

    /// A code block's rows: indented, never reflowed; a row too long for the
    /// screen goes on under itself, broken at a space (a token longer than a
    /// row is kept whole on a row of its own).
    fn code_rows(&mut self, code: &str) {
        let style = Style {
            code: true,
            ..Style::default()
        };
        let lead = self.indent(true);
        let rest = self.indent(false);
        let room = self
            .width
            .saturating_sub(columns(&rest) + CODE_INDENT.len())
            .max(10);
        for (at, row) in code.trim_end_matches('\n').split('\n').enumerate() {
            let prefix = if at == 0 { &lead } else { &rest };
            let safe = for_display_line(&row.replace('\t', CODE_INDENT)).into_owned();
            if safe.trim().is_empty() {
                self.out.push(Line::plain(prefix.trim_end()));
                continue;
            }
            let chars: Vec<(char, Style)> = safe.chars().map(|c| (c, style)).collect();
            for (part, piece) in wrap(&chars, room).into_iter().enumerate() {
                let prefix = if at == 0 && part == 0 { &lead } else { &rest };
                let mut line = Line::plain(format!("{prefix}{CODE_INDENT}"));
                line.spans.extend(group(&piece));
                self.out.push(line);
            }
        }
    }
}

/// Whether `event` starts a block (not a paragraph's text).
fn is_block(event: &Event<'_>) -> bool {
    matches!(
        event,
        Event::Start(
            Tag::Paragraph
                | Tag::Heading { .. }
                | Tag::BlockQuote(_)
                | Tag::CodeBlock(_)
                | Tag::HtmlBlock
                | Tag::List(_)
                | Tag::Item
        )
    )
}

fn columns(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Styled characters in pieces of one style.
fn group(chars: &[(char, Style)]) -> Vec<(Style, String)> {
    let mut spans: Vec<(Style, String)> = Vec::new();
    for &(c, style) in chars {
        match spans.last_mut() {
            Some((last, text)) if *last == style => text.push(c),
            _ => spans.push((style, c.to_string())),
        }
    }
    spans
}

/// Styled characters broken into rows of at most `width` columns, between words
/// where a row has a space to break at, a link or code longer than a row kept
/// whole on a row of its own (as [`crate::render::wrap`] does).
fn wrap(chars: &[(char, Style)], width: usize) -> Vec<Vec<(char, Style)>> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row: Vec<(char, Style)> = Vec::new();
    let mut used = 0;
    for &(c, style) in chars {
        let wide = c.width().unwrap_or(0);
        if used + wide > width {
            let at = row
                .iter()
                .rposition(|&(c, _)| c == ' ')
                .filter(|&at| at > 0 && c != ' ');
            match at {
                Some(at) => {
                    let rest = row.split_off(at + 1);
                    while row.last().is_some_and(|(c, _)| *c == ' ') {
                        row.pop();
                    }
                    rows.push(std::mem::replace(&mut row, rest));
                }
                None if c != ' ' && keeps_whole(row.iter().map(|&(c, _)| c), wide) => {
                    row.push((c, style));
                    used += wide;
                    continue;
                }
                None => rows.push(std::mem::take(&mut row)),
            }
            used = row.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
            if c == ' ' && row.is_empty() {
                continue;
            }
        }
        row.push((c, style));
        used += wide;
    }
    rows.push(row);
    rows
}

#[cfg(test)]
mod tests;
