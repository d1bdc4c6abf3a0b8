//! [`TerminalPrompter`]: the real terminal.
//!
//! Everything is written to standard error, so standard output stays free for a
//! program's result.

use askuser_core::{AnsweredBy, InquiryId, Outcome, Progress, Prompt};

use crate::action::{Action, Prompter, Review, Watched};
use std::time::{Duration, Instant};

use crate::asking::{Asking, Body, Done, Settings, Timeout, answered_line};
use crate::error::TerminalError;
use crate::list::{List, Mode};
use crate::menu;
use crate::render;
use crate::screen::Screen;

/// The environment variable that turns the bell on: a question that starts
/// waiting rings the terminal's bell when it is `1`, `true` or `yes`.
pub const BELL_VARIABLE: &str = "ASKUSER_BELL";

/// The [`Prompter`] for a real terminal.
///
/// - **Every prompt**: Esc opens the menu (Keep answering, a note, Edit in
///   `$EDITOR` for typed answers, Back when offered, Reply, End Turn), named in
///   the hint line: a letter highlights an entry and Enter does it; any other key
///   goes back to the question with what was typed. Esc on the menu returns to
///   the question as it was (ticks and typed text kept). Alt+N writes a note.
///   Ctrl+C ends the turn, asking first when answers would be lost.
/// - **Boolean**: `y` / `n` answer at once; with [`with_remember`](Self::with_remember),
///   `Y` / `N` also remember the answer for the turn.
/// - **Select**: the digits 1–9 pick an option at once (unless a label starts
///   with a digit); typing filters the options (the labels that start with it
///   first), Enter picks the highlighted one; "Other" opens a text input.
/// - **Multi-select**: Space or a digit ticks, Ctrl+A / Ctrl+D tick all / none,
///   typing filters, Enter sends; the ticks are counted.
/// - **Text and schema**: typing starts at once, prefilled with the prefill; Enter
///   sends, Alt+Enter (or Ctrl+J) starts a new line, Ctrl+A/E/U/K/W and Alt+B/F
///   edit as in readline. A schema answer is JSON checked on Enter (a string
///   schema takes bare text); the schema is described above in words.
/// - **Reply** asks for an optional message to the assistant; **End Turn** asks
///   for confirmation when answers would be lost.
/// - **Review**: every answer is listed before the form is sent: Enter submits, a
///   digit changes that answer.
/// - **Timeout** ([`with_timeout`](Self::with_timeout)): the time left from the
///   start, a warning and the bell in the last 20 seconds; keys do not move the
///   deadline, which the host counts from when the question started waiting.
/// - **Another surface first**: when the web inbox or another process moves the
///   inquiry while the person is at a prompt, the prompt is left at once, with
///   no key pressed ([`Prompter::ask_watching`]), what it did is said in words
///   ([`Prompter::show_elsewhere`]) with what the person was typing kept, and
///   the inquiry goes on from where it is.
/// - **Who asks**: an inquiry's first prompt starts with a line saying who asks
///   and how many questions (`Claude (repo: billing-api) asks you 2 questions`).
/// - **A changed answer replaces the old one**: when a question is asked again
///   (Back, or a change from the review), the lines its first asking left (and
///   everything after them) are erased, so the new answer takes their place.
/// - **Plain**: with `NO_COLOR` or `TERM=dumb`, no escape sequence is written
///   (and nothing printed is erased).
#[derive(Debug, Clone, Default)]
pub struct TerminalPrompter {
    settings: Settings,
    shown: Shown,
}

/// What this prompter left on the screen for the inquiry it asks: each prompt's
/// rows, by the question it asked (`None`: the first line, or lines said between
/// prompts; [`REVIEWED`] for the review).
#[derive(Debug, Clone, Default)]
struct Shown {
    inquiry: Option<InquiryId>,
    rows: Vec<(Option<usize>, usize)>,
    /// The questions whose lines were erased since the last review: those not
    /// asked again (their answers kept) get their line back there.
    erased: Vec<usize>,
}

/// The question index a review's rows are kept under: after every question, so
/// asking any question again erases them.
const REVIEWED: usize = usize::MAX;

impl TerminalPrompter {
    /// A prompter for the terminal this process runs in, set from the
    /// environment: the bell from [`BELL_VARIABLE`], the editor from `$VISUAL`
    /// or `$EDITOR`. Remembering is off.
    pub fn new() -> Self {
        let bell = std::env::var(BELL_VARIABLE)
            .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"));
        let editor = ["VISUAL", "EDITOR"]
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .map(|value| value.trim().to_owned())
            .find(|value| !value.is_empty());
        Self {
            settings: Settings {
                bell,
                editor,
                remember: false,
                timeout: None,
                deadline: None,
            },
            shown: Shown::default(),
        }
    }

