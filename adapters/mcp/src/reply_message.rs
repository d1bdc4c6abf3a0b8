//! A Reply from a form without a Decline button (Codex): the person chose it in
//! a round's last field ([`INSTEAD_FIELD`](crate::walk::INSTEAD_FIELD)), which
//! has no room for what they want to say. So one more small form asks for the
//! message: a free-text field (optional), then the choice to send the Reply or
//! end the turn instead, last, since such a client cannot send a form that ends
//! on an empty text field. Dismissing it sends the Reply without a message.

use askuser_core::InquiryId;
use askuser_core::limits::MAX_ANSWER_BYTES;
use askuser_dialects::Call;
use rmcp::model::{CallToolResult, ElicitationAction};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::progress::Progress;
use crate::server::{AskServer, end_turn, reply_with};
use crate::walk::{INSTEAD_FIELD, Round, Walk};

/// The message field's name.
const MESSAGE_FIELD: &str = "message";

/// The form that asks for a Reply's message.
fn message_round() -> Round {
    Round {
        questions: Vec::new(),
        message:
            "Reply to the assistant: what should it read? (Esc sends the Reply without a message.)"
                .to_owned(),
        schema: json!({
            "type": "object",
            "properties": {
                MESSAGE_FIELD: {
                    "type": "string",
                    "title": "Your reply to the assistant",
                    "description": "Optional. Enter needs text here; Ctrl+N moves on without it."
                },
                INSTEAD_FIELD: {
                    "type": "string",
                    "title": "Send the Reply, or instead:",
                    "oneOf": [
                        {"const": "reply", "title": "Send the Reply"},
                        {"const": "end_turn", "title": "End the turn (the assistant gets no answers)"}
                    ],
                    "default": "reply"
                }
            }
        }),
        limited: None,
    }
}

/// The message a response carries: its text, cut to [`MAX_ANSWER_BYTES`] at a
/// character's boundary; `None` when it is blank or not text.
fn message_of(content: Option<&Value>) -> Option<String> {
    let text = content?.get(MESSAGE_FIELD)?.as_str()?;
    let mut end = text.len().min(MAX_ANSWER_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(text[..end].to_owned()).filter(|text| !text.trim().is_empty())
}

impl AskServer {
    /// Asks for the message of the Reply the person chose in a round's last
    /// field, then records the Reply with it (or the end of the turn, when the
    /// person chose that instead): the call's result.
    pub(crate) async fn reply_asking_its_message(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        walk: &mut Walk,
        progress: &mut Progress<'_>,
        request: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let round = message_round();
        let result = match self.elicit(call, inquiry, &round, progress, request).await {
            Ok(result) => result,
            Err(ended) => return *ended,
        };
        let content = result.content.as_ref();
        let chose = content
            .and_then(|c| c.get(INSTEAD_FIELD))
            .and_then(Value::as_str);
        match (result.action, chose) {
            (ElicitationAction::Accept, Some("end_turn")) => end_turn(&self.recorder, call, walk),
            (ElicitationAction::Accept, _) => {
                reply_with(&self.recorder, call, walk, message_of(content))
            }
            _ => reply_with(&self.recorder, call, walk, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_its_text_cut_at_the_limit_and_blank_is_none() {
        let of = |content: Value| message_of(Some(&content));
        assert_eq!(
            of(json!({"message": "use staging"})).as_deref(),
            Some("use staging")
        );
        assert_eq!(of(json!({"message": "  "})), None);
        assert_eq!(of(json!({"message": 3})), None);
        assert_eq!(of(json!({})), None);
        let long = "é".repeat(MAX_ANSWER_BYTES);
        let cut = of(json!({"message": long})).unwrap();
        assert!(cut.len() <= MAX_ANSWER_BYTES && cut.len() + 2 > MAX_ANSWER_BYTES);
    }
}
