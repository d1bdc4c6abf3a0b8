//! The entries of the lists: the options of a question with their keys, the menu
//! Esc opens, the confirmations, the review; and turning picks into answers.
//!
//! Every entry shows its key before its label (`y) Yes`, `1) staging`, `b) Back`).
//! Back, Reply and End Turn are never entries of a question's own list: they are
//! in the menu Esc opens, so nothing typed into a filter can reach them.

use std::fmt;

use askuser_core::text::for_display_line;
use askuser_core::{AnswerType, Outcome, Question};
use serde_json::Value;

use crate::action::Action;

/// The label of the free-text entry of a select that allows it.
pub(crate) const OTHER_LABEL: &str = "Other (type your answer)";

/// What an entry of a list stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Yes, on a boolean question (or a confirmation).
    Yes,
    /// No, on a boolean question (or a confirmation).
    No,
    /// The option at this index of a select or multi-select question.
    Option(usize),
    /// "Other (type your answer)": opens a free-text input.
    Other,
    /// Back to the question, from the menu.
    KeepAnswering,
    /// Edit the answer in `$EDITOR`, from the menu.
    Editor,
    /// Write (or change) a note beside the answer, from the menu.
    Note,
    /// Back to the previous answered question.
    Back,
    /// Cancel the form and reply to the assistant.
    Reply,
    /// End the turn.
    EndTurn,
    /// Send the reviewed answers.
    Submit,
    /// Change the answer to the question at this index, from the review.
    Change(usize),
    /// Send a changed answer with the note written for the earlier one.
    KeepNote,
    /// Edit that note, then send the answer with it.
    EditNote,
    /// Send the changed answer without that note.
    DropNote,
}

/// One line of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// What to type to pick it (`y`, `1`, `b`, ...); empty for none.
    pub(crate) key: String,
    /// The label.
    pub(crate) label: String,
    /// An optional description, shown after the label.
    pub(crate) description: Option<String>,
    /// What picking it means.
    pub(crate) pick: Pick,
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

/// `y) Yes`, or `1) staging — Safe to try things` with a description; every
/// text made safe for one line.
impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.key.is_empty() {
            write!(f, "{}) ", for_display_line(&self.key))?;
        }
        f.write_str(&for_display_line(&self.label))?;
        if let Some(description) = self.description.as_deref().filter(|d| !d.is_empty()) {
            write!(f, " — {}", for_display_line(description))?;
        }
        Ok(())
    }
}

/// The entries of a boolean question: `y) Yes`, `n) No`.
pub(crate) fn boolean_entries() -> Vec<Entry> {
    vec![
        Entry::new("y", "Yes", Pick::Yes),
        Entry::new("n", "No", Pick::No),
    ]
}

/// The menu Esc opens on a question: `k) Keep answering`, `e) Edit in $EDITOR`
/// (when an editor is named), `n) Add a note` (`Change the note` once there is
/// one; `note` is `None` where no note can be written), `b) Back` (when offered),
/// `r) Reply to the assistant`, `s) End the turn`.
pub(crate) fn action_entries(
    can_back: bool,
    editor: Option<&str>,
    note: Option<bool>,
) -> Vec<Entry> {
    let mut entries = vec![Entry::new("k", "Keep answering", Pick::KeepAnswering)];
    match note {
        Some(false) => entries.push(Entry::new("n", "Add a note to the answer", Pick::Note)),
        Some(true) => entries.push(Entry::new("n", "Change the note", Pick::Note)),
        None => {}
    }
    if let Some(editor) = editor {
        entries.push(Entry::new(
            "e",
            format!("Edit the answer in {editor}"),
            Pick::Editor,
        ));
    }
    if can_back {
        entries.push(Entry::new("b", "Back to the previous question", Pick::Back));
    }
    entries.push(Entry::new(
        "r",
        "Reply to the assistant instead",
        Pick::Reply,
    ));
    entries.push(Entry::new("s", "End the turn", Pick::EndTurn));
    entries
}

/// Whether the note written for an earlier answer goes with the changed one:
/// `k) Keep the note` (the cursor starts there), `e) Edit the note`,
/// `d) Drop the note`.
pub(crate) fn note_kept_entries() -> Vec<Entry> {
    vec![
        Entry::new("k", "Keep the note", Pick::KeepNote),
        Entry::new("e", "Edit the note", Pick::EditNote),
        Entry::new("d", "Drop the note", Pick::DropNote),
    ]
}

