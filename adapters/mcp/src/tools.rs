//! The server's tools (`ask_user` in the `jp-form` dialect, `AskUserQuestion` in
//! Claude Code's), their output schemas, the server's instructions, and tool results.

use std::sync::Arc;

use askuser_llm::definition::{description, parameters};
use askuser_llm::{Dialect, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Value, json};

use crate::config::WithoutElicitation;

/// The dialects the server's tools speak, in `tools/list` order.
pub const TOOLS: [Dialect; 2] = [Dialect::JpForm, Dialect::Claude];

/// The dialect of the tool named `name`, if it is one of the server's.
pub(crate) fn dialect_of(name: &str) -> Option<Dialect> {
    TOOLS.into_iter().find(|d| d.tool_name() == name)
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// What the tool's `structuredContent` holds.
fn output_schema(dialect: Dialect) -> Value {
    let pending = "While the questions wait in a pending file (the client cannot show forms): {\"status\": \"pending\", \"file\": \"<path>\"}.";
    match dialect {
        Dialect::Claude => json!({
            "type": "object",
            "description": format!("{{\"answers\": {{\"<question text>\": \"<label, labels joined with \\\", \\\", or the user's own text>\"}}}}; after the user declines, {{\"cancelled\": true, \"answers\": {{...answers so far...}}}}. {pending}"),
            "properties": {
                "answers": {"type": "object", "additionalProperties": {"type": "string"}},
                "cancelled": {"type": "boolean"},
                "status": {"type": "string"},
                "file": {"type": "string"}
            }
        }),
        _ => json!({
            "type": "object",
            "description": format!("Every question id mapped to its answer, or null for a question its `when` skipped; after the user declines, {{\"cancelled\": true, \"answered\": {{...answers so far...}}}}. {pending}"),
        }),
    }
}

/// The tool definitions of `tools/list`.
pub(crate) fn tools() -> Vec<Tool> {
    TOOLS
        .into_iter()
        .map(|dialect| {
            Tool::new(
                dialect.tool_name(),
                description(dialect),
                object(parameters(dialect)),
            )
            .with_raw_output_schema(object(output_schema(dialect)))
        })
        .collect()
}

/// The server's instructions, saying what happens when the client cannot show forms.
pub(crate) fn instructions(without: &WithoutElicitation) -> String {
    let fallback = match without {
        WithoutElicitation::Pending { .. } => {
            "If this client cannot show forms (no elicitation), askuser never answers for the user: it writes the questions to a pending file, and the tool result says the exact command the user runs to answer (`askuser answer FILE`); tell the user, and end your turn."
        }
        WithoutElicitation::Fail => {
            "If this client cannot show forms (no elicitation), askuser never answers for the user: the tool fails with a message saying so and how the user can answer such questions (a pending file, or the web inbox); tell the user, and do not retry in that turn."
        }
    };
    format!(
        "askuser asks the user typed questions through this client's own forms (MCP elicitation), as few forms as the questions' dependencies allow, and records every step. Call ask_user (typed questions with `when` branching) or AskUserQuestion (Claude Code's shape) only for what the user alone can tell you, never for secrets. If the user declines, the result carries the answers given so far; if the user dismisses the form, the tool fails: do not ask again in this turn. {fallback}"
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
