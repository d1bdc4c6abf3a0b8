//! The lines askuser sends a host: one JSON object per engine command.

use askuser_core::{Command, Prompt, Question, Refusal, Timeout};
use askuser_dialects::{Call, rejection_text};
use serde_json::{Map, Value, json};

/// The protocol line for one engine command. `call` is the inquiry's tool call (to
/// render the result in its dialect); without it a result is rendered in the
/// `jp-form` shape. `timeout` is the inquiry's policy timeout: a prompt line carries
/// it (`"timeout": {"after_ms", "on_timeout"}`) when there is one. A prompt and a
/// review line end with the inquiry's `step`, which an `answer`, `back`, `reply` or
/// `submit` may name to say what it answers.
///
/// | command | line |
/// |---|---|
/// | prompt | `{"type":"prompt","inquiry","question":{...},"progress","prefill","can_back","label","timeout"?,"step"}` |
/// | invalid answer | `{"type":"invalid","inquiry","question","message"}` |
/// | respond | `{"type":"result","inquiry","result","cancelled","timed_out"?}` |
/// | fail | `{"type":"failed","inquiry","reason","tool_error"}` |
/// | end turn | `{"type":"turn_ended","inquiry"}` |
/// | reject | `{"type":"rejected","inquiry","errors":[{"path","message"}],"tool_error"}` |
/// | ask assistant | `{"type":"ask_assistant","inquiry","question","schema"}` |
/// | review | `{"type":"review","inquiry","answers","step"}` |
pub(crate) fn command_line(
    command: &Command,
    call: Option<&Call>,
    timeout: Option<Timeout>,
) -> Value {
    match command {
        Command::Prompt(prompt) => {
            let mut line = prompt_line(prompt);
            if let Value::Object(object) = &mut line {
                if let Some(timeout) = timeout {
                    object.insert(
                        "timeout".into(),
                        json!({"after_ms": timeout.after_ms, "on_timeout": timeout.on_timeout}),
                    );
                }
                object.insert("step".into(), json!(prompt.step));
            }
            line
        }
        Command::InvalidAnswer {
            inquiry,
            question,
            message,
            ..
        } => {
            json!({"type": "invalid", "inquiry": inquiry, "question": question, "message": message})
        }
        Command::Respond { inquiry, outcome } => {
            let result = call.map_or_else(|| outcome.to_json(), |call| call.render(outcome));
            let mut line = json!({"type": "result", "inquiry": inquiry, "result": result,
                                  "cancelled": outcome.is_cancelled()});
            if let (Some(after_ms), Value::Object(object)) =
                (outcome.timed_out_after_ms(), &mut line)
            {
                object.insert("timed_out".into(), json!({ "after_ms": after_ms }));
            }
            line
        }
        Command::Fail {
            inquiry,
            reason,
            message,
        } => json!({"type": "failed", "inquiry": inquiry, "reason": reason, "tool_error": message}),
        Command::EndTurn { inquiry } => json!({"type": "turn_ended", "inquiry": inquiry}),
        Command::Reject {
            inquiry,
            tool,
            problems,
        } => {
            let errors: Vec<Value> = problems
                .iter()
                .map(|p| json!({"path": p.path, "message": p.message}))
                .collect();
            let tool_error = rejection_text(tool, problems);
            json!({"type": "rejected", "inquiry": inquiry, "errors": errors, "tool_error": tool_error})
        }
        Command::AskAssistant {
            inquiry,
            question,
            schema,
        } => {
            json!({"type": "ask_assistant", "inquiry": inquiry, "question": question, "schema": schema})
        }
        Command::Review {
            inquiry,
            outcome,
            step,
        } => {
            json!({"type": "review", "inquiry": inquiry, "answers": outcome.to_json(), "step": step})
        }
    }
}

/// `{"type":"error","message":...}`.
pub(crate) fn error_line(message: &str) -> Value {
    json!({"type": "error", "message": message})
}

/// The `error` line of an engine's refusal of an action on `inquiry`:
/// `{"type":"error","inquiry","code","message"}`, `code` the refusal's own
/// ([`Refusal::code`]: `stale`, `unknown_question`, `inquiry_finished`, ...),
/// and for a refusal of an action that named something the inquiry does not
/// show ([`Refusal::current`]) `"current":{"inquiry","question","step"}`, what
/// it shows now (`"question": null` for the review).
pub(crate) fn refusal_line(inquiry: &str, refusal: &Refusal) -> Value {
    let mut line = json!({"type": "error", "inquiry": inquiry, "code": refusal.code(),
                          "message": refusal.to_string()});
    if let (Some(current), Value::Object(object)) = (refusal.current(), &mut line) {
        object.insert(
            "current".into(),
            json!({"inquiry": current.inquiry, "question": current.question,
                   "step": current.step}),
        );
    }
    line
}

fn prompt_line(prompt: &Prompt) -> Value {
    let progress = prompt
        .progress
        .map_or(Value::Null, |p| json!({"n": p.n, "m": p.m}));
    json!({
        "type": "prompt",
        "inquiry": prompt.inquiry,
        "question": question_json(prompt.question()),
        "progress": progress,
        "prefill": prompt.prefill_value(),
        "can_back": prompt.can_back,
        "label": prompt.label.as_deref(),
    })
}

/// A question as a host sees it: `id`, `text`, `context`, `header`, `answer_type`,
/// `options` (always a list of `{"label","description"}`, empty for types without
/// options), `allow_other`, `schema` (`null` unless a schema question).
pub(crate) fn question_json(question: &Question) -> Value {
    let options: Vec<Value> = question
        .choices()
        .iter()
        .map(|c| json!({"label": c.label, "description": c.description}))
        .collect();
    let mut object = Map::new();
    object.insert("id".into(), json!(question.id));
    object.insert("text".into(), json!(question.text));
    object.insert("context".into(), json!(question.context));
    object.insert("header".into(), json!(question.header));
    object.insert("answer_type".into(), json!(question.answer_type.name()));
    object.insert("options".into(), Value::Array(options));
    object.insert("allow_other".into(), json!(question.allow_other));
    object.insert(
        "schema".into(),
        question.schema.clone().unwrap_or(Value::Null),
    );
    Value::Object(object)
}
