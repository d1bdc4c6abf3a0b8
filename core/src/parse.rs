//! Reading a form from a model's JSON, collecting every problem at once.
//!
//! `serde_json::from_value::<Form>` stops at the first problem; a model that must fix
//! its call wants all of them. [`parse_form`] reads field by field, records each
//! structural problem with its JSON pointer, then runs the semantic validation of
//! [`validate`](crate::validate) on what it could read, so one call reports
//! everything.

use serde_json::{Map, Value};

use crate::error::{FormError, FormErrorKind, FormErrors};
use crate::form::{AnswerType, Choice, Form, Question};
use crate::pointer::At;
use crate::valid_form::ValidForm;
use crate::validate::validate_with_suppressed;
use crate::when::parse_when;

/// How strictly [`parse_form_with`] reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Report fields the shape does not know (as `jp-form` does). When false they are ignored.
    pub reject_unknown_fields: bool,
    /// Report a question without `answer_type`. When false it defaults to `text`.
    pub require_answer_type: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            reject_unknown_fields: true,
            require_answer_type: true,
        }
    }
}

const FORM_FIELDS: &str = "questions";
const QUESTION_FIELDS: &str =
    "id, text, context, header, answer_type, options, allow_other, schema, default, when";

/// Reads and validates `jp-form` tool arguments (`{"questions": [...]}`), reporting
/// every problem with its JSON pointer. Unknown fields are errors.
///
/// # Errors
/// Every structural and semantic problem found, in question order.
pub fn parse_form(arguments: &Value) -> Result<ValidForm, FormErrors> {
    parse_form_with(arguments, ParseOptions::default())
}

/// [`parse_form`] with explicit [`ParseOptions`].
///
/// # Errors
/// Every structural and semantic problem found, in question order.
pub fn parse_form_with(arguments: &Value, options: ParseOptions) -> Result<ValidForm, FormErrors> {
    let mut reader = Reader {
        options,
        errors: Vec::new(),
        broken: Vec::new(),
    };
    let form = reader.form(arguments);
    let Some(form) = form else {
        return Err(FormErrors(reader.errors));
    };
    match validate_with_suppressed(form, &reader.broken) {
        Ok(valid) if reader.errors.is_empty() => Ok(valid),
        Ok(_) => Err(FormErrors(reader.errors)),
        Err(FormErrors(semantic)) => {
            let mut all = reader.errors;
            all.extend(semantic);
            all.sort_by_key(|error| question_index(&error.path));
            Err(FormErrors(all))
        }
    }
}

/// The question index a path points into, for ordering (form-level paths first).
fn question_index(path: &str) -> Option<usize> {
    path.strip_prefix("/questions/")?
        .split('/')
        .next()?
        .parse()
        .ok()
}

struct Reader {
    options: ParseOptions,
    errors: Vec<FormError>,
    /// Paths whose structural problem was reported; semantic errors under them are dropped.
    broken: Vec<String>,
}

impl Reader {
    fn error(&mut self, at: &At<'_>, kind: FormErrorKind) {
        let path = at.pointer();
        self.broken.push(path.clone());
        self.errors.push(FormError::new(path, kind));
    }

    fn unknown_fields(&mut self, map: &Map<String, Value>, at: &At<'_>, known: &'static str) {
        if !self.options.reject_unknown_fields {
            return;
        }
        for key in map.keys() {
            if !known.split(", ").any(|k| k == key) {
                self.errors.push(FormError::new(
                    at.key(key).pointer(),
                    FormErrorKind::UnknownField {
                        field: key.clone(),
                        known,
                    },
                ));
            }
        }
    }

