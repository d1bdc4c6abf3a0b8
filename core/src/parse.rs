//! Reading a form from a model's JSON, collecting every problem at once.
//!
//! `serde_json::from_value::<Form>` stops at the first problem; a model that must fix
//! its call wants all of them. [`parse_form`] reads field by field, records each
//! structural problem with its JSON pointer, then runs the semantic validation of
//! [`validate`](crate::validate) on what it could read, so one call reports
//! everything.

use serde_json::{Map, Value};

use crate::error::{FormError, FormErrorKind, FormErrors, escape_pointer};
use crate::form::{AnswerType, Choice, Form, Question};
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
    fn error(&mut self, path: String, kind: FormErrorKind) {
        self.broken.push(path.clone());
        self.errors.push(FormError::new(path, kind));
    }

    fn unknown_fields(&mut self, map: &Map<String, Value>, path: &str, known: &'static str) {
        if !self.options.reject_unknown_fields {
            return;
        }
        for key in map.keys() {
            if !known.split(", ").any(|k| k == key) {
                self.errors.push(FormError::new(
                    format!("{path}/{}", escape_pointer(key)),
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
            self.error(
                String::new(),
                FormErrorKind::WrongType {
                    expected: "an object with a `questions` list",
                },
            );
            return None;
        };
        self.unknown_fields(map, "", FORM_FIELDS);
        let items = match map.get("questions") {
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.error(
                    "/questions".into(),
                    FormErrorKind::WrongType {
                        expected: "a list of questions",
                    },
                );
                return None;
            }
            None => {
                self.error(
                    "/questions".into(),
                    FormErrorKind::MissingField {
                        what: "`questions`, a list of at least one question",
                    },
                );
                return None;
            }
        };
        if items.len() > crate::limits::MAX_QUESTIONS {
            self.error(
                "/questions".into(),
                FormErrorKind::TooManyQuestions {
                    count: items.len(),
                    max: crate::limits::MAX_QUESTIONS,
                },
            );
            return None;
        }
        let questions = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.question(item, &format!("/questions/{i}")))
            .collect();
        Some(Form { questions })
    }

    fn question(&mut self, item: &Value, path: &str) -> Question {
        let mut question = Question::new("", "", AnswerType::Text);
        let Value::Object(map) = item else {
            self.error(
                path.to_owned(),
                FormErrorKind::WrongType {
                    expected: "an object with id, text and answer_type",
                },
            );
            return question;
        };
        self.unknown_fields(map, path, QUESTION_FIELDS);
        question.id = self.required_string(map, path, "id", "an id such as \"env\"");
        question.text = self.required_string(map, path, "text", "the question text, one line");
        question.context = self.optional_string(map, path, "context");
        question.header = self.optional_string(map, path, "header");
        question.answer_type = self.answer_type(map, path);
        question.options = self.options_field(map, path);
        question.allow_other = match map.get("allow_other") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.error(
                    format!("{path}/allow_other"),
                    FormErrorKind::WrongType {
                        expected: "true or false",
                    },
                );
                false
            }
        };
        question.schema = non_null(map.get("schema"));
        question.default = non_null(map.get("default"));
        if let Some(when) = non_null(map.get("when")) {
            let when_path = format!("{path}/when");
            let before = self.errors.len();
            question.when = parse_when(&when, &when_path, 0, &mut self.errors);
            if self.errors.len() > before {
                self.broken.push(when_path);
            }
        }
        question
    }

    fn answer_type(&mut self, map: &Map<String, Value>, path: &str) -> AnswerType {
        let at = format!("{path}/answer_type");
        match map.get("answer_type") {
            Some(Value::String(name)) => AnswerType::from_name(name).unwrap_or_else(|| {
                self.unknown_type(path, at, FormErrorKind::UnknownAnswerType { found: name.clone() })
            }),
            None | Some(Value::Null) if !self.options.require_answer_type => AnswerType::Text,
            None | Some(Value::Null) => self.unknown_type(
                path,
                at,
                FormErrorKind::MissingField {
                    what: "answer_type: one of boolean, select, multi_select, text, schema",
                },
            ),
            Some(_) => self.unknown_type(
                path,
                at,
                FormErrorKind::WrongType {
                    expected: "one of \"boolean\", \"select\", \"multi_select\", \"text\", \"schema\"",
                },
            ),
        }
    }

    /// Records an unusable answer type; the checks that depend on it are skipped.
    fn unknown_type(&mut self, path: &str, at: String, kind: FormErrorKind) -> AnswerType {
        self.error(at, kind);
        for field in ["options", "allow_other", "schema", "default"] {
            self.broken.push(format!("{path}/{field}"));
        }
        self.broken.push(format!("{path}#type"));
        AnswerType::Text
    }

    fn options_field(&mut self, map: &Map<String, Value>, path: &str) -> Option<Vec<Choice>> {
        let at = format!("{path}/options");
        let items = match map.get("options")? {
            Value::Null => return None,
            Value::Array(items) => items,
            _ => {
                self.error(
                    at,
                    FormErrorKind::WrongType {
                        expected: "a list of option labels (strings or {\"label\", \"description\"} objects)",
                    },
                );
                return Some(Vec::new());
            }
        };
        let mut choices = Vec::with_capacity(items.len());
        for (j, item) in items.iter().enumerate() {
            let item_path = format!("{at}/{j}");
            match item {
                Value::String(label) => choices.push(Choice::new(label.clone())),
                Value::Object(object) => {
                    self.unknown_fields(object, &item_path, "label, description");
                    let label =
                        self.required_string(object, &item_path, "label", "the option's label");
                    let description = self.optional_string(object, &item_path, "description");
                    choices.push(Choice { label, description });
                }
                _ => {
                    self.error(
                        item_path,
                        FormErrorKind::WrongType {
                            expected: "a string label or a {\"label\", \"description\"} object",
                        },
                    );
                    self.broken.push(format!("{path}/default"));
                    self.broken.push(format!("{path}#type"));
                }
            }
        }
        Some(choices)
    }

    fn required_string(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
        what: &'static str,
    ) -> String {
        let at = format!("{path}/{field}");
        match map.get(field) {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => {
                self.error(at, FormErrorKind::MissingField { what });
                String::new()
            }
            Some(_) => {
                self.error(
                    at,
                    FormErrorKind::WrongType {
                        expected: "a string",
                    },
                );
                String::new()
            }
        }
    }

    fn optional_string(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        field: &str,
    ) -> Option<String> {
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.error(
                    format!("{path}/{field}"),
                    FormErrorKind::WrongType {
                        expected: "a string",
                    },
                );
                None
            }
        }
    }
}

fn non_null(value: Option<&Value>) -> Option<Value> {
    value.filter(|v| !v.is_null()).cloned()
}
