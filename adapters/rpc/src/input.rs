//! The lines a host sends: parsed by hand so that every problem names its field.

use askuser_app::log::StreamName;
use askuser_core::AnsweredBy;
use askuser_dialects::Dialect;
use serde_json::{Map, Value};

/// The longest line a host may send, in bytes (1 MiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The message types a host may send.
pub const INPUT_TYPES: &str =
    "ask, answer, back, reply, end_turn, timed_out, review, submit, change";

/// One message from a host.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `{"type":"ask","inquiry","dialect","arguments",...}`: a tool call to ask.
    Ask(Ask),
    /// `{"type":"answer","inquiry","question","value","step"?}`: an answer to the
    /// question being asked.
    Answer {
        /// The inquiry.
        inquiry: String,
        /// The question's id.
        question: String,
        /// The answer.
        value: Value,
        /// Who answered (`"by"`, default `user`; `assistant` for `ask_assistant`).
        by: AnsweredBy,
        /// Whether the person asked to reuse the answer for the rest of the turn
        /// (`"remember"`, default false; kept only where the policy's persistence
        /// is `turn`).
        remember: bool,
        /// A note the person wrote beside the answer, for the model (`"note"`).
        note: Option<String>,
        /// The `step` of the `prompt` line answered (`"step"`): given, the answer
        /// is taken only while that prompt is what the inquiry shows.
        step: Option<u32>,
    },
    /// `{"type":"back","inquiry","question"?,"step"?}`: back to the previous
    /// answered question.
    Back {
        /// The inquiry.
        inquiry: String,
        /// What the person was shown, when the line says.
        shown: Option<Shown>,
    },
    /// `{"type":"reply","inquiry","message"?,"question"?,"step"?}`: cancel the
    /// form to reply instead.
    Reply {
        /// The inquiry.
        inquiry: String,
        /// The message the person typed for the model (`"message"`), if any.
        message: Option<String>,
        /// What the person was shown, when the line says.
        shown: Option<Shown>,
    },
    /// `{"type":"end_turn","inquiry"}`: end the turn; no tool result.
    EndTurn {
        /// The inquiry.
        inquiry: String,
    },
    /// `{"type":"timed_out","inquiry","message"?}`: the inquiry's time to answer
    /// ran out (its policy's `timeout.after_ms`); `message` is a Reply the person
    /// was typing then, sent with the timeout's result. Fired when the line
    /// arrives; the engine refuses one sent before the deadline.
    TimedOut {
        /// The inquiry.
        inquiry: String,
        /// The Reply being typed when the time ran out (`"message"`), if any.
        message: Option<String>,
    },
    /// `{"type":"review","inquiry"}`: the UI shows a review before the answers
    /// are sent; once the form is complete the server sends a `review` line and
    /// waits for `submit` (or `back`, `reply`, `end_turn`).
    Review {
        /// The inquiry.
        inquiry: String,
    },
    /// `{"type":"submit","inquiry","step"?}`: send the reviewed answers.
    Submit {
        /// The inquiry.
        inquiry: String,
        /// What the person was shown (the review, without `"question"`), when the
        /// line says.
        shown: Option<Shown>,
    },
    /// `{"type":"change","inquiry","question","step"?}`: from the review, change
    /// the answer to `question` in one step; once it is answered again, the later
    /// answers are given again where their question still shows, and the review
    /// comes back.
    Change {
        /// The inquiry.
        inquiry: String,
        /// The id of the question whose answer changes (`"question"`).
        question: String,
        /// The `step` of the `review` line acted on (`"step"`), if given.
        step: Option<u32>,
    },
}

/// What a `back`, `reply` or `submit` line says the person was shown: the
/// `question` and `step` of the `prompt` line, or the `step` of the `review` line
/// (no `question`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The question's id (`"question"`); `None` for the review.
    pub question: Option<String>,
    /// The line's `step` (`"step"`).
    pub step: u32,
}

