//! What askuser knows of each MCP client it has met: what its elicitation form
//! can show, how long it waits for a tool call, and how a person sets askuser up
//! in it. One table ([`KNOWN_CLIENTS`]) serves the server (how to ask each
//! round, how long a call may wait), `askuser setup HOST` and the client table of
//! `docs/mcp.md`, which is generated from it.
//!
//! A client is told by the `name` of its `clientInfo` (and its version where a
//! release changed what it can show); one the table does not know gets the MCP
//! specification's full form ([`Client::spec`]).

use std::fmt::Write as _;
use std::time::Duration;

use askuser_dialects::dialect::mcp::Fields;

/// What a client's elicitation form can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forms {
    /// Every field the MCP specification's form schema has: booleans, strings,
    /// numbers, single and multiple choice, in the order sent.
    Full,
    /// Only yes/no, free text and single choice: a multi-select is asked as one
    /// yes/no per option and a number as text the engine checks.
    Limited {
        /// The form lists fields in their names' order, not the order sent.
        sorts_fields: bool,
        /// The form has no Decline button: each round ends with a choice to
        /// Reply or end the turn instead of sending it.
        declines: bool,
    },
    /// No elicitation at all: the call waits for an answer from another surface.
    None,
}

impl Forms {
    /// Whether the form has a Decline button (a Reply reaches askuser through
    /// it); a client without forms is never sent one.
    #[must_use]
    pub fn declines(self) -> bool {
        match self {
            Forms::Limited { declines, .. } => declines,
            Forms::Full | Forms::None => true,
        }
    }

    /// The fields a round is sent in: the limited ones for [`Forms::Limited`]
    /// (a client without forms is never sent one).
    pub(crate) fn fields(self) -> Fields {
        match self {
            Forms::Limited { .. } => Fields::Limited,
            Forms::Full | Forms::None => Fields::Full,
        }
    }
}

/// One MCP client, as askuser knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    /// The host's name for people (`Claude Code`).
    pub host: &'static str,
    /// The name `askuser setup` takes (`claude-code`).
    pub key: &'static str,
    /// The `clientInfo.name` values it sends.
    pub names: &'static [&'static str],
    /// What its form shows.
    pub forms: Forms,
    /// How long it waits for a tool call by default; `None`: no limit known.
    pub tool_timeout: Option<Duration>,
    /// Where that timeout is set, in words for docs and messages.
    pub timeout_setting: &'static str,
    /// Whether it stops a tool call without telling the server (no
    /// `notifications/cancelled`): a result given to such a call may never
    /// reach the model, so it is kept for the same call made again, and a new
    /// call while one waits means the model moved on.
    pub stops_silently: bool,
    /// What a person sees while a call waits for an answer from another window
    /// (the client shows no form, or nobody is at it), in words for the docs.
    pub while_waiting: &'static str,
    /// How `askuser setup` configures it; `None` for a client it cannot set up.
    pub setup: Option<Setup>,
}

/// How `askuser setup` configures a host: the file, the server entry it merges
/// into it, and what the person does next. Data only: the `askuser` program
/// finds, reads and writes the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// The person's own file (`--scope user`, the default).
    pub user: UserFile,
    /// The project's files, relative to the project directory (`--scope
    /// project`): the first that exists, else the first.
    pub project: &'static [&'static str],
    /// The files' format.
    pub format: Format,
    /// The keys from the file's root to the object (or table) of servers;
    /// askuser's entry is `askuser` in it.
    pub servers: &'static [&'static str],
    /// The entry's `type`, for a host whose entries have one.
    pub kind: Option<&'static str>,
    /// How the entry holds the command.
    pub command: CommandForm,
    /// What the entry switches on beside the command, in order (those that
    /// allow askuser's tools too, unless `--no-allow`).
    pub settings: &'static [Setting],
    /// How askuser's own tools are allowed in the host's permissions, so a
    /// headless run can call them and an interactive one does not ask first.
    pub allow: Allow,
    /// The prefix the tools are served behind (`askuser mcp --tool-prefix`),
    /// for a host whose own tools would shadow askuser's.
    pub tool_prefix: Option<&'static str>,
    /// How many seconds a call nobody can answer at the client waits for
    /// another window (`askuser mcp --wait`), where the entry raises the host's
    /// timeout beyond the one [`Client::tool_timeout`] says.
    pub wait: Option<u64>,
    /// How an entry connects to `askuser mcp --http` with its bearer token,
    /// for a host whose user-private configuration takes request headers
    /// (`askuser setup HOST --http ADDR`); `None` where it takes none.
    pub http: Option<Http>,
    /// The name the model sees for `ask_user`, in words for docs and messages.
    pub model_sees: &'static str,
    /// What the person does next: restart the host, and how to check.
    pub next: &'static str,
}

