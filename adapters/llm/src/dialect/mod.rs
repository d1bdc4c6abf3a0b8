//! The tool dialects: how each agent's ask-user tool call reads and answers.

pub mod claude;
pub mod jp;
mod jp_form;
pub mod pi;
mod questions;

use std::fmt;

use serde_json::Value;

use crate::call::Call;
use crate::rejection::Rejection;

/// An agent's ask-user tool contract: its arguments, its result, its definition.
///
/// | dialect | tool | arguments | result |
/// |---|---|---|---|
/// | [`Jp`](Dialect::Jp) | `ask_user` | `question`, `context`, `answer_type`, `options`, `default` | `{"answer_type": "select", "answer": "backup"}` |
/// | [`JpForm`](Dialect::JpForm) | `ask_user` | `questions: [{id, text, answer_type, options, schema, default, when}]` | `{"apply": true, "env": "production", "note": null}` |
/// | [`Claude`](Dialect::Claude) | `AskUserQuestion` | `questions` (1–4) of `{question, header, options (2–4), multiSelect}` | `{"answers": {"<question>": "<label>"}}` |
/// | [`Pi`](Dialect::Pi) | `ask_user` | `questions` of `{question, header?, options?, multiSelect?}`, `metadata?` | `{"answered": true, "answers": [...]}` |
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
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 4] = [Dialect::Jp, Dialect::JpForm, Dialect::Claude, Dialect::Pi];

    /// The dialect's name: `jp`, `jp-form`, `claude` or `pi`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Jp => "jp",
            Dialect::JpForm => "jp-form",
            Dialect::Claude => "claude",
            Dialect::Pi => "pi",
        }
    }

    /// The dialect with this name (see [`Dialect::name`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The tool's name as the model calls it: `AskUserQuestion` for `claude`,
    /// `ask_user` for the others.
    pub fn tool_name(self) -> &'static str {
        match self {
            Dialect::Claude => claude::TOOL_NAME,
            Dialect::Jp | Dialect::JpForm | Dialect::Pi => "ask_user",
        }
    }

    /// Whether fields the dialect does not know are reported (`jp`, `jp-form`) rather
    /// than ignored (`claude`, `pi`, whose producers add fields over time).
    pub fn rejects_unknown_fields(self) -> bool {
        matches!(self, Dialect::Jp | Dialect::JpForm)
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
        match self {
            Dialect::Jp => jp::parse(arguments)
                .map(|form| Call::new(self, form, None, None))
                .map_err(reject),
            Dialect::JpForm => jp_form::parse(arguments)
                .map(|form| Call::new(self, form, None, None))
                .map_err(reject),
            Dialect::Claude => claude::parse(arguments)
                .map(|p| Call::new(self, p.form, Some(p.texts), p.metadata))
                .map_err(reject),
            Dialect::Pi => pi::parse(arguments)
                .map(|p| Call::new(self, p.form, Some(p.texts), p.metadata))
                .map_err(reject),
        }
    }

    /// Renders an outcome in the dialect's result shape (see [`Call::render`]).
    pub(crate) fn render(self, outcome: &askuser_core::Outcome, texts: &[String]) -> Value {
        match self {
            Dialect::Jp => jp::render(outcome),
            Dialect::JpForm => jp_form::render(outcome),
            Dialect::Claude => claude::render(outcome, texts),
            Dialect::Pi => pi::render(outcome, texts),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