/// An `ask` message.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// The new inquiry's id (the tool call's id).
    pub inquiry: String,
    /// The dialect (`"dialect"`, default `jp-form`).
    pub dialect: Dialect,
    /// The tool call's arguments.
    pub arguments: Value,
    /// The log stream to record into (default: the server's), checked as the
    /// line was read.
    pub stream: Option<StreamName>,
    /// Whether a person is at the host's UI (default true).
    pub interactive: Option<bool>,
    /// Whether a sub-agent made the call (`"origin":{"subagent":true}`).
    pub subagent: bool,
    /// The conversation turn (`"origin":{"turn":"..."}`), if the host gives one.
    pub turn: Option<String>,
    /// Fields that override the dialect's policy (`"policy":{...}`).
    pub policy: Option<Map<String, Value>>,
}

impl Input {
    /// The inquiry the message is about.
    pub fn inquiry(&self) -> &str {
        match self {
            Input::Ask(ask) => &ask.inquiry,
            Input::Answer { inquiry, .. }
            | Input::Back { inquiry, .. }
            | Input::Reply { inquiry, .. }
            | Input::EndTurn { inquiry }
            | Input::TimedOut { inquiry, .. }
            | Input::Review { inquiry }
            | Input::Submit { inquiry, .. }
            | Input::Change { inquiry, .. } => inquiry,
        }
    }
}

/// Reads one line. The error is the message of the `error` line to send back.
///
/// # Errors
/// When the line is not a JSON object, has no or an unknown `type`, or a field is
/// missing or of the wrong kind; the message names the field and what to send.
pub fn parse_input(line: &str) -> Result<Input, String> {
    let value = askuser_app::from_str_unique(line).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => {
            format!("the line was not read: {e}; send each key once")
        }
        _ => format!("the line is not JSON ({e}); send one JSON object per line"),
    })?;
    let Value::Object(object) = value else {
        return Err("the line is not a JSON object; send {\"type\": ..., ...}".to_owned());
    };
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err(format!("\"type\" must be a string: one of {INPUT_TYPES}")),
        None => return Err(format!("\"type\" is missing; use one of {INPUT_TYPES}")),
    };
    let inquiry = || string_field(&object, "inquiry");
    match kind {
        "ask" => parse_ask(&object).map(Input::Ask),
        "answer" => {
            let inquiry = inquiry()?;
            let question = string_field(&object, "question")?;
            let value = object.get("value").cloned().ok_or_else(|| {
                "\"value\" is missing; send the answer as JSON (true, \"label\", [\"a\", \"b\"], text or any value a schema allows)".to_owned()
            })?;
            let by = match object.get("by") {
                None => AnsweredBy::User,
                Some(by) => serde_json::from_value(by.clone()).map_err(|_| {
                    "\"by\" must be \"user\", \"assistant\", \"config\" or \"cache\"".to_owned()
                })?,
            };
            let remember = match object.get("remember") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(remember)) => *remember,
                Some(_) => {
                    return Err("\"remember\" must be true (reuse the answer for the rest of the turn) or false".to_owned());
                }
            };
            Ok(Input::Answer {
                inquiry,
                question,
                value,
                by,
                remember,
                note: person_text(&object, "note")?,
                step: step_field(&object)?,
            })
        }
        "back" => Ok(Input::Back {
            inquiry: inquiry()?,
            shown: shown(&object)?,
        }),
        "reply" => Ok(Input::Reply {
            inquiry: inquiry()?,
            message: person_text(&object, "message")?,
            shown: shown(&object)?,
        }),
        "end_turn" => Ok(Input::EndTurn {
            inquiry: inquiry()?,
        }),
        "timed_out" => Ok(Input::TimedOut {
            inquiry: inquiry()?,
            message: person_text(&object, "message")?,
        }),
        "review" => Ok(Input::Review {
            inquiry: inquiry()?,
        }),
        "submit" => Ok(Input::Submit {
            inquiry: inquiry()?,
            shown: shown(&object)?,
        }),
        "change" => Ok(Input::Change {
            inquiry: inquiry()?,
            question: string_field(&object, "question").map_err(|error| {
                error.replace(
                    "id of the question being answered",
                    "id of the question whose answer to change",
                )
            })?,
            step: step_field(&object)?,
        }),
        other => Err(format!(
            "unknown \"type\" \"{other}\"; use one of {INPUT_TYPES}"
        )),
    }
}

