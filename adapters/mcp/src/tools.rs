//! The server's tools (`ask_user` in the `jp-form` dialect, `AskUserQuestion` in
//! Claude Code's), their output schemas, the server's instructions, and tool results.

use std::sync::Arc;

use askuser_dialects::definition::{description, parameters};
use askuser_dialects::{Dialect, ToolResult};
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Value, json};

use crate::config::WithoutElicitation;

/// The dialects the server's tools speak, in `tools/list` order.
pub const TOOLS: [Dialect; 2] = [Dialect::JpForm, Dialect::Claude];

/// The longest prefix [`ToolNames::prefixed`] takes: with `_` and the longest
/// tool name (`AskUserQuestion`) it stays within the 64 characters hosts allow
/// in a tool's name.
pub const MAX_PREFIX_CHARS: usize = 32;

/// The names the server's tools are served under: each dialect's own
/// (`ask_user`, `AskUserQuestion`), or each behind a prefix and `_`
/// (`askuser_ask_user`, `askuser_AskUserQuestion`) for a host whose own tools
/// would shadow them (Gemini CLI has an `ask_user` of its own, and leaves a
/// server's tool of that name out of `gemini -p`). A call is answered only under
/// the served names, and its tool result names the tool as served.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNames {
    prefix: Option<String>,
}

/// A `--tool-prefix` that cannot begin a tool's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--tool-prefix must be 1 to {MAX_PREFIX_CHARS} ASCII letters, digits, `_` or `-` (it begins the tools' names: PREFIX_ask_user), not \"{0}\""
)]
pub struct ToolPrefixError(pub String);

impl ToolNames {
    /// Each tool under its dialect's own name.
    #[must_use]
    pub fn plain() -> Self {
        Self::default()
    }

    /// Each tool as `PREFIX_<its name>`.
    ///
    /// # Errors
    /// [`ToolPrefixError`] unless `prefix` is 1 to [`MAX_PREFIX_CHARS`] ASCII
    /// letters, digits, `_` or `-` (what every host takes in a tool's name).
    pub fn prefixed(prefix: &str) -> Result<Self, ToolPrefixError> {
        let fits = (1..=MAX_PREFIX_CHARS).contains(&prefix.len())
            && prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !fits {
            let shown = askuser_core::text::for_display_line(prefix);
            return Err(ToolPrefixError(shown.into_owned()));
        }
        Ok(Self {
            prefix: Some(prefix.to_owned()),
        })
    }

