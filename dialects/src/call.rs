//! A validated tool call: the form to ask, and how to answer the model.

use askuser_core::{
    Command, InquiryId, Origin, Outcome, Policy, Problem, Request, ToolCall, ValidForm,
};
use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::rejection::tool_error_text;

/// A tool call that passed its dialect's checks: the form to walk, plus what the
/// dialect needs to answer (the question texts as written, pi's `metadata`).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    dialect: Dialect,
    form: ValidForm,
    texts: Vec<String>,
    keys: Vec<String>,
    metadata: Option<Value>,
}

/// What to send the model as the tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResult {
    /// A successful result: the dialect's JSON.
    Success(Value),
    /// A successful result the host sends as plain text (`opencode`'s answers,
    /// `gemini`'s dismissal).
    Text(String),
    /// A tool error: text for the model, saying what (not) to do next.
    Error(String),
}

impl Call {
    pub(crate) fn new(
        dialect: Dialect,
        form: ValidForm,
        texts: Option<Vec<String>>,
        keys: Vec<String>,
        metadata: Option<Value>,
    ) -> Self {
        let texts =
            texts.unwrap_or_else(|| form.questions().iter().map(|q| q.text.clone()).collect());
        Self {
            dialect,
            form,
            texts,
            keys,
            metadata,
        }
    }

    /// The dialect the call was made in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The validated form to walk.
    pub fn form(&self) -> &ValidForm {
        &self.form
    }

    /// The question texts as the model wrote them, in order (a `claude` or `pi` text
    /// that spans several lines is asked as its last line, below the others).
    pub fn question_texts(&self) -> &[String] {
        &self.texts
    }

    /// The keys the result names each question by, in order, where they are not the
    /// question texts: codex's `id`s. Empty for the other dialects.
    pub fn answer_keys(&self) -> &[String] {
        &self.keys
    }

    /// pi's `metadata` object, when the call gave one.
    pub fn metadata(&self) -> Option<&Value> {
        self.metadata.as_ref()
    }

    /// The tool's name (see [`Dialect::tool_name`]).
    pub fn tool_name(&self) -> &'static str {
        self.dialect.tool_name()
    }

    /// The policy every dialect implies: a person answers (exclusive: never routed to
    /// the assistant), nothing is remembered for the turn, labelled "Assistant".
    pub fn policy(&self) -> Policy {
        Policy::default()
    }

    /// Where the request comes from: this tool, in the parent conversation. Set the
    /// turn and the sub-agent flag on the result as the host knows them.
    pub fn origin(&self) -> Origin {
        Origin {
            tool: self.tool_name().to_owned(),
            ..Origin::default()
        }
    }

    /// The `Requested` event's payload for this call, with [`Call::policy`] and
    /// [`Call::origin`].
    pub fn request(&self, inquiry: InquiryId) -> Request {
        Request {
            inquiry,
            form: self.form.form().clone(),
            policy: self.policy(),
            origin: self.origin(),
            call: None,
        }
    }

    /// The tool result for an outcome (from [`Command::Respond`]) as one JSON value,
    /// in the dialect's shape: its JSON, or a JSON string for a dialect whose host
    /// answers in text (or with a tool error, after a Reply). [`Call::tool_result`]
    /// says which.
    pub fn render(&self, outcome: &Outcome) -> Value {
        match self.result(outcome) {
            ToolResult::Success(value) => value,
            ToolResult::Text(text) | ToolResult::Error(text) => Value::String(text),
        }
    }

    /// The tool result for an outcome, as the dialect's host sends it to the model.
    pub fn result(&self, outcome: &Outcome) -> ToolResult {
        self.dialect.result(outcome, &self.texts, &self.keys)
    }

    /// What a host stores beside the result (pi's "tool result details"): the
    /// result, and the call's `metadata` echoed when it gave one.
    pub fn details(&self, outcome: &Outcome) -> Value {
        let mut details = Map::new();
        details.insert("result".into(), self.render(outcome));
        if let Some(metadata) = &self.metadata {
            details.insert("metadata".into(), metadata.clone());
        }
        Value::Object(details)
    }

    /// What to send the model for an engine command: the rendered result for
    /// `Respond`, the message for `Fail`, the problems for `Reject`. `None` for every
    /// other command: `EndTurn` sends nothing, and the rest are not final.
    pub fn tool_result(&self, command: &Command) -> Option<ToolResult> {
        match command {
            Command::Respond { outcome, .. } => Some(self.result(outcome)),
            Command::Fail { message, .. } => Some(ToolResult::Error(message.clone())),
            Command::Reject { problems, .. } => Some(ToolResult::Error(rejection_text(
                self.tool_name(),
                problems,
            ))),
            _ => None,
        }
    }

    /// The `Requested` event's payload for this call, recording the `arguments` the
    /// model wrote (from which it was parsed) so that the result can be rendered
    /// from the log alone ([`render_recorded`]).
    pub fn recorded_request(&self, inquiry: InquiryId, arguments: &Value) -> Request {
        Request {
            call: Some(ToolCall {
                dialect: self.dialect.name().to_owned(),
                arguments: arguments.clone(),
            }),
            ..self.request(inquiry)
        }
    }
}

/// The tool error text for a rejected call's recorded problems.
pub fn rejection_text(tool: &str, problems: &[Problem]) -> String {
    tool_error_text(tool, problems)
}

/// What to send the model for an engine command, rendered from a request's recorded
/// tool call alone (after a restart, on a fork, in a replay): as
/// [`Call::tool_result`] of the call parsed again, and for a `Reject` (whose call
/// was never parsed) the recorded problems. `None` when the command sends nothing,
/// or the recorded call does not parse in its dialect any more.
pub fn render_recorded(call: Option<&ToolCall>, command: &Command) -> Option<ToolResult> {
    if let Command::Reject { tool, problems, .. } = command {
        return Some(ToolResult::Error(rejection_text(tool, problems)));
    }
    let call = call?;
    let parsed = Dialect::from_name(&call.dialect)?
        .parse(&call.arguments)
        .ok()?;
    parsed.tool_result(command)
}

impl Call {}
