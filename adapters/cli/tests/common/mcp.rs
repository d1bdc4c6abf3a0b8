//! Talking to `askuser mcp` over its standard input and output as an MCP
//! client does: the hello, one tool call (request 2), and its response.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The arguments of a one-question `ask_user` call: "Deploy now?", yes or no.
pub fn deploy_now() -> Value {
    json!({"questions": [{"id": "answer", "text": "Deploy now?", "answer_type": "boolean"}]})
}

/// Says hello on `input` as the client `name` at `version` (`initialize`, then
/// `notifications/initialized`), then sends request 2, `tools/call` with
/// `params`.
pub fn hello_and_call(input: &mut impl Write, (name, version): (&str, &str), params: &Value) {
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": name, "version": version}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}),
    ] {
        writeln!(input, "{line}").expect("the server reads");
    }
    input.flush().expect("the server reads");
}

/// Reads `output` up to the response to request 2, handing every message
/// before it to `seen` (a progress notification, say); that response.
pub fn response_to_call(output: &mut impl BufRead, mut seen: impl FnMut(&Value)) -> Value {
    loop {
        let mut line = String::new();
        assert_ne!(
            output.read_line(&mut line).expect("the server writes"),
            0,
            "no answer to the call"
        );
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        if message["id"] == 2 {
            return message;
        }
        seen(&message);
    }
}