    /// The prefix, if the tools are served behind one.
    #[must_use]
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The name `dialect`'s tool is served under.
    #[must_use]
    pub fn served(&self, dialect: Dialect) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{}", dialect.tool_name()),
            None => dialect.tool_name().to_owned(),
        }
    }

    /// The dialect of the tool served as `name` (exactly), if it is one of the
    /// server's.
    pub(crate) fn dialect_of(&self, name: &str) -> Option<Dialect> {
        TOOLS.into_iter().find(|d| self.served(*d) == name)
    }

    /// The served names, joined for a message (`ask_user and AskUserQuestion`).
    pub(crate) fn listed(&self) -> String {
        let names: Vec<String> = TOOLS.into_iter().map(|d| self.served(d)).collect();
        names.join(" and ")
    }

    /// `text` (the server's own words, naming `dialect`'s tool as the engine
    /// does) naming the tool as served: in a leading `ask_user:` and in `Call
    /// ask_user again`. Text quoted from elsewhere in it is left as it is.
    fn renamed(&self, dialect: Dialect, text: &str) -> String {
        let own = dialect.tool_name();
        let served = self.served(dialect);
        let text = match text.strip_prefix(own) {
            Some(rest) if rest.starts_with(':') => format!("{served}{rest}"),
            _ => text.to_owned(),
        };
        text.replace(
            &format!("Call {own} again"),
            &format!("Call {served} again"),
        )
    }

    /// `response`, its text naming `dialect`'s tool as served.
    pub(crate) fn served_response(
        &self,
        dialect: Dialect,
        response: CallToolResponse,
    ) -> CallToolResponse {
        if self.prefix.is_none() {
            return response;
        }
        match response {
            CallToolResponse::Complete(mut result) => {
                for block in &mut result.content {
                    if let ContentBlock::Text(content) = block {
                        content.text = self.renamed(dialect, &content.text);
                    }
                }
                CallToolResponse::Complete(result)
            }
            other => other,
        }
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// What the tool's `structuredContent` holds.
fn output_schema(dialect: Dialect) -> Value {
    let pending = "While the questions wait in a pending file (the client cannot show forms): {\"status\": \"pending\", \"file\": \"<path>\", \"instructions\": \"<how the person answers it>\"}.";
    match dialect {
        Dialect::Claude => json!({
            "type": "object",
            "description": format!("{{\"answers\": {{\"<question text>\": \"<label, labels joined with \\\", \\\", or the user's own text>\"}}}}; after the user declines, {{\"cancelled\": true, \"answers\": {{...answers so far...}}}}. {pending}"),
            "properties": {
                "answers": {"type": "object", "additionalProperties": {"type": "string"}},
                "cancelled": {"type": "boolean"},
                "status": {"type": "string"},
                "file": {"type": "string"},
                "instructions": {"type": "string"}
            }
        }),
        _ => json!({
            "type": "object",
            "description": format!("Every question id mapped to its answer, or null for a question its `when` skipped; after the user declines, {{\"cancelled\": true, \"answered\": {{...answers so far...}}}}. {pending}"),
        }),
    }
}

/// The tool definitions of `tools/list`, under the served names (the
/// description names its tool as served).
pub(crate) fn tools(names: &ToolNames) -> Vec<Tool> {
    TOOLS
        .into_iter()
        .map(|dialect| {
            let served = names.served(dialect);
            let description = description(dialect).replace(dialect.tool_name(), &served);
            Tool::new(served, description, object(parameters(dialect)))
                .with_raw_output_schema(object(output_schema(dialect)))
        })
        .collect()
}

/// The server's instructions (naming the tools as served), saying what happens
/// when the client cannot show forms.
pub(crate) fn instructions(without: &WithoutElicitation, names: &ToolNames) -> String {
    let fallback = match without {
        WithoutElicitation::Pending { .. } => {
            "If this client cannot show forms (no elicitation), askuser never answers for the user: it writes the questions to a pending file, and the tool result says the exact command the user runs to answer (`askuser answer FILE`); tell the user, and end your turn."
        }
        WithoutElicitation::Fail => {
            "If this client cannot show forms (no elicitation), askuser never answers for the user: the tool fails with a message saying so and how the user can answer such questions (a pending file, or the web inbox); tell the user, and do not retry in that turn."
        }
    };
    let (ask_user, ask_user_question) =
        (names.served(Dialect::JpForm), names.served(Dialect::Claude));
    format!(
        "askuser asks the user typed questions through this client's own forms (MCP elicitation), as few forms as the questions' dependencies allow, and records every step. Call {ask_user} (typed questions with `when` branching) or {ask_user_question} (Claude Code's shape) only for what the user alone can tell you, never for secrets. If the user declines, the result carries the answers given so far; if the user dismisses the form, the tool fails: do not ask again in this turn. {fallback}"
    )
}

/// The tool error when this client cannot show forms and no pending directory
/// was given: what the model tells the person, who can set askuser up to
/// answer from a file or a browser.
pub(crate) fn no_forms(tool: &str) -> String {
    format!(
        "{tool}: this MCP client cannot show forms (it does not support elicitation), so the user cannot be asked here. Do not retry this tool call in this turn; ask the user in plain words instead. Tell the user that to answer such questions with this client, askuser mcp can be started with --pending-dir DIR: the questions then wait in a file, answered with `askuser answer FILE` or from a browser with `askuser web`."
    )
}

/// The tool error when the client's form came back empty twice for one round:
/// the questions stay open for the other surfaces.
pub(crate) fn came_back_empty(tool: &str) -> String {
    format!(
        "{tool}: this client's form came back empty twice, so it may not be able to show these questions. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn."
    )
}

/// The tool error after the person dismissed the form (`cancel`).
pub(crate) fn dismissed(tool: &str) -> String {
    format!(
        "{tool}: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."
    )
}

/// A dialect's tool result as an MCP result: a JSON result as text content and as
/// `structuredContent`; a text result as text; an error as a tool error.
pub(crate) fn call_result(result: ToolResult) -> CallToolResult {
    match result {
        ToolResult::Success(value) => CallToolResult::structured(value),
        ToolResult::Text(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        ToolResult::Error(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_renames_every_tool_and_only_the_served_names_are_answered() {
        let names = ToolNames::prefixed("askuser").unwrap();
        assert_eq!(names.served(Dialect::JpForm), "askuser_ask_user");
        assert_eq!(
            names.listed(),
            "askuser_ask_user and askuser_AskUserQuestion"
        );
        assert_eq!(
            names.dialect_of("askuser_AskUserQuestion"),
            Some(Dialect::Claude)
        );
        assert_eq!(names.dialect_of("ask_user"), None);
        assert_eq!(names.dialect_of("ASKUSER_ask_user"), None);
        assert_eq!(
            ToolNames::plain().dialect_of("ask_user"),
            Some(Dialect::JpForm)
        );
        assert_eq!(ToolNames::plain().dialect_of("askuser_ask_user"), None);
    }

    #[test]
    fn a_prefix_that_cannot_begin_a_tool_name_is_refused() {
        let long = "p".repeat(MAX_PREFIX_CHARS + 1);
        for prefix in ["", "ask user", "ask.user", "é", long.as_str()] {
            assert!(ToolNames::prefixed(prefix).is_err(), "{prefix:?}");
        }
        assert_eq!(
            ToolNames::prefixed("a\u{1b}[31m").unwrap_err().to_string(),
            "--tool-prefix must be 1 to 32 ASCII letters, digits, `_` or `-` (it begins the tools' names: PREFIX_ask_user), not \"a\\u{1b}[31m\""
        );
        assert!(ToolNames::prefixed(&"p".repeat(MAX_PREFIX_CHARS)).is_ok());
    }

    #[test]
    fn the_server_s_words_name_the_tool_as_served_and_quoted_text_is_kept() {
        let names = ToolNames::prefixed("au").unwrap();
        assert_eq!(
            names.renamed(
                Dialect::JpForm,
                "ask_user: the requestState was refused (x). Call ask_user again without requestState."
            ),
            "au_ask_user: the requestState was refused (x). Call au_ask_user again without requestState."
        );
        assert_eq!(
            names.renamed(Dialect::JpForm, "The user answered: ask_user: yes"),
            "The user answered: ask_user: yes"
        );
        assert_eq!(
            names.renamed(Dialect::JpForm, "ask_users: x"),
            "ask_users: x"
        );
    }
}
