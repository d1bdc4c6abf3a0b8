//! Questions for the assistant (RFD 028: a policy that targets the assistant and
//! is not exclusive), answered through the client's sampling
//! (`sampling/createMessage`): the question and its answer's JSON Schema go to
//! the client's model, whose reply the engine checks and records with
//! `by: assistant`.
//!
//! The reply is untrusted: over [`MAX_REPLY_BYTES`], holding a control or bidi
//! character, or not fitting the schema, it is refused and the model is asked
//! again with the reason, at most [`MAX_TRIES`] times a question; then the call
//! fails (recorded as `backend_error`). Nothing is asked of the person for it.
//!
//! rmcp marks sampling deprecated (SEP-2577 drops it from protocol 2026-07-28
//! on); the protocol versions this module serves, 2025-06-18 and 2025-11-25,
//! have it.
#![allow(deprecated)]

use askuser_core::limits::MAX_ANSWER_BYTES;
use askuser_core::text::forbidden_control;
use askuser_core::{CancelReason, ValidForm};
use askuser_dialects::Call;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::server::{AskServer, done_result, error_result, not_recorded};
use crate::walk::{Sampled, Walk};

/// How many times the model is asked one question before the call fails.
pub(crate) const MAX_TRIES: u32 = 3;
/// The longest reply read, in bytes (the engine's limit on an answer).
pub(crate) const MAX_REPLY_BYTES: usize = MAX_ANSWER_BYTES;
/// The tokens the model may use for a reply.
const MAX_TOKENS: u32 = 2048;

const SYSTEM_PROMPT: &str = "You are answering a question that askuser routed to you, the assistant, instead of to the user. Reply with the answer alone, as JSON valid against the JSON Schema given: no prose, no code fence.";

/// The tool error when the questions are for the assistant and the client
/// cannot be asked through sampling (it does not offer it, or speaks protocol
/// 2026-07-28, which has no server-to-client requests).
pub(crate) fn no_sampling(tool: &str) -> String {
    format!(
        "{tool}: these questions are for you (the assistant), and askuser asks the assistant through the client's sampling (sampling/createMessage), which this client does not offer. Do not retry this tool call in this turn; answer them yourself from what you know."
    )
}

impl AskServer {
    /// Asks the client's model question `index`, which the engine routed to the
    /// assistant, until an answer fits ([`MAX_TRIES`] at most): the result when
    /// the call ends, `None` when the walk goes on.
    pub(crate) async fn ask_assistant(
        &self,
        call: &Call,
        walk: &mut Walk,
        index: usize,
        request: &RequestContext<RoleServer>,
    ) -> Option<CallToolResult> {
        let inquiry = walk.inquiry().clone();
        let can_sample = request
            .client_capabilities()
            .is_some_and(|c| c.sampling.is_some());
        if !can_sample {
            let message = "the client offers no sampling";
            let _ = self.fail_with(call, &inquiry, CancelReason::BackendError, &message);
            return Some(error_result(no_sampling(call.tool_name())));
        }
        let mut refused: Option<String> = None;
        for _ in 0..MAX_TRIES {
            let params = sampling_params(walk.form(), index, refused.as_deref());
            let asking = request.peer.create_message(params);
            tokio::pin!(asking);
            let sampled = tokio::select! {
                sampled = &mut asking => sampled,
                () = request.ct.cancelled() => return Some(self.stopped(call, &inquiry, &request.peer)),
            };
            let result = match sampled {
                Ok(result) => result,
                Err(_) if request.ct.is_cancelled() || request.peer.is_transport_closed() => {
                    return Some(self.stopped(call, &inquiry, &request.peer));
                }
                Err(error) => {
                    let why = format!("sampling/createMessage failed: {error}");
                    return Some(self.fail_with(call, &inquiry, CancelReason::BackendError, &why));
                }
            };
            let value = match read_reply(&result) {
                Ok(value) => value,
                Err(why) => {
                    refused = Some(why);
                    continue;
                }
            };
            match walk.answer_by_assistant(&self.recorder, index, &value) {
                Ok(Sampled::Next) => return None,
                Ok(Sampled::Done(done)) => return Some(done_result(call, &done)),
                Ok(Sampled::Refused(why)) => refused = Some(why),
                Err(error) => return Some(not_recorded(call.tool_name(), &error)),
            }
        }
        let why = format!(
            "the assistant's answers to \"{}\" did not fit {MAX_TRIES} times; the last: {}",
            walk.form().question(index).id,
            refused.unwrap_or_default()
        );
        Some(self.fail_with(call, &inquiry, CancelReason::BackendError, &why))
    }
}

