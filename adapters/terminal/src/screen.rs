//! The terminal itself: raw mode on standard error's terminal, a frame of rows
//! drawn and redrawn in place, lines left above it for good, and reading keys
//! with an optional wait limit.
//!
//! Every row handed to [`Screen::draw`] is already safe to show (made so by
//! [`render`](crate::render)) and at most as wide as [`Screen::width`], but for a
//! token longer than that (a link, a path), kept whole on a row of its own for
//! the terminal to wrap: the cursor's moves count the screen rows each row takes.
//! When the
//! screen closes (even on an error), the frame is erased and the terminal
//! restored, so no half-drawn prompt is left behind.
//!
//! The row under the cursor of a list is drawn in reverse video. With
//! `NO_COLOR` set (to anything but the empty text) or `TERM=dumb`, the screen is
//! **plain**: not one escape sequence is written (no colour, no cursor movement,
//! no bracketed paste). A frame that changes is written again below the last one,
//! its input row last; typing at the end of that row only writes the new
//! characters (Backspace writes BS, space, BS).

use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
use std::ops::Range;
use std::time::Duration;

use crossterm::cursor::{MoveToColumn, MoveUp};
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::style::{Attribute, SetAttribute};
use crossterm::terminal::{Clear, ClearType, disable_raw_mode, enable_raw_mode};
use crossterm::{event, queue};

use crate::editor::Cursor;
use crate::error::TerminalError;
use crate::keys::{self, Input, Key};
use crate::markdown::Line;

/// A frame: its rows, where the cursor goes (`None`: after the last row), and
/// the rows to highlight (the list entry under the cursor).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The rows, top first.
    pub(crate) rows: Vec<String>,
    /// The cursor's place.
    pub(crate) cursor: Option<Cursor>,
    /// The rows shown highlighted.
    pub(crate) marked: Range<usize>,
    /// Whether the cursor's row is a typed input: a plain screen writes it last
    /// (so typing writes only the new characters); other rows (a question above
    /// its options) keep their order.
    pub(crate) typing: bool,
    /// Rows drawn with styles (their escape sequences; the same text as in
    /// `rows`): written in place of those rows unless the screen is plain.
    pub(crate) styles: Vec<(usize, String)>,
}

/// Whether the environment asks for plain output: `NO_COLOR` set and not empty
/// (no-color.org), or `TERM=dumb`.
pub(crate) fn plain_wanted() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
    no_color || dumb
}

/// The terminal, in raw mode while this lives.
pub(crate) struct Screen {
    out: io::Stderr,
    /// Keys read ahead with a burst that was not a paste, to hand out in order.
    pending: VecDeque<Input>,
    /// The cursor's row within the frame drawn last (0 when none is drawn).
    cursor_row: usize,
    /// The widths of the rows drawn above the cursor's (to erase them after a
    /// resize has reflowed them), and the cursor's column.
    above: Vec<usize>,
    column: usize,
    drawn: bool,
    /// No escape sequence at all ([`plain_wanted`]); the rows written last.
    plain: Option<Vec<String>>,
    /// The rows left on the screen for good by [`Screen::print`] so far.
    printed: usize,
}

impl Screen {
    /// Takes the terminal: raw mode, bracketed paste.
    ///
    /// # Errors
    /// [`TerminalError::NotATerminal`] when standard error is not a terminal or
    /// raw mode cannot be had.
    pub(crate) fn open() -> Result<Self, TerminalError> {
        if !io::stderr().is_terminal() {
            return Err(TerminalError::NotATerminal);
        }
        enable_raw_mode().map_err(|_| TerminalError::NotATerminal)?;
        let mut screen = Self {
            out: io::stderr(),
            pending: VecDeque::new(),
            cursor_row: 0,
            above: Vec::new(),
            column: 0,
            drawn: false,
            plain: plain_wanted().then(Vec::new),
            printed: 0,
        };
        if screen.plain.is_none() {
            queue!(screen.out, EnableBracketedPaste)?;
        }
        screen.out.flush()?;
        Ok(screen)
    }

    /// The columns a row may use: one less than the terminal's width (so a full
    /// row never wraps), at least 20.
    pub(crate) fn width() -> usize {
        let (columns, _) = crossterm::terminal::size().unwrap_or((80, 24));
        usize::from(columns).saturating_sub(1).max(20)
    }

    /// The rows a frame may use: the terminal's height less two, at least 5.
    pub(crate) fn height() -> usize {
        let (_, rows) = crossterm::terminal::size().unwrap_or((80, 24));
        usize::from(rows).saturating_sub(2).max(5)
    }

    fn erase_frame(&mut self) -> io::Result<()> {
        if self.plain.is_some() {
            return Ok(());
        }
        // The rows above the cursor take as many screen rows as the terminal's
        // width now gives them (a resize reflows them).
        let (columns, _) = crossterm::terminal::size().unwrap_or((80, 24));
        let columns = usize::from(columns).max(1);
        let up: usize = self
            .above
            .iter()
            .map(|w| w.max(&1).div_ceil(columns))
            .sum::<usize>()
            + self.column / columns;
        if up > 0 {
            queue!(self.out, MoveUp(to_u16(up)))?;
        }
        queue!(self.out, MoveToColumn(0), Clear(ClearType::FromCursorDown))?;
        self.cursor_row = 0;
        self.above.clear();
        self.column = 0;
        Ok(())
    }

