//! The real hosts, each set up in a scratch directory as a new user would have
//! it after set-up: its home (and Codex's `CODEX_HOME`) there, onboarding and
//! trust accepted, the scripted model's key approved, updates and telemetry off,
//! and askuser's MCP server (`askuser mcp --db <scratch>/log.db --stream s`) added
//! with its tools allowed. The executables come from `scripts/test-env`
//! (`ASKUSER_TEST_CLAUDE`, `ASKUSER_TEST_CODEX`, `ASKUSER_TEST_GEMINI`,
//! `ASKUSER_TEST_OPENCODE`).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::json;

use super::model::Model;
use super::{BIN, Scratch};

/// The scripted model's API key (Claude Code approves keys by their last 20
/// characters).
const KEY: &str = "sk-ant-scripted-0123456789abcdefghij";

/// Variables a host must not see: CI sets `CI=true`, and Gemini CLI (Ink) then
/// draws no interactive screen at all.
const UNSET: [&str; 2] = ["CI", "CONTINUOUS_INTEGRATION"];

/// A host ready to run in a scratch directory.
pub struct Host {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// The project directory the host runs in (askuser records it as the place).
    pub dir: PathBuf,
}

impl Host {
    /// The host run with `args` after its own, for a headless run.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .args(args)
            .current_dir(&self.dir)
            .env_remove(UNSET[0])
            .env_remove(UNSET[1])
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// A shell command that runs the host interactive (for a tmux pane).
    pub fn shell(&self) -> String {
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let env: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", quote(v)))
            .collect();
        let args: Vec<String> = self.args.iter().map(|a| quote(a)).collect();
        let unset: Vec<String> = UNSET.iter().map(|k| format!("-u {k}")).collect();
        format!(
            "cd {} && env {} {} {} {}; sleep 600",
            quote(&self.dir.display().to_string()),
            unset.join(" "),
            env.join(" "),
            quote(&self.program),
            args.join(" ")
        )
    }
}

/// The executable `scripts/test-env` exported as `var`.
fn executable(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: the real-host tests need the hosts installed from npm \
             (`. scripts/test-env` installs them under target/real-hosts-<hash> and exports it)"
        )
    })
}

/// The arguments of askuser's MCP server for `scratch`, with `extra`.
fn askuser_args(scratch: &Scratch, extra: &[&str]) -> Vec<String> {
    ["mcp", "--db", &scratch.db(), "--stream", "s"]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect()
}

/// The environment every host gets: its home in the scratch directory, and the
/// machine's name askuser records.
fn base_env(scratch: &Scratch) -> Vec<(String, String)> {
    vec![
        ("HOME".into(), scratch.path("home").display().to_string()),
        ("ASKUSER_MACHINE".into(), "laptop".into()),
        ("NO_COLOR".into(), "1".into()),
    ]
}

fn write(path: PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a scratch directory");
    std::fs::write(path, text).expect("a scratch file");
}

fn project(scratch: &Scratch) -> PathBuf {
    let dir = scratch.path("project");
    std::fs::create_dir_all(&dir).expect("a project directory");
    dir
}

/// Claude Code against `model`, with askuser's server started with `extra`
/// arguments (`--mcp-config`, `--strict-mcp-config`; tool search off, so the
/// tools are offered to the model).
pub fn claude(scratch: &Scratch, model: &Model, extra: &[&str]) -> Host {
    let server = json!({"type": "stdio", "command": BIN, "args": askuser_args(scratch, extra),
        "env": {"ASKUSER_MACHINE": "laptop"}});
    claude_with(scratch, model, &server)
}

/// Claude Code against `model`, with askuser's server at `url` (streamable
/// HTTP, `askuser mcp --http`), sending its `token` as a bearer credential.
pub fn claude_http(scratch: &Scratch, model: &Model, url: &str, token: &str) -> Host {
    let headers = json!({"Authorization": format!("Bearer {token}")});
    claude_with(
        scratch,
        model,
        &json!({"type": "http", "url": url, "headers": headers}),
    )
}

