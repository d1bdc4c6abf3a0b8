//! The pure part of the choice lists: entries with their keys, key matching, the
//! starting cursor, and turning a pick into an [`Action`].
//!
//! Every list shows each entry's key before its label (`y) Yes`, `1) staging`,
//! `b) Back`). In the terminal the person either moves with ↑↓ and presses Enter,
//! or types the key and presses Enter: typing a key narrows the list to that entry
//! alone ([`score`]), so `b` Enter is Back, `r` Enter is Reply and `s` Enter is End
//! Turn. Typing anything that is not a key filters the labels instead.

use std::fmt;

use askuser_core::{AnswerType, Question};
use serde_json::Value;

use crate::action::Action;

/// The label of the free-text entry of a select that allows it.
pub const OTHER_LABEL: &str = "Other (type your answer)";

/// What an entry of a choice list stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Yes, on a boolean question.
    Yes,
    /// No, on a boolean question.
    No,
    /// The option at this index of a select or multi-select question.
    Option(usize),
    /// "Other (type your answer)": opens a free-text input.
    Other,
    /// "Answer", in the menu before a text or schema input: opens the input.
    Answer,
    /// "Keep answering", in the menu Esc opens on a multi-select: back to the list.
    KeepAnswering,
    /// Back to the previous answered question.
    Back,
    /// Cancel the form and reply to the assistant.
    Reply,
    /// End the turn.
    EndTurn,
}

/// One line of a choice list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// What to type to pick it (`y`, `1`, `b`, ...).
    pub key: String,
    /// The label.
    pub label: String,
    /// An optional description, shown after the label.
    pub description: Option<String>,
    /// What picking it means.
    pub pick: Pick,
}

impl Entry {
    fn new(key: impl Into<String>, label: impl Into<String>, pick: Pick) -> Self {
        Self {
            key: key.into(),
            label: label.into(),
            description: None,
            pick,
        }
    }
}

/// `y) Yes`, or `1) staging — Safe to try things` with a description.
impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}) {}", self.key, self.label)?;
        if let Some(description) = self.description.as_deref().filter(|d| !d.is_empty()) {
            write!(f, " — {description}")?;
        }
        Ok(())
    }
}

/// `b) Back` (when offered), `r) Reply`, `s) End Turn`.
fn controls(can_back: bool) -> impl Iterator<Item = Entry> {
    let back = can_back.then(|| Entry::new("b", "Back", Pick::Back));
    back.into_iter().chain([
        Entry::new("r", "Reply", Pick::Reply),
        Entry::new("s", "End Turn", Pick::EndTurn),
    ])
}

/// The inline choices of a boolean question: `y) Yes`, `n) No`, then the controls.
///
/// ```
/// use askuser_terminal::menu::boolean_entries;
///
/// let lines: Vec<String> = boolean_entries(false).iter().map(ToString::to_string).collect();
/// assert_eq!(lines, ["y) Yes", "n) No", "r) Reply", "s) End Turn"]);
/// ```
pub fn boolean_entries(can_back: bool) -> Vec<Entry> {
    [
        Entry::new("y", "Yes", Pick::Yes),
        Entry::new("n", "No", Pick::No),
    ]
    .into_iter()
    .chain(controls(can_back))
    .collect()
}

/// The options of a select or multi-select question, keyed `1`, `2`, ..., with
/// their descriptions, then `o) Other (type your answer)` when it allows free text.
pub fn option_entries(question: &Question) -> Vec<Entry> {
    let options = question
        .choices()
        .iter()
        .enumerate()
        .map(|(index, choice)| Entry {
            key: (index + 1).to_string(),
            label: choice.label.clone(),
            description: choice.description.clone(),
            pick: Pick::Option(index),
        });
    let other = question
        .allow_other
        .then(|| Entry::new("o", OTHER_LABEL, Pick::Other));
    options.chain(other).collect()
}

/// The inline choices of a select question: its [`option_entries`], then the controls.
pub fn select_entries(question: &Question, can_back: bool) -> Vec<Entry> {
    let mut entries = option_entries(question);
    entries.extend(controls(can_back));
    entries
}

/// The menu before a text or schema input: `a) Answer`, then the controls.
pub fn answer_menu_entries(can_back: bool) -> Vec<Entry> {
    std::iter::once(Entry::new("a", "Answer", Pick::Answer))
        .chain(controls(can_back))
        .collect()
}