    /// Draws `frame` in place of the one drawn before.
    pub(crate) fn draw(&mut self, frame: &Frame) -> Result<(), TerminalError> {
        if self.plain.is_some() {
            return self.draw_plain(frame);
        }
        self.erase_frame()?;
        let last = frame.rows.len().saturating_sub(1);
        for (index, row) in frame.rows.iter().enumerate() {
            if index > 0 {
                self.out.write_all(b"\r\n")?;
            }
            let styled = frame.styles.iter().find(|(at, _)| *at == index);
            let row = styled.map_or(row, |(_, styled)| styled);
            if frame.marked.contains(&index) {
                queue!(self.out, SetAttribute(Attribute::Reverse))?;
                self.out.write_all(row.as_bytes())?;
                queue!(self.out, SetAttribute(Attribute::NoReverse))?;
            } else {
                self.out.write_all(row.as_bytes())?;
            }
        }
        let cursor = frame.cursor.unwrap_or(Cursor {
            row: last,
            column: frame.rows.last().map_or(0, |r| display_width(r)),
        });
        let row = cursor.row.min(last);
        // From the end of the last row up to the cursor's, in screen rows: a row
        // wider than the terminal (a long link) takes more than one.
        let (columns, _) = crossterm::terminal::size().unwrap_or((80, 24));
        let columns = usize::from(columns).max(1);
        let lines = |r: &String| display_width(r).max(1).div_ceil(columns);
        let below: usize = frame.rows[row..].iter().map(lines).sum();
        let up = below.saturating_sub(1 + cursor.column / columns);
        if up > 0 {
            queue!(self.out, MoveUp(to_u16(up)))?;
        }
        queue!(self.out, MoveToColumn(to_u16(cursor.column % columns)))?;
        self.out.flush()?;
        self.cursor_row = row;
        self.above = frame.rows[..row].iter().map(|r| display_width(r)).collect();
        self.column = cursor.column;
        self.drawn = true;
        Ok(())
    }

    /// Draws `frame` with no escape sequence: its input row last (when it has
    /// one); only the characters typed or erased at the end of the last row when
    /// nothing else changed, else the whole frame again below the last.
    fn draw_plain(&mut self, frame: &Frame) -> Result<(), TerminalError> {
        let last = frame.rows.len().saturating_sub(1);
        let at = frame.cursor.map_or(last, |c| c.row.min(last));
        let mut rows: Vec<String> = frame.rows.clone();
        if frame.typing && at < rows.len() {
            let cursor_row = rows.remove(at);
            rows.push(cursor_row);
        }
        let before = self.plain.take().unwrap_or_default();
        let same_head = before.len() == rows.len()
            && rows.len() > 1
            && before[..rows.len() - 1] == rows[..rows.len() - 1];
        let (old, new) = (before.last(), rows.last());
        match (old, new) {
            (Some(old), Some(new)) if same_head && old == new => {}
            (Some(old), Some(new)) if same_head && new.starts_with(old.as_str()) => {
                self.out.write_all(&new.as_bytes()[old.len()..])?;
            }
            (Some(old), Some(new))
                if same_head && old.starts_with(new.as_str()) && old.is_ascii() =>
            {
                for _ in new.len()..old.len() {
                    self.out.write_all(b"\x08 \x08")?;
                }
            }
            _ => {
                if self.drawn {
                    self.out.write_all(b"\r\n")?;
                }
                self.out.write_all(rows.join("\r\n").as_bytes())?;
            }
        }
        self.out.flush()?;
        self.plain = Some(rows);
        self.drawn = true;
        Ok(())
    }

    /// Erases the frame and leaves `lines` on the screen for good (the next frame
    /// is drawn below them).
    pub(crate) fn print(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        self.erase_frame()?;
        if let Some(drawn) = &mut self.plain {
            if self.drawn {
                self.out.write_all(b"\r\n")?;
            }
            drawn.clear();
        }
        for line in lines {
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\r\n")?;
        }
        self.printed += lines.len();
        self.out.flush()?;
        self.drawn = false;
        Ok(())
    }

    /// [`Screen::print`] for styled rows: their styles as escape sequences,
    /// or their text alone on a plain screen.
    pub(crate) fn print_lines(&mut self, lines: &[Line]) -> Result<(), TerminalError> {
        let plain = self.plain.is_some();
        let rows: Vec<String> = lines
            .iter()
            .map(|line| if plain { line.text() } else { line.styled() })
            .collect();
        self.print(&rows)
    }

    /// The rows [`Screen::print`] has left on the screen since it opened.
    pub(crate) fn printed(&self) -> usize {
        self.printed
    }

    /// Whether the screen is plain (no escape sequence: nothing printed can be
    /// erased).
    pub(crate) fn is_plain(&self) -> bool {
        self.plain.is_some()
    }