/// An optional text the person wrote for the model (`note`, `message`): a string of
/// at most [`MAX_TEXT_BYTES`](askuser_core::limits::MAX_TEXT_BYTES) bytes; a
/// blank one counts as none.
fn person_text(object: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    let max = askuser_core::limits::MAX_TEXT_BYTES;
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.len() > max => Err(format!(
            "\"{name}\" is {} bytes long; send at most {max} bytes",
            text.len()
        )),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!(
            "\"{name}\" must be a string: text the person wrote for the model"
        )),
    }
}

/// The `inquiry` a line names, when it is a JSON object with a string `inquiry`:
/// what an `error` line about a line that could not be used carries.
pub(crate) fn named_inquiry(line: &str) -> Option<String> {
    match askuser_app::from_str_unique(line).ok()? {
        Value::Object(mut object) => match object.remove("inquiry")? {
            Value::String(inquiry) if !inquiry.is_empty() => Some(inquiry),
            _ => None,
        },
        _ => None,
    }
}

/// The optional `"step"`: the step of the `prompt` or `review` line acted on.
fn step_field(object: &Map<String, Value>) -> Result<Option<u32>, String> {
    match object.get("step") {
        None | Some(Value::Null) => Ok(None),
        Some(step) => step
            .as_u64()
            .and_then(|step| u32::try_from(step).ok())
            .map(Some)
            .ok_or_else(|| {
                "\"step\" must be a whole number from 0: the \"step\" of the prompt or review line acted on".to_owned()
            }),
    }
}

/// What a `back`, `reply` or `submit` line says was shown: its optional
/// `"question"` with its `"step"` (no question: the review).
fn shown(object: &Map<String, Value>) -> Result<Option<Shown>, String> {
    let question = match object.get("question") {
        None | Some(Value::Null) => None,
        Some(_) => Some(string_field(object, "question")?),
    };
    match (step_field(object)?, question) {
        (Some(step), question) => Ok(Some(Shown { question, step })),
        (None, None) => Ok(None),
        (None, Some(_)) => Err(
            "\"question\" is given without \"step\"; send both, from the prompt line acted on, or neither".to_owned(),
        ),
    }
}

fn string_field(object: &Map<String, Value>, name: &str) -> Result<String, String> {
    match object.get(name) {
        Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
        Some(Value::String(_)) => Err(format!("\"{name}\" is empty; give the {}", what(name))),
        Some(_) => Err(format!("\"{name}\" must be a string: the {}", what(name))),
        None => Err(format!("\"{name}\" is missing; give the {}", what(name))),
    }
}

fn what(name: &str) -> &'static str {
    match name {
        "inquiry" => "inquiry's id (the tool call's id)",
        "question" => "id of the question being answered",
        "stream" => "name of a log stream",
        _ => "value",
    }
}