/// The confirmation before End Turn loses answers: `n) No, keep answering` (the
/// cursor starts there), `y) Yes, end the turn`.
pub(crate) fn end_turn_entries() -> Vec<Entry> {
    vec![
        Entry::new("n", "No, keep answering", Pick::No),
        Entry::new("y", "Yes, end the turn", Pick::Yes),
    ]
}

/// The review of a finished form: `Submit` first, then `1) <question> — <answer>`
/// for every question (`(skipped)` for one not asked).
pub(crate) fn review_entries(outcome: &Outcome) -> Vec<Entry> {
    let answers = outcome.to_map();
    let mut entries = vec![Entry::new("", "Submit these answers", Pick::Submit)];
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let answer = answers.get(&question.id).unwrap_or(&Value::Null);
        let note = outcome
            .answers
            .get(index)
            .and_then(Option::as_ref)
            .and_then(|slot| slot.note.as_deref());
        let shown = match (answer.is_null(), note) {
            (true, _) => "(skipped)".to_owned(),
            (false, None) => crate::render::answer_text(answer),
            (false, Some(note)) => {
                format!("{} (note: {note})", crate::render::answer_text(answer))
            }
        };
        let key = if index < 9 {
            (index + 1).to_string()
        } else {
            String::new()
        };
        entries.push(Entry {
            key,
            label: crate::markdown::inline(&question.text),
            description: Some(shown),
            pick: Pick::Change(index),
        });
    }
    entries
}

/// The options of a select or multi-select question, keyed `1`, `2`, ... (no key
/// past 9), with their descriptions, then `0) Other (type your answer)` when it
/// allows free text.
pub(crate) fn option_entries(question: &Question) -> Vec<Entry> {
    let options = question
        .choices()
        .iter()
        .enumerate()
        .map(|(index, choice)| Entry {
            key: if index < 9 {
                (index + 1).to_string()
            } else {
                String::new()
            },
            label: choice.label.clone(),
            // A description is Markdown, shown with its marks removed.
            description: choice.description.as_deref().map(crate::markdown::inline),
            pick: Pick::Option(index),
        });
    let other = question
        .allow_other
        .then(|| Entry::new("0", OTHER_LABEL, Pick::Other));
    options.chain(other).collect()
}

