//! Which protocol version `initialize` answers. 2026-07-28 is stateless (each
//! request carries its version in `_meta`, found through `server/discover`) and is
//! not reachable through the `initialize` handshake: as the official Python SDK's
//! own server does (`HANDSHAKE_PROTOCOL_VERSIONS` of `mcp_types` 2.3.0 ends at
//! 2025-11-25), an `initialize` asking for it is answered with the newest
//! handshake version, 2025-11-25; a version the server knows is answered as asked.

// The SDK helpers of `common` are not used here.
#[allow(dead_code)]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The `protocolVersion` the server answers an `initialize` asking for `asked`.
fn answered(asked: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(common::example("stdio_server"))
        .arg(dir.path().join("db"))
        .arg("v")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": asked, "capabilities": {},
        "clientInfo": {"name": "versions-test", "version": "1"}}});
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let response: Value = serde_json::from_str(&line).unwrap();
    response["result"]["protocolVersion"].clone()
}

#[test]
fn initialize_answers_the_newest_handshake_version_for_a_stateless_one() {
    assert_eq!(answered("2026-07-28"), "2025-11-25");
    assert_eq!(answered("2025-11-25"), "2025-11-25");
    assert_eq!(answered("2025-06-18"), "2025-06-18");
}