/// The menu Esc opens on a multi-select: `k) Keep answering`, then the controls.
pub fn escape_menu_entries(can_back: bool) -> Vec<Entry> {
    std::iter::once(Entry::new("k", "Keep answering", Pick::KeepAnswering))
        .chain(controls(can_back))
        .collect()
}

/// The entries of the inline choices for a question: boolean and select questions
/// pick their answer in the list; text and schema questions get the
/// [`answer_menu_entries`]. A multi-select gets its [`option_entries`] (its controls
/// are behind Esc).
pub fn entries_for(question: &Question, can_back: bool) -> Vec<Entry> {
    match question.answer_type {
        AnswerType::Boolean => boolean_entries(can_back),
        AnswerType::Select => select_entries(question, can_back),
        AnswerType::MultiSelect => option_entries(question),
        AnswerType::Text | AnswerType::Schema => answer_menu_entries(can_back),
    }
}

/// The index of the entry whose key is `input` (ignoring case and surrounding
/// spaces), if any.
pub fn match_key(entries: &[Entry], input: &str) -> Option<usize> {
    let input = input.trim();
    entries
        .iter()
        .position(|entry| entry.key.eq_ignore_ascii_case(input))
}

/// The filter score of entry `index` for what the person typed (higher first,
/// `None` hides the entry): everything when nothing is typed; only the entry whose
/// key was typed, if one was; otherwise the entries whose label contains the text,
/// ignoring case.
///
/// ```
/// use askuser_terminal::menu::{boolean_entries, score};
///
/// let entries = boolean_entries(true);
/// let shown: Vec<usize> = (0..entries.len()).filter(|&i| score(&entries, "b", i).is_some()).collect();
/// assert_eq!(shown, [2]); // b) Back
/// ```
pub fn score(entries: &[Entry], input: &str, index: usize) -> Option<i64> {
    let entry = entries.get(index)?;
    let typed = input.trim();
    if typed.is_empty() {
        return Some(0);
    }
    if let Some(keyed) = match_key(entries, typed) {
        return (keyed == index).then_some(1);
    }
    entry
        .label
        .to_lowercase()
        .contains(&typed.to_lowercase())
        .then_some(0)
}

/// Where the cursor starts: on the prefilled answer (Yes or No, the prefilled
/// option, or "Other" for prefilled free text), else on the first entry.
pub fn starting_cursor(entries: &[Entry], question: &Question, prefill: Option<&Value>) -> usize {
    let wanted = match (question.answer_type, prefill) {
        (AnswerType::Boolean, Some(Value::Bool(true))) => Pick::Yes,
        (AnswerType::Boolean, Some(Value::Bool(false))) => Pick::No,
        (AnswerType::Select, Some(Value::String(text))) => question
            .choices()
            .iter()
            .position(|c| &c.label == text)
            .map_or(Pick::Other, Pick::Option),
        _ => return 0,
    };
    entries.iter().position(|e| e.pick == wanted).unwrap_or(0)
}

/// What a pick leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// The prompt is done with this action.
    Done(Action),
    /// Open the free-text input for "Other".
    TypeOther,
    /// Open the text or JSON input.
    OpenInput,
    /// Show the multi-select again.
    KeepAnswering,
}

/// What picking `pick` on `question` leads to; answers become their JSON value
/// (`true` / `false`, or the option's label).
///
/// ```
/// use askuser_core::{AnswerType, Question};
/// use askuser_terminal::{Action, menu::{resolve, Next, Pick}};
/// use serde_json::json;
///
/// let q = Question::new("env", "Which?", AnswerType::Select).with_options(["staging", "production"]);
/// assert_eq!(resolve(Pick::Option(1), &q), Next::Done(Action::Answer(json!("production"))));
/// ```
pub fn resolve(pick: Pick, question: &Question) -> Next {
    match pick {
        Pick::Yes => Next::Done(Action::Answer(Value::Bool(true))),
        Pick::No => Next::Done(Action::Answer(Value::Bool(false))),
        Pick::Option(index) => match question.choices().get(index) {
            Some(choice) => Next::Done(Action::Answer(Value::String(choice.label.clone()))),
            None => Next::KeepAnswering,
        },
        Pick::Other => Next::TypeOther,
        Pick::Answer => Next::OpenInput,
        Pick::KeepAnswering => Next::KeepAnswering,
        Pick::Back => Next::Done(Action::Back),
        Pick::Reply => Next::Done(Action::Reply),
        Pick::EndTurn => Next::Done(Action::EndTurn),
    }
}

