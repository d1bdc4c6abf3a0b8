//! What a prompt's views look like: the rows of each, the error line, the hint.

use askuser_core::text::for_display_line;
use unicode_width::UnicodeWidthChar;

use super::{Asking, Body, View};
use crate::clock::COUNTDOWN;
use crate::editor::{Cursor, Editor};
use crate::list::List;
use crate::markdown::{Line, Style};
use crate::render::{self, wrap};
use crate::screen::Frame;

/// A frame being built on a screen of a given size.
struct Builder {
    width: usize,
    height: usize,
    rows: Vec<String>,
    cursor: Option<Cursor>,
    marked: std::ops::Range<usize>,
    typing: bool,
    styles: Vec<(usize, String)>,
}

impl Builder {
    /// `? <text>`, wrapped.
    fn title(&mut self, text: &str) {
        self.rows.extend(wrap(&format!("? {text}"), self.width));
    }

    /// `? <line>`, wrapped, its styles kept.
    fn styled_title(&mut self, line: &Line) {
        let mut title = Line::plain("? ");
        title.spans.extend(line.spans.iter().cloned());
        for row in title.wrap(self.width) {
            if row
                .spans
                .iter()
                .any(|(style, _)| *style != Style::default())
            {
                self.styles.push((self.rows.len(), row.styled()));
            }
            self.rows.push(row.text());
        }
    }

    /// A list's rows: the whole entries that fit below what is already drawn,
    /// leaving rows for the hint, an error and the countdown.
    fn list(&mut self, list: &List) {
        let room = self.height.saturating_sub(self.rows.len() + 4).max(3);
        let (rows, marked) = list.marked_rows(room, self.width);
        let offset = self.rows.len();
        self.marked = marked.start + offset..marked.end + offset;
        self.rows.extend(rows);
    }

    /// The editor's rows (the cursor's part of them when they would not fit on
    /// the screen), the cursor among them.
    fn editor(&mut self, editor: &Editor) {
        let (lines, at) = editor.layout("> ", "  ", self.width);
        let room = self.height.saturating_sub(self.rows.len() + 3).max(3);
        let start = (at.row + 1).saturating_sub(room);
        self.typing = true;
        self.cursor = Some(Cursor {
            row: self.rows.len() + at.row - start,
            column: at.column,
        });
        self.rows.extend(lines.into_iter().skip(start).take(room));
    }

    /// A line of text (already safe to show), wrapped.
    fn line(&mut self, text: &str) {
        self.rows.extend(wrap(text, self.width));
    }
}

