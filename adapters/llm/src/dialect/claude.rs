//! Dialect `claude` (Claude Code's `AskUserQuestion`, the REQ-AUQ contract):
//! 1–4 questions of `{question, header (≤ 12 chars), options (2–4) of {label,
//! description}, multiSelect}`, answered as `{"answers": {"<question>": "<label>"}}`.

use askuser_core::{Outcome, Slot};
use serde_json::{Map, Value, json};

use super::questions::{Parsed, Rules};
use crate::rejection::FieldError;

/// The tool's name.
pub const TOOL_NAME: &str = "AskUserQuestion";
/// The most questions one call may ask.
pub const MAX_QUESTIONS: usize = 4;
/// The fewest options a question may offer.
pub const MIN_OPTIONS: usize = 2;
/// The most options a question may offer.
pub const MAX_OPTIONS: usize = 4;
/// The longest header, in characters.
pub const MAX_HEADER_CHARS: usize = 12;

const RULES: Rules = Rules {
    tool: TOOL_NAME,
    max_questions: Some(MAX_QUESTIONS),
    option_count: Some((MIN_OPTIONS, MAX_OPTIONS)),
    max_header_chars: Some(MAX_HEADER_CHARS),
    unique_texts: true,
    metadata: false,
};

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<FieldError>> {
    super::questions::parse(arguments, &RULES)
}

/// `{"answers": {"<question text>": "<label or typed text>"}}`, several picks joined
/// with `", "`; after a Reply, `{"cancelled": true, "answers": {...so far...}}`.
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    let mut answers = Map::new();
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let Some(Some(Slot { answer, .. })) = outcome.answers.get(index) else {
            continue;
        };
        let text = texts.get(index).unwrap_or(&question.text);
        answers.insert(
            text.clone(),
            Value::String(joined(&answer.to_value(question))),
        );
    }
    if outcome.is_cancelled() {
        json!({"cancelled": true, "answers": answers})
    } else {
        json!({ "answers": answers })
    }
}

/// An answer as one string: a list's items joined with `", "`.
fn joined(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map_or_else(|| item.to_string(), str::to_owned)
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
