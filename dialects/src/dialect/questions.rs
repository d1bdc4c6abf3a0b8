//! The Claude-Code-style question list shared by `claude` and `pi`:
//! `{"questions": [{question, header?, options?: [{label, description?}], multiSelect?}]}`.
//!
//! Unknown fields are ignored (these producers add fields over time). "Other" free
//! text is always allowed. Question ids are `q1`, `q2`, … in order. A question text
//! that spans several lines is asked as its last line with the lines before it as
//! context; the result still quotes the text as the model wrote it.

use askuser_core::{AnswerType, Choice, Form, FormError, Question, Slot, ValidForm, validate};
use serde_json::{Map, Value};

use askuser_core::json::json_type;

use crate::read::Reader;
use askuser_core::Problem;

/// The limits a dialect adds to the shared shape.
pub(crate) struct Rules {
    /// The tool's name, for messages.
    pub tool: &'static str,
    /// The most questions (claude: 4); `None` leaves it to the core's limit.
    pub max_questions: Option<usize>,
    /// The allowed number of options, when options are required (claude: 1 to 4);
    /// `None` makes options optional (no options = a free-text question).
    pub option_count: Option<(usize, usize)>,
    /// Whether question texts must be distinct (claude keys answers by them).
    pub unique_texts: bool,
    /// Whether a `metadata` object is read (pi).
    pub metadata: bool,
    /// Whether options may carry Claude Code's `preview` (a string the host shows).
    pub preview: bool,
}

/// A call read under [`Rules`].
pub(crate) struct Parsed {
    pub form: ValidForm,
    /// The question texts as the model wrote them.
    pub texts: Vec<String>,
    /// The keys the result names each question by, where they are not the texts
    /// (codex's ids); empty otherwise.
    pub keys: Vec<String>,
    pub metadata: Option<Value>,
}

/// How many questions, in words, for messages.
fn question_range(rules: &Rules) -> String {
    match rules.max_questions {
        Some(max) => format!("1 to {max} questions"),
        None => "at least one question".to_owned(),
    }
}

pub(crate) fn parse(arguments: &Value, rules: &Rules) -> Result<Parsed, Vec<Problem>> {
    let mut reader = Reader::default();
    let Value::Object(map) = arguments else {
        reader.error(
            "",
            format!(
                "must be an object with a `questions` list, not {}",
                json_type(arguments)
            ),
        );
        return Err(reader.finish());
    };
    let metadata = if rules.metadata {
        match map.get("metadata") {
            None | Some(Value::Null) => None,
            Some(object @ Value::Object(_)) => Some(object.clone()),
            Some(other) => {
                reader.error(
                    "/metadata",
                    format!(
                        "must be an object such as {{\"source\": \"setup\"}}, not {}",
                        json_type(other)
                    ),
                );
                None
            }
        }
    } else {
        None
    };
    let items = match map.get("questions") {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => {
            reader.error(
                "/questions",
                format!(
                    "is required: add `questions`, a list of {}",
                    question_range(rules)
                ),
            );
            return Err(reader.finish());
        }
        Some(other) => {
            reader.error(
                "/questions",
                format!("must be a list of questions, not {}", json_type(other)),
            );
            return Err(reader.finish());
        }
    };
    if items.is_empty() {
        reader.error(
            "/questions",
            format!("is empty; ask {}", question_range(rules)),
        );
        return Err(reader.finish());
    }
    if let Some(max) = rules.max_questions.filter(|max| items.len() > *max) {
        reader.error(
            "/questions",
            format!(
                "has {} questions; {} takes 1 to {max}: ask the most important ones now and the rest in a later call",
                items.len(),
                rules.tool
            ),
        );
        return Err(reader.finish());
    }
    let mut plain_options = Vec::new();
    let mut texts = Vec::with_capacity(items.len());
    let mut questions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("/questions/{i}");
        let (question, text) =
            read_question(&mut reader, rules, item, i, &path, &mut plain_options);
        if rules.unique_texts
            && !text.is_empty()
            && let Some(first) = texts.iter().position(|t| *t == text)
        {
            reader.error(
                format!("{path}/question"),
                format!(
                    "repeats the question of /questions/{first}; make every question distinct (answers are keyed by the question text)"
                ),
            );
        }
        texts.push(text);
        questions.push(question);
    }
    finish(
        reader,
        questions,
        &plain_options,
        texts,
        Vec::new(),
        metadata,
    )
}

