//! A list to pick from: the options of a question, a menu, or the review. Pure:
//! it reads keys and gives lines.
//!
//! - In a menu (and on a yes/no question) a key's letter picks its entry at once.
//! - On a select or multi-select, the digits 1–9 pick (or tick) an option at once
//!   while nothing is typed, unless an option's label starts with a digit (a list
//!   of versions: `1.7` then filters to "1.7"); any other typing filters the
//!   options, the labels that start with the text first (`s` puts "scala" before
//!   "rust" and "bash"), and Enter picks the highlighted one. "Other" stays in view
//!   while filtering.

use askuser_core::text::for_display_line;

use crate::editor::{Edit, Editor};
use crate::keys::Key;
use crate::menu::{Entry, Pick};
use crate::render::fit;

/// How a list reads keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Letters (or digits) pick their entry at once; no filter.
    Menu,
    /// Yes / No: `y` and `n` pick at once, `Y` and `N` also remember (when allowed).
    Boolean {
        /// Whether uppercase remembers the answer for the turn.
        remember: bool,
    },
    /// One option: digits pick at once, typing filters, Enter picks.
    Select,
    /// Several options: digits and Space tick, typing filters, Enter sends.
    Multi,
}

/// What a key did to the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Listed {
    /// Draw again.
    Changed,
    /// The person picked this entry.
    Picked(Pick),
    /// The person picked this entry and asked to remember it for the turn.
    Remembered(Pick),
    /// The person sent a multi-select with these ticked entries, in list order.
    Sent(Vec<Pick>),
    /// A key the list does not use.
    Ignored,
}

/// A list of entries with a cursor, a filter and (for a multi-select) ticks.
#[derive(Debug, Clone)]
pub(crate) struct List {
    entries: Vec<Entry>,
    mode: Mode,
    cursor: usize,
    filter: Editor,
    ticked: Vec<bool>,
    /// Whether digits pick options: no option's label starts with a digit.
    digits_pick: bool,
}

impl List {
    /// A list of `entries` read in `mode`, the cursor on entry `cursor`, these
    /// entries ticked.
    pub(crate) fn new(entries: Vec<Entry>, mode: Mode, cursor: usize, ticked: &[usize]) -> Self {
        let mut marks = vec![false; entries.len()];
        for &index in ticked {
            if let Some(mark) = marks.get_mut(index) {
                *mark = true;
            }
        }
        let digits_pick = !entries.iter().any(|entry| {
            matches!(entry.pick, Pick::Option(_))
                && entry
                    .label
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
        });
        Self {
            cursor: cursor.min(entries.len().saturating_sub(1)),
            digits_pick,
            entries,
            mode,
            filter: Editor::new("", false),
            ticked: marks,
        }
    }

    /// The text typed to filter the options.
    pub(crate) fn filter(&self) -> String {
        self.filter.text()
    }

    /// The ticked entries' picks, in list order.
    pub(crate) fn ticked(&self) -> Vec<Pick> {
        self.entries
            .iter()
            .zip(&self.ticked)
            .filter(|(_, ticked)| **ticked)
            .map(|(entry, _)| entry.pick)
            .collect()
    }

    fn filters(&self) -> bool {
        matches!(self.mode, Mode::Select | Mode::Multi)
    }

