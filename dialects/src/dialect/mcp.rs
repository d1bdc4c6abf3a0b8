//! Dialect `mcp` (MCP elicitation, specification 2025-11-25, `elicitation/create` in
//! form mode): a form to and from a `requestedSchema`, and an elicitation's response
//! to and from the engine.
//!
//! - **From a schema** ([`Dialect::parse`](crate::Dialect::parse)): the arguments are
//!   the `elicitation/create` parameters `{"message", "requestedSchema"}`; every
//!   property of the flat object becomes a question, in order (a host that receives
//!   elicitations walks them with askuser's prompts). The result is the
//!   `ElicitResult`: `{"action": "accept", "content": {...}}`, `{"action":
//!   "decline"}` after a Reply, and [`CANCEL_RESULT`] when the person ends the turn
//!   (the engine sends nothing then; the host sends it).
//! - **To a schema** ([`round_schema`]): the questions of one round of a form as one
//!   flat `requestedSchema`; [`read_field`] reads a field of the accepted `content`
//!   back into the value the engine takes, and [`Response`] reads the client's answer
//!   (`accept` = answers, `decline` = Reply, `cancel` = End Turn).

use askuser_core::json::{escape_pointer, json_type};
use askuser_core::{AnswerType, At, Choice, Input, Outcome, Question, Surface};
use serde_json::{Map, Value, json};

pub use super::mcp_round::{
    FieldKind, Fields, field_kind, limited_schema, other_field, read_field, read_limited,
    round_schema,
};
use super::questions::{Parsed, finish};
use crate::call::ToolResult;
use crate::read::Reader;
use askuser_core::Problem;

/// The name the dialect's calls go by as a tool (the MCP method is
/// `elicitation/create`).
pub const TOOL_NAME: &str = "elicitation";
/// The `ElicitResult` a host sends when the person ends the turn.
pub const CANCEL_RESULT: &str = r#"{"action":"cancel"}"#;

/// What an MCP client answered to an `elicitation/create` request.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// `accept`, with the submitted `content` (each field's value by name).
    Accept(Map<String, Value>),
    /// `decline`: the person declined to answer; askuser's Reply.
    Decline,
    /// `cancel`: the person dismissed the form; askuser's End Turn.
    Cancel,
}

impl Response {
    /// Reads an `ElicitResult` (`{"action": "accept"|"decline"|"cancel",
    /// "content"?}`).
    ///
    /// # Errors
    /// What is wrong with it, naming the field.
    pub fn read(result: &Value) -> Result<Response, String> {
        let Value::Object(map) = result else {
            return Err(format!(
                "the elicitation result is {}, not an object",
                json_type(result)
            ));
        };
        match map.get("action").and_then(Value::as_str) {
            Some("accept") => match map.get("content") {
                Some(Value::Object(content)) => Ok(Response::Accept(content.clone())),
                None | Some(Value::Null) => Ok(Response::Accept(Map::new())),
                Some(other) => Err(format!(
                    "/content: must be an object, not {}",
                    json_type(other)
                )),
            },
            Some("decline") => Ok(Response::Decline),
            Some("cancel") => Ok(Response::Cancel),
            _ => Err("/action: must be \"accept\", \"decline\" or \"cancel\"".to_owned()),
        }
    }

    /// The input a `decline` or `cancel` stands for, taken on what was shown
    /// (`at`): a Reply with no message ([`Input::Reply`]) or the end of the turn
    /// ([`Input::EndTurn`]). `None` for `accept`, whose fields are answers
    /// ([`read_field`]).
    pub fn input(&self, at: At) -> Option<Input> {
        match self {
            Response::Accept(_) => None,
            Response::Decline => Some(Input::Reply { at, message: None }),
            Response::Cancel => Some(Input::EndTurn {
                inquiry: at.inquiry,
                surface: Some(Surface::Host),
            }),
        }
    }
}

