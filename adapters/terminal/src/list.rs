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
use std::ops::Range;

use crate::render::{fit, wrap};

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
    /// The person ticked a multi-select's "Other" by its key (`0`): its text is
    /// to be typed now, as in a single choice; these entries are ticked (in
    /// list order, "Other" among them).
    OtherTicked(Vec<Pick>),
    /// Enter on a list with no entry chosen yet (a yes/no question without a
    /// default): the person must press a key that picks.
    Unchosen,
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
    /// Whether the cursor is on an entry: `false` for a yes/no question without
    /// a default until an arrow key moves it (no row is highlighted, Enter picks
    /// nothing).
    chosen: bool,
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
            chosen: true,
        }
    }

    /// The list with no entry under the cursor until an arrow key moves it:
    /// Enter then picks nothing ([`Listed::Unchosen`]).
    pub(crate) fn unchosen(mut self) -> Self {
        self.chosen = false;
        self
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
        if !self.chosen {
            match key {
                // The first arrow puts the cursor on the first (Down) or the last
                // (Up) entry.
                Key::Up | Key::Ctrl('p') | Key::End | Key::PageDown => {
                    self.chosen = true;
                    self.cursor = count.saturating_sub(1);
                    return Listed::Changed;
                }
                Key::Down | Key::Ctrl('n') | Key::Tab | Key::Home | Key::PageUp => {
                    self.chosen = true;
                    self.cursor = 0;
                    return Listed::Changed;
                }
                Key::Enter => return Listed::Unchosen,
                _ => {}
            }
        }
        match key {
            Key::Up | Key::Ctrl('p') => self.cursor = (self.cursor + count - 1) % count.max(1),
            Key::Down | Key::Ctrl('n') | Key::Tab => self.cursor = (self.cursor + 1) % count.max(1),
            Key::Home | Key::PageUp => self.cursor = 0,
            Key::End | Key::PageDown => self.cursor = count.saturating_sub(1),
            Key::Enter => return self.enter(),
            Key::Char(c) => return self.typed(c),
            Key::Ctrl('a') if self.mode == Mode::Multi && self.filter.is_empty() => {
                self.tick_all(true);
            }
            Key::Ctrl('d') if self.mode == Mode::Multi && self.filter.is_empty() => {
                self.tick_all(false);
            }
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
                    Some(index)
                        if self.mode == Mode::Multi
                            && self.entries[index].pick == Pick::Other
                            && !self.ticked[index] =>
                    {
                        self.toggle(index);
                        if let Some(at) = self.visible().iter().position(|&i| i == index) {
                            self.cursor = at;
                        }
                        Listed::OtherTicked(self.ticked())
                    }
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

    /// The rows of the entries in view (as many whole entries as fit in `room`
    /// rows, the cursor's among them), each at most `width` columns: `> ` marks
    /// the cursor, `[x]` a tick. See [`List::marked_rows`].
    #[cfg(test)]
    pub(crate) fn rows(&self, room: usize, width: usize) -> Vec<String> {
        self.marked_rows(room, width).0
    }

    /// [`List::rows`], and the rows of the entry under the cursor (to show
    /// highlighted). Labels and descriptions are wrapped, never cut. The entries
    /// shown are whole: as many as fit in `room` rows (less the rows saying how
    /// many more there are and how many are ticked), from the first one when the
    /// cursor's fits, else ending with the cursor's; the cursor's is shown whole
    /// even when it alone is taller than `room`.
    pub(crate) fn marked_rows(&self, room: usize, width: usize) -> (Vec<String>, Range<usize>) {
        let visible = self.visible();
        if visible.is_empty() {
            let typed = self.filter.text();
            let row = fit(
                &format!("  (no option matches \"{}\")", for_display_line(&typed)),
                width,
            );
            return (vec![row], 0..0);
        }
        let footer = usize::from(self.mode == Mode::Multi);
        let cursor = self.cursor.min(visible.len() - 1);
        let entries: Vec<Vec<String>> = visible
            .iter()
            .enumerate()
            .map(|(at, &index)| self.entry_rows(index, self.chosen && at == cursor, width))
            .collect();
        let (start, end) = Self::window(&entries, cursor, room.saturating_sub(footer).max(1));
        let mut rows = Vec::new();
        let mut marked = 0..0;
        for (at, entry) in entries.into_iter().enumerate().take(end).skip(start) {
            let first = rows.len();
            rows.extend(entry);
            if self.chosen && at == cursor {
                marked = first..rows.len();
            }
        }
        let hidden = visible.len() - (end - start);
        if hidden > 0 {
            rows.push(format!("  ({hidden} more: ↑↓ scroll)"));
        }
        if self.mode == Mode::Multi {
            rows.push(self.tick_count(&visible));
        }
        (rows, marked)
    }

    /// The entries `start..end` to show: whole entries in `room` rows, the
    /// cursor's among them (a row is kept for "N more" when some are left out).
    fn window(entries: &[Vec<String>], cursor: usize, room: usize) -> (usize, usize) {
        let all: usize = entries.iter().map(Vec::len).sum();
        if all <= room {
            return (0, entries.len());
        }
        let room = room.saturating_sub(1).max(1);
        let mut start = 0;
        let mut used: usize = entries[..=cursor].iter().map(Vec::len).sum();
        while used > room && start < cursor {
            used -= entries[start].len();
            start += 1;
        }
        let mut end = cursor + 1;
        while end < entries.len() && used + entries[end].len() <= room {
            used += entries[end].len();
            end += 1;
        }
        (start, end)
    }

    /// One entry's rows: its marks, then its label and description, wrapped.
    fn entry_rows(&self, index: usize, current: bool, width: usize) -> Vec<String> {
        let entry = &self.entries[index];
        let mut lead = String::from(if current { "> " } else { "  " });
        if self.mode == Mode::Multi {
            lead.push_str(if self.ticked[index] { "[x] " } else { "[ ] " });
        }
        let indent = " ".repeat(lead.chars().count());
        let room = width.saturating_sub(indent.len()).max(8);
        let label = Entry {
            description: None,
            ..entry.clone()
        }
        .to_string();
        let description = entry
            .description
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| for_display_line(d).into_owned());
        let body = match &description {
            Some(description) => wrap(&format!("{label} — {description}"), room),
            None => wrap(&label, room),
        };
        body.iter()
            .enumerate()
            .map(|(at, row)| format!("{}{row}", if at == 0 { &lead } else { &indent }))
            .collect()
    }

    /// `2 ticked`, and how many of them the filter hides.
    fn tick_count(&self, visible: &[usize]) -> String {
        let ticked = self.ticked.iter().filter(|t| **t).count();
        let hidden = self
            .ticked
            .iter()
            .enumerate()
            .filter(|(index, ticked)| **ticked && !visible.contains(index))
            .count();
        match hidden {
            0 => format!("  {ticked} ticked"),
            _ => format!("  {ticked} ticked ({hidden} hidden by the filter)"),
        }
    }

    /// Ticks every option (`true`) or none; whether anything changed.
    pub(crate) fn tick_all(&mut self, tick: bool) -> bool {
        let mut changed = false;
        for (entry, mark) in self.entries.iter().zip(self.ticked.iter_mut()) {
            if matches!(entry.pick, Pick::Option(_)) && *mark != tick {
                *mark = tick;
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests;
