//! Tool definitions: each dialect's tool name, description and parameter schema, in
//! the shapes the Anthropic, `OpenAI` and MCP APIs take.
//!
//! The schemas use only what providers accept (no `"type": "any"`, no conditional
//! requiredness); cross-field rules (`options` exactly for select kinds, a default
//! among the options, ...) are checked when a call is parsed.

use serde_json::{Value, json};

use crate::dialect::{Dialect, claude};

/// An API whose tool-definition shape [`definition`] emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// `{"name", "description", "input_schema"}` (Anthropic Messages API).
    Anthropic,
    /// `{"type": "function", "function": {"name", "description", "parameters",
    /// "strict"}}` (`OpenAI` Chat Completions): a strict function schema (every
    /// property required, optional ones nullable, no other properties) where the
    /// dialect can be said that way, else `"strict": false` with the plain schema
    /// (`jp-form` and `pi` carry free-form JSON: answer schemas, defaults, metadata).
    OpenAi,
    /// `{"name", "description", "inputSchema"}` (Model Context Protocol `tools/list`).
    Mcp,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 3] = [Provider::Anthropic, Provider::OpenAi, Provider::Mcp];

    /// The provider's name: `anthropic`, `openai` or `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::Mcp => "mcp",
        }
    }

    /// The provider with this name (see [`Provider::name`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The dialect's tool definition in the provider's shape.
///
/// ```
/// use askuser_dialects::{Dialect, Provider, definition};
///
/// let tool = definition(Dialect::Claude, Provider::OpenAi);
/// assert_eq!(tool["type"], "function");
/// assert_eq!(tool["function"]["name"], "AskUserQuestion");
/// assert_eq!(tool["function"]["parameters"]["required"], serde_json::json!(["questions"]));
/// ```
pub fn definition(dialect: Dialect, provider: Provider) -> Value {
    let name = dialect.tool_name();
    let description = description(dialect);
    let schema = parameters(dialect);
    match provider {
        Provider::Anthropic => json!({
            "name": name,
            "description": description,
            "input_schema": schema,
        }),
        Provider::OpenAi => match crate::strict::strict(&schema) {
            Some(strict) => json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": strict,
                    "strict": true,
                },
            }),
            None => json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": schema,
                    "strict": false,
                },
            }),
        },
        Provider::Mcp => json!({
            "name": name,
            "description": description,
            "inputSchema": schema,
        }),
    }
}

/// The tool's description: what it does, when to use it and when not to (not for
/// what the conversation already says, not to confirm obvious next steps, never for
/// secrets: answers go to the model and are stored).
pub fn description(dialect: Dialect) -> String {
    let tool = dialect.tool_name();
    let what = match dialect {
        Dialect::Jp => {
            "Ask the user a typed question (boolean, select, or text) and receive their answer."
        }
        Dialect::JpForm => {
            "Ask the user one or more typed questions (boolean, select, multi_select, text, or schema) in one form and receive every answer at once, as an object mapping each question id to its answer. A question can depend on an earlier answer with `when`; a question its `when` skips is answered with null. If the user cancels to reply instead, the result is {\"cancelled\": true, \"answered\": {...answers so far...}}."
        }
        Dialect::Claude => {
            "Ask the user 1 to 4 multiple-choice questions, each with 2 to 4 options, and receive their answers keyed by question text. The user can always type their own answer instead of picking an option, so do not add an \"Other\" option. Set multiSelect to let them pick several. Put a recommended option first and add \"(Recommended)\" to its label."
        }
        Dialect::Pi => {
            "Ask the user one or more questions and receive their answers in order. A question with options is a choice, and the user can always type their own answer instead; a question without options takes free text. Batch related questions into one call."
        }
        Dialect::OpenCode => {
            "Ask the user one or more questions and receive their answers, each as the labels they picked. The user can always type their own answer instead of picking, so do not add an \"Other\" option; give an empty options list to ask for free text only. Set multiple to let them pick several. Put a recommended option first and add \"(Recommended)\" to its label."
        }
        Dialect::Codex => {
            "Ask the user one to three short questions, each with 2 or 3 mutually exclusive options, and receive their answers keyed by question id. The user can always answer in their own words instead (returned as \"user_note: <text>\"), so do not add an \"Other\" option. Put the recommended option first and add \"(Recommended)\" to its label."
        }
        Dialect::Mcp => {
            "Ask the user for the fields of a flat form (MCP elicitation in form mode): `message` says what is needed and why, `requestedSchema` is an object whose properties are strings, numbers, integers, booleans, single-selects (a string with `oneOf` of {const, title}) or multi-selects (an array whose items have `anyOf` of {const, title}), each with an optional `title`, `description` and `default`. The result is {\"action\": \"accept\", \"content\": {...}} with every field, or {\"action\": \"decline\"} if the user declined to answer."
        }
        Dialect::Gemini => {
            "Ask the user 1 to 4 questions and receive their answers keyed by question position (\"0\", \"1\", ...). A question is a choice among 2 to 4 options (type \"choice\", set multiSelect to allow several), free text (type \"text\") or a yes/no confirmation (type \"yesno\"). The user can also type their own answer to a choice or yes/no question, so do not add an \"Other\" option."
        }
    };
    format!(
        "{what}\n\nUse only when the conversation does not provide the information you need and the user can reasonably be expected to answer. When in doubt, answer the user's original question directly; do not call {tool} for clarification you can derive from context or for confirmation of obvious next steps. Never use {tool} to collect secrets (passwords, API keys, SSH passphrases): answers are returned to the model and stored in the conversation."
    )
}

