//! Dialect `codex` (Codex's `request_user_input`, openai/codex
//! `codex-rs/protocol/src/request_user_input.rs`, `codex-rs/tools/src/request_user_input_tool.rs`
//! and `codex-rs/core/src/tools/handlers/request_user_input.rs`):
//! `{"questions": [{id, header, question, options: [{label, description}], isOther?, isSecret?}]}`,
//! answered as `{"answers": {"<id>": {"answers": ["<label>", "user_note: <text>"]}}}`.
//!
//! Codex reads the arguments with serde (unknown fields ignored, `id`, `header`,
//! `question` and each option's `label` and `description` required) and refuses a
//! question without options in its own words. It sets `isOther` on every question:
//! free text is always offered, and comes back as `user_note: <text>`.

use askuser_core::json::json_type;
use askuser_core::{Answer, Choice, Outcome, Question, Slot};
use serde_json::{Map, Value, json};

use super::questions::{Parsed, finish, shaped_question};
use crate::call::ToolResult;
use crate::read::Reader;
use askuser_core::Problem;

/// The tool's name.
pub const TOOL_NAME: &str = "request_user_input";
/// Codex's refusal of a question without options.
pub const NO_OPTIONS: &str = "request_user_input requires non-empty options for every question";
/// Codex's tool error when no response comes back (the person put the questions
/// away to reply instead).
pub const CANCELLED: &str = "request_user_input was cancelled before receiving a response";
/// The prefix Codex puts before text the person typed.
pub const NOTE_PREFIX: &str = "user_note: ";

/// serde's words, as Codex hands them to the model.
fn serde_missing(field: &str) -> String {
    format!("failed to parse function arguments: missing field `{field}`")
}

fn serde_wrong(found: &str, expected: &str) -> String {
    format!("failed to parse function arguments: invalid type: {found}, expected {expected}")
}

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error(
            "",
            serde_wrong(json_type(arguments), "struct RequestUserInputArgs"),
        );
        return Err(reader.finish());
    };
    let items = match map.get("questions") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            reader.error("/questions", "is empty; ask one to three short questions");
            return Err(reader.finish());
        }
        None => {
            reader.error("/questions", serde_missing("questions"));
            return Err(reader.finish());
        }
        Some(other) => {
            reader.error("/questions", serde_wrong(json_type(other), "a sequence"));
            return Err(reader.finish());
        }
    };
    let mut texts = Vec::with_capacity(items.len());
    let mut ids = Vec::with_capacity(items.len());
    let mut questions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("/questions/{i}");
        let (question, id, text) = read_question(&mut reader, item, i, &path);
        questions.push(question);
        ids.push(id);
        texts.push(text);
    }
    finish(reader, questions, &[], texts, ids, None)
}

/// One question: the core question, its Codex id and its text as written.
fn read_question(
    reader: &mut Reader,
    item: &Value,
    index: usize,
    path: &str,
) -> (Question, String, String) {
    let key = format!("q{}", index + 1);
    let Value::Object(map) = item else {
        reader.error(
            path,
            serde_wrong(json_type(item), "struct RequestUserInputQuestion"),
        );
        return (
            shaped_question(key, "?", None, None, false),
            String::new(),
            String::new(),
        );
    };
    let string = |reader: &mut Reader, field: &str| {
        reader
            .host_string(map, path, field, Some(&serde_missing(field)), |found| {
                serde_wrong(found, "a string")
            })
            .unwrap_or_default()
    };
    let id = string(reader, "id");
    let header = string(reader, "header");
    let text = string(reader, "question");
    for flag in ["isOther", "isSecret"] {
        reader.host_bool(map, path, flag, |found| serde_wrong(found, "a boolean"));
    }
    let options = read_options(reader, map, path);
    let question = shaped_question(key, &text, Some(header), Some(options), false);
    (question, id, text)
}

fn read_options(reader: &mut Reader, map: &Map<String, Value>, path: &str) -> Vec<Choice> {
    let at = format!("{path}/options");
    let items = match map.get("options") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        None | Some(Value::Null | Value::Array(_)) => {
            reader.error(at, NO_OPTIONS);
            return Vec::new();
        }
        Some(other) => {
            reader.error(at, serde_wrong(json_type(other), "a sequence"));
            return Vec::new();
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(j, item)| {
            let item_path = format!("{at}/{j}");
            let Value::Object(object) = item else {
                reader.error(
                    item_path,
                    serde_wrong(json_type(item), "struct RequestUserInputQuestionOption"),
                );
                return Choice::new("");
            };
            let mut string = |field: &str| {
                reader.host_string(
                    object,
                    &item_path,
                    field,
                    Some(&serde_missing(field)),
                    |found| serde_wrong(found, "a string"),
                )
            };
            let label = string("label").unwrap_or_default();
            let description = string("description");
            Choice { label, description }
        })
        .collect()
}

/// A question's answers as Codex lists them: the picked label, or the typed text
/// after [`NOTE_PREFIX`]; an empty list when unanswered.
fn answers(question: &Question, slot: Option<&Slot>) -> Vec<String> {
    let note = |text: &str| {
        let text = text.trim();
        (!text.is_empty()).then(|| format!("{NOTE_PREFIX}{text}"))
    };
    let Some(slot) = slot else {
        return Vec::new();
    };
    match &slot.answer {
        Answer::Other(text) | Answer::Text(text) => note(text).into_iter().collect(),
        Answer::Choices(picks) => {
            let mut list: Vec<String> = question
                .choices()
                .iter()
                .enumerate()
                .filter(|(i, _)| picks.options.contains(*i))
                .map(|(_, c)| c.label.clone())
                .collect();
            list.extend(picks.other.iter().filter_map(|t| note(t)));
            list
        }
        answer => match answer.to_value(question) {
            Value::String(label) => vec![label],
            other => vec![other.to_string()],
        },
    }
}

/// `{"answers": {"<id>": {"answers": [...]}}}` for every question; a Reply is
/// Codex's cancellation error.
///
/// After a timeout, `"timed_out": true` and a `"message"` beside the answers. A
/// note beside an answer is one more `"user_note: ..."` entry (Codex's own way to
/// carry what the person typed); a Reply's message follows the cancellation error as
/// `The user replied instead: ...`.
pub(crate) fn result(outcome: &Outcome, texts: &[String], ids: &[String]) -> ToolResult {
    if outcome.is_cancelled() {
        return ToolResult::Error(super::notice::with_reply(CANCELLED, outcome));
    }
    let mut map = Map::new();
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let id = ids.get(index).unwrap_or(&question.id);
        let slot = outcome.answers.get(index).and_then(Option::as_ref);
        let mut list = answers(question, slot);
        if let Some(note) = super::notice::note(outcome, index) {
            list.push(format!("{NOTE_PREFIX}{}", note.trim()));
        }
        map.insert(id.clone(), json!({ "answers": list }));
    }
    match super::notice::timeout(outcome, texts) {
        Some(notice) => {
            ToolResult::Success(json!({"answers": map, "timed_out": true, "message": notice}))
        }
        None => ToolResult::Success(json!({ "answers": map })),
    }
}