/// The entries of a multi-select checked at the start, from a prefilled list of
/// labels, and the prefilled free text (the list's non-option strings, joined with
/// `, `), if any.
pub fn multi_prefill(
    entries: &[Entry],
    question: &Question,
    prefill: Option<&Value>,
) -> (Vec<usize>, Option<String>) {
    let Some(Value::Array(items)) = prefill else {
        return (Vec::new(), None);
    };
    let mut checked = Vec::new();
    let mut other = Vec::new();
    for item in items {
        let Value::String(text) = item else { continue };
        match question.choices().iter().position(|c| &c.label == text) {
            Some(option) => {
                checked.extend(entries.iter().position(|e| e.pick == Pick::Option(option)));
            }
            None => other.push(text.as_str()),
        }
    }
    if !other.is_empty() {
        checked.extend(entries.iter().position(|e| e.pick == Pick::Other));
    }
    checked.sort_unstable();
    checked.dedup();
    let other = (!other.is_empty()).then(|| other.join(", "));
    (checked, other)
}

/// The JSON answer of a multi-select: the picked options' labels in option order,
/// then the free text, if any.
///
/// ```
/// use askuser_core::{AnswerType, Question};
/// use askuser_terminal::menu::{multi_value, Pick};
/// use serde_json::json;
///
/// let q = Question::new("f", "Which?", AnswerType::MultiSelect).with_options(["auth", "api"]);
/// assert_eq!(
///     multi_value(&q, &[Pick::Option(1), Pick::Option(0)], Some("cli")),
///     json!(["auth", "api", "cli"])
/// );
/// ```
pub fn multi_value(question: &Question, picks: &[Pick], other: Option<&str>) -> Value {
    let options = question
        .choices()
        .iter()
        .enumerate()
        .filter(|(index, _)| picks.contains(&Pick::Option(*index)))
        .map(|(_, choice)| Value::String(choice.label.clone()));
    let other = other.map(|text| Value::String(text.to_owned()));
    Value::Array(options.chain(other).collect())
}

