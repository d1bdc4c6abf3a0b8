//! What a question's form sends, read into the answer the engine checks.

use askuser_core::text::answer_words;
use askuser_core::{AnswerType, Prompt, UiInput, ui_answer};
use serde_json::Value;

use crate::schema_form;

/// A form's fields, as sent (a name may repeat: the ticks of a multi-select).
#[derive(Clone)]
pub(crate) struct Fields(pub(crate) Vec<(String, String)>);

impl Fields {
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A text field, trimmed; `None` when blank.
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    }
}

/// The answer a question's form gives: what was picked or typed, read by the
/// core's [`ui_answer`] as every surface reads it (an "Other" text equal to an
/// option's label is that option; free text only where the question allows it;
/// a repeated pick refused); a schema answer typed as text is read by the
/// engine's one rule for every surface ([`ValidForm::ui_answer`]: JSON the schema
/// accepts, else the text itself where the schema takes a string), or is the
/// object a generated form's inputs say (which the engine checks). A field the
/// page always sends but that came without a choice is named in words for the
/// person.
///
/// [`ValidForm::ui_answer`]: askuser_core::ValidForm::ui_answer
pub(crate) fn value_from(prompt: &Prompt, fields: &Fields) -> Result<Value, String> {
    let question = prompt.question();
    let index = |field: &str| {
        field
            .parse::<usize>()
            .map_err(|_| "choose one of the options")
    };
    let given = match question.answer_type {
        AnswerType::Boolean => match fields.get("answer") {
            Some("true") => UiInput::Bool(true),
            Some("false") => UiInput::Bool(false),
            _ => return Err("choose Yes or No".into()),
        },
        AnswerType::Select => select(prompt, fields)?,
        AnswerType::MultiSelect => {
            let picks = (fields.all("pick").map(index)).collect::<Result<Vec<usize>, _>>()?;
            let labels = ui_answer(question, UiInput::Picks(picks)).map_err(|e| e.to_string())?;
            let mut labels = match labels {
                Value::Array(labels) => labels,
                label => vec![label],
            };
            // Every typed extra, each in its own field (as the page prefills
            // them after Back or Change), blank ones left out.
            labels.extend(
                (fields.all("other").map(str::trim))
                    .filter(|text| !text.is_empty())
                    .map(|text| Value::String(text.to_owned())),
            );
            UiInput::Json(Value::Array(labels))
        }
        AnswerType::Text => UiInput::Text(fields.get("answer").unwrap_or_default().to_owned()),
        AnswerType::Schema => {
            if let Some(inputs) = question.schema.as_ref().and_then(schema_form::flat_fields) {
                return Ok(schema_form::read(&inputs, fields));
            }
            // The engine's one rule for text typed for a schema question, as
            // the terminal reads it.
            let text = fields.get("answer").unwrap_or_default().to_owned();
            return (prompt.form.ui_answer(prompt.index, UiInput::Text(text)))
                .map_err(|error| error.to_string());
        }
    };
    ui_answer(question, given).map_err(|error| error.to_string())
}

/// A single choice, read so that nothing the person did is dropped: their own
/// answer typed with no option picked is that answer; typed beside a picked
/// option (other than that option's own label), it asks which one they meant.
fn select(prompt: &Prompt, fields: &Fields) -> Result<UiInput, String> {
    let typed = fields.text("other");
    match (fields.get("answer"), typed) {
        (Some("other") | None, Some(text)) => Ok(UiInput::Text(text)),
        (Some("other"), None) => Err("type your own answer, or choose an option".into()),
        (None, None) => Err("choose one of the options".into()),
        (Some(picked), typed) => {
            let picked = picked
                .parse::<usize>()
                .map_err(|_| "choose one of the options")?;
            let label = prompt
                .question()
                .choices()
                .get(picked)
                .map(|c| c.label.as_str());
            match (label, typed) {
                (Some(label), Some(text))
                    if ui_answer(prompt.question(), UiInput::Text(text.clone())).ok()
                        != Some(Value::String(label.to_owned())) =>
                {
                    Err(format!(
                        "You picked “{label}” and also typed “{text}” as your own answer: \
                         which did you mean? Pick “Your own answer” to send what you typed, \
                         or clear it to send “{label}”"
                    ))
                }
                _ => Ok(UiInput::Pick(picked)),
            }
        }
    }
}

