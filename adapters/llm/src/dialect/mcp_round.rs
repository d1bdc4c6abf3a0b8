//! A round of a form as one flat MCP `requestedSchema`, and its accepted `content`
//! read back into the values the engine takes.

use askuser_core::json::json_type;
use askuser_core::text::{for_display, for_display_line};
use askuser_core::{AnswerType, Question, ValidForm};
use serde_json::{Map, Value, json};

use askuser_core::{UiInput, ui_answer};

/// How a question travels in an elicitation form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// As the specification's own field: boolean, string, number, integer, a
    /// single-select (`oneOf` of `{const, title}`) or a multi-select array.
    Plain,
    /// A schema question outside the flat subset: a string field holding JSON,
    /// parsed and checked against the schema when the form comes back.
    Json,
}

/// Keywords a flat number, integer, boolean or string field may carry.
const FLAT_KEYWORDS: [&str; 9] = [
    "type",
    "title",
    "description",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "format",
    "default",
];

/// String formats the specification allows.
const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// Whether `question` is asked as its own field or as JSON in a string field.
pub fn field_kind(question: &Question) -> FieldKind {
    if question.answer_type != AnswerType::Schema {
        return FieldKind::Plain;
    }
    let Some(Value::Object(schema)) = &question.schema else {
        return FieldKind::Json;
    };
    let primitive = matches!(
        schema.get("type").and_then(Value::as_str),
        Some("string" | "number" | "integer" | "boolean")
    );
    let known = schema.keys().all(|k| FLAT_KEYWORDS.contains(&k.as_str()));
    let format_ok = schema
        .get("format")
        .is_none_or(|f| f.as_str().is_some_and(|f| FORMATS.contains(&f)));
    if primitive && known && format_ok {
        FieldKind::Plain
    } else {
        FieldKind::Json
    }
}

/// The name of the optional free-text field beside a choice question that takes
/// the person's own answer (`"<id>.other"`), when the question allows one.
pub fn other_field(question: &Question) -> Option<String> {
    (question.allow_other && question.answer_type.has_options())
        .then(|| format!("{}.other", question.id))
}

