//! Running the official MCP Python SDK (`tests/clients/drive.py`) and
//! TypeScript SDK (`tests/clients/drive.mjs`) against the server
//! (`examples/stdio_server.rs`), and reading back what it recorded.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use askuser_app::log::Log;
use askuser_sled::SledLog;
use serde_json::{Value, json};

/// The bearer token the HTTP servers of the tests take.
pub const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// The Python interpreter with the `mcp` package: `$ASKUSER_TEST_PYTHON`. Never
/// skipped: without it the test fails, saying how to set it up.
pub fn python() -> PathBuf {
    match std::env::var_os("ASKUSER_TEST_PYTHON") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => panic!(
            "ASKUSER_TEST_PYTHON is not set. The MCP tests drive the server with the official MCP Python SDK: run\n  export ASKUSER_TEST_PYTHON=\"$(scripts/mcp-venv.sh | tail -n 1)\"\nfrom the repository root, then run the tests again."
        ),
    }
}

/// An example binary `cargo test` built (`examples/<name>.rs`).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let debug = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    debug.join("examples").join(name)
}

fn server() -> PathBuf {
    example("stdio_server")
}

/// A scratch directory with a log database.
pub struct Scratch {
    /// The directory (removed when dropped).
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("log.db")
    }

    /// Runs the Python client on `scenario` (its `command` filled in) against a
    /// server recording as `stream`; returns what the client printed.
    pub fn drive(&self, stream: &str, pending: Option<&Path>, mut scenario: Value) -> Value {
        let mut command = vec![
            server().display().to_string(),
            self.db().display().to_string(),
            stream.to_owned(),
        ];
        if let Some(dir) = pending {
            command.push(dir.display().to_string());
        }
        scenario["command"] = json!(command);
        scenario["elsewhere_command"] = json!([
            example("elsewhere").display().to_string(),
            self.db().display().to_string(),
            stream
        ]);
        self.run_client(stream, &scenario)
    }

    /// Runs the Python client on `scenario` against the streamable HTTP server
    /// (`examples/http_server.rs`, streams `<stream>-<n>`), stopped afterwards.
    pub fn drive_http(&self, stream: &str, scenario: Value) -> Value {
        self.with_http_server(stream, scenario, Self::run_client)
    }

    /// Starts `examples/http_server.rs` recording as `<stream>-<n>` (taking
    /// [`TOKEN`]), runs `client`
    /// on `scenario` with its URL, and stops the server whatever happens.
    fn with_http_server(
        &self,
        stream: &str,
        mut scenario: Value,
        client: fn(&Self, &str, &Value) -> Value,
    ) -> Value {
        use std::io::BufRead as _;
        let mut child = Command::new(example("http_server"))
            .arg(self.db())
            .arg(stream)
            .arg(TOKEN)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the HTTP server starts");
        let mut url = String::new();
        let stdout = child.stdout.take().expect("its standard output");
        std::io::BufReader::new(stdout)
            .read_line(&mut url)
            .expect("it prints its URL");
        scenario["url"] = json!(url.trim());
        scenario["token"] = json!(TOKEN);
        let out = std::panic::catch_unwind(|| client(self, stream, &scenario));
        let _ = child.kill();
        let _ = child.wait();
        out.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    fn run_client(&self, stream: &str, scenario: &Value) -> Value {
        let path = self.dir.path().join(format!("{stream}.json"));
        std::fs::write(&path, scenario.to_string()).expect("the scenario is written");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/drive.py");
        let output = Command::new(python())
            .arg(script)
            .arg(&path)
            .output()
            .expect("the Python client runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the Python client failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&stdout).expect("the client prints JSON")
    }

    /// Runs the TypeScript client on `scenario` (its `command` filled in) against a
    /// server recording as `stream`; returns what the client printed.
    #[allow(dead_code)] // used by typescript_client.rs only
    pub fn drive_ts(&self, stream: &str, mut scenario: Value) -> Value {
        scenario["command"] = json!([
            server().display().to_string(),
            self.db().display().to_string(),
            stream
        ]);
        self.run_ts(stream, &scenario)
    }

    /// Runs the TypeScript client on `scenario` against the streamable HTTP server
    /// (`examples/http_server.rs`, streams `<stream>-<n>`), stopped afterwards.
    #[allow(dead_code)] // used by typescript_client.rs only
    pub fn drive_ts_http(&self, stream: &str, scenario: Value) -> Value {
        self.with_http_server(stream, scenario, Self::run_ts)
    }

    fn run_ts(&self, stream: &str, scenario: &Value) -> Value {
        let sdk = match std::env::var_os("ASKUSER_TEST_TS_SDK") {
            Some(path) if !path.is_empty() => path,
            _ => panic!(
                "ASKUSER_TEST_TS_SDK is not set. These tests drive the server with the official MCP TypeScript SDK: run the tests with scripts/test, or\n  npm install --prefix target/mcp-ts-sdk-1.32.2 @modelcontextprotocol/sdk@1.32.2\n  export ASKUSER_TEST_TS_SDK=\"$PWD/target/mcp-ts-sdk-1.32.2\""
            ),
        };
        let path = self.dir.path().join(format!("{stream}.ts.json"));
        std::fs::write(&path, scenario.to_string()).expect("the scenario is written");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/drive.mjs");
        let output = Command::new("node")
            .arg(script)
            .arg(&path)
            .env("ASKUSER_TEST_TS_SDK", sdk)
            .output()
            .expect("node runs (install Node.js)");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the TypeScript client failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&stdout).expect("the client prints JSON")
    }

    /// The log, once the server has exited.
    pub fn log(&self) -> Arc<dyn Log> {
        Arc::new(SledLog::open(self.db()).expect("the log opens"))
    }
}

