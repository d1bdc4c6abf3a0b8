//! What askuser knows of each MCP client it has met: what its elicitation form
//! can show, how long it waits for a tool call, and how a person sets askuser up
//! in it. One table ([`KNOWN_CLIENTS`]) serves the server (how to ask each
//! round, how long a call may wait), `askuser setup HOST` and the client table of
//! `docs/mcp.md`, which is generated from it.
//!
//! A client is told by the `name` of its `clientInfo` (and its version where a
//! release changed what it can show); one the table does not know gets the MCP
//! specification's full form ([`Client::spec`]).

use std::time::Duration;

use askuser_llm::dialect::mcp::Fields;

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
        /// The form has no Decline button (so a Reply cannot be reached from it).
        declines: bool,
    },
    /// No elicitation at all: the call waits for an answer from another surface.
    None,
}

impl Forms {
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
}

/// The clients askuser knows, in the order `docs/mcp.md` lists them.
pub const KNOWN_CLIENTS: &[Client] = &[
    Client {
        host: "Claude Code",
        key: "claude-code",
        names: &["claude-code"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(100_000)),
        timeout_setting: "`MCP_TOOL_TIMEOUT` (milliseconds) in the environment or in `env` of `settings.json`",
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
    },
    Client {
        host: "Gemini CLI",
        key: "gemini-cli",
        names: &["gemini-cli-mcp-client"],
        forms: Forms::None,
        tool_timeout: Some(Duration::from_secs(600)),
        timeout_setting: "`timeout` (milliseconds) of the server in `mcpServers` of `~/.gemini/settings.json`",
    },
    Client {
        host: "OpenCode",
        key: "opencode",
        names: &["opencode"],
        forms: Forms::None,
        tool_timeout: None,
        timeout_setting: "`timeout` of the server under `mcp` in `opencode.json`",
    },
    Client {
        host: "VS Code",
        key: "vscode",
        names: &["Visual Studio Code", "Visual Studio Code - Insiders"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(60)),
        timeout_setting: "no documented setting",
    },
    Client {
        host: "Cursor",
        key: "cursor",
        names: &["cursor-vscode"],
        forms: Forms::Full,
        tool_timeout: Some(Duration::from_secs(60)),
        timeout_setting: "no documented setting",
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
}