/// The `requestedSchema` of one round: the questions at `indices` of `form`, each a
/// field named by its id (titled by its text, described by its context), with its
/// default; required but for free text, which may be left blank. `refused(i)` is the message to show beside question `i` when
/// its last answer was refused.
///
/// ```
/// use askuser_core::parse_form;
/// use askuser_llm::dialect::mcp::round_schema;
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
///     {"id": "env", "text": "Which environment?", "answer_type": "select",
///      "options": ["staging", "production"], "default": "staging"}]})).unwrap();
/// assert_eq!(round_schema(&form, &[0, 1], |_| None), json!({
///     "type": "object",
///     "properties": {
///         "apply": {"type": "boolean", "title": "Apply the migration?"},
///         "env": {"type": "string", "title": "Which environment?",
///                 "oneOf": [{"const": "staging", "title": "staging"},
///                           {"const": "production", "title": "production"}],
///                 "default": "staging"}},
///     "required": ["apply", "env"]}));
/// ```
pub fn round_schema<'a>(
    form: &ValidForm,
    indices: &[usize],
    refused: impl Fn(usize) -> Option<&'a str>,
) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for &index in indices {
        let Some(question) = form.questions().get(index) else {
            continue;
        };
        let mut field = field_schema(question);
        let refusal = refused(index);
        describe(&mut field, question, refusal);
        let other = other_field(question).filter(|name| !has_question(form, name));
        if other.is_none() && !optional(question) {
            required.push(Value::String(question.id.clone()));
        }
        properties.insert(question.id.clone(), field);
        if let Some(name) = other {
            let title = format!(
                "Or your own answer to: {}",
                for_display_line(&question.text)
            );
            properties.insert(name, json!({"type": "string", "title": title}));
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// Whether a question may be left blank in the form: a free-text question,
/// whose answer may be empty (the terminal takes Enter on an empty line), so
/// the client's form does not make the person type something.
fn optional(question: &Question) -> bool {
    question.answer_type == AnswerType::Text
}

fn has_question(form: &ValidForm, id: &str) -> bool {
    form.index_of(id).is_some()
}

/// The field for one question, with its title and default.
fn field_schema(question: &Question) -> Value {
    let title = Value::String(for_display_line(&question.text).into_owned());
    let mut field = match (question.answer_type, field_kind(question)) {
        (AnswerType::Boolean, _) => json!({"type": "boolean", "title": title}),
        (AnswerType::Select, _) => {
            json!({"type": "string", "title": title, "oneOf": titled(question)})
        }
        (AnswerType::MultiSelect, _) => {
            json!({"type": "array", "title": title, "items": {"anyOf": titled(question)}})
        }
        (AnswerType::Text, _) | (AnswerType::Schema, FieldKind::Json) => {
            json!({"type": "string", "title": title})
        }
        (AnswerType::Schema, FieldKind::Plain) => {
            let mut field = question.schema.clone().unwrap_or_else(|| json!({}));
            field["title"] = title;
            field
        }
    };
    if let Some(default) = &question.default {
        field["default"] = match field_kind(question) {
            FieldKind::Json => Value::String(default.to_string()),
            FieldKind::Plain => default.clone(),
        };
    }
    field
}

/// `[{"const": label, "title": "label: description"}]`.
fn titled(question: &Question) -> Vec<Value> {
    question
        .choices()
        .iter()
        .map(|choice| {
            let title = match &choice.description {
                Some(description) if !description.trim().is_empty() => {
                    format!("{}: {description}", choice.label)
                }
                _ => choice.label.clone(),
            };
            json!({"const": choice.label, "title": for_display_line(&title)})
        })
        .collect()
}

/// The field's description: the question's context, the JSON a schema field takes,
/// and why its last answer was refused; characters that could act on a terminal
/// (clients draw forms in one) are shown as escapes, as are the titles'.
fn describe(field: &mut Value, question: &Question, refused: Option<&str>) {
    let mut parts = Vec::new();
    if let Some(context) = &question.context {
        parts.push(context.clone());
    }
    if field_kind(question) == FieldKind::Json {
        let schema = question
            .schema
            .as_ref()
            .map_or_else(String::new, Value::to_string);
        parts.push(format!("Type a JSON value matching this schema: {schema}"));
    }
    if let Some(message) = refused {
        parts.push(format!("Your last answer was not accepted: {message}"));
    }
    if !parts.is_empty() {
        field["description"] = Value::String(for_display(&parts.join("\n\n")).into_owned());
    }
}

/// The value the engine takes for question `index` of `form`, read from an
/// accepted `content`: the field itself, the JSON inside a [`FieldKind::Json`]
/// field, or the text of its [`other_field`] when the person typed their own.
///
/// # Errors
/// Why the content does not answer the question, in words for the person (show
/// it beside the field and ask again).
pub fn read_field(
    form: &ValidForm,
    index: usize,
    content: &Map<String, Value>,
) -> Result<Value, String> {
    let Some(question) = form.questions().get(index) else {
        return Err(format!("there is no question {index}"));
    };
    let other = other_field(question)
        .filter(|name| !has_question(form, name))
        .and_then(|name| content.get(&name))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty());
    let given = content.get(&question.id).filter(|v| !v.is_null());
    // A form's yes/no field is a boolean: a string ("yes", "Y") means the client
    // sent another type than the form asked for, so it is asked again.
    if let (AnswerType::Boolean, Some(value), None) = (question.answer_type, given, other)
        && !value.is_boolean()
    {
        return Err(format!(
            "must be true or false (the form's yes/no switch), not {} {value}",
            json_type(value)
        ));
    }
    let input = match (question.answer_type, given, other) {
        (AnswerType::MultiSelect, given, Some(other)) => {
            let mut list = labels(given)?;
            list.push(other.to_owned());
            UiInput::List(list)
        }
        (_, _, Some(other)) => UiInput::Text(other.to_owned()),
        // An optional field left out of the form: the empty answer.
        (AnswerType::Text, None, None) => UiInput::Text(String::new()),
        (_, None, None) => return Err("no answer was given; fill in this field".to_owned()),
        (AnswerType::Schema, Some(Value::String(text)), None)
            if field_kind(question) == FieldKind::Json =>
        {
            UiInput::Text(text.clone())
        }
        (_, Some(value), None) => UiInput::Json(value.clone()),
    };
    ui_answer(question, input).map_err(|e| e.to_string())
}

/// The labels of a multi-select field's value (none when it is absent).
fn labels(given: Option<&Value>) -> Result<Vec<String>, String> {
    match given {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("a pick is {}, not a label", json_type(item)))
            })
            .collect(),
        Some(other) => Err(format!(
            "must be a list of labels, not {}",
            json_type(other)
        )),
    }
}
