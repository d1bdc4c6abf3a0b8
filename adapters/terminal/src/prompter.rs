//! [`InquirePrompter`]: the real terminal, through inquire.
//!
//! Everything is written to standard error (as inquire does), so standard output
//! stays free for a program's result.

use std::io::{self, Write};

use askuser_core::{AnswerType, Prompt};
use inquire::{Confirm, MultiSelect, Select, Text, list_option::ListOption, validator::Validation};
use serde_json::Value;

use crate::action::{Action, Prompter};
use crate::error::{Outcome, TerminalError, sort};
use crate::menu::{self, Entry, Next, Pick};
use crate::render;

/// The [`Prompter`] for a real terminal, built on inquire.
///
/// - Boolean and select questions are one list: the answers (`y) Yes`, `n) No`, or
///   `1) staging`, ..., `o) Other (type your answer)`) followed by `b) Back` (when
///   offered), `r) Reply` and `s) End Turn`. Move with ↑↓ and press Enter, or type
///   an entry's key and press Enter (see [`menu`](crate::menu)).
/// - Text and schema questions first show `a) Answer`, `b) Back`, `r) Reply`,
///   `s) End Turn`; Answer opens a one-line input, prefilled with the prefill. A
///   schema answer is typed as JSON and checked against the schema on Enter: an
///   invalid value shows the validator's message under the input and stays open.
///   (inquire's external-editor prompt is not used: it needs `$EDITOR` and a
///   feature flag, and a one-line JSON input works everywhere, tmux included.)
/// - Multi-select questions use inquire's multi-select (Space toggles, Enter
///   sends); Esc opens `k) Keep answering`, `b) Back`, `r) Reply`, `s) End Turn`.
/// - A typed answer over 2,000 characters gets a warning and a "Send it anyway?"
///   confirmation; No reopens the input with the text.
/// - Ctrl+C anywhere is End Turn. Esc in an input returns to its menu or list.
#[derive(Debug, Clone, Default)]
pub struct InquirePrompter {
    _private: (),
}

impl InquirePrompter {
    /// A prompter for the terminal this process runs in.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Prompter for InquirePrompter {
    fn ask(&mut self, prompt: &Prompt) -> Result<Action, TerminalError> {
        let question = prompt.question();
        let mut err = io::stderr().lock();
        for line in render::preamble(question) {
            writeln!(err, "{line}")?;
        }
        drop(err);
        let header = render::prompt_header(prompt);
        match question.answer_type {
            AnswerType::Boolean | AnswerType::Select => inline(prompt, &header),
            AnswerType::Text | AnswerType::Schema => menu_then_input(prompt, &header),
            AnswerType::MultiSelect => multi(prompt, &header),
        }
    }

    fn show_invalid(&mut self, message: &str) -> Result<(), TerminalError> {
        writeln!(io::stderr(), "✗ {message}")?;
        Ok(())
    }
}

/// The most lines a list shows at once: all its entries up to [`MAX_PAGE`], so the
/// controls after a handful of options stay in view.
fn page_size(entries: usize) -> usize {
    entries.clamp(1, MAX_PAGE)
}

/// The most entries a list shows without scrolling.
const MAX_PAGE: usize = 15;

/// Shows a list of entries; returns the picked entry's [`Pick`], or what ended it.
fn choose(
    message: &str,
    entries: Vec<Entry>,
    cursor: usize,
) -> Result<Outcome<Pick>, TerminalError> {
    let help = menu::inline_help(&entries);
    let page_size = page_size(entries.len());
    let keys = entries.clone();
    let scorer =
        move |input: &str, _: &Entry, _: &str, index: usize| menu::score(&keys, input, index);
    let formatter = |option: ListOption<&Entry>| option.value.label.clone();
    let result = Select::new(message, entries)
        .with_help_message(&help)
        .with_starting_cursor(cursor)
        .with_page_size(page_size)
        .with_scorer(&scorer)
        .with_formatter(&formatter)
        .prompt();
    Ok(match sort(result)? {
        Outcome::Done(entry) => Outcome::Done(entry.pick),
        Outcome::Escaped => Outcome::Escaped,
        Outcome::Interrupted => Outcome::Interrupted,
    })
}

/// Boolean and select: one list of answers and controls.
fn inline(prompt: &Prompt, header: &str) -> Result<Action, TerminalError> {
    let question = prompt.question();
    let prefill = prompt.prefill_value();
    loop {
        let entries = menu::entries_for(question, prompt.can_back);
        let cursor = menu::starting_cursor(&entries, question, prefill.as_ref());
        let pick = match choose(header, entries, cursor)? {
            Outcome::Done(pick) => pick,
            Outcome::Escaped => continue,
            Outcome::Interrupted => return Ok(Action::EndTurn),
        };
        match menu::resolve(pick, question) {
            Next::Done(action) => return Ok(action),
            Next::TypeOther => {
                let initial = match &prefill {
                    Some(Value::String(text))
                        if !question.choices().iter().any(|c| &c.label == text) =>
                    {
                        text.clone()
                    }
                    _ => String::new(),
                };
                match typed(prompt, Kind::Other, &initial)? {
                    Outcome::Done(value) => return Ok(Action::Answer(value)),
                    Outcome::Escaped => {}
                    Outcome::Interrupted => return Ok(Action::EndTurn),
                }
            }
            Next::OpenInput | Next::KeepAnswering => {}
        }
    }
}