/// An answer as a page shows it: in the words every surface uses, or, for an
/// object (a schema's answer), one labelled line per field (`Replicas: 3`),
/// never its JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answered {
    /// In words ([`answer_words`]).
    Words(String),
    /// Field by field: each field's label (its schema `title`, else its name;
    /// a nested field's labels joined by ` › `) and its value in words. An
    /// empty object is `Words("nothing")`.
    Fields(Vec<(String, String)>),
}

/// How deep a nested answer is shown field by field; deeper objects are
/// shown in words (compact JSON).
const FIELD_DEPTH: usize = 4;

impl Answered {
    /// `value`, the answer to a question whose schema is `schema` (for the
    /// fields' titles and order).
    pub(crate) fn of(value: &Value, schema: Option<&Value>) -> Self {
        match value {
            Value::Object(object) if object.is_empty() => Answered::Words("nothing".to_owned()),
            Value::Object(_) => {
                let mut lines = Vec::new();
                field_lines(value, schema, "", 0, &mut lines);
                Answered::Fields(lines)
            }
            value => Answered::Words(answer_words(value)),
        }
    }
}

/// Each field of `value` (an object), labelled under `prefix`, added to
/// `lines`: in the schema's order of properties, then the rest in the order
/// they came.
fn field_lines(
    value: &Value,
    schema: Option<&Value>,
    prefix: &str,
    depth: usize,
    lines: &mut Vec<(String, String)>,
) {
    let Value::Object(object) = value else {
        return;
    };
    let properties = schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object);
    let mut keys: Vec<&String> = (properties.into_iter().flat_map(|p| p.keys()))
        .filter(|key| object.contains_key(*key))
        .collect();
    keys.extend(
        object
            .keys()
            .filter(|key| !keys.contains(key))
            .collect::<Vec<_>>(),
    );
    for key in keys {
        let field = &object[key];
        let property = properties.and_then(|p| p.get(key));
        let title = property
            .and_then(|p| p.get("title"))
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(key);
        let label = if prefix.is_empty() {
            title.to_owned()
        } else {
            format!("{prefix} › {title}")
        };
        match field {
            Value::Object(inner) if !inner.is_empty() && depth + 1 < FIELD_DEPTH => {
                field_lines(field, property, &label, depth + 1, lines);
            }
            field => lines.push((label, answer_words(field))),
        }
    }
}

#[cfg(test)]
mod tests {
    use askuser_core::{
        Command, Input, InquiryId, Origin, Policy, Prompt, Request, State, parse_form, reduce,
    };
    use serde_json::{Value, json};

    use super::{Answered, Fields, value_from};

