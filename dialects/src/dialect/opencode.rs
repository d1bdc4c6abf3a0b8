//! Dialect `opencode` (`OpenCode`'s `question` tool, `packages/opencode/src/tool/question.ts`
//! and `packages/opencode/src/question/index.ts` in anomalyco/opencode):
//! `{"questions": [{question, header, options: [{label, description}], multiple?}]}`.
//!
//! `OpenCode` always lets the person type their own answer (the tool's schema omits
//! `custom`, which defaults to true), so every question with options also takes
//! free text, and a question with no options is free text only. The result is the
//! text `OpenCode` hands the model: `User has answered your questions: "Q"="a, b".
//! You can now continue with the user's answers in mind.`; a dismissal is the tool
//! error `The user dismissed this question`.

use askuser_core::json::json_type;
use askuser_core::{Choice, Outcome};
use serde_json::{Map, Value};

use super::questions::{Parsed, answer_strings, finish, shaped_question};
use crate::call::ToolResult;
use crate::read::Reader;
use askuser_core::Problem;

/// The tool's name.
pub const TOOL_NAME: &str = "question";
/// The tool error `OpenCode` sends when the person dismisses the questions
/// (`Question.RejectedError`).
pub const DISMISSED: &str = "The user dismissed this question";
/// What `OpenCode` writes for a question with no answer.
pub const UNANSWERED: &str = "Unanswered";

const SHAPE: &str =
    "{\"question\", \"header\", \"options\": [{\"label\", \"description\"}], \"multiple\"}";

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error(
            "",
            format!(
                "must be an object with a `questions` list, not {}",
                json_type(arguments)
            ),
        );
        return Err(reader.finish());
    };
    let items = match map.get("questions") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            reader.error("/questions", "is empty; ask at least one question");
            return Err(reader.finish());
        }
        None | Some(Value::Null) => {
            reader.error(
                "/questions",
                format!("is required: add `questions`, a list of {SHAPE}"),
            );
            return Err(reader.finish());
        }
        Some(other) => {
            reader.error(
                "/questions",
                format!("must be a list of questions, not {}", json_type(other)),
            );
            return Err(reader.finish());
        }
    };
    let mut texts = Vec::with_capacity(items.len());
    let mut questions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("/questions/{i}");
        let id = format!("q{}", i + 1);
        let Value::Object(map) = item else {
            reader.error(
                &path,
                format!("must be an object {SHAPE}, not {}", json_type(item)),
            );
            texts.push(String::new());
            questions.push(shaped_question(id, "?", None, None, false));
            continue;
        };
        let text = reader
            .required_string(map, &path, "question", "`question`, the complete question")
            .unwrap_or_default();
        let header = reader.required_string(
            map,
            &path,
            "header",
            "`header`, a very short label (max 30 chars)",
        );
        let multiple = reader.optional_bool(map, &path, "multiple");
        let options = read_options(&mut reader, map, &path);
        questions.push(shaped_question(id, &text, header, options, multiple));
        texts.push(text);
    }
    finish(reader, questions, &[], texts, Vec::new(), None)
}

/// `options`: required (`OpenCode`'s schema), each `{label, description}` with both
/// strings; an empty list asks for free text only.
fn read_options(reader: &mut Reader, map: &Map<String, Value>, path: &str) -> Option<Vec<Choice>> {
    let at = format!("{path}/options");
    let items = match map.get("options") {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => {
            reader.error(
                at,
                "is required: add `options`, a list of {\"label\", \"description\"} (an empty list asks for free text)",
            );
            return Some(Vec::new());
        }
        Some(other) => {
            reader.error(
                at,
                format!(
                    "must be a list of {{\"label\", \"description\"}}, not {}",
                    json_type(other)
                ),
            );
            return Some(Vec::new());
        }
    };
    if items.is_empty() {
        return None;
    }
    let choices = items
        .iter()
        .enumerate()
        .map(|(j, item)| {
            let item_path = format!("{at}/{j}");
            let Value::Object(object) = item else {
                reader.error(
                    item_path,
                    format!(
                        "must be an object {{\"label\", \"description\"}}, not {}",
                        json_type(item)
                    ),
                );
                return Choice::new("");
            };
            let label = reader
                .required_string(object, &item_path, "label", "`label`, the display text")
                .unwrap_or_default();
            let description = reader.required_string(
                object,
                &item_path,
                "description",
                "`description`, an explanation of the choice",
            );
            Choice { label, description }
        })
        .collect();
    Some(choices)
}

/// The text `OpenCode` returns: every question as `"<question>"="<answers>"`, joined
/// with `", "`; a dismissal is a tool error. After a timeout, the words saying so
/// and which answers the timeout filled, then the answers. A note beside an answer
/// follows it as `(user note: ...)`; a Reply's message follows the dismissal as
/// `The user replied instead: ...`.
pub(crate) fn result(outcome: &Outcome, texts: &[String]) -> ToolResult {
    if outcome.is_cancelled() {
        return ToolResult::Error(super::notice::with_reply(DISMISSED, outcome));
    }
    let formatted: Vec<String> = outcome
        .form
        .questions()
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let text = texts.get(index).unwrap_or(&question.text);
            let slot = outcome.answers.get(index).and_then(Option::as_ref);
            let answers = answer_strings(question, slot);
            let answer = if answers.is_empty() {
                UNANSWERED.to_owned()
            } else {
                answers.join(", ")
            };
            match super::notice::note(outcome, index) {
                Some(note) => format!("\"{text}\"=\"{answer}\" (user note: {note})"),
                None => format!("\"{text}\"=\"{answer}\""),
            }
        })
        .collect();
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        return ToolResult::Text(format!("{notice} Answers: {}.", formatted.join(", ")));
    }
    ToolResult::Text(format!(
        "User has answered your questions: {}. You can now continue with the user's answers in mind.",
        formatted.join(", ")
    ))
}
