//! The tools served behind a prefix (`askuser mcp --tool-prefix askuser`, as
//! `askuser setup gemini-cli` configures it), driven by the official MCP Python
//! SDK: what `tools/list` gives the client, a call to a renamed tool answered
//! through its form, and a tool error naming the tool as served.

#[allow(dead_code)]
mod common;

use common::{Scratch, accept, migration};
use serde_json::{Value, json};

/// The scenario's server environment: the tools behind `askuser_`.
fn prefixed() -> Value {
    json!({"ASKUSER_MCP_TOOL_PREFIX": "askuser"})
}

#[test]
fn the_client_lists_the_tools_under_their_prefixed_names() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "prefixed-tools",
        None,
        json!({"list_tools": true, "env": prefixed()}),
    );
    let names: Vec<&str> = out["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["askuser_ask_user", "askuser_AskUserQuestion"]);
    insta::assert_json_snapshot!("tools_list_prefixed", out["tools"]);
    assert_eq!(
        out["instructions"],
        "askuser asks the user typed questions through this client's own forms (MCP elicitation), as few forms as the questions' dependencies allow, and records every step. Call askuser_ask_user (typed questions with `when` branching) or askuser_AskUserQuestion (Claude Code's shape) only for what the user alone can tell you, never for secrets. If the user declines, the result carries the answers given so far; if the user dismisses the form, the tool fails: do not ask again in this turn. If this client cannot show forms (no elicitation), askuser never answers for the user: the tool fails with a message saying so and how the user can answer such questions (a pending file, or the web inbox); tell the user, and do not retry in that turn."
    );
}

#[test]
fn a_call_to_the_renamed_tool_is_asked_and_answered() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "prefixed-call",
        None,
        json!({"env": prefixed(), "calls": [{"tool": "askuser_ask_user", "arguments": migration(),
               "responses": [accept(&json!({"apply": false, "note": ""}))]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], false);
    assert_eq!(
        call["structuredContent"],
        json!({"apply": false, "env": null, "confirm": null, "note": "", "limits": null})
    );
}

#[test]
fn a_tool_error_names_the_tool_as_served() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "prefixed-refused",
        None,
        json!({"env": prefixed(), "calls": [{"tool": "askuser_ask_user", "arguments": {"questions": [
            {"id": "a", "text": "Pick?", "answer_type": "select"}]}}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], true);
    assert_eq!(
        call["text"],
        json!([
            "askuser_ask_user: the call was not run. Fix this problem and call the tool again:\n- /questions/0/options: answer_type `select` needs `options`: add a list of at least one choice"
        ])
    );
}