/// Claude Code's own file for a person who has been through its onboarding:
/// trust in the project accepted, the scripted model's key approved.
fn claude_onboarded(scratch: &Scratch, dir: &std::path::Path) {
    let config = json!({
        "hasCompletedOnboarding": true,
        "lastOnboardingVersion": "2.1.332",
        "theme": "dark",
        "customApiKeyResponses": {"approved": [&KEY[KEY.len() - 20..]], "rejected": []},
        "projects": {dir.display().to_string(): {
            "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []}},
    });
    write(
        scratch.path("home").join(".claude.json"),
        &config.to_string(),
    );
}

/// Claude Code's environment against `model`.
fn claude_env(scratch: &Scratch, model: &Model) -> Vec<(String, String)> {
    let mut env = base_env(scratch);
    for (k, v) in [
        ("ANTHROPIC_BASE_URL", model.url().as_str()),
        ("ANTHROPIC_API_KEY", KEY),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_TELEMETRY", "1"),
        // The first turn waits for askuser's server to connect: otherwise, on a
        // busy machine, the turn can go out before its tools are offered.
        ("MCP_CONNECTION_NONBLOCKING", "false"),
    ] {
        env.push((k.into(), v.into()));
    }
    env
}

/// Runs `askuser setup HOST --db <scratch log>` as the person would, with the
/// host's environment (its home, `CODEX_HOME`); returns what it printed.
fn set_up(scratch: &Scratch, host: &str, env: &[(String, String)]) -> String {
    let db = scratch.db();
    let output = Command::new(BIN)
        .args(["setup", host, "--db", &db])
        .current_dir(project(scratch))
        .env_remove("ASKUSER_DB")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("askuser setup runs");
    assert!(
        output.status.success(),
        "askuser setup {host}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Claude Code against `model` with askuser set up by `askuser setup
/// claude-code` alone: no configuration of askuser's by hand.
pub fn claude_set_up(scratch: &Scratch, model: &Model) -> Host {
    let dir = project(scratch);
    claude_onboarded(scratch, &dir);
    let env = claude_env(scratch, model);
    set_up(scratch, "claude-code", &env);
    Host {
        program: executable("ASKUSER_TEST_CLAUDE"),
        args: Vec::new(),
        env,
        dir,
    }
}

fn claude_with(scratch: &Scratch, model: &Model, server: &serde_json::Value) -> Host {
    let dir = project(scratch);
    let home = scratch.path("home");
    claude_onboarded(scratch, &dir);
    let settings = json!({"permissions": {"allow": ["mcp__askuser"]}});
    write(home.join(".claude/settings.json"), &settings.to_string());
    let servers = json!({"mcpServers": {"askuser": server}});
    let mcp = scratch.path("mcp.json");
    write(mcp.clone(), &servers.to_string());
    let mut env = claude_env(scratch, model);
    env.push(("ENABLE_TOOL_SEARCH".into(), "false".into()));
    Host {
        program: executable("ASKUSER_TEST_CLAUDE"),
        args: vec![
            "--mcp-config".into(),
            mcp.display().to_string(),
            "--strict-mcp-config".into(),
        ],
        env,
        dir,
    }
}

/// Codex against `model` (a `model_providers` entry on the Responses API, with
/// analytics and plugins off: nothing leaves the machine, not even a DNS query), with
/// askuser's server started with `extra` arguments and its tools approved, and
/// without its shared background server (`--no-daemon`: the TUI otherwise starts
/// an app-server daemon, with askuser's server under it, that outlives it).
pub fn codex(scratch: &Scratch, model: &Model, extra: &[&str]) -> Host {
    let dir = project(scratch);
    let args: Vec<String> = askuser_args(scratch, extra)
        .iter()
        .map(|a| format!("{a:?}"))
        .collect();
    let server = format!(
        r#"
[mcp_servers.askuser]
command = {BIN:?}
args = [{}]
env = {{ ASKUSER_MACHINE = "laptop" }}
default_tools_approval_mode = "approve"
"#,
        args.join(", ")
    );
    codex_with(scratch, model, &dir, &server);
    codex_host(scratch, dir)
}

/// Codex against `model` with askuser set up by `askuser setup codex` alone:
/// no configuration of askuser's by hand.
pub fn codex_set_up(scratch: &Scratch, model: &Model) -> Host {
    let dir = project(scratch);
    codex_with(scratch, model, &dir, "");
    let host = codex_host(scratch, dir);
    set_up(scratch, "codex", &host.env);
    host
}

/// Codex's file: the scripted model's provider, nothing sent anywhere else, the
/// project trusted, and `server` (askuser's entry, or nothing).
fn codex_with(scratch: &Scratch, model: &Model, dir: &std::path::Path, server: &str) {
    let config = format!(
        r#"model = "scripted-model"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[model_providers.scripted]
name = "Scripted"
base_url = "{}/v1"
wire_api = "responses"
{server}
[projects.{:?}]
trust_level = "trusted"
"#,
        model.url(),
        dir.display().to_string()
    );
    write(scratch.path("codex").join("config.toml"), &config);
}

/// Codex in `dir`, its home in the scratch directory.
fn codex_host(scratch: &Scratch, dir: PathBuf) -> Host {
    let codex_home = scratch.path("codex");
    let mut env = base_env(scratch);
    env.push(("CODEX_HOME".into(), codex_home.display().to_string()));
    Host {
        program: executable("ASKUSER_TEST_CODEX"),
        // No shared background server: it would outlive the test.
        args: vec!["--no-daemon".into()],
        env,
        dir,
    }
}

/// Gemini CLI against `model` (`GOOGLE_GEMINI_BASE_URL`, an API key, the model
/// named so no router request is needed), with askuser's server (trusted, so no
/// confirmation) started with `extra` arguments.
pub fn gemini(scratch: &Scratch, model: &Model, extra: &[&str]) -> Host {
    let server = json!({"askuser": {"command": BIN, "args": askuser_args(scratch, extra),
        "env": {"ASKUSER_MACHINE": "laptop"}, "trust": true}});
    gemini_with(scratch, model, Some(server))
}

/// Gemini CLI against `model` with askuser set up by `askuser setup
/// gemini-cli` alone: no configuration of askuser's by hand.
pub fn gemini_set_up(scratch: &Scratch, model: &Model) -> Host {
    let host = gemini_with(scratch, model, None);
    set_up(scratch, "gemini-cli", &host.env);
    host
}

/// Gemini CLI's settings (the scripted model, nothing sent anywhere else) with
/// `servers` (askuser's entry, or none), and the host.
fn gemini_with(scratch: &Scratch, model: &Model, servers: Option<serde_json::Value>) -> Host {
    let dir = project(scratch);
    let mut settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
    });
    if let Some(servers) = servers {
        settings["mcpServers"] = servers;
    }
    write(
        scratch.path("home").join(".gemini/settings.json"),
        &settings.to_string(),
    );
    let mut env = base_env(scratch);
    env.push(("GEMINI_API_KEY".into(), KEY.into()));
    env.push(("GOOGLE_GEMINI_BASE_URL".into(), model.url()));
    Host {
        program: executable("ASKUSER_TEST_GEMINI"),
        args: vec!["--model".into(), "gemini-2.5-pro".into()],
        env,
        dir,
    }
}

/// `opencode` against `model` (its bundled Anthropic provider pointed at the
/// scripted model's Messages API; updates, sharing and the models.dev fetch
/// off), with askuser set up by `askuser setup opencode` alone, in the project.
pub fn opencode_set_up(scratch: &Scratch, model: &Model) -> Host {
    let dir = project(scratch);
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": false,
        "share": "disabled",
        "model": "anthropic/claude-sonnet-4-5",
        "provider": {"anthropic": {"options": {
            "baseURL": format!("{}/v1", model.url()), "apiKey": KEY}}},
    });
    let home = scratch.path("home");
    write(
        home.join(".config/opencode/opencode.json"),
        &config.to_string(),
    );
    let mut env = base_env(scratch);
    for (var, sub) in [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ] {
        env.push((var.into(), home.join(sub).display().to_string()));
    }
    env.push(("OPENCODE_DISABLE_AUTOUPDATE".into(), "true".into()));
    env.push(("OPENCODE_DISABLE_MODELS_FETCH".into(), "true".into()));
    env.push(("OPENCODE_DISABLE_LSP_DOWNLOAD".into(), "true".into()));
    set_up(scratch, "opencode", &env);
    Host {
        program: executable("ASKUSER_TEST_OPENCODE"),
        args: Vec::new(),
        env,
        dir,
    }
}
