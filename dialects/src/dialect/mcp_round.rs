//! A round of a form as one flat MCP `requestedSchema`, and its accepted `content`
//! read back into the values the engine takes; for a client whose form shows only
//! yes/no, free text and single choice ([`Fields::Limited`]), the same round in
//! those fields ([`limited_schema`]) and its content read back ([`read_limited`]).

use askuser_core::json::json_type;
use askuser_core::text::{for_display, for_display_line};
use askuser_core::{AnswerType, Question, ValidForm};
use serde_json::{Map, Value, json};

use askuser_core::{UiInput, ui_answer};

/// The fields a client's elicitation form can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fields {
    /// Every field of the specification's form schema, in the order sent
    /// ([`round_schema`]).
    #[default]
    Full,
    /// Only yes/no, free text and single choice, perhaps listed in the order of
    /// their names ([`limited_schema`]).
    Limited,
}

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
/// use askuser_dialects::dialect::mcp::round_schema;
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

/// How a question travels in a limited form ([`Fields::Limited`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limited {
    /// As in the full form (yes/no, free text, single choice, JSON as text).
    Same,
    /// A multi-select: one yes/no field per option.
    PerOption,
    /// A number (`integer`: a whole number): a text field read as JSON.
    Number { integer: bool },
}

fn limited(question: &Question) -> Limited {
    if question.answer_type == AnswerType::MultiSelect {
        return Limited::PerOption;
    }
    if field_kind(question) != FieldKind::Plain || question.answer_type != AnswerType::Schema {
        return Limited::Same;
    }
    match question
        .schema
        .as_ref()
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
    {
        Some("number") => Limited::Number { integer: false },
        Some("integer") => Limited::Number { integer: true },
        _ => Limited::Same,
    }
}

/// The name of question `index`'s field in a limited round: its number in the
/// form, zero-padded so that names sort in question order (a client may list
/// fields by name), then its id (`"03.env"`). Its options' fields add their own
/// number (`"03.env.1"`), its own-answer field `.other` (which sorts after them).
fn limited_name(form: &ValidForm, index: usize) -> String {
    let width = form.len().to_string().len();
    let id = form.questions().get(index).map_or("", |q| q.id.as_str());
    format!("{:0width$}.{id}", index + 1)
}

/// The name of option `k`'s (0-based) yes/no field of a multi-select question.
fn option_name(name: &str, question: &Question, k: usize) -> String {
    let width = question.choices().len().to_string().len();
    format!("{name}.{:0width$}", k + 1)
}

/// The round `full` ([`round_schema`] of the questions at `indices`, defaults
/// filled in) for a client whose form shows only yes/no, free text and single
/// choice, and may list fields by name: every field is named so that the names
/// sort in question order (`"01.apply"`, `"02.features.1"`, ...), a multi-select
/// is one yes/no field per option (titled `question — option`, described by the
/// option's description, ticked when the default picks it), and a number a text
/// field read as JSON when the form comes back ([`read_limited`]). Everything
/// else is the full field under its new name.
///
/// ```
/// use askuser_core::parse_form;
/// use askuser_dialects::dialect::mcp::{limited_schema, round_schema};
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "features", "text": "Which features?", "answer_type": "multi_select",
///      "options": [{"label": "Auth", "description": "Sign-in"}, "API"]},
///     {"id": "replicas", "text": "How many replicas?", "answer_type": "schema",
///      "schema": {"type": "integer", "minimum": 1}}]})).unwrap();
/// let full = round_schema(&form, &[0, 1], |_| None);
/// assert_eq!(limited_schema(&form, &[0, 1], &full), json!({
///     "type": "object",
///     "properties": {
///         "1.features.1": {"type": "boolean", "title": "Which features? \u{2014} Auth",
///                          "description": "Sign-in", "default": false},
///         "1.features.2": {"type": "boolean", "title": "Which features? \u{2014} API",
///                          "default": false},
///         "2.replicas": {"type": "string", "title": "How many replicas?",
///                        "description": "Type a whole number, at least 1."}},
///     "required": ["2.replicas"]}));
/// ```
pub fn limited_schema(form: &ValidForm, indices: &[usize], full: &Value) -> Value {
    let none = Map::new();
    let fields = full
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    let required: Vec<&str> = full
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut properties = Map::new();
    let mut names = Vec::new();
    for &index in indices {
        let Some(question) = form.questions().get(index) else {
            continue;
        };
        let name = limited_name(form, index);
        if let Some(field) = fields.get(&question.id) {
            let how = limited(question);
            match how {
                Limited::PerOption => {
                    for (k, option) in option_fields(question, field).into_iter().enumerate() {
                        properties.insert(option_name(&name, question, k), option);
                    }
                }
                Limited::Number { integer } => {
                    properties.insert(name.clone(), number_field(field, integer));
                }
                Limited::Same => {
                    properties.insert(name.clone(), field.clone());
                }
            }
            if how != Limited::PerOption && required.contains(&question.id.as_str()) {
                names.push(Value::String(name.clone()));
            }
        }
        if let Some(other) = other_field(question).and_then(|o| fields.get(&o)) {
            properties.insert(format!("{name}.other"), other.clone());
        }
    }
    json!({"type": "object", "properties": properties, "required": names})
}

