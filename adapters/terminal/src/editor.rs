//! A small line editor: one or several lines of text with a cursor, the readline
//! keys (Ctrl+A/E/U/K/W/B/F/D, Alt+B/F), and its layout on a screen of a given
//! width. Pure: it reads keys and gives lines.

use askuser_core::text::for_display_line;
use unicode_width::UnicodeWidthChar;

use crate::keys::Key;

/// What a key did to the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// The text or the cursor changed (or nothing happened): draw again.
    Changed,
    /// Enter: the person sends the text.
    Submit,
    /// A key the editor does not use (the caller may).
    Ignored,
}

/// Text being typed, with a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Editor {
    text: Vec<char>,
    cursor: usize,
    multiline: bool,
}

impl Editor {
    /// An editor holding `initial`, the cursor at its end. A one-line editor turns
    /// new lines into spaces.
    pub(crate) fn new(initial: &str, multiline: bool) -> Self {
        let mut editor = Self {
            text: Vec::new(),
            cursor: 0,
            multiline,
        };
        editor.insert_str(initial);
        editor
    }

    /// The text.
    pub(crate) fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// Whether nothing is typed.
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text (the cursor goes to its end).
    pub(crate) fn set(&mut self, text: &str) {
        self.text.clear();
        self.cursor = 0;
        self.insert_str(text);
    }

