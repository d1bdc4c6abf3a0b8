//! Dialect `gemini` (Gemini CLI's `ask_user`, google-gemini/gemini-cli
//! `packages/core/src/tools/ask-user.ts`, its schema in
//! `packages/core/src/tools/definitions/model-family-sets/gemini-3.ts`):
//! `{"questions": [{question, header, type?: "choice"|"text"|"yesno", options?:
//! [{label, description}], multiSelect?, placeholder?}]}` (1 to 4 questions),
//! answered as `{"answers": {"0": "<answer>"}}` keyed by position.
//!
//! The rules match Gemini CLI core 0.61.0 (npm), checked against its own
//! `AskUserTool` by `tests/differential`, and take what the earlier releases took:
//! a question without `type` is a `choice`, as Gemini CLI core 0.27.0 to 0.29.0
//! made it (`q.type ?? QuestionType.CHOICE` in `ask-user.js`, where `type` was not
//! yet required), also checked against core 0.29.0's own `AskUserTool`. Both
//! releases answer in the same shape, so the result does not depend on the caller's
//! version (see `docs/dialects.md`, "Versions").
//!
//! Gemini CLI checks the arguments against its JSON Schema (ajv: the messages
//! below are ajv's), then `validateToolParamValues` (a choice takes 2 to 4
//! options, each with a non-empty label and a string description). It turns a
//! literal `\n` in the texts into a line break. A choice and a yes/no question also
//! take free text ("Other"); a yes/no question is a choice of "Yes" and "No". A
//! dismissal is the text `User dismissed ask_user dialog without answering.`

use askuser_core::json::json_type;
use askuser_core::{Choice, Outcome, Question};
use serde_json::{Map, Value};

use super::questions::{Parsed, answer_strings, finish, shaped_question};
use crate::call::ToolResult;
use crate::read::Reader;
use askuser_core::Problem;

/// The tool's name.
pub const TOOL_NAME: &str = "ask_user";
/// The most questions one call may ask (the schema's `maxItems`).
pub const MAX_QUESTIONS: usize = 4;
/// The fewest options a `choice` question may offer.
pub const MIN_OPTIONS: usize = 2;
/// The most options a `choice` question may offer.
pub const MAX_OPTIONS: usize = 4;
/// What Gemini CLI tells the model when the person dismisses the dialog.
pub const DISMISSED: &str = "User dismissed ask_user dialog without answering.";

const TYPES: [&str; 3] = ["choice", "text", "yesno"];

/// ajv's `type` message for a JSON type name.
fn must_be(expected: &str) -> impl FnOnce(&'static str) -> String + '_ {
    move |found| format!("must be {expected} (found {found})")
}

fn required(field: &str) -> String {
    format!("must have required property '{field}'")
}

/// Gemini CLI's unescaping of the texts: a literal `\r\n` or `\n` is a line break.
fn unescape(text: &str) -> String {
    text.replace("\\r\\n", "\n").replace("\\n", "\n")
}

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error("", "Value of params must be an object");
        return Err(reader.finish());
    };
    let items = match map.get("questions") {
        Some(Value::Array(items)) => items,
        None => {
            reader.error("/questions", required("questions"));
            return Err(reader.finish());
        }
        Some(other) => {
            reader.error("/questions", must_be("array")(json_type(other)));
            return Err(reader.finish());
        }
    };
    if items.is_empty() {
        reader.error("/questions", "must NOT have fewer than 1 items");
        return Err(reader.finish());
    }
    if items.len() > MAX_QUESTIONS {
        reader.error(
            "/questions",
            format!("must NOT have more than {MAX_QUESTIONS} items"),
        );
        return Err(reader.finish());
    }
    let mut texts = Vec::with_capacity(items.len());
    let mut questions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let (question, text) = read_question(&mut reader, item, i);
        questions.push(question);
        texts.push(text);
    }
    finish(reader, questions, &[], texts, Vec::new(), None)
}

