//! The terminal itself: raw mode on standard error's terminal, a frame of rows
//! drawn and redrawn in place, lines left above it for good, and reading keys
//! with an optional wait limit.
//!
//! Every row handed to [`Screen::draw`] is already safe to show (made so by
//! [`render`](crate::render)) and at most as wide as [`Screen::width`]. When the
//! screen closes (even on an error), the frame is erased and the terminal
//! restored, so no half-drawn prompt is left behind.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use crossterm::cursor::{MoveToColumn, MoveUp};
use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{Clear, ClearType, disable_raw_mode, enable_raw_mode};
use crossterm::{event, queue};

use crate::editor::Cursor;
use crate::error::TerminalError;
use crate::keys::{self, Input};

/// A frame: its rows, and where the cursor goes (`None`: after the last row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The rows, top first.
    pub(crate) rows: Vec<String>,
    /// The cursor's place.
    pub(crate) cursor: Option<Cursor>,
}

/// The terminal, in raw mode while this lives.
pub(crate) struct Screen {
    out: io::Stderr,
    /// The cursor's row within the frame drawn last (0 when none is drawn).
    cursor_row: usize,
    drawn: bool,
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
            cursor_row: 0,
            drawn: false,
        };
        queue!(screen.out, EnableBracketedPaste)?;
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
        if self.cursor_row > 0 {
            queue!(self.out, MoveUp(to_u16(self.cursor_row)))?;
        }
        queue!(self.out, MoveToColumn(0), Clear(ClearType::FromCursorDown))?;
        self.cursor_row = 0;
        Ok(())
    }

    /// Draws `frame` in place of the one drawn before.
    pub(crate) fn draw(&mut self, frame: &Frame) -> Result<(), TerminalError> {
        self.erase_frame()?;
        let last = frame.rows.len().saturating_sub(1);
        for (index, row) in frame.rows.iter().enumerate() {
            if index > 0 {
                self.out.write_all(b"\r\n")?;
            }
            self.out.write_all(row.as_bytes())?;
        }
        let cursor = frame.cursor.unwrap_or(Cursor {
            row: last,
            column: frame.rows.last().map_or(0, |r| display_width(r)),
        });
        let row = cursor.row.min(last);
        if last > row {
            queue!(self.out, MoveUp(to_u16(last - row)))?;
        }
        queue!(self.out, MoveToColumn(to_u16(cursor.column)))?;
        self.out.flush()?;
        self.cursor_row = row;
        self.drawn = true;
        Ok(())
    }

    /// Erases the frame and leaves `lines` on the screen for good (the next frame
    /// is drawn below them).
    pub(crate) fn print(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        self.erase_frame()?;
        for line in lines {
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\r\n")?;
        }
        self.out.flush()?;
        self.drawn = false;
        Ok(())
    }

    /// Rings the terminal's bell.
    pub(crate) fn bell(&mut self) -> Result<(), TerminalError> {
        self.out.write_all(b"\x07")?;
        self.out.flush()?;
        Ok(())
    }

    /// Waits for the next input; [`Input::Tick`] when `wait` passes first.
    #[allow(clippy::unused_self)] // reading needs the raw mode this screen holds
    pub(crate) fn read(&mut self, wait: Option<Duration>) -> Result<Input, TerminalError> {
        loop {
            if let Some(wait) = wait
                && !event::poll(wait)?
            {
                return Ok(Input::Tick);
            }
            if let Some(input) = keys::from_event(event::read()?) {
                return Ok(input);
            }
        }
    }

    /// Gives the terminal back (raw mode off) while `run` runs, e.g. an editor.
    pub(crate) fn suspended<T>(&mut self, run: impl FnOnce() -> T) -> Result<T, TerminalError> {
        self.erase_frame()?;
        queue!(self.out, DisableBracketedPaste)?;
        self.out.flush()?;
        disable_raw_mode()?;
        let result = run();
        enable_raw_mode()?;
        queue!(self.out, EnableBracketedPaste)?;
        self.out.flush()?;
        Ok(result)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.drawn {
            let _ = self.erase_frame();
        }
        let _ = queue!(self.out, DisableBracketedPaste);
        let _ = self.out.flush();
        let _ = disable_raw_mode();
    }
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

fn display_width(text: &str) -> usize {
    use unicode_width::UnicodeWidthChar;
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}