/// The `sampling/createMessage` request for question `index` of `form`, with the
/// reason its last answer was refused, if it was. The schema goes in the text
/// and in `metadata.askuser.schema`.
pub(crate) fn sampling_params(
    form: &ValidForm,
    index: usize,
    refused: Option<&str>,
) -> CreateMessageRequestParams {
    let question = form.question(index);
    let schema = form.answer_schema(index);
    let mut text = String::new();
    if let Some(context) = &question.context {
        text.push_str(context);
        text.push_str("\n\n");
    }
    text.push_str(&question.text);
    text.push_str("\n\nAnswer with JSON valid against this JSON Schema:\n");
    text.push_str(&schema.to_string());
    if let Some(reason) = refused {
        text.push_str("\n\nYour last answer was not accepted: ");
        text.push_str(reason);
    }
    let mut params =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], MAX_TOKENS);
    params.system_prompt = Some(SYSTEM_PROMPT.to_owned());
    params.metadata = Some(json!({"askuser": {"question": question.id, "schema": schema}}));
    params
}

/// The answer a reply holds: its text read as JSON (inside a code fence too),
/// or the text itself as a string when it is not JSON. Why not, when the reply
/// cannot be an answer at all.
pub(crate) fn read_reply(result: &CreateMessageResult) -> Result<Value, String> {
    let mut text = String::new();
    for block in result.message.content.clone().into_vec() {
        if let Some(part) = block.as_text() {
            if text.len() + part.text.len() > MAX_REPLY_BYTES {
                return Err(format!(
                    "the reply is longer than {} KiB",
                    MAX_REPLY_BYTES / 1024
                ));
            }
            text.push_str(&part.text);
        }
    }
    if let Some(bad) = forbidden_control(&text) {
        return Err(format!("the reply has {bad}; answer in plain text"));
    }
    let text = unfenced(text.trim());
    if text.is_empty() {
        return Err("the reply holds no text".to_owned());
    }
    Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())))
}

/// `text` without a Markdown code fence around it.
fn unfenced(text: &str) -> &str {
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let Some(inner) = inner.strip_suffix("```") else {
        return text;
    };
    // The fence's language tag (```json) ends at the first newline.
    inner
        .split_once('\n')
        .map_or(inner, |(tag, rest)| {
            if tag.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
                rest
            } else {
                inner
            }
        })
        .trim()
}

#[cfg(test)]
mod tests {
    use super::{read_reply, sampling_params};
    use askuser_core::parse_form;
    use rmcp::model::{CreateMessageResult, SamplingMessage};
    use serde_json::json;

    fn reply(text: &str) -> CreateMessageResult {
        CreateMessageResult::new(SamplingMessage::assistant_text(text), "m".to_owned())
    }

    #[test]
    fn a_reply_is_json_or_text_and_hostile_text_is_refused() {
        assert_eq!(read_reply(&reply(" true ")), Ok(json!(true)));
        assert_eq!(
            read_reply(&reply("```json\n{\"cpu\": 2}\n```")),
            Ok(json!({"cpu": 2}))
        );
        assert_eq!(read_reply(&reply("staging")), Ok(json!("staging")));
        assert_eq!(
            read_reply(&reply("a\u{1b}[2Jb")),
            Err("the reply has U+001B ESCAPE at character 2; answer in plain text".to_owned())
        );
        assert_eq!(
            read_reply(&reply(&"x".repeat(70_000))),
            Err("the reply is longer than 64 KiB".to_owned())
        );
        assert_eq!(
            read_reply(&reply("  ")),
            Err("the reply holds no text".to_owned())
        );
    }

    #[test]
    fn the_request_carries_the_question_and_its_schema() {
        let form = parse_form(&json!({"questions": [
            {"id": "env", "text": "Which environment?", "answer_type": "select",
             "options": ["staging", "production"]}]}))
        .unwrap();
        let params = sampling_params(&form, 0, Some("must be one of the options"));
        let schema = form.answer_schema(0);
        assert_eq!(
            params.metadata,
            Some(json!({"askuser": {"question": "env", "schema": schema}}))
        );
        let text = serde_json::to_value(&params.messages[0]).unwrap();
        assert_eq!(
            text["content"]["text"],
            format!(
                "Which environment?\n\nAnswer with JSON valid against this JSON Schema:\n{schema}\n\nYour last answer was not accepted: must be one of the options"
            )
        );
    }
}