fn read_question(reader: &mut Reader, item: &Value, index: usize) -> (Question, String) {
    let path = format!("/questions/{index}");
    let id = format!("q{}", index + 1);
    let Value::Object(map) = item else {
        reader.error(&path, must_be("object")(json_type(item)));
        return (shaped_question(id, "?", None, None, false), String::new());
    };
    let string = |reader: &mut Reader, field: &str, needed: bool| {
        let missing = needed.then(|| required(field));
        reader
            .host_string(map, &path, field, missing.as_deref(), must_be("string"))
            .map(|text| unescape(&text))
    };
    let text = string(reader, "question", true).unwrap_or_default();
    let header = string(reader, "header", true);
    // Optional, as in Gemini CLI core 0.27.0 to 0.29.0: absent is a choice.
    let kind = string(reader, "type", false);
    let kind = match (kind, map.get("type")) {
        (None, None | Some(Value::Null)) => Some("choice".to_owned()),
        (kind, _) => kind,
    };
    let _placeholder = string(reader, "placeholder", false);
    let multi = reader.host_bool(map, &path, "multiSelect", must_be("boolean"));
    let options = read_options(reader, map, &path);
    let question = match kind.as_deref() {
        Some("choice") => {
            check_choice(reader, &path, index, options.as_deref());
            shaped_question(id, &text, header, options, multi)
        }
        Some("yesno") => {
            let yes_no = vec![Choice::new("Yes"), Choice::new("No")];
            shaped_question(id, &text, header, Some(yes_no), false)
        }
        // "text", or a `type` of the wrong JSON type (reported above).
        Some("text") | None => shaped_question(id, &text, header, None, false),
        Some(_) => {
            reader.error(
                format!("{path}/type"),
                format!(
                    "must be equal to one of the allowed values: {}",
                    TYPES.join(", ")
                ),
            );
            shaped_question(id, &text, header, None, false)
        }
    };
    (question, text)
}

/// `validateToolParamValues`: a choice takes 2 to 4 options.
fn check_choice(reader: &mut Reader, path: &str, index: usize, options: Option<&[Choice]>) {
    let count = options.map_or(0, <[Choice]>::len);
    let number = index + 1;
    if count < MIN_OPTIONS {
        reader.error(
            format!("{path}/options"),
            format!(
                "Question {number}: type='choice' requires 'options' array with {MIN_OPTIONS}-{MAX_OPTIONS} items."
            ),
        );
    } else if count > MAX_OPTIONS {
        reader.error(
            format!("{path}/options"),
            format!("Question {number}: 'options' array must have at most {MAX_OPTIONS} items."),
        );
    }
}

/// `options`, where given: each `{label, description}`, the label a non-empty
/// string and the description a string (both required by the schema).
fn read_options(reader: &mut Reader, map: &Map<String, Value>, path: &str) -> Option<Vec<Choice>> {
    let at = format!("{path}/options");
    let question = path
        .rsplit('/')
        .next()
        .and_then(|i| i.parse::<usize>().ok())
        .map_or(0, |i| i + 1);
    let items = match map.get("options") {
        None | Some(Value::Null) => return None,
        Some(Value::Array(items)) => items,
        Some(other) => {
            reader.error(at, must_be("array")(json_type(other)));
            return None;
        }
    };
    let choices = items
        .iter()
        .enumerate()
        .map(|(j, item)| {
            let item_path = format!("{at}/{j}");
            let Value::Object(object) = item else {
                reader.error(&item_path, must_be("object")(json_type(item)));
                return Choice::new("");
            };
            let label = reader
                .host_string(object, &item_path, "label", Some(&required("label")), must_be("string"))
                .unwrap_or_default();
            if label.trim().is_empty() && object.get("label").is_some_and(Value::is_string) {
                reader.error(
                    format!("{item_path}/label"),
                    format!(
                        "Question {question}, option {}: 'label' is required and must be a non-empty string.",
                        j + 1
                    ),
                );
            }
            let description = reader
                .host_string(
                    object,
                    &item_path,
                    "description",
                    Some(&required("description")),
                    must_be("string"),
                )
                .map(|text| unescape(text.trim()))
                .filter(|text| !text.is_empty());
            Choice {
                label: unescape(&label),
                description,
            }
        })
        .collect();
    Some(choices)
}

/// `{"answers": {"<position>": "<answer>"}}` with the answered questions only
/// (several picks joined with `", "`); a Reply is Gemini CLI's dismissal text.
///
/// After a timeout, `"timed_out": true` and a `"message"` beside the answers.
/// Notes beside answers are `"notes": {"<position>": "..."}` (Gemini CLI has no
/// place for them); a Reply's message follows the dismissal text as `The user
/// replied instead: ...`.
pub(crate) fn result(outcome: &Outcome, texts: &[String]) -> ToolResult {
    if outcome.is_cancelled() {
        return ToolResult::Text(super::notice::with_reply(DISMISSED, outcome));
    }
    let mut map = Map::new();
    let mut notes = Map::new();
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let slot = outcome.answers.get(index).and_then(Option::as_ref);
        let answers = answer_strings(question, slot);
        if !answers.is_empty() {
            map.insert(index.to_string(), Value::String(answers.join(", ")));
        }
        if let Some(note) = super::notice::note(outcome, index) {
            notes.insert(index.to_string(), Value::String(note.to_owned()));
        }
    }
    let mut result = Map::new();
    result.insert("answers".into(), Value::Object(map));
    if !notes.is_empty() {
        result.insert("notes".into(), Value::Object(notes));
    }
    if let Some(notice) = super::notice::timeout(outcome, texts) {
        result.insert("timed_out".into(), Value::Bool(true));
        result.insert("message".into(), Value::String(notice));
    }
    ToolResult::Success(Value::Object(result))
}