    fn form(&mut self, arguments: &Value) -> Option<Form> {
        let Value::Object(map) = arguments else {
            let kind = FormErrorKind::WrongType {
                expected: "an object with a `questions` list",
            };
            self.error(&At::Root, kind);
            return None;
        };
        self.unknown_fields(map, &At::Root, FORM_FIELDS);
        let at = At::Root.key("questions");
        let items = match map.get("questions") {
            Some(Value::Array(items)) => items,
            Some(_) => {
                let kind = FormErrorKind::WrongType {
                    expected: "a list of questions",
                };
                self.error(&at, kind);
                return None;
            }
            None => {
                let kind = FormErrorKind::MissingField {
                    what: "`questions`, a list of at least one question",
                };
                self.error(&at, kind);
                return None;
            }
        };
        if items.len() > crate::limits::MAX_QUESTIONS {
            let kind = FormErrorKind::TooManyQuestions {
                count: items.len(),
                max: crate::limits::MAX_QUESTIONS,
            };
            self.error(&at, kind);
            return None;
        }
        let questions = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.question(item, &At::question(i)))
            .collect();
        Some(Form::new(questions))
    }

    fn question(&mut self, item: &Value, at: &At<'_>) -> Question {
        let mut question = Question::new(String::new(), String::new(), AnswerType::Text);
        let Value::Object(map) = item else {
            let kind = FormErrorKind::WrongType {
                expected: "an object with id, text and answer_type",
            };
            self.error(at, kind);
            return question;
        };
        self.unknown_fields(map, at, QUESTION_FIELDS);
        question.id = self.required_string(map, at, "id", "an id such as \"env\"");
        question.text = self.required_string(map, at, "text", "the question text, one line");
        question.context = self.optional_string(map, at, "context");
        question.header = self.optional_string(map, at, "header");
        question.answer_type = self.answer_type(map, at);
        question.options = self.options_field(map, at);
        question.allow_other = match map.get("allow_other") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                let kind = FormErrorKind::WrongType {
                    expected: "true or false",
                };
                self.error(&at.key("allow_other"), kind);
                false
            }
        };
        question.schema = non_null(map.get("schema"));
        question.default = non_null(map.get("default"));
        if let Some(when) = map.get("when").filter(|w| !w.is_null()) {
            let when_at = at.key("when");
            let before = self.errors.len();
            question.when = parse_when(when, &when_at, 0, &mut self.errors);
            if self.errors.len() > before {
                self.broken.push(when_at.pointer());
            }
        }
        question
    }

    fn answer_type(&mut self, map: &Map<String, Value>, question: &At<'_>) -> AnswerType {
        let kind = match map.get("answer_type") {
            Some(Value::String(name)) => match AnswerType::from_name(name) {
                Some(answer_type) => return answer_type,
                None => FormErrorKind::UnknownAnswerType {
                    found: name.clone(),
                },
            },
            None | Some(Value::Null) if !self.options.require_answer_type => {
                return AnswerType::Text;
            }
            None | Some(Value::Null) => FormErrorKind::MissingField {
                what: "answer_type: one of boolean, select, multi_select, text, schema",
            },
            Some(_) => FormErrorKind::WrongType {
                expected: "one of \"boolean\", \"select\", \"multi_select\", \"text\", \"schema\"",
            },
        };
        self.error(&question.key("answer_type"), kind);
        // The checks that depend on the type are skipped.
        for field in ["options", "allow_other", "schema", "default"] {
            self.broken.push(question.key(field).pointer());
        }
        self.broken.push(format!("{}#type", question.pointer()));
        AnswerType::Text
    }

    fn options_field(
        &mut self,
        map: &Map<String, Value>,
        question: &At<'_>,
    ) -> Option<Vec<Choice>> {
        let at = question.key("options");
        let items = match map.get("options")? {
            Value::Null => return None,
            Value::Array(items) => items,
            _ => {
                let kind = FormErrorKind::WrongType {
                    expected: "a list of option labels (strings or {\"label\", \"description\"} objects)",
                };
                self.error(&at, kind);
                return Some(Vec::new());
            }
        };
        let mut choices = Vec::with_capacity(items.len());
        for (j, item) in items.iter().enumerate() {
            let item_at = at.index(j);
            match item {
                Value::String(label) => choices.push(Choice::new(label.clone())),
                Value::Object(object) => {
                    self.unknown_fields(object, &item_at, "label, description");
                    let label =
                        self.required_string(object, &item_at, "label", "the option's label");
                    let description = self.optional_string(object, &item_at, "description");
                    choices.push(Choice { label, description });
                }
                _ => {
                    let kind = FormErrorKind::WrongType {
                        expected: "a string label or a {\"label\", \"description\"} object",
                    };
                    self.error(&item_at, kind);
                    self.broken.push(question.key("default").pointer());
                    self.broken.push(format!("{}#type", question.pointer()));
                }
            }
        }
        Some(choices)
    }

    fn required_string(
        &mut self,
        map: &Map<String, Value>,
        at: &At<'_>,
        field: &str,
        what: &'static str,
    ) -> String {
        let kind = match map.get(field) {
            Some(Value::String(s)) => return s.clone(),
            None | Some(Value::Null) => FormErrorKind::MissingField { what },
            Some(_) => FormErrorKind::WrongType {
                expected: "a string",
            },
        };
        self.error(&at.key(field), kind);
        String::new()
    }

    fn optional_string(
        &mut self,
        map: &Map<String, Value>,
        at: &At<'_>,
        field: &str,
    ) -> Option<String> {
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                let kind = FormErrorKind::WrongType {
                    expected: "a string",
                };
                self.error(&at.key(field), kind);
                None
            }
        }
    }
}

fn non_null(value: Option<&Value>) -> Option<Value> {
    value.filter(|v| !v.is_null()).cloned()
}