fn parse_ask(object: &Map<String, Value>) -> Result<Ask, String> {
    let inquiry = string_field(object, "inquiry")?;
    let dialect = match object.get("dialect") {
        None => Dialect::JpForm,
        Some(Value::String(name)) => Dialect::from_name(name).ok_or_else(|| {
            format!(
                "\"dialect\" \"{name}\" is unknown; use one of {}",
                Dialect::names()
            )
        })?,
        Some(_) => {
            return Err(format!(
                "\"dialect\" must be a string: one of {}",
                Dialect::names()
            ));
        }
    };
    let arguments = object.get("arguments").cloned().ok_or_else(|| {
        "\"arguments\" is missing; give the tool call's arguments as a JSON object".to_owned()
    })?;
    let stream = match object.get("stream") {
        None | Some(Value::Null) => None,
        Some(_) => {
            let stream = string_field(object, "stream")?;
            let stream = askuser_app::log::StreamName::try_from(stream)
                .map_err(|problem| format!("\"stream\" {problem}"))?;
            Some(stream)
        }
    };
    let interactive = match object.get("interactive") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            return Err(
                "\"interactive\" must be true (a person is at the host's UI) or false".to_owned(),
            );
        }
    };
    let (subagent, turn) = match object.get("origin") {
        None | Some(Value::Null) => (false, None),
        Some(Value::Object(origin)) => {
            let subagent = match origin.get("subagent") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("\"origin.subagent\" must be true or false".to_owned()),
            };
            let turn = match origin.get("turn") {
                None | Some(Value::Null) => None,
                Some(Value::String(turn)) => Some(turn.clone()),
                Some(_) => return Err("\"origin.turn\" must be a string".to_owned()),
            };
            (subagent, turn)
        }
        Some(_) => {
            return Err("\"origin\" must be an object such as {\"subagent\": false}".to_owned());
        }
    };
    let policy = match object.get("policy") {
        None | Some(Value::Null) => None,
        Some(Value::Object(policy)) => Some(policy.clone()),
        Some(_) => {
            return Err(
                "\"policy\" must be an object of policy fields, such as {\"label\": \"Assistant\"}"
                    .to_owned(),
            );
        }
    };
    Ok(Ask {
        inquiry,
        dialect,
        arguments,
        stream,
        interactive,
        subagent,
        turn,
        policy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(line: &str) -> String {
        parse_input(line).unwrap_err()
    }

    #[test]
    fn every_message_type_reads() {
        let ask =
            parse_input(r#"{"type":"ask","inquiry":"c1","arguments":{"questions":[]}}"#).unwrap();
        assert_eq!(
            ask,
            Input::Ask(Ask {
                inquiry: "c1".into(),
                dialect: Dialect::JpForm,
                arguments: json!({"questions": []}),
                stream: None,
                interactive: None,
                subagent: false,
                turn: None,
                policy: None,
            })
        );
        assert_eq!(
            parse_input(r#"{"type":"answer","inquiry":"c1","question":"q","value":[1]}"#).unwrap(),
            Input::Answer {
                inquiry: "c1".into(),
                question: "q".into(),
                value: json!([1]),
                by: AnsweredBy::User,
                remember: false,
                note: None,
                step: None,
            }
        );
        assert_eq!(
            parse_input(r#"{"type":"end_turn","inquiry":"c1"}"#).unwrap(),
            Input::EndTurn {
                inquiry: "c1".into()
            }
        );
    }

    #[test]
    fn problems_name_their_field() {
        assert_eq!(
            err("nope"),
            "the line is not JSON (expected ident at line 1 column 2); send one JSON object per line"
        );
        assert_eq!(
            err("[1]"),
            "the line is not a JSON object; send {\"type\": ..., ...}"
        );
        assert_eq!(
            err("{}"),
            "\"type\" is missing; use one of ask, answer, back, reply, end_turn, timed_out, review, submit, change"
        );
        assert_eq!(
            err(r#"{"type":"hello"}"#),
            "unknown \"type\" \"hello\"; use one of ask, answer, back, reply, end_turn, timed_out, review, submit, change"
        );
        assert_eq!(
            err(r#"{"type":"answer","inquiry":"c","question":"q","value":1,"remember":"yes"}"#),
            "\"remember\" must be true (reuse the answer for the rest of the turn) or false"
        );
        assert_eq!(
            err(r#"{"type":"reply","inquiry":"c","message":7}"#),
            "\"message\" must be a string: text the person wrote for the model"
        );
        assert_eq!(
            parse_input(r#"{"type":"reply","inquiry":"c","message":" "}"#).unwrap(),
            Input::Reply {
                inquiry: "c".into(),
                message: None,
                shown: None,
            }
        );
        assert_eq!(
            err(r#"{"type":"back","inquiry":3}"#),
            "\"inquiry\" must be a string: the inquiry's id (the tool call's id)"
        );
        assert_eq!(
            err(r#"{"type":"answer","inquiry":"c","question":"q"}"#),
            "\"value\" is missing; send the answer as JSON (true, \"label\", [\"a\", \"b\"], text or any value a schema allows)"
        );
        assert_eq!(
            err(r#"{"type":"ask","inquiry":"c","dialect":"gpt","arguments":{}}"#),
            "\"dialect\" \"gpt\" is unknown; use one of jp, jp-form, claude, pi, opencode, codex, gemini, mcp"
        );
        assert_eq!(
            err(r#"{"type":"ask","inquiry":"c","origin":{"subagent":"yes"},"arguments":{}}"#),
            "\"origin.subagent\" must be true or false"
        );
    }

    #[test]
    fn an_action_may_name_the_step_and_question_it_was_taken_on() {
        let answer = |line: &str| match parse_input(line).unwrap() {
            Input::Answer { step, .. } => step,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            answer(r#"{"type":"answer","inquiry":"c","question":"q","value":1,"step":3}"#),
            Some(3)
        );
        assert_eq!(
            answer(r#"{"type":"answer","inquiry":"c","question":"q","value":1,"step":null}"#),
            None
        );
        assert_eq!(
            parse_input(r#"{"type":"back","inquiry":"c","question":"env","step":1}"#).unwrap(),
            Input::Back {
                inquiry: "c".into(),
                shown: Some(Shown {
                    question: Some("env".into()),
                    step: 1
                }),
            }
        );
        assert_eq!(
            parse_input(r#"{"type":"change","inquiry":"c","question":"env","step":4}"#).unwrap(),
            Input::Change {
                inquiry: "c".into(),
                question: "env".into(),
                step: Some(4),
            }
        );
        assert_eq!(
            parse_input(r#"{"type":"change","inquiry":"c","step":4}"#).unwrap_err(),
            "\"question\" is missing; give the id of the question whose answer to change"
        );
        assert_eq!(
            parse_input(r#"{"type":"submit","inquiry":"c","step":4}"#).unwrap(),
            Input::Submit {
                inquiry: "c".into(),
                shown: Some(Shown {
                    question: None,
                    step: 4
                }),
            }
        );
        assert_eq!(
            parse_input(r#"{"type":"reply","inquiry":"c","message":"no","step":0}"#).unwrap(),
            Input::Reply {
                inquiry: "c".into(),
                message: Some("no".into()),
                shown: Some(Shown {
                    question: None,
                    step: 0
                }),
            }
        );
        let step = "\"step\" must be a whole number from 0: the \"step\" of the prompt or review line acted on";
        for bad in ["-1", "1.5", "\"2\"", "4294967296"] {
            assert_eq!(
                err(&format!(
                    r#"{{"type":"answer","inquiry":"c","question":"q","value":1,"step":{bad}}}"#
                )),
                step
            );
        }
        assert_eq!(err(r#"{"type":"submit","inquiry":"c","step":true}"#), step);
        assert_eq!(
            err(r#"{"type":"back","inquiry":"c","question":"env"}"#),
            "\"question\" is given without \"step\"; send both, from the prompt line acted on, or neither"
        );
        assert_eq!(
            err(r#"{"type":"reply","inquiry":"c","question":"","step":2}"#),
            "\"question\" is empty; give the id of the question being answered"
        );
    }

    #[test]
    fn a_key_given_twice_is_refused_not_read_as_the_last() {
        assert_eq!(
            err(r#"{"type":"ask","type":"answer","inquiry":"c","question":"q","value":1}"#),
            "the line was not read: the key \"type\" appears twice in one object at line 1 column 20; send each key once"
        );
        assert_eq!(
            err(r#"{"type":"answer","inquiry":"c","question":"q","value":{"a":1,"a":2}}"#),
            "the line was not read: the key \"a\" appears twice in one object at line 1 column 64; send each key once"
        );
    }

    #[test]
    fn stream_names_are_checked_before_anything_is_recorded() {
        let ask = |stream: &str| {
            err(
                &json!({"type": "ask", "inquiry": "c", "stream": stream, "arguments": {}})
                    .to_string(),
            )
        };
        assert_eq!(
            ask(""),
            "\"stream\" is empty; give the name of a log stream"
        );
        assert_eq!(
            ask("s\u{1b}[2J"),
            "\"stream\" has U+001B ESCAPE at character 2; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        assert_eq!(
            ask(&"s".repeat(201)),
            "\"stream\" is 201 bytes long; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
    }
}