/// A host's entry for a server over streamable HTTP: its `type` (if its
/// entries have one), the key of the URL and the key of the request headers
/// (an object of name and value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Http {
    /// The entry's `type`, for a host whose entries have one.
    pub kind: Option<&'static str>,
    /// The key of the server's URL.
    pub url: &'static str,
    /// The key of the headers sent with every request.
    pub headers: &'static str,
}

/// The format of a host's configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON, as `JSON.parse` reads it: no comments, no trailing commas.
    Json,
    /// JSON with comments (and trailing commas), as the host reads it.
    Jsonc,
    /// TOML.
    Toml,
}

/// How a server entry holds the command that starts the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandForm {
    /// `command` (the program) and `args` (its arguments).
    Split,
    /// `command`: the program and its arguments in one list.
    List,
}

/// One key a server entry sets beside the command, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub key: &'static str,
    /// Its value.
    pub value: SettingValue,
    /// What it switches on, in words for the person.
    pub why: &'static str,
    /// Whether it allows askuser's tools (left out with `--no-allow`).
    pub allows: bool,
}

/// How `askuser setup` allows askuser's own tools in a host's permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// By settings of askuser's own entry (those marked [`Setting::allows`]).
    InEntry,
    /// By a rule in a list of another file of the same scope.
    Rule(AllowRule),
    /// Nothing to write: what the host does, in words.
    Nothing(&'static str),
}

/// A rule allowing askuser's tools, in a list of a host's settings file
/// (Claude Code's `permissions.allow` in `settings.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllowRule {
    /// The person's own settings file (`--scope user`).
    pub user: UserFile,
    /// The project's, relative to the project directory (`--scope project`).
    pub project: &'static [&'static str],
    /// The keys from the file's root to the list.
    pub list: &'static [&'static str],
    /// The rule.
    pub rule: &'static str,
    /// What it allows, in words for the person.
    pub why: &'static str,
}

/// A [`Setting`]'s value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingValue {
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    Integer(i64),
    /// A string.
    Text(&'static str),
}

/// Where a host keeps the person's own configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserFile {
    /// An environment variable naming the directory the file is in, used when
    /// set and not empty (`CODEX_HOME`).
    pub dir_env: Option<&'static str>,
    /// An environment variable standing for the home directory, used when set
    /// and not empty (`GEMINI_CLI_HOME`).
    pub home_env: Option<&'static str>,
    /// What [`UserFile::dir`] is relative to.
    pub root: Root,
    /// The directory under the root (empty: the root itself).
    pub dir: &'static str,
    /// The file names: the first that exists, else the first.
    pub files: &'static [&'static str],
}

/// The directory a [`UserFile`] is found under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The home directory.
    Home,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    XdgConfig,
    /// The per-user application data directory: `~/Library/Application
    /// Support` on macOS, else as [`Root::XdgConfig`].
    AppData,
}

