//! The tool dialects: how each agent's ask-user tool call reads and answers.

pub mod claude;
pub mod codex;
mod detect;
pub mod gemini;
pub mod jp;
mod jp_form;
pub mod mcp;
mod mcp_round;
mod notice;
pub mod opencode;
pub mod pi;
mod questions;

pub use detect::DetectError;

use std::fmt;

use serde_json::Value;

use crate::call::{Call, ToolResult};
use crate::rejection::Rejection;

/// An agent's ask-user tool contract: its arguments, its result, its definition.
///
/// | dialect | tool | arguments | result |
/// |---|---|---|---|
/// | [`Jp`](Dialect::Jp) | `ask_user` | `question`, `context`, `answer_type`, `options`, `default` | `{"answer_type": "select", "answer": "backup"}` |
/// | [`JpForm`](Dialect::JpForm) | `ask_user` | `questions: [{id, text, answer_type, options, schema, default, when}]` | `{"apply": true, "env": "production", "note": null}` |
/// | [`Claude`](Dialect::Claude) | `AskUserQuestion` | `questions` (1–4) of `{question, header, options (2–4), multiSelect}` | `{"answers": {"<question>": "<label>"}}` |
/// | [`Pi`](Dialect::Pi) | `ask_user` | `questions` of `{question, header?, options?, multiSelect?}`, `metadata?` | `{"answered": true, "answers": [...]}` |
/// | [`OpenCode`](Dialect::OpenCode) | `question` | `questions` of `{question, header, options, multiple?}` | `User has answered your questions: "<question>"="<label>". ...` |
/// | [`Codex`](Dialect::Codex) | `request_user_input` | `questions` of `{id, header, question, options}` | `{"answers": {"<id>": {"answers": ["<label>"]}}}` |
/// | [`Gemini`](Dialect::Gemini) | `ask_user` | `questions` (1–4) of `{question, header, type?, options?, multiSelect?, placeholder?}` | `{"answers": {"0": "<label>"}}` |
/// | [`Mcp`](Dialect::Mcp) | `elicitation` | `message`, `requestedSchema` (a flat object of fields) | `{"action": "accept", "content": {"<field>": ...}}` |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// JP's RFD 083: one typed question (boolean, select or text).
    Jp,
    /// JP's RFD D30: a form of typed questions with `when` branching.
    JpForm,
    /// Claude Code's `AskUserQuestion` (REQ-AUQ): 1–4 option questions keyed by text.
    Claude,
    /// The pi coding agent's `ask_user`: option or free-text questions, with metadata.
    Pi,
    /// `OpenCode`'s `question` tool: option questions that always take free text.
    OpenCode,
    /// Codex's `request_user_input`: 1–3 option questions keyed by id.
    Codex,
    /// Gemini CLI's `ask_user`: choice, text and yes/no questions keyed by position.
    Gemini,
    /// MCP elicitation (`elicitation/create` in form mode): a flat `requestedSchema`
    /// of fields, answered as an `ElicitResult`.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 8] = [
        Dialect::Jp,
        Dialect::JpForm,
        Dialect::Claude,
        Dialect::Pi,
        Dialect::OpenCode,
        Dialect::Codex,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// The dialect's name: `jp`, `jp-form`, `claude`, `pi`, `opencode`, `codex`,
    /// `gemini` or `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Jp => "jp",
            Dialect::JpForm => "jp-form",
            Dialect::Claude => "claude",
            Dialect::Pi => "pi",
            Dialect::OpenCode => "opencode",
            Dialect::Codex => "codex",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    /// The dialect in words, for a person: `Claude Code's AskUserQuestion`,
    /// `askuser's own form` (`jp-form`), ...
    pub fn described(self) -> &'static str {
        match self {
            Dialect::Jp => "JP's one-question ask_user",
            Dialect::JpForm => "askuser's own form",
            Dialect::Claude => "Claude Code's AskUserQuestion",
            Dialect::Pi => "pi's ask_user",
            Dialect::OpenCode => "OpenCode's question",
            Dialect::Codex => "Codex's request_user_input",
            Dialect::Gemini => "Gemini CLI's ask_user",
            Dialect::Mcp => "an MCP elicitation",
        }
    }

    /// Every dialect's name, comma-separated, for messages.
    pub fn names() -> String {
        Self::ALL.map(Dialect::name).join(", ")
    }

    /// The dialect with this name (see [`Dialect::name`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The tool's name as the model calls it: `AskUserQuestion` for `claude`,
    /// `question` for `opencode`, `request_user_input` for `codex`,
    /// `elicitation` for `mcp`, `ask_user` for the others.
    pub fn tool_name(self) -> &'static str {
        match self {
            Dialect::Claude => claude::TOOL_NAME,
            Dialect::OpenCode => opencode::TOOL_NAME,
            Dialect::Codex => codex::TOOL_NAME,
            Dialect::Gemini => gemini::TOOL_NAME,
            Dialect::Mcp => mcp::TOOL_NAME,
            Dialect::Jp | Dialect::JpForm | Dialect::Pi => "ask_user",
        }
    }

    /// Whether fields the dialect does not know are reported (`jp`, `jp-form`) rather
    /// than ignored (the agents' dialects: their hosts ignore them too).
    pub fn rejects_unknown_fields(self) -> bool {
        matches!(self, Dialect::Jp | Dialect::JpForm)
    }

    /// The dialect a call was made in, read from its shape: the one dialect that
    /// accepts it, or, among several, the one whose own fields it uses most (`claude`
    /// before `pi`).
    ///
    /// ```
    /// use askuser_dialects::{Dialect, DetectError};
    /// use serde_json::json;
    ///
    /// let codex = json!({"questions": [{"id": "db", "header": "Database",
    ///     "question": "Which database?",
    ///     "options": [{"label": "Postgres", "description": "Relational"}]}]});
    /// assert_eq!(Dialect::detect(&codex), Ok(Dialect::Codex));
    /// let either = json!({"questions": [{"question": "Which?", "header": "Pick",
    ///     "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}]});
    /// assert_eq!(
    ///     Dialect::detect(&either),
    ///     Err(DetectError::Ambiguous { candidates: vec![Dialect::Claude, Dialect::OpenCode] })
    /// );
    /// ```
    ///
    /// # Errors
    /// [`DetectError::Ambiguous`] naming the candidates, or [`DetectError::NoMatch`]
    /// naming the closest dialect when one is recognisable.
    pub fn detect(arguments: &Value) -> Result<Dialect, DetectError> {
        detect::detect(arguments)
    }

    /// For a call this dialect refused: another dialect the call was plainly made in
    /// (what [`Dialect::detect`] picks, when it is not `self`), to suggest.
    pub fn suggest(self, arguments: &Value) -> Option<Dialect> {
        Dialect::detect(arguments).ok().filter(|d| *d != self)
    }

    /// Reads a tool call's arguments into a validated [`Call`].
    ///
    /// Never panics, whatever the JSON.
    ///
    /// # Errors
    /// A [`Rejection`] listing every problem with its field path; send
    /// [`Rejection::tool_error_text`] back to the model as the tool's error.
    pub fn parse(self, arguments: &Value) -> Result<Call, Rejection> {
        let reject = |errors| Rejection {
            tool: self.tool_name(),
            errors,
        };
        let shaped = |parsed: Result<questions::Parsed, _>| {
            parsed
                .map(|p| Call::new(self, p.form, Some(p.texts), p.keys, p.metadata))
                .map_err(reject)
        };
        match self {
            Dialect::Jp => jp::parse(arguments)
                .map(|form| Call::new(self, form, None, Vec::new(), None))
                .map_err(reject),
            Dialect::JpForm => jp_form::parse(arguments)
                .map(|form| Call::new(self, form, None, Vec::new(), None))
                .map_err(reject),
            Dialect::Claude => shaped(claude::parse(arguments)),
            Dialect::Pi => shaped(pi::parse(arguments)),
            Dialect::OpenCode => shaped(opencode::parse(arguments)),
            Dialect::Codex => shaped(codex::parse(arguments)),
            Dialect::Gemini => shaped(gemini::parse(arguments)),
            Dialect::Mcp => shaped(mcp::parse(arguments)),
        }
    }

    /// The tool result for an outcome (see [`Call::tool_result`]): `texts` are the
    /// question texts as written, `keys` the ids a dialect keys answers by.
    pub(crate) fn result(
        self,
        outcome: &askuser_core::Outcome,
        texts: &[String],
        keys: &[String],
    ) -> ToolResult {
        match self {
            Dialect::Jp => ToolResult::Success(jp::render(outcome, texts)),
            Dialect::JpForm => ToolResult::Success(jp_form::render(outcome, texts)),
            Dialect::Claude => ToolResult::Success(claude::render(outcome, texts)),
            Dialect::Pi => ToolResult::Success(pi::render(outcome, texts)),
            Dialect::OpenCode => opencode::result(outcome, texts),
            Dialect::Codex => codex::result(outcome, texts, keys),
            Dialect::Gemini => gemini::result(outcome, texts),
            Dialect::Mcp => mcp::result(outcome),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