/// The help line under inline choices: `↑↓ and Enter, or type a key
/// (y, n, b, r, s) and Enter`. With more than nine keys, only the first
/// option's and the letters are listed.
pub fn inline_help(entries: &[Entry]) -> String {
    let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let numbered = entries
        .iter()
        .filter(|e| matches!(e.pick, Pick::Option(_)))
        .count();
    let listed = if numbered > 9 {
        let letters = keys
            .iter()
            .filter(|k| !k.chars().all(|c| c.is_ascii_digit()));
        std::iter::once(format!("1-{numbered}"))
            .chain(letters.map(|k| (*k).to_owned()))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        keys.join(", ")
    };
    format!("↑↓ and Enter, or type a key ({listed}) and Enter")
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::Choice;
    use serde_json::json;

    fn env(allow_other: bool) -> Question {
        Question::new("env", "Which environment?", AnswerType::Select)
            .with_options([
                Choice::described("staging", "Safe to try things"),
                Choice::new("production"),
            ])
            .with_other(allow_other)
    }

    fn lines(entries: &[Entry]) -> Vec<String> {
        entries.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn boolean_offers_back_only_when_allowed() {
        assert_eq!(
            lines(&boolean_entries(true)),
            ["y) Yes", "n) No", "b) Back", "r) Reply", "s) End Turn"]
        );
        assert_eq!(
            lines(&boolean_entries(false)),
            ["y) Yes", "n) No", "r) Reply", "s) End Turn"]
        );
    }

    #[test]
    fn select_lists_options_with_descriptions_then_other_then_controls() {
        assert_eq!(
            lines(&select_entries(&env(true), true)),
            [
                "1) staging — Safe to try things",
                "2) production",
                "o) Other (type your answer)",
                "b) Back",
                "r) Reply",
                "s) End Turn"
            ]
        );
        assert_eq!(
            lines(&select_entries(&env(false), false)),
            [
                "1) staging — Safe to try things",
                "2) production",
                "r) Reply",
                "s) End Turn"
            ]
        );
    }

    #[test]
    fn menus_for_text_and_multi_select() {
        assert_eq!(
            lines(&answer_menu_entries(true)),
            ["a) Answer", "b) Back", "r) Reply", "s) End Turn"]
        );
        assert_eq!(
            lines(&escape_menu_entries(false)),
            ["k) Keep answering", "r) Reply", "s) End Turn"]
        );
        let multi = Question::new("f", "Which?", AnswerType::MultiSelect)
            .with_options(["auth", "api"])
            .with_other(true);
        assert_eq!(
            lines(&entries_for(&multi, true)),
            ["1) auth", "2) api", "o) Other (type your answer)"]
        );
        let text = Question::new("t", "Note?", AnswerType::Text);
        assert_eq!(
            lines(&entries_for(&text, false)),
            ["a) Answer", "r) Reply", "s) End Turn"]
        );
    }

    #[test]
    fn a_typed_key_shows_only_its_entry_and_other_text_filters_labels() {
        let entries = select_entries(&env(true), true);
        let shown = |input: &str| -> Vec<usize> {
            (0..entries.len())
                .filter(|&i| score(&entries, input, i).is_some())
                .collect()
        };
        assert_eq!(shown(""), [0, 1, 2, 3, 4, 5]);
        assert_eq!(shown("S"), [5]);
        assert_eq!(shown(" 2 "), [1]);
        assert_eq!(shown("r"), [4]);
        assert_eq!(shown("prod"), [1]);
        assert_eq!(shown("ta"), [0]);
        assert_eq!(shown("zzz"), Vec::<usize>::new());
        assert_eq!(score(&entries, "x", 99), None);
        assert_eq!(match_key(&entries, "O"), Some(2));
        assert_eq!(match_key(&entries, "Back"), None);
    }

    #[test]
    fn the_cursor_starts_on_the_prefill() {
        let b = Question::new("ok", "Ok?", AnswerType::Boolean);
        let entries = boolean_entries(true);
        assert_eq!(starting_cursor(&entries, &b, Some(&json!(false))), 1);
        assert_eq!(starting_cursor(&entries, &b, Some(&json!(true))), 0);
        assert_eq!(starting_cursor(&entries, &b, None), 0);
        let q = env(true);
        let entries = select_entries(&q, true);
        assert_eq!(starting_cursor(&entries, &q, Some(&json!("production"))), 1);
        assert_eq!(starting_cursor(&entries, &q, Some(&json!("dev"))), 2);
    }

    #[test]
    fn picks_resolve_to_actions_and_values() {
        let q = env(true);
        assert_eq!(
            resolve(Pick::Yes, &q),
            Next::Done(Action::Answer(json!(true)))
        );
        assert_eq!(
            resolve(Pick::No, &q),
            Next::Done(Action::Answer(json!(false)))
        );
        assert_eq!(
            resolve(Pick::Option(0), &q),
            Next::Done(Action::Answer(json!("staging")))
        );
        assert_eq!(resolve(Pick::Option(7), &q), Next::KeepAnswering);
        assert_eq!(resolve(Pick::Other, &q), Next::TypeOther);
        assert_eq!(resolve(Pick::Answer, &q), Next::OpenInput);
        assert_eq!(resolve(Pick::Back, &q), Next::Done(Action::Back));
        assert_eq!(resolve(Pick::Reply, &q), Next::Done(Action::Reply));
        assert_eq!(resolve(Pick::EndTurn, &q), Next::Done(Action::EndTurn));
    }

    #[test]
    fn multi_select_prefill_and_value() {
        let q = Question::new("f", "Which?", AnswerType::MultiSelect)
            .with_options(["auth", "api", "admin"])
            .with_other(true);
        let entries = option_entries(&q);
        assert_eq!(
            multi_prefill(&entries, &q, Some(&json!(["admin", "cli", "auth", "web"]))),
            (vec![0, 2, 3], Some("cli, web".to_owned()))
        );
        assert_eq!(multi_prefill(&entries, &q, None), (vec![], None));
        assert_eq!(
            multi_value(&q, &[Pick::Option(2), Pick::Other, Pick::Option(0)], None),
            json!(["auth", "admin"])
        );
        assert_eq!(multi_value(&q, &[], None), json!([]));
    }

    #[test]
    fn help_lists_the_keys() {
        assert_eq!(
            inline_help(&boolean_entries(true)),
            "↑↓ and Enter, or type a key (y, n, b, r, s) and Enter"
        );
        let many = Question::new("m", "Which?", AnswerType::Select)
            .with_options((1..=12).map(|i| format!("opt{i}")));
        assert_eq!(
            inline_help(&select_entries(&many, false)),
            "↑↓ and Enter, or type a key (1-12, r, s) and Enter"
        );
    }
}