/// The JSON Schema of the tool's parameters.
pub fn parameters(dialect: Dialect) -> Value {
    match dialect {
        Dialect::Jp => jp_parameters(),
        Dialect::JpForm => jp_form_parameters(),
        Dialect::Claude => claude_parameters(),
        Dialect::Pi => pi_parameters(),
        Dialect::OpenCode => crate::schemas::opencode(),
        Dialect::Codex => crate::schemas::codex(),
        Dialect::Gemini => crate::schemas::gemini(),
        Dialect::Mcp => crate::schemas::mcp(),
    }
}

fn jp_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "description": "The question, on a single line."
            },
            "context": {
                "type": "string",
                "description": "Optional context shown above the question; may span several lines."
            },
            "answer_type": {
                "type": "string",
                "enum": ["boolean", "select", "text"],
                "description": "The kind of answer. Defaults to \"text\"."
            },
            "options": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The choices. Required when answer_type is \"select\"; not allowed otherwise."
            },
            "default": {
                "type": ["boolean", "string"],
                "description": "Optional prefilled answer: a boolean for \"boolean\", one of the options for \"select\", a string for \"text\"."
            }
        },
        "required": ["question"],
        "additionalProperties": false
    })
}

fn jp_form_parameters() -> Value {
    let any = |description: &str| json!({ "description": description });
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "description": "The questions, asked in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {
                            "type": "string",
                            "description": "A short unique id; the key of this question's answer in the result."
                        },
                        "text": {
                            "type": "string",
                            "description": "The question, on a single line."
                        },
                        "context": {
                            "type": "string",
                            "description": "Optional context shown above the question; may span several lines."
                        },
                        "header": {
                            "type": "string",
                            "description": "Optional short label for the question."
                        },
                        "answer_type": {
                            "type": "string",
                            "enum": ["boolean", "select", "multi_select", "text", "schema"],
                            "description": "The kind of answer: true/false, one option, a list of options, free text, or a JSON value matching `schema`."
                        },
                        "options": {
                            "type": "array",
                            "items": {"anyOf": [
                                {"type": "string", "description": "The option's label."},
                                closed(option_schema())
                            ]},
                            "description": "The choices, each a label or {\"label\", \"description\"}. Required for select and multi_select; not allowed otherwise."
                        },
                        "allow_other": {
                            "type": "boolean",
                            "description": "Whether a select or multi_select question also takes free text. Defaults to false."
                        },
                        "schema": {
                            "type": "object",
                            "description": "The JSON Schema the answer must match. Required for answer_type \"schema\"; not allowed otherwise. Only local $ref (\"#/...\") is allowed."
                        },
                        "default": any("Optional prefilled answer; it must be a valid answer to the question."),
                        "when": {
                            "type": "object",
                            "description": "Ask this question only if an earlier answer matches: {\"question_id\": \"<earlier id>\", \"equals\": <value>}. Also: not_equals, one_of (a list), contains (for multi_select), and {\"all\": [...]}, {\"any\": [...]}, {\"not\": {...}}.",
                            "properties": {
                                "question_id": {
                                    "type": "string",
                                    "description": "The id of an earlier question."
                                },
                                "equals": any("The answer must equal this value."),
                                "not_equals": any("The answer must differ from this value."),
                                "one_of": {
                                    "type": "array",
                                    "items": any("A value the answer may equal."),
                                    "description": "The answer must equal one of these values."
                                },
                                "contains": any("The multi_select answer must include this option."),
                                "all": {
                                    "type": "array",
                                    "items": {"type": "object"},
                                    "description": "Every nested predicate must hold."
                                },
                                "any": {
                                    "type": "array",
                                    "items": {"type": "object"},
                                    "description": "At least one nested predicate must hold."
                                },
                                "not": {
                                    "type": "object",
                                    "description": "The nested predicate must not hold."
                                }
                            }
                        }
                    },
                    "required": ["id", "text", "answer_type"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["questions"],
        "additionalProperties": false
    })
}