    /// The indices of the entries in view, best match first.
    fn visible(&self) -> Vec<usize> {
        let typed = self.filter.text().trim().to_lowercase();
        if typed.is_empty() {
            return (0..self.entries.len()).collect();
        }
        let mut scored: Vec<(u8, usize)> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.pick, Pick::Option(_)))
            .filter_map(|(i, e)| {
                let label = e.label.to_lowercase();
                let score = if label.starts_with(&typed) {
                    2
                } else if label
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|word| word.starts_with(&typed))
                {
                    1
                } else if label.contains(&typed) {
                    0
                } else {
                    return None;
                };
                Some((score, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let others = (0..self.entries.len()).filter(|&i| self.entries[i].pick == Pick::Other);
        scored.into_iter().map(|(_, i)| i).chain(others).collect()
    }

    /// The entry under the cursor, if any is in view.
    fn current(&self) -> Option<usize> {
        self.visible().get(self.cursor).copied()
    }

    fn by_key(&self, c: char) -> Option<usize> {
        let key = c.to_string();
        self.entries
            .iter()
            .position(|e| e.key.eq_ignore_ascii_case(&key))
    }

    fn toggle(&mut self, index: usize) {
        if let Some(mark) = self.ticked.get_mut(index) {
            *mark = !*mark;
        }
    }

    /// Whether the digits 1–9 pick options (no label starts with a digit).
    pub(crate) fn digits_pick(&self) -> bool {
        self.digits_pick
    }

    /// Moves the cursor to the entry whose key is `c`, without picking it;
    /// whether there is one.
    pub(crate) fn highlight(&mut self, c: char) -> bool {
        let Some(index) = self.by_key(c) else {
            return false;
        };
        match self.visible().iter().position(|&i| i == index) {
            Some(at) => {
                self.cursor = at;
                true
            }
            None => false,
        }
    }

    /// Types `c` into the filter (of a list that filters), never picking.
    pub(crate) fn type_char(&mut self, c: char) {
        if self.filters() {
            self.filter.handle(Key::Char(c));
            self.cursor = 0;
        }
    }

    /// Pasted text goes into the filter (of a list that filters).
    pub(crate) fn paste(&mut self, text: &str) {
        if self.filters() {
            self.filter.insert_str(text);
            self.cursor = 0;
        }
    }

    /// Applies a key.
    pub(crate) fn handle(&mut self, key: Key) -> Listed {
        let count = self.visible().len();
        match key {
            Key::Up | Key::Ctrl('p') => self.cursor = (self.cursor + count - 1) % count.max(1),
            Key::Down | Key::Ctrl('n') | Key::Tab => self.cursor = (self.cursor + 1) % count.max(1),
            Key::Home | Key::PageUp => self.cursor = 0,
            Key::End | Key::PageDown => self.cursor = count.saturating_sub(1),
            Key::Enter => return self.enter(),
            Key::Char(c) => return self.typed(c),
            key if self.filters() => {
                if self.filter.handle(key) != Edit::Changed {
                    return Listed::Ignored;
                }
                self.cursor = 0;
            }
            _ => return Listed::Ignored,
        }
        Listed::Changed
    }

    fn enter(&mut self) -> Listed {
        match (self.mode, self.current()) {
            (Mode::Multi, _) => Listed::Sent(self.ticked()),
            (_, Some(index)) => Listed::Picked(self.entries[index].pick),
            (_, None) => Listed::Ignored,
        }
    }

    fn typed(&mut self, c: char) -> Listed {
        let nothing_typed = self.filter.is_empty();
        match self.mode {
            Mode::Menu => match self.by_key(c) {
                Some(index) => Listed::Picked(self.entries[index].pick),
                None => Listed::Ignored,
            },
            Mode::Boolean { remember } => match self.by_key(c) {
                Some(index) if remember && c.is_uppercase() => {
                    Listed::Remembered(self.entries[index].pick)
                }
                Some(index) => Listed::Picked(self.entries[index].pick),
                None => Listed::Ignored,
            },
            Mode::Multi if c == ' ' => {
                if let Some(index) = self.current() {
                    self.toggle(index);
                }
                Listed::Changed
            }
            Mode::Select | Mode::Multi
                if nothing_typed && self.digits_pick && c.is_ascii_digit() =>
            {
                match self.by_key(c) {
                    Some(index) if self.mode == Mode::Multi => {
                        self.toggle(index);
                        if let Some(at) = self.visible().iter().position(|&i| i == index) {
                            self.cursor = at;
                        }
                        Listed::Changed
                    }
                    Some(index) => Listed::Picked(self.entries[index].pick),
                    None => Listed::Ignored,
                }
            }
            Mode::Select | Mode::Multi => {
                self.filter.handle(Key::Char(c));
                self.cursor = 0;
                Listed::Changed
            }
        }
    }

    /// The rows of the entries in view (at most `page` of them, the cursor's among
    /// them), each at most `width` columns: `> ` marks the cursor, `[x]` a tick.
    pub(crate) fn rows(&self, page: usize, width: usize) -> Vec<String> {
        let visible = self.visible();
        if visible.is_empty() {
            let typed = self.filter.text();
            return vec![fit(
                &format!("  (no option matches \"{}\")", for_display_line(&typed)),
                width,
            )];
        }
        let page = page.max(1);
        let start = (self.cursor + 1).saturating_sub(page);
        let mut rows: Vec<String> = visible
            .iter()
            .enumerate()
            .skip(start)
            .take(page)
            .map(|(at, &index)| {
                let mut row = String::from(if at == self.cursor { "> " } else { "  " });
                if self.mode == Mode::Multi {
                    row.push_str(if self.ticked[index] { "[x] " } else { "[ ] " });
                }
                row.push_str(&self.entries[index].to_string());
                fit(&row, width)
            })
            .collect();
        let hidden = visible.len() - rows.len();
        if hidden > 0 {
            rows.push(format!("  ({hidden} more: ↑↓ scroll)"));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::{AnswerType, Question};

    fn languages() -> Vec<Entry> {
        let q = Question::new("l", "Which?", AnswerType::Select)
            .with_options(["go", "rust", "ruby", "scala", "bash"])
            .with_other(true);
        crate::menu::option_entries(&q)
    }

    #[test]
    fn typing_filters_with_prefixes_first_and_enter_picks() {
        let mut list = List::new(languages(), Mode::Select, 0, &[]);
        assert_eq!(list.handle(Key::Char('s')), Listed::Changed);
        assert_eq!(
            list.rows(10, 80),
            [
                "> 4) scala",
                "  2) rust",
                "  5) bash",
                "  0) Other (type your answer)"
            ]
        );
        assert_eq!(list.handle(Key::Enter), Listed::Picked(Pick::Option(3)));
        list.handle(Key::Char('x'));
        assert_eq!(list.rows(10, 80), ["> 0) Other (type your answer)"]);
        assert_eq!(list.filter(), "sx");
        list.handle(Key::Ctrl('u'));
        assert_eq!(
            list.rows(2, 80),
            ["> 1) go", "  2) rust", "  (4 more: ↑↓ scroll)"]
        );
        list.handle(Key::End);
        assert_eq!(
            list.rows(2, 80),
            [
                "  5) bash",
                "> 0) Other (type your answer)",
                "  (4 more: ↑↓ scroll)"
            ]
        );
    }

    #[test]
    fn digits_pick_at_once_unless_typing() {
        let mut list = List::new(languages(), Mode::Select, 0, &[]);
        assert_eq!(list.handle(Key::Char('3')), Listed::Picked(Pick::Option(2)));
        list.handle(Key::Char('r'));
        assert_eq!(list.handle(Key::Char('9')), Listed::Changed);
        assert_eq!(list.filter(), "r9");
        list.paste("\u{1b}[2J x");
        assert_eq!(list.filter(), "r9[2J x");
    }

    #[test]
    fn digits_filter_when_a_label_starts_with_a_digit() {
        let q = Question::new("v", "Which version?", AnswerType::Select)
            .with_options(["1.85", "1.7", "2.0"]);
        let mut list = List::new(crate::menu::option_entries(&q), Mode::Select, 0, &[]);
        assert!(!list.digits_pick());
        for c in "1.7".chars() {
            assert_eq!(list.handle(Key::Char(c)), Listed::Changed);
        }
        assert_eq!(list.rows(10, 80), ["> 2) 1.7"]);
        assert_eq!(list.handle(Key::Enter), Listed::Picked(Pick::Option(1)));
    }

    #[test]
    fn a_letter_highlights_without_picking() {
        let mut menu = List::new(
            crate::menu::action_entries(true, None, None),
            Mode::Menu,
            0,
            &[],
        );
        assert!(menu.highlight('s'));
        assert!(!menu.highlight('x'));
        assert_eq!(menu.handle(Key::Enter), Listed::Picked(Pick::EndTurn));
    }

    #[test]
    fn multi_select_ticks_with_digits_and_space() {
        let mut list = List::new(languages(), Mode::Multi, 0, &[4]);
        list.handle(Key::Char('2'));
        list.handle(Key::Down);
        list.handle(Key::Char(' '));
        assert_eq!(
            list.rows(3, 80),
            [
                "  [ ] 1) go",
                "  [x] 2) rust",
                "> [x] 3) ruby",
                "  (3 more: ↑↓ scroll)"
            ]
        );
        assert_eq!(
            list.handle(Key::Enter),
            Listed::Sent(vec![Pick::Option(1), Pick::Option(2), Pick::Option(4)])
        );
    }

    #[test]
    fn menus_and_booleans_pick_by_letter() {
        let mut yes_no = List::new(
            crate::menu::boolean_entries(),
            Mode::Boolean { remember: true },
            0,
            &[],
        );
        assert_eq!(yes_no.handle(Key::Char('n')), Listed::Picked(Pick::No));
        assert_eq!(yes_no.handle(Key::Char('Y')), Listed::Remembered(Pick::Yes));
        assert_eq!(yes_no.handle(Key::Char('x')), Listed::Ignored);
        let mut plain = List::new(
            crate::menu::boolean_entries(),
            Mode::Boolean { remember: false },
            1,
            &[],
        );
        assert_eq!(plain.handle(Key::Char('Y')), Listed::Picked(Pick::Yes));
        assert_eq!(plain.handle(Key::Enter), Listed::Picked(Pick::No));
        assert_eq!(plain.handle(Key::Backspace), Listed::Ignored);
    }
}