/// Validates the questions read so far with the core's rules: the [`Parsed`] call,
/// or every problem found, the core's in the dialect's field names. `plain_options`
/// are the paths of options given as bare strings (their core errors are not under
/// a `/label`).
pub(crate) fn finish(
    mut reader: Reader,
    questions: Vec<Question>,
    plain_options: &[String],
    texts: Vec<String>,
    keys: Vec<String>,
    metadata: Option<Value>,
) -> Result<Parsed, Vec<Problem>> {
    match validate(Form::new(questions)) {
        Ok(form) if !reader.has_errors() => Ok(Parsed {
            form,
            texts,
            keys,
            metadata,
        }),
        Ok(_) => Err(reader.finish()),
        Err(errors) => {
            reader.semantic(&errors, |e| translate(e, plain_options));
            Err(reader.finish())
        }
    }
}

/// A question of the shared shape: `text` asked as its last line (the lines before
/// it as context), options (a choice that always takes free text) or none (free
/// text), one pick or several.
pub(crate) fn shaped_question(
    id: String,
    text: &str,
    header: Option<String>,
    options: Option<Vec<Choice>>,
    multi: bool,
) -> Question {
    let answer_type = match (&options, multi) {
        (None, _) => AnswerType::Text,
        (Some(_), false) => AnswerType::Select,
        (Some(_), true) => AnswerType::MultiSelect,
    };
    let (asked, context) = split_text(text);
    let mut question = Question::new(id, asked, answer_type);
    question.context = context;
    question.header = header;
    question.allow_other = options.is_some();
    question.options = options;
    question
}

fn read_question(
    reader: &mut Reader,
    rules: &Rules,
    item: &Value,
    index: usize,
    path: &str,
    plain_options: &mut Vec<String>,
) -> (Question, String) {
    let id = format!("q{}", index + 1);
    let Value::Object(map) = item else {
        let fields = if rules.option_count.is_some() {
            "`question` and `options`"
        } else {
            "a `question` field"
        };
        reader.error(
            path,
            format!("must be an object with {fields}, not {}", json_type(item)),
        );
        return (Question::new(id, "?", AnswerType::Text), String::new());
    };
    let text = reader
        .required_string(map, path, "question", "`question`, the question to ask")
        .unwrap_or_default();
    let header = reader.optional_string(map, path, "header");
    let multi = reader.optional_bool(map, path, "multiSelect");
    let options = read_options(reader, rules, map, path, plain_options);
    let question = shaped_question(id, &text, header, options, multi);
    (question, text)
}