/// Reads `{"message", "requestedSchema"}` into a form: one question per property.
pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error(
            "",
            format!(
                "must be an object with \"message\" and \"requestedSchema\", not {}",
                json_type(arguments)
            ),
        );
        return Err(reader.finish());
    };
    // `message` as askuser's published `mcp` schema has it: an optional string (the
    // MCP TypeScript SDK 1.32.2 requires it: a known disagreement). `mode`, if
    // given, is "form", as the SDK's `ElicitRequestFormParamsSchema` wants.
    let message = reader
        .optional_string(map, "", "message")
        .filter(|message| !message.trim().is_empty());
    if map.get("mode").is_some_and(|mode| mode != "form") {
        reader.error("/mode", "must be \"form\" (askuser asks forms, not URLs)");
    }
    let properties = match map.get("requestedSchema") {
        Some(Value::Object(schema)) => read_object(&mut reader, schema),
        Some(other) => {
            reader.error(
                "/requestedSchema",
                format!("must be an object schema, not {}", json_type(other)),
            );
            return Err(reader.finish());
        }
        None => {
            reader.error(
                "/requestedSchema",
                "is missing; give the flat object schema of the fields to ask",
            );
            return Err(reader.finish());
        }
    };
    let mut questions: Vec<Question> = properties
        .iter()
        .filter_map(|(name, field)| {
            let path = format!("/requestedSchema/properties/{}", escape_pointer(name));
            read_property(&mut reader, name, field, &path)
        })
        .collect();
    if questions.is_empty() && reader.has_errors() {
        return Err(reader.finish());
    }
    if let (Some(message), Some(first)) = (message, questions.first_mut()) {
        first.context = Some(match first.context.take() {
            Some(context) => format!("{message}\n\n{context}"),
            None => message,
        });
    }
    let texts = questions.iter().map(|q| q.text.clone()).collect();
    let keys = questions.iter().map(|q| q.id.clone()).collect();
    finish(reader, questions, &[], texts, keys, None)
}

/// The properties of the object schema, in order.
fn read_object<'a>(
    reader: &mut Reader,
    schema: &'a Map<String, Value>,
) -> Vec<(&'a String, &'a Value)> {
    if schema.get("type").is_none_or(|t| t != "object") {
        reader.error("/requestedSchema/type", "must be \"object\"");
    }
    match schema.get("required") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {}
        Some(_) => reader.error(
            "/requestedSchema/required",
            "must be a list of field names (strings)",
        ),
    }
    match schema.get("properties") {
        Some(Value::Object(properties)) if !properties.is_empty() => properties.iter().collect(),
        Some(Value::Object(_)) => {
            reader.error(
                "/requestedSchema/properties",
                "is empty; ask at least one field",
            );
            Vec::new()
        }
        Some(other) => {
            reader.error(
                "/requestedSchema/properties",
                format!("must be an object of fields, not {}", json_type(other)),
            );
            Vec::new()
        }
        None => {
            reader.error(
                "/requestedSchema/properties",
                "is missing; give at least one field",
            );
            Vec::new()
        }
    }
}