    /// The prompt of a form's only question.
    fn prompt_of(question: &Value) -> Prompt {
        let form = parse_form(&json!({ "questions": [question] })).expect("a valid form");
        let mut state = State::new();
        let request = Request {
            inquiry: InquiryId::new("call-1"),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        };
        let commands = reduce(&mut state, &Input::Ask(request)).expect("asked");
        let Some(Command::Prompt(prompt)) = commands.into_iter().next() else {
            panic!("expected a prompt")
        };
        prompt
    }

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        Fields(
            (pairs.iter())
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn text_typed_for_a_schema_question_is_read_by_the_engines_one_rule() {
        let string = prompt_of(&json!({"id": "branch", "text": "Branch?",
            "answer_type": "schema", "schema": {"type": "string"}}));
        let typed = |prompt, text| value_from(prompt, &fields(&[("answer", text)]));
        assert_eq!(typed(&string, "123"), Ok(json!("123")));
        assert_eq!(typed(&string, " my-branch "), Ok(json!("my-branch")));
        let number = prompt_of(&json!({"id": "replicas", "text": "Replicas?",
            "answer_type": "schema", "schema": {"type": "integer", "minimum": 1}}));
        assert_eq!(typed(&number, "3"), Ok(json!(3)));
        assert_eq!(
            typed(&number, "0"),
            Err("does not match the schema: 0 is less than the minimum of 1".to_owned())
        );
        assert_eq!(
            typed(&number, "three"),
            Err("the answer is not valid JSON (expected ident at line 1 column 2); type a JSON value such as {\"key\": 1}".to_owned())
        );
    }

    #[test]
    fn other_text_is_read_as_every_surface_reads_it() {
        let select = prompt_of(&json!({"id": "db", "text": "Which database?",
            "answer_type": "select", "options": ["PostgreSQL", "SQLite"], "allow_other": true}));
        let other = |text| value_from(&select, &fields(&[("answer", "other"), ("other", text)]));
        assert_eq!(other(" SQLite "), Ok(json!("SQLite")));
        assert_eq!(other("DynamoDB"), Ok(json!("DynamoDB")));
        assert_eq!(
            value_from(&select, &fields(&[("answer", "7")])),
            Err("there is no option 8; pick 1 to 2".to_owned())
        );
        // Typed with no option picked: the typed answer.
        assert_eq!(
            value_from(&select, &fields(&[("other", "DynamoDB")])),
            Ok(json!("DynamoDB"))
        );
        // Typed beside a picked option: which one was meant is asked.
        assert_eq!(
            value_from(&select, &fields(&[("answer", "0"), ("other", "DynamoDB")])),
            Err(
                "You picked “PostgreSQL” and also typed “DynamoDB” as your own answer: which did \
                 you mean? Pick “Your own answer” to send what you typed, or clear it to send \
                 “PostgreSQL”"
                    .to_owned()
            )
        );
        // Typed as the picked option's own label: that option.
        assert_eq!(
            value_from(&select, &fields(&[("answer", "1"), ("other", " SQLite")])),
            Ok(json!("SQLite"))
        );
        assert_eq!(
            value_from(&select, &fields(&[])),
            Err("choose one of the options".to_owned())
        );
        let multi = prompt_of(&json!({"id": "f", "text": "Which features?",
            "answer_type": "multi_select", "options": ["auth", "api"], "allow_other": true}));
        let picked = |other| value_from(&multi, &fields(&[("pick", "0"), ("other", other)]));
        assert_eq!(picked("GraphQL"), Ok(json!(["auth", "GraphQL"])));
        assert_eq!(
            picked(" auth"),
            Err("\"auth\" is picked twice; pick each option at most once".to_owned())
        );
    }

    #[test]
    fn an_object_answer_is_shown_field_by_field_in_the_schemas_order() {
        let schema = json!({"type": "object", "properties": {
            "replicas": {"type": "integer", "title": "Replicas"},
            "region": {"type": "string"},
            "owner": {"type": "object", "properties": {"name": {"title": "Name"}}}}});
        let value = json!({"owner": {"name": "Ada", "team": "infra"}, "extra": [1, 2],
            "region": "eu-west\nzone b", "replicas": 3});
        assert_eq!(
            Answered::of(&value, Some(&schema)),
            Answered::Fields(vec![
                ("Replicas".into(), "3".into()),
                ("region".into(), "eu-west ⏎ zone b".into()),
                ("owner › Name".into(), "Ada".into()),
                ("owner › team".into(), "infra".into()),
                ("extra".into(), "[1,2]".into()),
            ])
        );
        assert_eq!(
            Answered::of(&json!({}), None),
            Answered::Words("nothing".into())
        );
        assert_eq!(
            Answered::of(&json!(true), None),
            Answered::Words("Yes".into())
        );
    }
}