/// An option: `{"label", "description"?}`.
pub(crate) fn option_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "label": {
                "type": "string",
                "description": "The option's text, as the user picks it and as the answer holds it."
            },
            "description": {
                "type": "string",
                "description": "Optional explanation shown beside the label."
            }
        },
        "required": ["label"]
    })
}

/// `schema` admitting no property it does not list (jp-form's options: askuser's
/// own dialect refuses unknown fields).
fn closed(mut schema: Value) -> Value {
    schema["additionalProperties"] = Value::Bool(false);
    schema
}

/// Claude Code's option: `{"label", "description"?, "preview"?}`.
fn claude_option_schema() -> Value {
    let mut option = option_schema();
    option["properties"]["preview"] = json!({
        "type": "string",
        "description": "Optional preview of the option (such as a code snippet), shown when it is focused."
    });
    option
}

fn claude_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": claude::MAX_QUESTIONS,
                "description": "The questions to ask (1 to 4).",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The complete question, ending with a question mark. Every question in a call must be distinct."
                        },
                        "header": {
                            "type": "string",
                            "description": "A very short label shown as a chip (aim for at most 12 characters), such as \"Auth method\"."
                        },
                        "options": {
                            "type": "array",
                            "minItems": claude::MIN_OPTIONS,
                            "maxItems": claude::MAX_OPTIONS,
                            "items": {"anyOf": [
                                {"type": "string", "description": "The option's label."},
                                claude_option_schema()
                            ]},
                            "description": "2 to 4 distinct choices. Do not add an \"Other\" option: free text is always offered."
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "description": "Let the user pick several options. Defaults to false."
                        }
                    },
                    "required": ["question", "options"]
                }
            }
        },
        "required": ["questions"]
    })
}

fn pi_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "description": "One or more questions to ask the user.",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The question to ask."
                        },
                        "header": {
                            "type": "string",
                            "description": "Optional header/title for context."
                        },
                        "options": {
                            "type": "array",
                            "items": {"anyOf": [
                                {"type": "string", "description": "The option's label."},
                                option_schema()
                            ]},
                            "description": "Suggested options; the user can always type their own answer instead. Omit for a free-text question."
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "description": "Allow multiple selections. Defaults to false."
                        }
                    },
                    "required": ["question"]
                }
            },
            "metadata": {
                "type": "object",
                "additionalProperties": true,
                "description": "Optional metadata for tracking, such as {\"source\": \"setup-wizard\"}."
            }
        },
        "required": ["questions"]
    })
}