    /// Inserts text at the cursor (a paste): a line break (LF, CR LF, or the CR
    /// that terminals send) is a new line, or a space in a one-line editor; tabs
    /// become spaces; other control characters are dropped.
    pub(crate) fn insert_str(&mut self, text: &str) {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' | '\n' => {
                    if c == '\r' && chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    self.insert(if self.multiline { '\n' } else { ' ' });
                }
                '\t' => self.insert(' '),
                c if c.is_control() => {}
                c => self.insert(c),
            }
        }
    }

    fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += 1;
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// The start of the word before the cursor (readline's Ctrl+W and Alt+B).
    fn word_start(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && self.text[i - 1].is_whitespace() {
            i -= 1;
        }
        while i > 0 && !self.text[i - 1].is_whitespace() {
            i -= 1;
        }
        i
    }

    fn word_end(&self) -> usize {
        let mut i = self.cursor;
        while i < self.text.len() && self.text[i].is_whitespace() {
            i += 1;
        }
        while i < self.text.len() && !self.text[i].is_whitespace() {
            i += 1;
        }
        i
    }

    /// Moves the cursor one line up or down, keeping its column where it can.
    fn vertical(&mut self, down: bool) -> bool {
        let start = self.line_start();
        let column = self.cursor - start;
        if down {
            let end = self.line_end();
            if end >= self.text.len() {
                return false;
            }
            let next_start = end + 1;
            let next_end = self.text[next_start..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(self.text.len(), |i| next_start + i);
            self.cursor = (next_start + column).min(next_end);
        } else {
            if start == 0 {
                return false;
            }
            let previous_end = start - 1;
            let previous_start = self.text[..previous_end]
                .iter()
                .rposition(|&c| c == '\n')
                .map_or(0, |i| i + 1);
            self.cursor = (previous_start + column).min(previous_end);
        }
        true
    }

    /// Applies a key.
    pub(crate) fn handle(&mut self, key: Key) -> Edit {
        match key {
            Key::Char(c) => self.insert(c),
            Key::Tab => self.insert(' '),
            Key::Enter | Key::Ctrl('m') => return Edit::Submit,
            Key::AltEnter | Key::Ctrl('j') if self.multiline => self.insert('\n'),
            Key::Backspace | Key::Ctrl('h') if self.cursor > 0 => {
                self.cursor -= 1;
                self.text.remove(self.cursor);
            }
            Key::Delete | Key::Ctrl('d') if self.cursor < self.text.len() => {
                self.text.remove(self.cursor);
            }
            Key::Left | Key::Ctrl('b') => self.cursor = self.cursor.saturating_sub(1),
            Key::Right | Key::Ctrl('f') => self.cursor = (self.cursor + 1).min(self.text.len()),
            Key::Home | Key::Ctrl('a') => self.cursor = self.line_start(),
            Key::End | Key::Ctrl('e') => self.cursor = self.line_end(),
            Key::Ctrl('u') => {
                let start = self.line_start();
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Ctrl('k') => {
                let end = self.line_end();
                self.text.drain(self.cursor..end);
            }
            Key::Ctrl('w') => {
                let start = self.word_start();
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Alt('b') => self.cursor = self.word_start(),
            Key::Alt('f') => self.cursor = self.word_end(),
            Key::Up if self.multiline => {
                if !self.vertical(false) {
                    return Edit::Ignored;
                }
            }
            Key::Down if self.multiline => {
                if !self.vertical(true) {
                    return Edit::Ignored;
                }
            }
            Key::Backspace | Key::Ctrl('h' | 'd') | Key::Delete => {}
            _ => return Edit::Ignored,
        }
        Edit::Changed
    }

    /// The editor laid out on rows at most `width` columns wide: the first row
    /// starts with `first`, the others with `rest` (both as wide as each other),
    /// and long lines wrap. Every character is shown as
    /// [`for_display_line`] shows it. Returns the rows and the cursor's row and
    /// column.
    pub(crate) fn layout(&self, first: &str, rest: &str, width: usize) -> (Vec<String>, Cursor) {
        let indent = first.chars().count();
        let room = width.saturating_sub(indent).max(1);
        let mut rows = vec![first.to_owned()];
        let mut column = 0;
        let mut cursor = Cursor {
            row: 0,
            column: indent,
        };
        for (index, &c) in self.text.iter().enumerate() {
            if index == self.cursor {
                cursor = Cursor {
                    row: rows.len() - 1,
                    column: indent + column,
                };
            }
            if c == '\n' {
                rows.push(rest.to_owned());
                column = 0;
                continue;
            }
            let shown = for_display_line(&c.to_string()).into_owned();
            let wide: usize = shown.chars().map(|c| c.width().unwrap_or(0)).sum();
            if column + wide > room {
                rows.push(rest.to_owned());
                column = 0;
            }
            if let Some(row) = rows.last_mut() {
                row.push_str(&shown);
            }
            column += wide;
        }
        if self.cursor == self.text.len() {
            if column >= room {
                rows.push(rest.to_owned());
                column = 0;
            }
            cursor = Cursor {
                row: rows.len() - 1,
                column: indent + column,
            };
        }
        (rows, cursor)
    }
}

/// Where the cursor is within a drawn block: its row and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Cursor {
    /// The row, from the block's first.
    pub(crate) row: usize,
    /// The column, from the left edge.
    pub(crate) column: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(editor: &mut Editor, text: &str) {
        for c in text.chars() {
            editor.handle(Key::Char(c));
        }
    }

    #[test]
    fn readline_keys_edit() {
        let mut e = Editor::new("deploy to staging", false);
        assert_eq!(e.handle(Key::Ctrl('w')), Edit::Changed);
        assert_eq!(e.text(), "deploy to ");
        typed(&mut e, "prod");
        e.handle(Key::Ctrl('a'));
        typed(&mut e, "please ");
        assert_eq!(e.text(), "please deploy to prod");
        e.handle(Key::Ctrl('e'));
        e.handle(Key::Alt('b'));
        e.handle(Key::Ctrl('k'));
        assert_eq!(e.text(), "please deploy to ");
        e.handle(Key::Ctrl('u'));
        assert_eq!(e.text(), "");
        assert!(e.is_empty());
        assert_eq!(e.handle(Key::Enter), Edit::Submit);
        assert_eq!(e.handle(Key::Esc), Edit::Ignored);
        assert_eq!(e.handle(Key::Backspace), Edit::Changed);
    }

    #[test]
    fn new_lines_only_in_a_multi_line_editor() {
        let mut one = Editor::new("a\nb\tc\u{1b}", false);
        assert_eq!(one.text(), "a b c");
        assert_eq!(one.handle(Key::AltEnter), Edit::Ignored);
        let mut many = Editor::new("first", true);
        many.handle(Key::AltEnter);
        typed(&mut many, "second");
        many.handle(Key::Ctrl('j'));
        typed(&mut many, "3rd");
        assert_eq!(many.text(), "first\nsecond\n3rd");
        many.handle(Key::Up);
        many.handle(Key::Ctrl('u'));
        assert_eq!(many.text(), "first\nond\n3rd");
        many.handle(Key::Up);
        many.handle(Key::Ctrl('e'));
        typed(&mut many, "!");
        assert_eq!(many.text(), "first!\nond\n3rd");
        assert_eq!(many.handle(Key::Up), Edit::Ignored);
    }

    #[test]
    fn the_layout_wraps_and_places_the_cursor() {
        let e = Editor::new("abcdefgh\nxy", true);
        let (rows, cursor) = e.layout("> ", "  ", 7);
        assert_eq!(rows, ["> abcde", "  fgh", "  xy"]);
        assert_eq!(cursor, Cursor { row: 2, column: 4 });
        let mut e = Editor::new("abcde", false);
        let (rows, cursor) = e.layout("> ", "  ", 7);
        assert_eq!(rows, ["> abcde", "  "]);
        assert_eq!(cursor, Cursor { row: 1, column: 2 });
        e.handle(Key::Home);
        assert_eq!(e.layout("> ", "  ", 7).1, Cursor { row: 0, column: 2 });
    }

    #[test]
    fn hostile_prefills_are_shown_escaped() {
        let e = Editor::new("", false);
        let mut hostile = e.clone();
        hostile.text = "a\u{1b}]0;x\u{7}".chars().collect();
        hostile.cursor = hostile.text.len();
        let (rows, _) = hostile.layout("> ", "  ", 80);
        assert_eq!(rows, ["> a\\u{1b}]0;x\\u{7}"]);
    }
}
