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
use askuser_core::Problem;

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
    preview: true,
};

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    super::questions::parse(arguments, &RULES)
}

/// `{"answers": {"<question text>": "<label or typed text>"}}`, several picks joined
/// with `", "`; after a Reply, `{"cancelled": true, "answers": {...so far...}}`;
/// after a timeout, the answers given or filled, `"timed_out": true` and a
/// `"message"` saying which the timeout filled. Notes the person wrote are Claude
/// Code's `"annotations": {"<question text>": {"notes": "..."}}`; a Reply's message
/// is the `"response"` (what Claude Code shows the model as "The user responded").
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    let mut answers = Map::new();
    let mut annotations = Map::new();
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let Some(Some(Slot { answer, .. })) = outcome.answers.get(index) else {
            continue;
        };
        let text = texts.get(index).unwrap_or(&question.text);
        answers.insert(
            text.clone(),
            Value::String(joined(&answer.to_value(question))),
        );
        if let Some(note) = super::notice::note(outcome, index) {
            annotations.insert(text.clone(), json!({ "notes": note }));
        }
    }
    let mut result = Map::new();
    if outcome.is_cancelled() {
        result.insert("cancelled".into(), Value::Bool(true));
    }
    result.insert("answers".into(), Value::Object(answers));
    if !annotations.is_empty() {
        result.insert("annotations".into(), Value::Object(annotations));
    }
    if let Some(message) = super::notice::reply_message(outcome) {
        result.insert("response".into(), Value::String(message.to_owned()));
    }
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        result.insert("timed_out".into(), Value::Bool(true));
        result.insert("message".into(), Value::String(notice));
    }
    Value::Object(result)
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