/// The events of `stream` after its request, in words.
#[allow(dead_code)] // used by python_race.rs and python_waiting.rs
///
/// A result recorded handed over to the client (`delivered`) is left out: what
/// the call was given is asserted by each test, and `python_resume.rs` checks
/// those records.
pub fn events(stream: &str, scratch: &Scratch) -> Vec<String> {
    let log = scratch.log();
    let report = askuser_rpc::replay(&*log, stream).unwrap();
    report
        .events
        .iter()
        .skip(1)
        .filter(|e| !matches!(e.event, askuser_core::Event::Delivered { .. }))
        .map(|e| askuser_rpc::describe_event(&e.event))
        .collect()
}

/// The tool result `askuser log replay` re-derives for the stream's last event.
pub fn replayed_result(log: &dyn Log, stream: &str) -> Value {
    let report = askuser_rpc::replay(log, stream).expect("the stream replays");
    assert!(report.matches(), "the replay differs from the record");
    // The last event that yielded a line (a result handed over yields none).
    let last = (report.events.iter().rev())
        .find(|event| !event.outputs.is_empty())
        .expect("an event with a line");
    last.outputs.last().cloned().unwrap_or(Value::Null)
}

/// The rounds recorded in `stream`, each the question ids shown; every one must be
/// the round the walk derives again from the events before it.
pub fn checked_rounds(log: &dyn Log, stream: &str) -> Vec<Vec<String>> {
    let checks = askuser_mcp::check_rounds(log, stream).expect("the stream replays");
    for check in &checks {
        assert!(
            check.matches(),
            "a round differs from its derivation: {check:?}"
        );
    }
    checks.into_iter().map(|check| check.shown).collect()
}

/// RFD D30's migration form, grown to need several rounds: `env` and `limits`
/// wait for `apply`, `confirm` for `env`; `limits` takes JSON.
pub fn migration() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "context": "The migration adds an index.",
         "answer_type": "select", "options": ["staging", "production"],
         "when": {"question_id": "apply", "equals": true}},
        {"id": "confirm", "text": "Production is live. Apply there now?", "answer_type": "boolean",
         "when": {"question_id": "env", "equals": "production"}},
        {"id": "note", "text": "Anything the migration should know?", "answer_type": "text"},
        {"id": "limits", "text": "Resource limits?", "answer_type": "schema",
         "schema": {"type": "object", "properties": {"cpu": {"type": "number"}}, "required": ["cpu"]},
         "when": {"question_id": "apply", "equals": true}}
    ]})
}

pub fn accept(content: &Value) -> Value {
    json!({"action": "accept", "content": content})
}

pub fn messages(call: &Value) -> Vec<String> {
    call["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap().to_owned())
        .collect()
}