/// The clients askuser knows, in the order `docs/mcp.md` lists them.
pub const KNOWN_CLIENTS: &[Client] = &[
    Client {
        host: "Claude Code",
        key: "claude-code",
        names: &["claude-code"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(100_000)),
        timeout_setting: "`timeout` (milliseconds) of the server's entry, else `MCP_TOOL_TIMEOUT` (milliseconds) in the environment or in `env` of `settings.json`",
        stops_silently: false,
        while_waiting: "its own form; a call with nobody at it (`claude -p`) prints nothing until the answer comes",
        // Claude Code 2.1.332 (npm @anthropic-ai/claude-code, the binary's
        // strings): the user file is `$CLAUDE_CONFIG_DIR/.claude.json`, else
        // `~/.claude.json` (`mcpServers`, as `claude mcp add --scope user`
        // writes); the project's is `.mcp.json`. A stdio entry is `{type?:
        // "stdio", command, args?, env?, timeout?, alwaysLoad?}`; `alwaysLoad:
        // true` keeps the server's tools out of tool search ("never deferred
        // behind tool search"), where `ENABLE_TOOL_SEARCH=false` would turn it
        // off for every server. Tools reach the model as `mcp__<server>__<tool>`.
        // Checked: `claude mcp list` shows the written entry connected.
        setup: Some(Setup {
            user: UserFile {
                dir_env: Some("CLAUDE_CONFIG_DIR"),
                home_env: None,
                root: Root::Home,
                dir: "",
                files: &[".claude.json"],
            },
            project: &[".mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            kind: Some("stdio"),
            command: CommandForm::Split,
            settings: &[Setting {
                key: "alwaysLoad",
                value: SettingValue::Bool(true),
                why: "the tools are always in the model's prompt, never deferred behind tool search",
                allows: false,
            }],
            // Claude Code 2.1.332: a rule `mcp__<server>` in `permissions.allow`
            // of `settings.json` allows every tool of the server; without it
            // `claude -p` refuses the call ("you haven't granted it yet") and
            // an interactive run asks before each one. The person's file is
            // `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`;
            // the project's shared one `.claude/settings.json`.
            allow: Allow::Rule(AllowRule {
                user: UserFile {
                    dir_env: Some("CLAUDE_CONFIG_DIR"),
                    home_env: None,
                    root: Root::Home,
                    dir: ".claude",
                    files: &["settings.json"],
                },
                project: &[".claude/settings.json"],
                list: &["permissions", "allow"],
                rule: "mcp__askuser",
                why: "askuser's tools run without asking first, and claude -p can call them",
            }),
            tool_prefix: None,
            wait: None,
            http: Some(Http {
                kind: Some("http"),
                url: "url",
                headers: "headers",
            }),
            model_sees: "`mcp__askuser__ask_user`",
            next: "Restart Claude Code (for a project's .mcp.json, approve the server when it asks), then run /mcp: askuser is listed as connected, with mcp__askuser__ask_user and mcp__askuser__AskUserQuestion among its tools.",
        }),
    },
    Client {
        host: "Codex",
        key: "codex",
        names: &["codex-mcp-client", "codex"],
        forms: Forms::Limited {
            sorts_fields: true,
            declines: false,
        },
        tool_timeout: Some(Duration::from_secs(60)),
        timeout_setting: "`tool_timeout_sec` of `[mcp_servers.askuser]` in `~/.codex/config.toml`",
        stops_silently: false,
        while_waiting: "its own form; a call with nobody at it (`codex exec`) prints nothing until the answer comes",
        // Codex 0.171.0 (npm @openai/codex; openai/codex docs/config.md and
        // the config reference): `[mcp_servers.<name>]` in
        // `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`, or in a
        // trusted project's `.codex/config.toml`; `command`, `args`,
        // `tool_timeout_sec` (60 by default). Tools reach the model as
        // `mcp__<server>__<tool>`. Checked: `codex mcp list` lists the written
        // entry, enabled.
        setup: Some(Setup {
            user: UserFile {
                dir_env: Some("CODEX_HOME"),
                home_env: None,
                root: Root::Home,
                dir: ".codex",
                files: &["config.toml"],
            },
            project: &[".codex/config.toml"],
            format: Format::Toml,
            servers: &["mcp_servers"],
            kind: None,
            command: CommandForm::Split,
            settings: &[
                Setting {
                    key: "tool_timeout_sec",
                    value: SettingValue::Integer(600),
                    why: "a call may wait 10 minutes for the person, not Codex's default 60 seconds",
                    allows: false,
                },
                // Codex 0.171.0 (`RawMcpServerConfig`): without it, each call
                // asks "Allow the askuser MCP server to run tool?", and `codex
                // exec` (approval policy never) refuses it: "MCP tool call requires
                // approval, but approval policy is never".
                Setting {
                    key: "default_tools_approval_mode",
                    value: SettingValue::Text("approve"),
                    why: "askuser's tools run without asking first, and codex exec can call them",
                    allows: true,
                },
            ],
            allow: Allow::InEntry,
            tool_prefix: None,
            wait: Some(595),
            // Codex takes a remote server's bearer token from an environment
            // variable (`bearer_token_env_var`), not from its file: not offered.
            http: None,
            model_sees: "`mcp__askuser__ask_user`",
            next: "Restart Codex (a project's .codex/config.toml is read only in a trusted project), then run /mcp: askuser is listed with its tools ask_user and AskUserQuestion.",
        }),
    },
    Client {
        host: "Gemini CLI",
        key: "gemini-cli",
        names: &["gemini-cli-mcp-client"],
        forms: Forms::None,
        tool_timeout: Some(Duration::from_secs(600)),
        timeout_setting: "`timeout` (milliseconds) of the server in `mcpServers` of `~/.gemini/settings.json`",
        // Gemini CLI 0.61.0 calls an MCP tool without its abort signal: Esc
        // stops the call in Gemini CLI alone (its bundle, `callTool`).
        stops_silently: true,
        while_waiting: "the waiting line under the tool call, cut at the terminal's width: `Answer at http://127.0.0.1:8765/ (waiting up to 9 min 55 s)`",
        // Gemini CLI 0.61.0 (npm @google/gemini-cli, its bundle;
        // google-gemini/gemini-cli docs/tools/mcp-server.md): `mcpServers` in
        // `$GEMINI_CLI_HOME/.gemini/settings.json`, else
        // `~/.gemini/settings.json`, or the project's `.gemini/settings.json`
        // (comments allowed); `command`, `args`, `timeout` (600 000 ms by
        // default), `trust`. Without `trust`, each call asks for confirmation,
        // and `gemini -p` denies it (a non-interactive policy turns "ask" into
        // "deny"). Gemini CLI has its own `ask_user`, and leaves out of `gemini
        // -p` any MCP tool whose unqualified name is `ask_user`
        // (`ToolRegistry.isActiveTool` checks both names): hence the prefix.
        // In a folder the person has not trusted, no MCP server starts.
        // Checked: `gemini mcp list` shows the written entry connected.
        // Tools reach the model as `mcp_<server>_<tool>`.
        setup: Some(Setup {
            user: UserFile {
                dir_env: None,
                home_env: Some("GEMINI_CLI_HOME"),
                root: Root::Home,
                dir: ".gemini",
                files: &["settings.json"],
            },
            project: &[".gemini/settings.json"],
            format: Format::Jsonc,
            servers: &["mcpServers"],
            kind: None,
            command: CommandForm::Split,
            settings: &[Setting {
                key: "trust",
                value: SettingValue::Bool(true),
                why: "askuser's tools run without a confirmation prompt first, and in gemini -p at all (it denies untrusted tools)",
                allows: true,
            }],
            allow: Allow::InEntry,
            tool_prefix: Some("askuser"),
            wait: None,
            http: Some(Http {
                kind: None,
                url: "httpUrl",
                headers: "headers",
            }),
            model_sees: "`mcp_askuser_askuser_ask_user`",
            next: "Restart Gemini CLI in a folder you trust (it starts no MCP server in an untrusted one, and asks), then run /mcp list: askuser is listed as connected, with askuser_ask_user and askuser_AskUserQuestion.",
        }),
    },
    Client {
        host: "OpenCode",
        key: "opencode",
        names: &["opencode"],
        forms: Forms::None,
        tool_timeout: None,
        timeout_setting: "`timeout` (milliseconds) of the server under `mcp` in `opencode.json`, else `experimental.mcp_timeout`, else 60 s, each restarted by a progress notification",
        stops_silently: false,
        while_waiting: "a spinner only (it shows no progress): the question waits in the web inbox; `opencode run` prints nothing until the answer comes",
        // OpenCode 1.18.33 (npm opencode-ai, the binary's strings): `mcp` in
        // `$XDG_CONFIG_HOME/opencode/opencode.json` (or `.jsonc`), else
        // `~/.config/opencode/`, or the project's `opencode.json`,
        // `opencode.jsonc` or `.opencode/opencode.json(c)` (as `opencode mcp
        // add` picks it; JSONC). A local entry is `{type: "local", command:
        // [program, ...args], environment?, enabled?, timeout?}`; a tool call's
        // timeout (`timeout`, else `experimental.mcp_timeout`, else the SDK's
        // 60 s) restarts at each progress notification. Tools reach the model
        // as `<server>_<tool>`. Checked: `opencode mcp list` shows the written
        // entry connected.
        setup: Some(Setup {
            user: UserFile {
                dir_env: None,
                home_env: None,
                root: Root::XdgConfig,
                dir: "opencode",
                files: &["opencode.json", "opencode.jsonc"],
            },
            project: &[
                "opencode.json",
                "opencode.jsonc",
                ".opencode/opencode.json",
                ".opencode/opencode.jsonc",
            ],
            format: Format::Jsonc,
            servers: &["mcp"],
            kind: Some("local"),
            command: CommandForm::List,
            settings: &[],
            allow: Allow::Nothing(
                "OpenCode runs MCP tools without asking unless its `permission` setting says otherwise",
            ),
            tool_prefix: None,
            wait: None,
            http: Some(Http {
                kind: Some("remote"),
                url: "url",
                headers: "headers",
            }),
            model_sees: "`askuser_ask_user`",
            next: "Restart OpenCode, then run opencode mcp list: askuser is listed as connected.",
        }),
    },
    Client {
        host: "VS Code",
        key: "vscode",
        names: &["Visual Studio Code", "Visual Studio Code - Insiders"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(60)),
        timeout_setting: "no documented setting",
        stops_silently: false,
        while_waiting: "not checked",
        // code.visualstudio.com/docs/copilot/reference/mcp-configuration:
        // `servers` in the workspace's `.vscode/mcp.json` or in `mcp.json` of
        // the user profile (`~/.config/Code/User/` on Linux,
        // `~/Library/Application Support/Code/User/` on macOS); JSONC; a stdio
        // entry is `{type: "stdio", command, args?, env?}`. Tools reach the
        // model namespaced by their server.
        setup: Some(Setup {
            user: UserFile {
                dir_env: None,
                home_env: None,
                root: Root::AppData,
                dir: "Code/User",
                files: &["mcp.json"],
            },
            project: &[".vscode/mcp.json"],
            format: Format::Jsonc,
            servers: &["servers"],
            kind: Some("stdio"),
            command: CommandForm::Split,
            settings: &[],
            allow: Allow::Nothing(
                "VS Code asks before a tool runs until you choose to always allow it in the chat",
            ),
            tool_prefix: None,
            wait: None,
            http: Some(Http {
                kind: Some("http"),
                url: "url",
                headers: "headers",
            }),
            model_sees: "`ask_user`, namespaced by the server",
            next: "Reload VS Code, run MCP: List Servers, start askuser and trust it when asked; its tools are then in the chat's tool picker.",
        }),
    },
    Client {
        host: "Cursor",
        key: "cursor",
        names: &["cursor-vscode"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(60)),
        timeout_setting: "no documented setting",
        stops_silently: false,
        while_waiting: "not checked",
        // cursor.com/docs/mcp: `mcpServers` in `~/.cursor/mcp.json`, or the
        // project's `.cursor/mcp.json`; a stdio entry is `{command, args?,
        // env?}`. A new server is switched on in Cursor's settings (MCP).
        setup: Some(Setup {
            user: UserFile {
                dir_env: None,
                home_env: None,
                root: Root::Home,
                dir: ".cursor",
                files: &["mcp.json"],
            },
            project: &[".cursor/mcp.json"],
            format: Format::Jsonc,
            servers: &["mcpServers"],
            kind: None,
            command: CommandForm::Split,
            settings: &[],
            allow: Allow::Nothing(
                "Cursor asks before a tool runs unless you allow it in its settings (auto-run)",
            ),
            tool_prefix: None,
            wait: None,
            http: Some(Http {
                kind: None,
                url: "url",
                headers: "headers",
            }),
            model_sees: "`ask_user`",
            next: "Restart Cursor, open Cursor Settings > MCP (Customize > MCPs) and switch askuser on: it is listed with ask_user and AskUserQuestion.",
        }),
    },
];

impl Client {
    /// A client the table does not know: the specification's full form, and the
    /// TypeScript SDK's default request timeout (60 s) as its limit.
    #[must_use]
    pub const fn spec() -> Client {
        Client {
            host: "another MCP client",
            key: "",
            names: &[],
            forms: Forms::Full,
            tool_timeout: Some(Duration::from_secs(60)),
            timeout_setting: "the client's tool-call timeout",
            stops_silently: false,
            while_waiting: "",
            setup: None,
        }
    }

    /// The client whose `clientInfo` is `name` (and `version`), or
    /// [`Client::spec`] for one the table does not know.
    #[must_use]
    pub fn from_info(name: &str, _version: &str) -> Client {
        KNOWN_CLIENTS
            .iter()
            .find(|client| client.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
            .copied()
            .unwrap_or_else(Client::spec)
    }

    /// The client `askuser setup` names `key`.
    #[must_use]
    pub fn by_key(key: &str) -> Option<Client> {
        KNOWN_CLIENTS
            .iter()
            .find(|client| client.key == key)
            .copied()
    }
}

impl Forms {
    /// What the form shows, in words for `docs/mcp.md`.
    #[must_use]
    pub fn words(self) -> String {
        match self {
            Forms::Full => "every field of the form schema, in the order sent".to_owned(),
            Forms::Limited {
                sorts_fields,
                declines,
            } => {
                let mut words = String::from("yes/no, free text and single choice only");
                if sorts_fields {
                    words.push_str("; fields sorted by name");
                }
                if !declines {
                    words.push_str(
                        "; no Decline button (Reply and End Turn are each round's last field)",
                    );
                }
                words
            }
            Forms::None => "no forms (no elicitation)".to_owned(),
        }
    }
}

impl Setup {
    /// How `askuser setup` allows askuser's tools, in words for `docs/mcp.md`
    /// (`--no-allow` leaves it out).
    #[must_use]
    pub fn allowed_by(&self) -> String {
        match self.allow {
            Allow::InEntry => {
                let set: Vec<String> = (self.settings.iter())
                    .filter(|s| s.allows)
                    .map(|s| self.format.assignment(s.key, s.value))
                    .collect();
                format!("{} in askuser's entry", set.join(", "))
            }
            Allow::Rule(rule) => {
                let file = rule.user.files.first().copied().unwrap_or_default();
                let project = rule.project.first().copied().unwrap_or_default();
                format!(
                    "`\"{}\"` in `{}` of `~/{}/{file}` (`{project}` for `--scope project`)",
                    rule.rule,
                    rule.list.join("."),
                    rule.user.dir,
                )
            }
            Allow::Nothing(words) => format!("nothing written: {words}"),
        }
    }
}

impl Format {
    /// `key` set to `value` as the format writes it, in backquotes: `` `trust:
    /// true` ``, `` `tool_timeout_sec = 600` ``.
    #[must_use]
    pub fn assignment(self, key: &str, value: SettingValue) -> String {
        match self {
            Format::Json | Format::Jsonc => format!("`\"{key}\": {}`", value.text()),
            Format::Toml => format!("`{key} = {}`", value.text()),
        }
    }
}

impl SettingValue {
    /// The value as JSON or TOML write it (`true`, `600`).
    #[must_use]
    pub fn text(self) -> String {
        match self {
            SettingValue::Bool(value) => value.to_string(),
            SettingValue::Integer(value) => value.to_string(),
            SettingValue::Text(value) => format!("{value:?}"),
        }
    }
}

/// `duration` in words: `60 s`, `10 min`, `2 h`.
fn span(duration: Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        0 => format!("{} ms", duration.as_millis()),
        s if s >= 3600 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if (600..3600).contains(&s) && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// The client table of `docs/mcp.md` (between its `<!-- clients:begin -->`
/// and `<!-- clients:end -->` markers), rendered from [`KNOWN_CLIENTS`]: each
/// host, what its form shows, its tool-call timeout and where it is set, the
/// name the model sees, and the `askuser setup` command with what it switches on.
#[must_use]
pub fn markdown_table() -> String {
    let mut table = String::from(
        "| host | its form shows | a tool call's timeout | the model sees | set up with | askuser's tools allowed by | while a call waits |\n|---|---|---|---|---|---|---|\n",
    );
    for client in KNOWN_CLIENTS {
        let timeout = match client.tool_timeout {
            Some(limit) => format!("{} by default; {}", span(limit), client.timeout_setting),
            None => format!("none known; {}", client.timeout_setting),
        };
        let allowed = client
            .setup
            .as_ref()
            .map(Setup::allowed_by)
            .unwrap_or_default();
        let (sees, setup) = match &client.setup {
            Some(setup) => {
                let mut command = format!("`askuser setup {}`", client.key);
                let switched: Vec<String> = setup
                    .settings
                    .iter()
                    .map(|s| setup.format.assignment(s.key, s.value))
                    .chain(setup.tool_prefix.map(|p| format!("`--tool-prefix {p}`")))
                    .chain(setup.wait.map(|s| format!("`--wait {s}`")))
                    .collect();
                if !switched.is_empty() {
                    command = format!("{command} (writes {})", switched.join(", "));
                }
                (setup.model_sees, command)
            }
            None => ("", String::new()),
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            table,
            "| {} | {} | {timeout} | {sees} | {setup} | {allowed} | {} |",
            client.host,
            client.forms.words(),
            client.while_waiting,
        );
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_known_by_its_client_info_name() {
        assert_eq!(
            Client::from_info("codex-mcp-client", "0.171.0").key,
            "codex"
        );
        assert_eq!(Client::from_info("some-editor", "1.0"), Client::spec());
        assert_eq!(
            Client::by_key("gemini-cli").map(|c| c.host),
            Some("Gemini CLI")
        );
    }

    #[test]
    fn every_known_client_can_be_set_up_under_a_key_of_its_own() {
        let mut keys: Vec<&str> = KNOWN_CLIENTS.iter().map(|c| c.key).collect();
        assert!(KNOWN_CLIENTS.iter().all(|c| c.setup.is_some()));
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), KNOWN_CLIENTS.len());
        assert_eq!(Client::spec().setup, None);
    }
}