fn read_options(
    reader: &mut Reader,
    rules: &Rules,
    map: &Map<String, Value>,
    path: &str,
    plain_options: &mut Vec<String>,
) -> Option<Vec<Choice>> {
    let at = format!("{path}/options");
    let shape = "each {\"label\", \"description\"}";
    let items = match (map.get("options"), rules.option_count) {
        (Some(Value::Array(items)), _) => items,
        (None | Some(Value::Null), None) => return None,
        (None | Some(Value::Null), Some((min, max))) => {
            reader.error(
                at,
                format!("is required: add {min} to {max} options, {shape}"),
            );
            return Some(Vec::new());
        }
        (Some(other), _) => {
            reader.error(
                at,
                format!(
                    "must be a list of options, {shape}, not {}",
                    json_type(other)
                ),
            );
            return Some(Vec::new());
        }
    };
    match rules.option_count {
        // No options is a free-text question where options are optional.
        None if items.is_empty() => return None,
        Some((min, max)) if items.len() < min || items.len() > max => {
            let count = items.len();
            let (plural, fix) = if count < min {
                (if count == 1 { "" } else { "s" }, "add options".to_owned())
            } else {
                ("s", format!("keep the {max} most useful"))
            };
            reader.error(
                at.clone(),
                format!(
                    "has {count} option{plural}; {} takes {min} to {max}: {fix}",
                    rules.tool
                ),
            );
        }
        _ => {}
    }
    let mut choices = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let item_path = format!("{at}/{j}");
        match item {
            Value::String(label) => {
                plain_options.push(item_path);
                choices.push(Choice::new(label.clone()));
            }
            Value::Object(object) => {
                let label = reader
                    .required_string(
                        object,
                        &item_path,
                        "label",
                        "`label`, the text of the option",
                    )
                    .unwrap_or_default();
                let description = reader.optional_string(object, &item_path, "description");
                if rules.preview {
                    // Claude Code's `preview` is shown by the host, not askuser; it is
                    // still checked, so a call askuser takes is one the host takes.
                    let _preview = reader.optional_string(object, &item_path, "preview");
                }
                choices.push(Choice { label, description });
            }
            other => {
                reader.error(
                    item_path,
                    format!(
                        "must be an object {{\"label\", \"description\"}}, not {}",
                        json_type(other)
                    ),
                );
                // A placeholder keeps the indices of the later options right.
                choices.push(Choice::new(""));
            }
        }
    }
    Some(choices)
}

/// A question's answer as the list of strings hosts hand back: the picked labels,
/// then any typed text; empty when unanswered or blank.
pub(crate) fn answer_strings(question: &Question, slot: Option<&Slot>) -> Vec<String> {
    let Some(slot) = slot else {
        return Vec::new();
    };
    match slot.answer.to_value(question) {
        Value::String(text) if text.trim().is_empty() => Vec::new(),
        Value::String(text) => vec![text],
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(text) => text,
                other => other.to_string(),
            })
            .collect(),
        Value::Bool(yes) => vec![if yes { "Yes" } else { "No" }.to_owned()],
        other => vec![other.to_string()],
    }
}

/// A question text as asked: its last non-empty line, with the lines before it as
/// context (shown above the question, so the reading order is kept).
fn split_text(text: &str) -> (String, Option<String>) {
    let trimmed = text.trim_end_matches(['\n', '\r', ' ', '\t']);
    match trimmed.rfind(['\n', '\r']) {
        None => (trimmed.to_owned(), None),
        Some(at) => {
            let context = trimmed[..at].trim_end_matches(['\n', '\r']);
            let last = trimmed[at + 1..].to_owned();
            let context = (!context.trim().is_empty()).then(|| context.to_owned());
            (last, context)
        }
    }
}

/// A core error in the shared shape's field names.
fn translate(error: &FormError, plain_options: &[String]) -> Problem {
    let mut path = error.path.clone();
    let parts: Vec<&str> = error.path.split('/').collect();
    match parts.as_slice() {
        ["", "questions", i, "text" | "context"] => path = format!("/questions/{i}/question"),
        ["", "questions", _, "options", _] if !plain_options.contains(&error.path) => {
            path.push_str("/label");
        }
        _ => {}
    }
    Problem::new(path, error.message())
}

#[cfg(test)]
mod tests {
    use super::split_text;

    #[test]
    fn a_multi_line_question_is_asked_as_its_last_line_below_the_rest() {
        assert_eq!(split_text("Which?"), ("Which?".to_owned(), None));
        assert_eq!(
            split_text("Plan:\n1. a\n\nWhich?\n"),
            ("Which?".to_owned(), Some("Plan:\n1. a".to_owned()))
        );
        assert_eq!(split_text("\n\nWhich?"), ("Which?".to_owned(), None));
        assert_eq!(split_text("\r\n"), (String::new(), None));
    }
}
