//! What the terminal reads: keys (as this crate names them), pastes, resizes and
//! the ticks of a waiting clock; and reading them from crossterm's events.

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// One key press, as the prompts understand it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// A printable character (uppercase letters come as themselves).
    Char(char),
    /// Ctrl with a letter (`Ctrl('c')` is Ctrl+C).
    Ctrl(char),
    /// Alt with a letter.
    Alt(char),
    /// Enter.
    Enter,
    /// Alt+Enter: a new line in a multi-line input.
    AltEnter,
    /// Esc.
    Esc,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// ←.
    Left,
    /// →.
    Right,
    /// ↑.
    Up,
    /// ↓.
    Down,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// Tab.
    Tab,
}

/// One thing read from the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// A key.
    Key(Key),
    /// Pasted text (bracketed paste).
    Paste(String),
    /// The terminal was resized; draw again.
    Redraw,
    /// Nothing came before the wait ended (a clock tick).
    Tick,
}

/// The input a crossterm event stands for, if any (key releases and mouse events
/// are none).
pub(crate) fn from_event(event: TermEvent) -> Option<Input> {
    match event {
        TermEvent::Key(key) => from_key(key).map(Input::Key),
        TermEvent::Paste(text) => Some(Input::Paste(text)),
        TermEvent::Resize(..) => Some(Input::Redraw),
        _ => None,
    }
}

fn from_key(event: KeyEvent) -> Option<Key> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    let alt = event.modifiers.contains(KeyModifiers::ALT);
    Some(match event.code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) if alt => Key::Alt(c),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter if alt => Key::AltEnter,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Tab => Key::Tab,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Input> {
        from_event(TermEvent::Key(KeyEvent::new(code, modifiers)))
    }

    #[test]
    fn keys_are_named_with_their_modifiers() {
        assert_eq!(
            key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Input::Key(Key::Ctrl('c')))
        );
        assert_eq!(
            key(KeyCode::Char('Y'), KeyModifiers::SHIFT),
            Some(Input::Key(Key::Char('Y')))
        );
        assert_eq!(
            key(KeyCode::Enter, KeyModifiers::ALT),
            Some(Input::Key(Key::AltEnter))
        );
        assert_eq!(
            key(KeyCode::Char('b'), KeyModifiers::ALT),
            Some(Input::Key(Key::Alt('b')))
        );
        assert_eq!(key(KeyCode::F(1), KeyModifiers::NONE), None);
        assert_eq!(
            from_event(TermEvent::Paste("a\nb".into())),
            Some(Input::Paste("a\nb".into()))
        );
        assert_eq!(from_event(TermEvent::Resize(80, 24)), Some(Input::Redraw));
    }
}