/// A multi-select's full `field` as one yes/no field per option: the question's
/// description (its context, why its last answer was refused) goes with the
/// first option's; an option its default picks is ticked.
fn option_fields(question: &Question, field: &Value) -> Vec<Value> {
    let text = for_display_line(&question.text);
    let picked = |label: &str| {
        field
            .get("default")
            .and_then(Value::as_array)
            .is_some_and(|d| d.iter().any(|v| v.as_str() == Some(label)))
    };
    question
        .choices()
        .iter()
        .enumerate()
        .map(|(k, choice)| {
            let title = format!("{text} \u{2014} {}", for_display_line(&choice.label));
            let mut option = json!({"type": "boolean", "title": title});
            let mut parts = Vec::new();
            if let (0, Some(Value::String(about))) = (k, field.get("description")) {
                parts.push(about.clone());
            }
            if let Some(about) = choice.description.as_deref().map(str::trim)
                && !about.is_empty()
            {
                parts.push(for_display(about).into_owned());
            }
            if !parts.is_empty() {
                option["description"] = Value::String(parts.join("\n\n"));
            }
            option["default"] = Value::Bool(picked(&choice.label));
            option
        })
        .collect()
}

/// A number's full `field` as a text field: its range said in its description,
/// its default as text.
fn number_field(field: &Value, integer: bool) -> Value {
    let kind = if integer {
        "Type a whole number"
    } else {
        "Type a number"
    };
    let bound = |key: &str| {
        field
            .get(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    let hint = match (bound("minimum"), bound("maximum")) {
        (Some(min), Some(max)) => format!("{kind} from {min} to {max}."),
        (Some(min), None) => format!("{kind}, at least {min}."),
        (None, Some(max)) => format!("{kind}, at most {max}."),
        (None, None) => format!("{kind}."),
    };
    let description = match field.get("description").and_then(Value::as_str) {
        Some(about) => format!("{about}\n\n{hint}"),
        None => hint,
    };
    let title = field.get("title").cloned().unwrap_or(Value::Null);
    let mut text = json!({"type": "string", "title": title, "description": description});
    match field.get("default") {
        Some(Value::Number(n)) => text["default"] = Value::String(n.to_string()),
        Some(Value::String(s)) => text["default"] = Value::String(s.clone()),
        _ => {}
    }
    text
}

/// The `content` of a limited round ([`limited_schema`]) as the full round's
/// content, for [`read_field`]: each field under its question's id, a
/// multi-select's ticked options as the list of their labels (in option order;
/// none ticked is the empty list, no option field at all no answer), a number's
/// text as the JSON number it spells (any other text is left as text, for the
/// engine to refuse with its reason). Returns that content, and why the fields of
/// a question could not be read (an option's field that is not yes/no), by
/// question index.
pub fn read_limited(
    form: &ValidForm,
    indices: &[usize],
    content: &Map<String, Value>,
) -> (Map<String, Value>, Vec<(usize, String)>) {
    let mut full = Map::new();
    let mut refused = Vec::new();
    for &index in indices {
        let Some(question) = form.questions().get(index) else {
            continue;
        };
        let name = limited_name(form, index);
        let value = match limited(question) {
            Limited::Same => content.get(&name).cloned(),
            Limited::Number { .. } => content.get(&name).and_then(number),
            Limited::PerOption => match ticked(question, &name, content) {
                Ok(labels) => labels,
                Err(why) => {
                    refused.push((index, why));
                    None
                }
            },
        };
        if let Some(value) = value {
            full.insert(question.id.clone(), value);
        }
        if let (Some(other), Some(text)) =
            (other_field(question), content.get(&format!("{name}.other")))
        {
            full.insert(other, text.clone());
        }
    }
    (full, refused)
}

/// The JSON number a number field's text spells; other text as it is, blank text
/// as no answer.
fn number(value: &Value) -> Option<Value> {
    let Value::String(text) = value else {
        return Some(value.clone());
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Number(n)) => Some(Value::Number(n)),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// The labels of a multi-select's ticked options, in option order; `None` when
/// the content has none of its option fields.
fn ticked(
    question: &Question,
    name: &str,
    content: &Map<String, Value>,
) -> Result<Option<Value>, String> {
    let mut labels = Vec::new();
    let mut any = false;
    for (k, choice) in question.choices().iter().enumerate() {
        match content.get(&option_name(name, question, k)) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(yes)) => {
                any = true;
                if *yes {
                    labels.push(Value::String(choice.label.clone()));
                }
            }
            Some(other) => {
                return Err(format!(
                    "“{}” must be true or false (the form's yes/no switch), not {} {other}",
                    for_display_line(&choice.label),
                    json_type(other)
                ));
            }
        }
    }
    Ok(any.then_some(Value::Array(labels)))
}

#[cfg(test)]
mod tests {
    use super::{limited_schema, read_field, read_limited, round_schema};
    use askuser_core::parse_form;
    use serde_json::{Map, Value, json};

    fn form() -> askuser_core::ValidForm {
        parse_form(&json!({"questions": [
            {"id": "features", "text": "Which features?", "answer_type": "multi_select",
             "options": ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"], "allow_other": true},
            {"id": "cpu", "text": "CPUs?", "answer_type": "schema",
             "schema": {"type": "number", "minimum": 0.5, "maximum": 8}, "default": 2},
            {"id": "ok", "text": "OK?", "answer_type": "boolean"}
        ]}))
        .unwrap()
    }

    fn content(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    /// Ten options get two-digit numbers, so their names sort in option order
    /// and the own answer after them; a number's range and default go to text.
    #[test]
    fn limited_names_sort_in_question_and_option_order() {
        let form = form();
        let full = round_schema(&form, &[0, 1, 2], |_| None);
        let limited = limited_schema(&form, &[0, 1, 2], &full);
        let names: Vec<&String> = limited["properties"].as_object().unwrap().keys().collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(names.first().map(|n| n.as_str()), Some("1.features.01"));
        assert_eq!(names[9], "1.features.10");
        assert_eq!(names[10], "1.features.other");
        assert_eq!(
            limited["properties"]["2.cpu"],
            json!({"type": "string", "title": "CPUs?",
                   "description": "Type a number from 0.5 to 8.", "default": "2"})
        );
        assert_eq!(limited["required"], json!(["2.cpu", "3.ok"]));
    }

    /// Ticked options come back as their labels in option order, with the own
    /// answer last; a number's text as the number; other text as text for the
    /// engine to refuse; nothing of a question as no answer.
    #[test]
    fn limited_content_reads_back_as_the_full_content() {
        let form = form();
        let sent = content(json!({
            "1.features.03": true, "1.features.01": true, "1.features.02": false,
            "1.features.other": "Z", "2.cpu": " 1.5 ", "3.ok": false}));
        let (full, refused) = read_limited(&form, &[0, 1, 2], &sent);
        assert!(refused.is_empty());
        assert_eq!(
            Value::Object(full.clone()),
            json!({"features": ["A", "C"], "features.other": "Z", "cpu": 1.5, "ok": false})
        );
        assert_eq!(read_field(&form, 0, &full), Ok(json!(["A", "C", "Z"])));
        assert_eq!(read_field(&form, 1, &full), Ok(json!(1.5)));

        let (full, refused) = read_limited(&form, &[0, 1], &content(json!({"2.cpu": "two"})));
        assert!(refused.is_empty());
        assert_eq!(Value::Object(full), json!({"cpu": "two"}));

        let (full, _) = read_limited(&form, &[0, 1], &content(json!({"2.cpu": "  "})));
        assert_eq!(
            Value::Object(full),
            json!({}),
            "blank text and no option: no answer"
        );

        let (full, _) = read_limited(&form, &[0], &content(json!({"1.features.04": false})));
        assert_eq!(Value::Object(full), json!({"features": []}), "none ticked");
    }

    #[test]
    fn an_option_that_is_not_yes_or_no_is_refused() {
        let form = form();
        let (full, refused) = read_limited(&form, &[0], &content(json!({"1.features.01": "yes"})));
        assert_eq!(Value::Object(full), json!({}));
        assert_eq!(
            refused,
            [(
                0,
                "“A” must be true or false (the form's yes/no switch), not a string \"yes\""
                    .to_owned()
            )]
        );
    }
}