    /// Opens the screen for `prompt`: the first line when its inquiry is new
    /// here, else the rows left by an earlier asking of this question (and all
    /// after them) erased.
    fn open_for(&mut self, prompt: &Prompt, index: usize) -> Result<Screen, TerminalError> {
        let mut screen = Screen::open()?;
        if self.shown.inquiry.as_ref() != Some(&prompt.inquiry) {
            self.shown = Shown {
                inquiry: Some(prompt.inquiry.clone()),
                ..Shown::default()
            };
            let line = render::who_asks(prompt.label.as_deref(), prompt.form.len());
            screen.print(&[render::fit(&line, Screen::width())])?;
            self.shown.rows.push((None, screen.printed()));
            return Ok(screen);
        }
        let from = self
            .shown
            .rows
            .iter()
            .position(|(asked, _)| asked.is_some_and(|asked| asked >= index));
        // Lines said between prompts (an invalid answer, what another surface
        // did) stay: nothing is erased over them.
        let said = |from: usize| self.shown.rows[from..].iter().any(|(i, _)| i.is_none());
        if let Some(from) = from
            && !screen.is_plain()
            && !said(from)
        {
            let rows = self.shown.rows.split_off(from);
            screen.erase_printed(rows.iter().map(|(_, n)| n).sum())?;
            let erased = rows.iter().filter_map(|(asked, _)| *asked);
            self.shown
                .erased
                .extend(erased.filter(|&asked| asked != REVIEWED));
        }
        Ok(screen)
    }

    /// Before a review: the lines of answers kept while an earlier one changed
    /// (erased with it, not asked again), in form order.
    fn kept_lines(
        &mut self,
        screen: &mut Screen,
        prompt: &Prompt,
        outcome: &Outcome,
    ) -> Result<(), TerminalError> {
        let mut erased = std::mem::take(&mut self.shown.erased);
        erased.sort_unstable();
        erased.dedup();
        let answers = outcome.to_map();
        let m = outcome.form.len();
        for index in erased {
            let asked_again = (self.shown.rows.iter()).any(|(asked, _)| *asked == Some(index));
            let slot = outcome.answers.get(index).and_then(Option::as_ref);
            let question = outcome.form.question(index);
            let (Some(slot), Some(value), false) = (slot, answers.get(&question.id), asked_again)
            else {
                continue;
            };
            if slot.by != AnsweredBy::User || value.is_null() {
                continue;
            }
            let progress = (m > 1).then_some(Progress { n: index + 1, m });
            let header = render::header_line(
                progress,
                prompt.label.as_deref(),
                question.header.as_deref(),
                &question.text,
            );
            let line = answered_line(&header, value, slot.note.as_deref());
            let mark = screen.printed();
            screen.print(&render::wrap(&line, Screen::width()))?;
            self.note_rows(screen, mark, Some(index));
        }
        Ok(())
    }

    /// Notes the rows `screen` printed since `mark` as left by question `index`.
    fn note_rows(&mut self, screen: &Screen, mark: usize, index: Option<usize>) {
        self.shown.rows.push((index, screen.printed() - mark));
    }

    /// Rings the bell (or not) when a question starts waiting.
    #[must_use]
    pub fn with_bell(mut self, bell: bool) -> Self {
        self.settings.bell = bell;
        self
    }

    /// The command that edits a typed answer in a file (`None`: no editor
    /// entry in the menu). It is run by `sh -c` with the file's path after it.
    #[must_use]
    pub fn with_editor(mut self, editor: Option<String>) -> Self {
        self.settings.editor = editor;
        self
    }

    /// Gives the person `timeout.after_ms` to answer each prompt: the time left
    /// shows from the start, with a warning in the last 20 seconds, saying what
    /// happens then (`timeout.on_timeout`); keys do not move it; when it runs
    /// out the prompt ends with [`Action::TimedOut`]. The time counts from when
    /// a prompt shows, or to the deadline the host gives
    /// ([`Prompter::set_deadline`]: from when the question started waiting, as
    /// every surface counts it). Set it from the inquiry's policy (`None`: no
    /// limit).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Option<askuser_core::Timeout>) -> Self {
        self.settings.timeout = timeout.map(|timeout| Timeout {
            after: Duration::from_millis(timeout.after_ms),
            then: render::on_timeout(timeout.on_timeout),
        });
        self
    }

    /// Lets uppercase `Y` / `N` remember a boolean answer for the turn: turn it on
    /// when the inquiry's policy allows remembering (`Persistence::Turn`).
    #[must_use]
    pub fn with_remember(mut self, remember: bool) -> Self {
        self.settings.remember = remember;
        self
    }
}