    /// Erases the last `rows` rows printed above (before any frame is drawn), so
    /// what comes next takes their place; nothing on a plain screen.
    pub(crate) fn erase_printed(&mut self, rows: usize) -> Result<(), TerminalError> {
        if self.plain.is_some() || rows == 0 {
            return Ok(());
        }
        self.erase_frame()?;
        queue!(
            self.out,
            MoveUp(to_u16(rows)),
            MoveToColumn(0),
            Clear(ClearType::FromCursorDown)
        )?;
        self.out.flush()?;
        Ok(())
    }

    /// Rings the terminal's bell.
    pub(crate) fn bell(&mut self) -> Result<(), TerminalError> {
        self.out.write_all(b"\x07")?;
        self.out.flush()?;
        Ok(())
    }

    /// Waits for the next input; [`Input::Tick`] when `wait` passes first.
    ///
    /// Keys that arrive together, all at once, with Enter among them and more
    /// after it, are a paste the terminal did not bracket: they come as one
    /// [`Input::Paste`] (Enter as a line break), so a pasted line break never
    /// sends an answer. Typed keys (or a burst whose only Enter is its last key)
    /// come one by one.
    pub(crate) fn read(&mut self, wait: Option<Duration>) -> Result<Input, TerminalError> {
        if let Some(input) = self.pending.pop_front() {
            return Ok(input);
        }
        let first = loop {
            if let Some(wait) = wait
                && !event::poll(wait)?
            {
                return Ok(Input::Tick);
            }
            if let Some(input) = keys::from_event(event::read()?) {
                break input;
            }
        };
        if !matches!(first, Input::Key(Key::Char(_) | Key::Enter)) {
            return Ok(first);
        }
        let mut burst = vec![first];
        while burst.len() < MAX_BURST && event::poll(Duration::ZERO)? {
            match keys::from_event(event::read()?) {
                Some(input) => burst.push(input),
                None => continue,
            }
            if !matches!(burst.last(), Some(Input::Key(Key::Char(_) | Key::Enter))) {
                break;
            }
        }
        if let Some(text) = unbracketed_paste(&burst) {
            return Ok(Input::Paste(text));
        }
        self.pending.extend(burst);
        Ok(self.pending.pop_front().unwrap_or(Input::Tick))
    }

    /// Gives the terminal back (raw mode off) while `run` runs, e.g. an editor.
    pub(crate) fn suspended<T>(&mut self, run: impl FnOnce() -> T) -> Result<T, TerminalError> {
        self.erase_frame()?;
        if let Some(drawn) = &mut self.plain {
            drawn.clear();
            self.out.write_all(b"\r\n")?;
        } else {
            queue!(self.out, DisableBracketedPaste)?;
        }
        self.out.flush()?;
        disable_raw_mode()?;
        let result = run();
        enable_raw_mode()?;
        if self.plain.is_none() {
            queue!(self.out, EnableBracketedPaste)?;
        }
        self.drawn = false;
        self.out.flush()?;
        Ok(result)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.plain.is_some() {
            if self.drawn {
                let _ = self.out.write_all(b"\r\n");
            }
            let _ = self.out.flush();
            let _ = disable_raw_mode();
            return;
        }
        if self.drawn {
            let _ = self.erase_frame();
        }
        let _ = queue!(self.out, DisableBracketedPaste);
        let _ = self.out.flush();
        let _ = disable_raw_mode();
    }
}

/// The most keys read ahead as one burst.
const MAX_BURST: usize = 64 * 1024;

/// The text of a burst of keys that is a paste: printable keys and Enters, with
/// an Enter that is not the burst's last key. `None` for typing.
pub(crate) fn unbracketed_paste(burst: &[Input]) -> Option<String> {
    let mut text = String::new();
    let mut inner_enter = false;
    for (at, input) in burst.iter().enumerate() {
        match input {
            Input::Key(Key::Char(c)) => text.push(*c),
            Input::Key(Key::Enter) => {
                inner_enter |= at + 1 < burst.len();
                text.push('\n');
            }
            _ => return None,
        }
    }
    inner_enter.then_some(text)
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

fn display_width(text: &str) -> usize {
    use unicode_width::UnicodeWidthChar;
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<Input> {
        text.chars()
            .map(|c| match c {
                '\n' => Input::Key(Key::Enter),
                c => Input::Key(Key::Char(c)),
            })
            .collect()
    }

    #[test]
    fn a_burst_with_an_inner_enter_is_a_paste() {
        assert_eq!(
            unbracketed_paste(&keys("line one\nline two")),
            Some("line one\nline two".to_owned())
        );
        assert_eq!(
            unbracketed_paste(&keys("one\ntwo\n")),
            Some("one\ntwo\n".to_owned())
        );
        assert_eq!(unbracketed_paste(&keys("prod\n")), None);
        assert_eq!(unbracketed_paste(&keys("system")), None);
        let mut with_esc = keys("a\nb");
        with_esc.push(Input::Key(Key::Esc));
        assert_eq!(unbracketed_paste(&with_esc), None);
    }
}
