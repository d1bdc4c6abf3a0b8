//! The parameter schemas of the agents' dialects `opencode`, `codex` and `gemini`,
//! each admitting what its parser accepts (see `docs/dialects.md` for the rules a
//! schema cannot say, checked when a call is parsed).

use serde_json::{Value, json};

use crate::dialect::gemini;

/// An option whose description is required (the hosts' schemas require it).
fn described_option(label: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "label": {"type": "string", "description": label},
            "description": {"type": "string", "description": description}
        },
        "required": ["label", "description"]
    })
}

/// `OpenCode`'s `question`.
pub(crate) fn opencode() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "description": "The questions to ask.",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string", "description": "The complete question."},
                        "header": {"type": "string", "description": "A very short label (at most 30 characters)."},
                        "options": {
                            "type": "array",
                            "items": described_option("Display text (1 to 5 words).", "What picking this choice means."),
                            "description": "The choices; the user can always type their own answer instead. An empty list asks for free text only."
                        },
                        "multiple": {"type": "boolean", "description": "Let the user pick several choices. Defaults to false."}
                    },
                    "required": ["question", "header", "options"]
                }
            }
        },
        "required": ["questions"]
    })
}

/// Codex's `request_user_input`.
pub(crate) fn codex() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "description": "The questions to show the user. Prefer 1 and do not exceed 3.",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "A stable snake_case identifier; the key of this question's answers."},
                        "header": {"type": "string", "description": "A short header label shown in the UI (12 or fewer characters)."},
                        "question": {"type": "string", "description": "A single-sentence prompt shown to the user."},
                        "options": {
                            "type": "array",
                            "minItems": 1,
                            "items": described_option("A user-facing label (1 to 5 words).", "One short sentence on the impact or trade-off of this choice."),
                            "description": "2 or 3 mutually exclusive choices, the recommended one first with \"(Recommended)\" in its label. Do not add an \"Other\" option: the user can always answer in their own words."
                        }
                    },
                    "required": ["id", "header", "question", "options"]
                }
            }
        },
        "required": ["questions"]
    })
}

/// Gemini CLI's `ask_user`.
pub(crate) fn gemini() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": gemini::MAX_QUESTIONS,
                "description": "The questions to ask (1 to 4).",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string", "description": "The complete question, ending with a question mark."},
                        "header": {"type": "string", "description": "A very short label shown as a chip, such as \"Auth\" or \"Database\"."},
                        "type": {
                            "type": "string",
                            "enum": ["choice", "text", "yesno"],
                            "description": "\"choice\" (the default) to pick among options, \"text\" for free text, \"yesno\" for a yes/no confirmation."
                        },
                        "options": {
                            "type": "array",
                            "maxItems": gemini::MAX_OPTIONS,
                            "items": described_option("Display text (1 to 5 words).", "A brief explanation of the option."),
                            "description": "2 to 4 choices for type \"choice\"; not needed otherwise. An \"Other\" choice is added automatically."
                        },
                        "multiSelect": {"type": "boolean", "description": "For type \"choice\": let the user pick several options."},
                        "placeholder": {"type": "string", "description": "A hint shown in the text input."}
                    },
                    "required": ["question", "header"]
                }
            }
        },
        "required": ["questions"]
    })
}

/// MCP elicitation's `elicitation/create` parameters (form mode).
pub(crate) fn mcp() -> Value {
    json!({
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "What is needed and why, shown above the form."},
            "requestedSchema": {
                "type": "object",
                "description": "A flat object schema: {\"type\": \"object\", \"properties\": {...}, \"required\": [...]}.",
                "properties": {
                    "type": {"type": "string", "enum": ["object"]},
                    "properties": {
                        "type": "object",
                        "description": "Each field by name: {\"type\": \"string\"|\"number\"|\"integer\"|\"boolean\"|\"array\", \"title\", \"description\", \"default\", \"oneOf\"|\"enum\" for a single-select, \"items\": {\"anyOf\"} for a multi-select}.",
                        "additionalProperties": {
                            "type": "object",
                            "properties": {
                                "type": {"type": "string", "enum": ["string", "number", "integer", "boolean", "array"]}
                            },
                            "required": ["type"]
                        }
                    },
                    "required": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["type", "properties"]
            }
        },
        "required": ["requestedSchema"]
    })
}
