//! Clients without elicitation: the questions go to a pending file, and the result
//! says how the person answers (`askuser answer FILE`). Nothing is answered for them.

use std::path::Path;

use askuser_app::log::{Clock, SystemClock};
use askuser_app::pending::{PendingFile, instructions};
use askuser_core::InquiryId;
use askuser_dialects::Call;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

use crate::config::Config;

/// Writes the pending file of `inquiry` of `stream` into `dir` (a new file, never one that
/// exists) and returns the result telling the model how the person answers.
pub(crate) fn write_pending(
    config: &Config,
    stream: &str,
    dir: &Path,
    call: &Call,
    inquiry: &InquiryId,
) -> CallToolResult {
    let tool = call.tool_name();
    let name = format!("askuser-{}-{}.json", safe(stream), safe(inquiry.as_str()));
    let path = dir.join(name);
    let path = std::path::absolute(&path).unwrap_or(path);
    let file = PendingFile::for_call(
        config.db.as_deref(),
        stream,
        inquiry,
        call,
        SystemClock.now().to_string(),
    );
    // Sealed to its log, stream and inquiry: `askuser answer` refuses an edit of
    // any of them.
    let file = match config.db.as_deref().map(askuser_app::pending::key) {
        None => file,
        Some(Ok(key)) => file.sealed(&key),
        Some(Err(error)) => {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "{tool}: askuser could not seal the pending questions to their log ({error}). Do not retry this tool call in this turn."
            ))]);
        }
    };
    // Whole or not at all (a person listing pending files at that moment never
    // reads it empty), never over a file already there, the person's alone
    // (created 0600).
    if let Err(error) = file.write_new(&path) {
        // The error names the file.
        return CallToolResult::error(vec![ContentBlock::text(format!(
            "{tool}: askuser could not write the pending questions: {error}. Do not retry this tool call in this turn."
        ))]);
    }
    let text = instructions(&path);
    // The words go in the structured content too: hosts that pass the model
    // only `structuredContent` (Claude Code, Codex) would drop them otherwise.
    let mut result = CallToolResult::structured(json!({
        "status": "pending",
        "file": path.display().to_string(),
        "instructions": text,
    }));
    result.content = vec![ContentBlock::text(text)];
    result
}

/// A name part made of letters, digits, `-` and `_` only.
fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
