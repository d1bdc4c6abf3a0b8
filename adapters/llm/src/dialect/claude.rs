//! Dialect `claude` (Claude Code's `AskUserQuestion`, the REQ-AUQ contract):
//! 1–4 questions of `{question, header, options (1–4) of {label, description,
//! preview?}, multiSelect}`, answered as `{"answers": {"<question>": "<label>"}}`.
//!
//! What Claude Code shows, askuser accepts (see `docs/dialects.md`): a header longer
//! than the 12 characters the tool description asks for is kept whole, a single
//! option is a choice of one (plus free text), unknown fields are ignored.

use askuser_core::{Outcome, Slot};
use serde_json::{Map, Value, json};

use super::questions::{Parsed, Rules};
use crate::rejection::FieldError;

/// The tool's name.
pub const TOOL_NAME: &str = "AskUserQuestion";
/// The most questions one call may ask.
pub const MAX_QUESTIONS: usize = 4;
/// The fewest options a question may offer (Claude Code shows a single option).
pub const MIN_OPTIONS: usize = 1;
/// The most options a question may offer.
pub const MAX_OPTIONS: usize = 4;
/// The header length the tool description asks for, in characters. Advice only:
/// Claude Code shows longer headers, so a longer one is accepted and kept whole.
pub const MAX_HEADER_CHARS: usize = 12;

const RULES: Rules = Rules {
    tool: TOOL_NAME,
    max_questions: Some(MAX_QUESTIONS),
    option_count: Some((MIN_OPTIONS, MAX_OPTIONS)),
    unique_texts: true,
    metadata: false,
};

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<FieldError>> {
    super::questions::parse(arguments, &RULES)
}

/// `{"answers": {"<question text>": "<label or typed text>"}}`, several picks joined
/// with `", "`; after a Reply, `{"cancelled": true, "answers": {...so far...}}`;
/// after a timeout, the answers given or filled, `"timed_out": true` and a
/// `"message"` saying which the timeout filled.
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
    } else if let Some(notice) = super::notice::timeout(outcome, texts) {
        json!({"answers": answers, "timed_out": true, "message": notice})
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