/// One property as a question, or `None` (with an error) when it is not one of
/// the specification's primitive fields.
fn read_property(reader: &mut Reader, name: &str, field: &Value, path: &str) -> Option<Question> {
    let Value::Object(map) = field else {
        reader.error(
            path,
            format!("must be a field schema, not {}", json_type(field)),
        );
        return None;
    };
    let text = match reader.optional_string(map, path, "title") {
        Some(title) if !title.trim().is_empty() => title.trim().to_owned(),
        _ => name.to_owned(),
    };
    let context = reader
        .optional_string(map, path, "description")
        .filter(|d| !d.trim().is_empty());
    let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
    if kind == "string"
        && choices(map, "oneOf").is_none()
        && let Some(format) = map.get("format").filter(|f| !f.is_null())
        && !["email", "uri", "date", "date-time"].contains(&format.as_str().unwrap_or_default())
    {
        reader.error(
            format!("{path}/format"),
            "must be \"email\", \"uri\", \"date\" or \"date-time\"",
        );
        return None;
    }
    let mut question = match kind {
        "boolean" => Question::new(name, text, AnswerType::Boolean),
        "string" => match choices(map, "oneOf") {
            Some(choices) => Question::new(name, text, AnswerType::Select).with_options(choices),
            None if is_plain_string(map) => Question::new(name, text, AnswerType::Text),
            None => Question::new(name, text, AnswerType::Schema)
                .with_schema(spec_keys(map, &["minLength", "maxLength", "format"])),
        },
        "number" | "integer" => Question::new(name, text, AnswerType::Schema)
            .with_schema(spec_keys(map, &["minimum", "maximum"])),
        "array" => {
            let Some(choices) = map
                .get("items")
                .and_then(Value::as_object)
                .and_then(|items| choices(items, "anyOf"))
            else {
                reader.error(
                    format!("{path}/items"),
                    "a multi-select field's items need \"anyOf\" of {\"const\", \"title\"} or \"enum\"",
                );
                return None;
            };
            Question::new(name, text, AnswerType::MultiSelect).with_options(choices)
        }
        _ => {
            reader.error(
                format!("{path}/type"),
                "must be \"string\", \"number\", \"integer\", \"boolean\" or \"array\"",
            );
            return None;
        }
    };
    question.context = context;
    question.default = map.get("default").cloned();
    Some(question)
}

/// A string field with none of the specification's constraints: free text.
fn is_plain_string(map: &Map<String, Value>) -> bool {
    ["minLength", "maxLength", "format"]
        .iter()
        .all(|k| !map.contains_key(*k))
}

/// A field's schema with only the specification's keywords (`type`, `title`,
/// `description`, `default` and `constraints`): what a client built on the MCP
/// TypeScript SDK 1.32.2 receives, its zod schema dropping every other key
/// (`pattern`, `x-...`, a stray `enum`).
fn spec_keys(map: &Map<String, Value>, constraints: &[&str]) -> Value {
    let keep = |key: &str| {
        ["type", "title", "description", "default"].contains(&key) || constraints.contains(&key)
    };
    Value::Object(
        map.iter()
            .filter(|(key, _)| keep(key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    )
}

/// The choices of an enum field, in the order the MCP TypeScript SDK 1.32.2 tries
/// them: `enum` of strings (with the legacy `enumNames`; an array's `items` also
/// need `"type": "string"`), else `titled` (`oneOf` for a string, `anyOf` for an
/// array's items) of `{const, title}` strings (the title as the description when it
/// differs). `None` when neither fits.
fn choices(map: &Map<String, Value>, titled: &str) -> Option<Vec<Choice>> {
    let untitled = titled == "oneOf" || map.get("type").is_some_and(|t| t == "string");
    let values = map
        .get("enum")
        .and_then(Value::as_array)
        .filter(|values| untitled && values.iter().all(Value::is_string));
    if let Some(values) = values {
        let names = map
            .get("enumNames")
            .and_then(Value::as_array)
            .filter(|names| titled == "oneOf" && names.iter().all(Value::is_string));
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, value)| {
                    let label = value.as_str().unwrap_or_default().to_owned();
                    match names.and_then(|n| n.get(i)).and_then(Value::as_str) {
                        Some(name) if name != label => Choice::described(label, name),
                        _ => Choice::new(label),
                    }
                })
                .collect(),
        );
    }
    map.get(titled)?
        .as_array()?
        .iter()
        .map(|item| {
            let label = item.get("const")?.as_str()?.to_owned();
            let title = item.get("title")?.as_str()?;
            Some(if title == label {
                Choice::new(label)
            } else {
                Choice::described(label, title)
            })
        })
        .collect()
}

/// The `ElicitResult` for an outcome: `accept` with every answer by field name, or
/// `decline` after a Reply.
pub(crate) fn result(outcome: &Outcome) -> ToolResult {
    if outcome.is_cancelled() {
        return ToolResult::Success(json!({"action": "decline"}));
    }
    let content: Map<String, Value> = outcome
        .to_map()
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .collect();
    ToolResult::Success(json!({"action": "accept", "content": content}))
}