/// Where the cursor starts: on the prefilled answer (Yes or No, the prefilled
/// option, or "Other" for prefilled free text), else on the first entry.
pub(crate) fn starting_cursor(
    entries: &[Entry],
    question: &Question,
    prefill: Option<&Value>,
) -> usize {
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

/// The answer a pick of a question's own list gives: `true` / `false`, or the
/// option's label; `None` for a pick that is not an answer.
pub(crate) fn answer_of(pick: Pick, question: &Question) -> Option<Value> {
    match pick {
        Pick::Yes => Some(Value::Bool(true)),
        Pick::No => Some(Value::Bool(false)),
        Pick::Option(index) => question
            .choices()
            .get(index)
            .map(|choice| Value::String(choice.label.clone())),
        _ => None,
    }
}

/// The action a menu pick stands for, if it ends the prompt.
pub(crate) fn control_action(pick: Pick) -> Option<Action> {
    match pick {
        Pick::Back => Some(Action::Back),
        Pick::EndTurn => Some(Action::EndTurn),
        _ => None,
    }
}

/// The entries of a multi-select ticked at the start, from a prefilled list of
/// labels, and the prefilled free text (the list's non-option strings, joined with
/// `, `), if any.
pub(crate) fn multi_prefill(
    entries: &[Entry],
    question: &Question,
    prefill: Option<&Value>,
) -> (Vec<usize>, Option<String>) {
    let Some(Value::Array(items)) = prefill else {
        return (Vec::new(), None);
    };
    let mut ticked = Vec::new();
    let mut other = Vec::new();
    for item in items {
        let Value::String(text) = item else { continue };
        match question.choices().iter().position(|c| &c.label == text) {
            Some(option) => {
                ticked.extend(entries.iter().position(|e| e.pick == Pick::Option(option)));
            }
            None => other.push(text.as_str()),
        }
    }
    if !other.is_empty() {
        ticked.extend(entries.iter().position(|e| e.pick == Pick::Other));
    }
    ticked.sort_unstable();
    ticked.dedup();
    let other = (!other.is_empty()).then(|| other.join(", "));
    (ticked, other)
}

/// The JSON answer of a multi-select: the picked options' labels in option order,
/// then the free text, if any.
pub(crate) fn multi_value(question: &Question, picks: &[Pick], other: Option<&str>) -> Value {
    let options = question
        .choices()
        .iter()
        .enumerate()
        .filter(|(index, _)| picks.contains(&Pick::Option(*index)))
        .map(|(_, choice)| Value::String(choice.label.clone()));
    let other = other.map(|text| Value::String(text.to_owned()));
    Value::Array(options.chain(other).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::{Choice, parse_form};
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
    fn options_carry_keys_descriptions_and_other() {
        assert_eq!(
            lines(&option_entries(&env(true))),
            [
                "1) staging — Safe to try things",
                "2) production",
                "0) Other (type your answer)"
            ]
        );
        let many = Question::new("m", "Which?", AnswerType::Select)
            .with_options((1..=10).map(|i| format!("opt{i}")));
        assert_eq!(lines(&option_entries(&many))[8..], ["9) opt9", "opt10"]);
        let hostile = Question::new("h", "Which?", AnswerType::Select)
            .with_options([Choice::described("a\u{1b}[2J", "b\u{202e}")]);
        assert_eq!(
            lines(&option_entries(&hostile)),
            ["1) a\\u{1b}[2J — b\\u{202e}"]
        );
    }

    #[test]
    fn the_menu_offers_back_and_the_editor_only_when_they_exist() {
        assert_eq!(
            lines(&action_entries(true, Some("vim"), Some(false))),
            [
                "k) Keep answering",
                "n) Add a note to the answer",
                "e) Edit the answer in vim",
                "b) Back to the previous question",
                "r) Reply to the assistant instead",
                "s) End the turn"
            ]
        );
        assert_eq!(
            lines(&action_entries(false, None, None)),
            [
                "k) Keep answering",
                "r) Reply to the assistant instead",
                "s) End the turn"
            ]
        );
        assert_eq!(
            lines(&end_turn_entries()),
            ["n) No, keep answering", "y) Yes, end the turn"]
        );
    }

    #[test]
    fn the_review_lists_every_question() {
        let form = parse_form(&json!({"questions": [
            {"id": "a", "text": "Apply?", "answer_type": "boolean"},
            {"id": "n", "text": "Note?", "answer_type": "text"}]}))
        .unwrap();
        let outcome = Outcome {
            answers: vec![
                Some(askuser_core::Slot {
                    answer: form.check(0, &json!(true)).unwrap(),
                    by: askuser_core::AnsweredBy::User,
                    note: None,
                }),
                None,
            ]
            .into(),
            form,
            status: askuser_core::OutcomeStatus::Completed,
            message: None,
        };
        assert_eq!(
            lines(&review_entries(&outcome)),
            [
                "Submit these answers",
                "1) Apply? — Yes",
                "2) Note? — (skipped)"
            ]
        );
    }

    #[test]
    fn the_cursor_starts_on_the_prefill() {
        let b = Question::new("ok", "Ok?", AnswerType::Boolean);
        let entries = boolean_entries();
        assert_eq!(starting_cursor(&entries, &b, Some(&json!(false))), 1);
        assert_eq!(starting_cursor(&entries, &b, Some(&json!(true))), 0);
        assert_eq!(starting_cursor(&entries, &b, None), 0);
        let q = env(true);
        let entries = option_entries(&q);
        assert_eq!(starting_cursor(&entries, &q, Some(&json!("production"))), 1);
        assert_eq!(starting_cursor(&entries, &q, Some(&json!("dev"))), 2);
    }

    #[test]
    fn picks_give_answers_and_actions() {
        let q = env(true);
        assert_eq!(answer_of(Pick::Yes, &q), Some(json!(true)));
        assert_eq!(answer_of(Pick::No, &q), Some(json!(false)));
        assert_eq!(answer_of(Pick::Option(0), &q), Some(json!("staging")));
        assert_eq!(answer_of(Pick::Option(7), &q), None);
        assert_eq!(answer_of(Pick::Other, &q), None);
        assert_eq!(control_action(Pick::Back), Some(Action::Back));
        assert_eq!(control_action(Pick::EndTurn), Some(Action::EndTurn));
        assert_eq!(control_action(Pick::Reply), None);
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
        assert_eq!(
            multi_value(&q, &[Pick::Option(1)], Some("cli")),
            json!(["api", "cli"])
        );
    }
}