impl Asking<'_> {
    /// The frame for `view` on a screen of `width` columns (per row) and
    /// `height` rows.
    pub(super) fn frame(&self, view: &View, width: usize, height: usize) -> Frame {
        let mut frame = Builder {
            width,
            height,
            rows: Vec::new(),
            cursor: None,
            marked: 0..0,
            typing: false,
            styles: Vec::new(),
        };
        let hint = match view {
            View::Question | View::Editing => self.question_rows(&mut frame),
            View::Menu(list, _) => {
                frame.title(&format!("{} — what now?", self.header));
                frame.list(list);
                "[a letter or ↑↓ chooses, Enter does it · typing goes back to the answer · Esc returns]"
                    .to_owned()
            }
            View::EndTurn(list, ctrl_c) => {
                frame.title(render::END_TURN_TITLE);
                frame.list(list);
                if *ctrl_c {
                    "[Ctrl+C again ends the turn · y then Enter ends it · Enter or Esc keeps answering]"
                        .to_owned()
                } else {
                    "[y then Enter ends the turn · Enter or Esc keeps answering]".to_owned()
                }
            }
            View::Note(editor) => {
                frame.title(&format!(
                    "{} — a note beside the answer, for the assistant",
                    self.header
                ));
                frame.editor(editor);
                "[Enter keeps the note · an empty note removes it · Esc returns to the question]"
                    .to_owned()
            }
            View::NoteKept(list, value) => {
                frame.title(&format!(
                    "{} — your note was written for your earlier answer",
                    self.header
                ));
                let note = self.note.as_deref().unwrap_or_default();
                frame.line(&format!("  {}", for_display_line(note)));
                frame.line(&format!(
                    "Does it still apply to your new answer, {}?",
                    for_display_line(&render::answer_text(value))
                ));
                frame.list(list);
                "[a letter or ↑↓ chooses, Enter does it · Esc returns to the question]".to_owned()
            }
            View::Reply(editor) => {
                frame.title(render::REPLY_TITLE);
                frame.editor(editor);
                if self.draft() != self.start {
                    frame.line(render::DRAFT_DROPPED);
                }
                "[a message is optional · Enter sends it with the answers so far · Esc returns to the question]".to_owned()
            }
            View::Other(editor, _) => {
                frame.title(&format!("{} (Other)", self.header));
                frame.editor(editor);
                "[Enter sends · Esc returns to the options]".to_owned()
            }
            View::Long(value) => {
                let text = value.as_str().unwrap_or_default();
                if let Some(warning) = render::long_answer_warning(text) {
                    frame.line(&format!("⚠ {warning}"));
                }
                frame.title(render::LONG_ANSWER_CONFIRM);
                String::new()
            }
        };
        if let Some(error) = &self.error {
            frame.line(&format!("✗ {}", for_display_line(error)));
        }
        if !hint.is_empty() {
            frame.line(&hint);
        }
        if let (Some(left), Some(timeout)) = (self.left, &self.settings.timeout) {
            let warning = if left <= COUNTDOWN.as_secs() {
                "⚠ "
            } else {
                ""
            };
            frame.line(&format!(
                "⏳ {warning}{} left to answer; then {}.",
                time_left(left),
                timeout.then
            ));
        }
        Frame {
            rows: frame.rows,
            cursor: frame.cursor,
            marked: frame.marked,
            typing: frame.typing,
            styles: frame.styles,
        }
    }

    /// The question's (or the review's) rows; its hint.
    fn question_rows(&self, frame: &mut Builder) -> String {
        match &self.body {
            Body::List(list) | Body::Review(list, _) => {
                let filter = for_display_line(&list.filter()).into_owned();
                if filter.is_empty() {
                    frame.styled_title(&self.styled);
                } else {
                    frame.title(&format!("{} {filter}", self.header));
                }
                let end = frame.rows.last().map_or(0, |row| columns(row));
                frame.cursor = Some(Cursor {
                    row: frame.rows.len() - 1,
                    column: end,
                });
                frame.list(list);
            }
            Body::Text(editor) => {
                frame.styled_title(&self.styled);
                frame.editor(editor);
            }
        }
        // A note written for this answer shows as attached before it is sent.
        if let (Some(note), false) = (&self.note, matches!(self.body, Body::Review(..))) {
            let first = note.lines().next().unwrap_or_default();
            let more = if note.lines().nth(1).is_some() {
                " …"
            } else {
                ""
            };
            frame.line(&format!(
                "  ✎ note attached: {}{more} (Alt+N changes it)",
                for_display_line(first)
            ));
        }
        match &self.body {
            Body::Review(_, outcome) => format!(
                "[Enter submits · 1-{} change that answer · Esc for Reply / End Turn]",
                outcome.form.len().min(9)
            ),
            Body::List(list) => render::hint(
                self.prompt.question(),
                self.prompt.can_back,
                self.settings.remember,
                list.digits_pick(),
            ),
            Body::Text(_) => render::hint(
                self.prompt.question(),
                self.prompt.can_back,
                self.settings.remember,
                false,
            ),
        }
    }
}

/// Seconds in words for the timer: `45 s`, `1:05`, `1:00:00`.
fn time_left(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{}:{:02}", seconds / 60, seconds % 60),
        _ => format!(
            "{}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        ),
    }
}

fn columns(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}
