//! Codex's own reading of `request_user_input`, run here: Codex is Rust, and reads
//! the arguments with serde into these structs (transcribed from openai/codex
//! `codex-rs/protocol/src/request_user_input.rs` @045c529265ce), then refuses a
//! question without options and forces `isOther` (`codex-rs/core/src/tools/handlers/
//! request_user_input.rs` @02a13c490d7f, `normalize_request_user_input_args` in
//! `codex-rs/tools/src/request_user_input_tool.rs` @4275ad2b58d8). Same library
//! (serde, `serde_json`), same structs, same rules.

use serde::Deserialize;
use serde_json::{Value, json};

use super::Verdict;

#[derive(Deserialize)]
#[allow(dead_code)] // fields read by serde, as in Codex
struct RequestUserInputQuestionOption {
    label: String,
    description: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct RequestUserInputQuestion {
    id: String,
    header: String,
    question: String,
    #[serde(rename = "isOther", default)]
    is_other: bool,
    #[serde(rename = "isSecret", default)]
    is_secret: bool,
    options: Option<Vec<RequestUserInputQuestionOption>>,
}

#[derive(Deserialize)]
struct RequestUserInputArgs {
    questions: Vec<RequestUserInputQuestion>,
}

/// What Codex does with one call's arguments, as the node harness reports it for
/// the other hosts (the meaning carries each question's `id` too).
pub fn validate(call: &Value) -> Verdict {
    // Codex parses the arguments' text (`parse_arguments`): the same as the value.
    let mut args: RequestUserInputArgs = match serde_json::from_str(&call.to_string()) {
        Ok(args) => args,
        Err(e) => return Verdict::Refuse(format!("failed to parse function arguments: {e}")),
    };
    if args
        .questions
        .iter()
        .any(|q| q.options.as_ref().is_none_or(Vec::is_empty))
    {
        return Verdict::Refuse(
            "request_user_input requires non-empty options for every question".into(),
        );
    }
    for q in &mut args.questions {
        q.is_other = true;
    }
    let questions: Vec<Value> = args
        .questions
        .iter()
        .map(|q| {
            let options: Vec<Value> = q
                .options
                .iter()
                .flatten()
                .map(|o| json!([o.label, o.description]))
                .collect();
            json!({"id": q.id, "question": q.question, "header": q.header,
                   "options": options, "multi": false, "other": q.is_other})
        })
        .collect();
    Verdict::Accept(json!({ "questions": questions }))
}