impl TerminalPrompter {
    /// Asks `prompt`'s question, looking at `watch` when given.
    fn question(
        &mut self,
        prompt: &Prompt,
        watch: Option<&mut dyn FnMut() -> bool>,
    ) -> Result<Watched<Action>, TerminalError> {
        let mut screen = self.open_for(prompt, prompt.index)?;
        let mark = screen.printed();
        screen.print_lines(&render::preamble(prompt.question(), Screen::width()))?;
        if self.settings.bell {
            screen.bell()?;
        }
        let done = Asking::question(prompt, &self.settings).run(&mut screen, watch)?;
        self.note_rows(&screen, mark, Some(prompt.index));
        Ok(Watched::Done(match done {
            Done::Act(action) => action,
            Done::TimedOut(message) => Action::TimedOut { message },
            Done::Moved(typed) => return Ok(Watched::Moved(typed)),
            // A question's prompt never ends as a review does.
            Done::Submit | Done::Change(_) => Action::EndTurn,
        }))
    }

    /// Shows the review of `outcome` under `prompt`, looking at `watch` when
    /// given.
    fn reviewing(
        &mut self,
        prompt: &Prompt,
        outcome: &Outcome,
        watch: Option<&mut dyn FnMut() -> bool>,
    ) -> Result<Watched<Review>, TerminalError> {
        let mut screen = self.open_for(prompt, REVIEWED)?;
        self.kept_lines(&mut screen, prompt, outcome)?;
        let mark = screen.printed();
        let list = List::new(menu::review_entries(outcome), Mode::Menu, 0, &[]);
        let mut asking = Asking::new(prompt, &self.settings, Body::Review(list, outcome.clone()));
        let done = asking.run(&mut screen, watch)?;
        self.note_rows(&screen, mark, Some(REVIEWED));
        Ok(Watched::Done(match done {
            Done::Change(index) => Review::Change(index),
            Done::Act(Action::Reply { message }) => Review::Reply { message },
            Done::Act(Action::EndTurn) => Review::EndTurn,
            Done::TimedOut(message) => Review::TimedOut { message },
            Done::Moved(typed) => return Ok(Watched::Moved(typed)),
            Done::Submit | Done::Act(_) => Review::Submit,
        }))
    }
}

/// What a prompt that was not watched gives: it cannot have moved.
fn unwatched<T>(watched: Watched<T>, otherwise: T) -> T {
    match watched {
        Watched::Done(done) => done,
        Watched::Moved(_) => otherwise,
    }
}

impl Prompter for TerminalPrompter {
    fn ask(&mut self, prompt: &Prompt) -> Result<Action, TerminalError> {
        Ok(unwatched(self.question(prompt, None)?, Action::EndTurn))
    }

    fn ask_watching(
        &mut self,
        prompt: &Prompt,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Action>, TerminalError> {
        self.question(prompt, Some(watch))
    }

    fn review_watching(
        &mut self,
        prompt: &Prompt,
        outcome: &Outcome,
        watch: &mut dyn FnMut() -> bool,
    ) -> Result<Watched<Review>, TerminalError> {
        self.reviewing(prompt, outcome, Some(watch))
    }

    fn show_invalid(&mut self, message: &str) -> Result<(), TerminalError> {
        let mut screen = Screen::open()?;
        let line = format!("✗ {}", askuser_core::text::for_display_line(message));
        screen.print(&render::wrap(&line, Screen::width()))?;
        self.note_rows(&screen, 0, None);
        Ok(())
    }

    fn show_elsewhere(&mut self, lines: &[String]) -> Result<(), TerminalError> {
        let mut screen = Screen::open()?;
        let width = Screen::width();
        let rows: Vec<String> = lines
            .iter()
            .flat_map(|line| render::wrap(line, width))
            .collect();
        screen.print(&rows)?;
        self.note_rows(&screen, 0, None);
        Ok(())
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.settings.deadline = deadline;
    }

    fn review(&mut self, prompt: &Prompt, outcome: &Outcome) -> Result<Review, TerminalError> {
        Ok(unwatched(
            self.reviewing(prompt, outcome, None)?,
            Review::EndTurn,
        ))
    }
}