/// Text and schema: the `[Answer / Back / Reply / End Turn]` menu, then the input.
fn menu_then_input(prompt: &Prompt, header: &str) -> Result<Action, TerminalError> {
    let kind = if prompt.question().answer_type == AnswerType::Schema {
        Kind::Json
    } else {
        Kind::Text
    };
    let initial = prompt
        .prefill_value()
        .map(|v| render::prefill_text(&v))
        .unwrap_or_default();
    loop {
        let pick = match choose(header, menu::answer_menu_entries(prompt.can_back), 0)? {
            Outcome::Done(pick) => pick,
            Outcome::Escaped => continue,
            Outcome::Interrupted => return Ok(Action::EndTurn),
        };
        match menu::resolve(pick, prompt.question()) {
            Next::Done(action) => return Ok(action),
            Next::OpenInput => match typed(prompt, kind, &initial)? {
                Outcome::Done(value) => return Ok(Action::Answer(value)),
                Outcome::Escaped => {}
                Outcome::Interrupted => return Ok(Action::EndTurn),
            },
            Next::TypeOther | Next::KeepAnswering => {}
        }
    }
}

/// Multi-select: the options; Esc opens the control menu.
fn multi(prompt: &Prompt, header: &str) -> Result<Action, TerminalError> {
    let question = prompt.question();
    let entries = menu::option_entries(question);
    let (mut checked, mut other) =
        menu::multi_prefill(&entries, question, prompt.prefill_value().as_ref());
    loop {
        let formatter = |options: &[ListOption<&Entry>]| {
            options
                .iter()
                .map(|o| o.value.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let result = MultiSelect::new(header, entries.clone())
            .with_default(&checked)
            .with_page_size(page_size(entries.len()))
            .with_help_message(render::MULTI_HELP)
            .with_formatter(&formatter)
            .raw_prompt();
        let picked = match sort(result)? {
            Outcome::Done(picked) => picked,
            Outcome::Escaped => match choose(
                render::ESCAPE_MENU_MESSAGE,
                menu::escape_menu_entries(prompt.can_back),
                0,
            )? {
                Outcome::Done(pick) => match menu::resolve(pick, question) {
                    Next::Done(action) => return Ok(action),
                    _ => continue,
                },
                Outcome::Escaped => continue,
                Outcome::Interrupted => return Ok(Action::EndTurn),
            },
            Outcome::Interrupted => return Ok(Action::EndTurn),
        };
        checked = picked.iter().map(|o| o.index).collect();
        let picks: Vec<Pick> = picked.iter().map(|o| o.value.pick).collect();
        let typed_other = if picks.contains(&Pick::Other) {
            match typed(prompt, Kind::OtherInList, other.as_deref().unwrap_or(""))? {
                Outcome::Done(Value::String(text)) => Some(text),
                Outcome::Done(_) | Outcome::Escaped => continue,
                Outcome::Interrupted => return Ok(Action::EndTurn),
            }
        } else {
            None
        };
        other.clone_from(&typed_other);
        let value = menu::multi_value(question, &picks, typed_other.as_deref());
        match prompt.form.check(prompt.index, &value) {
            Ok(_) => return Ok(Action::Answer(value)),
            Err(error) => writeln!(io::stderr(), "✗ {error}")?,
        }
    }
}

/// What a typed input reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A text question's answer.
    Text,
    /// A schema question's JSON answer.
    Json,
    /// A select question's free text.
    Other,
    /// One free-text pick of a multi-select (checked when the list is sent).
    OtherInList,
}

/// A one-line input, validated on Enter, with the long-answer warning.
fn typed(prompt: &Prompt, kind: Kind, initial: &str) -> Result<Outcome<Value>, TerminalError> {
    let form = prompt.form.clone();
    let index = prompt.index;
    let validator = move |input: &str| {
        let checked = match kind {
            Kind::OtherInList if input.trim().is_empty() => {
                Err("the answer is empty; type an answer or press Esc".to_owned())
            }
            Kind::OtherInList => Ok(Value::String(input.to_owned())),
            Kind::Json => render::typed_answer(&form, index, true, input),
            Kind::Text | Kind::Other => render::typed_answer(&form, index, false, input),
        };
        Ok(match checked {
            Ok(_) => Validation::Valid,
            Err(message) => Validation::Invalid(message.into()),
        })
    };
    let (message, help) = match kind {
        Kind::Json => (render::JSON_MESSAGE, render::JSON_HELP),
        Kind::Text => (render::INPUT_MESSAGE, render::TEXT_HELP),
        Kind::Other | Kind::OtherInList => (render::INPUT_MESSAGE, render::OTHER_HELP),
    };
    let mut initial = initial.to_owned();
    loop {
        let result = Text::new(message)
            .with_initial_value(&initial)
            .with_help_message(help)
            .with_validator(validator.clone())
            .prompt();
        let text = match sort(result)? {
            Outcome::Done(text) => text,
            Outcome::Escaped => return Ok(Outcome::Escaped),
            Outcome::Interrupted => return Ok(Outcome::Interrupted),
        };
        if let Some(warning) = render::long_answer_warning(&text) {
            writeln!(io::stderr(), "⚠ {warning}")?;
            let confirm = Confirm::new(render::LONG_ANSWER_CONFIRM)
                .with_default(true)
                .prompt();
            match sort(confirm)? {
                Outcome::Done(true) => {}
                Outcome::Done(false) | Outcome::Escaped => {
                    initial = text;
                    continue;
                }
                Outcome::Interrupted => return Ok(Outcome::Interrupted),
            }
        }
        let value = if kind == Kind::Json {
            match serde_json::from_str(text.trim()) {
                Ok(value) => value,
                Err(_) => continue,
            }
        } else {
            Value::String(text)
        };
        return Ok(Outcome::Done(value));
    }
}
