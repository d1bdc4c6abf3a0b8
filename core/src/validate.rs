//! Semantic validation of a form into a [`ValidForm`].

use std::sync::Arc;

use serde_json::Value;

use crate::answer::check_answer;
use crate::error::{FormError, FormErrorKind, FormErrors};
use crate::form::{AnswerType, Form, Question};
use crate::gate::Gate;
use crate::limits::{
    MAX_FORM_BYTES, MAX_ID_BYTES, MAX_OPTIONS, MAX_QUESTIONS, MAX_SCHEMA_BYTES, MAX_TEXT_BYTES,
};
use crate::schema;
use crate::valid_form::{Compiled, ValidForm};
use crate::when::When;

/// Validates a form, reporting every problem at once.
///
/// # Errors
/// Every problem found, each with the JSON pointer of its field.
pub fn validate(form: impl Into<Arc<Form>>) -> Result<ValidForm, FormErrors> {
    validate_with_suppressed(form, &[])
}

/// [`validate`], dropping errors at or under the `suppressed` paths (fields whose
/// structural problem was already reported by the parser).
pub(crate) fn validate_with_suppressed(
    form: impl Into<Arc<Form>>,
    suppressed: &[String],
) -> Result<ValidForm, FormErrors> {
    let form = form.into();
    let mut checker = Checker {
        errors: Vec::new(),
        compiled: Vec::with_capacity(form.questions.len()),
        sound: Vec::with_capacity(form.questions.len()),
    };
    checker.form(&form, suppressed);
    let errors: Vec<FormError> = checker
        .errors
        .into_iter()
        .filter(|e| !is_suppressed(&e.path, suppressed))
        .collect();
    if errors.is_empty() {
        Ok(ValidForm::from_parts(form, checker.compiled))
    } else {
        Err(FormErrors(errors))
    }
}

fn is_suppressed(path: &str, suppressed: &[String]) -> bool {
    suppressed.iter().any(|s| {
        path.strip_prefix(s.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

struct Checker {
    errors: Vec<FormError>,
    compiled: Vec<Compiled>,
    /// Whether each question's options and schema are usable for checking references.
    sound: Vec<bool>,
}

impl Checker {
    fn push(&mut self, path: String, kind: FormErrorKind) {
        self.errors.push(FormError::new(path, kind));
    }

    fn form(&mut self, form: &Form, suppressed: &[String]) {
        let count = form.questions.len();
        if count == 0 {
            self.push("/questions".into(), FormErrorKind::NoQuestions);
            return;
        }
        if count > MAX_QUESTIONS {
            self.push(
                "/questions".into(),
                FormErrorKind::TooManyQuestions {
                    count,
                    max: MAX_QUESTIONS,
                },
            );
            return;
        }
        let bytes = form_bytes(form);
        if bytes > MAX_FORM_BYTES {
            self.push(
                String::new(),
                FormErrorKind::FormTooLarge {
                    bytes,
                    max: MAX_FORM_BYTES,
                },
            );
            return;
        }
        for (i, question) in form.questions.iter().enumerate() {
            let path = format!("/questions/{i}");
            let before = self.errors.len();
            self.identity(form, i, &path);
            let validator = self.kind(question, &path);
            let typed = !suppressed.iter().any(|s| *s == format!("{path}#type"));
            let sound = typed
                && !self.errors[before..].iter().any(|e| {
                    e.path.starts_with(&format!("{path}/options"))
                        || e.path.starts_with(&format!("{path}/schema"))
                });
            let default = match (&question.default, sound) {
                (Some(value), true) => match check_answer(question, validator.as_ref(), value) {
                    Ok(answer) => Some(answer),
                    Err(reason) => {
                        self.push(
                            format!("{path}/default"),
                            FormErrorKind::InvalidDefault {
                                reason: reason.to_string(),
                            },
                        );
                        None
                    }
                },
                _ => None,
            };
            let gate = question
                .when
                .as_ref()
                .and_then(|when| self.gate(form, i, when, &format!("{path}/when")));
            self.sound.push(sound);
            self.compiled.push(Compiled {
                validator,
                default,
                gate,
            });
        }
    }

    /// The id and the texts.
    fn identity(&mut self, form: &Form, i: usize, path: &str) {
        let question = &form.questions[i];
        let id_path = format!("{path}/id");
        if question.id.trim().is_empty() {
            self.push(id_path, FormErrorKind::EmptyId);
        } else if question.id.chars().any(char::is_control) {
            self.push(id_path, FormErrorKind::IdNotOneLine);
        } else if question.id.len() > MAX_ID_BYTES {
            self.too_long(id_path, question.id.len(), MAX_ID_BYTES);
        } else if let Some(first) = form.questions[..i].iter().position(|q| q.id == question.id) {
            self.push(
                id_path,
                FormErrorKind::DuplicateId {
                    id: question.id.clone(),
                    first,
                },
            );
        }
        let text_path = format!("{path}/text");
        if question.text.trim().is_empty() {
            self.push(text_path, FormErrorKind::EmptyText);
        } else if question.text.contains(['\n', '\r']) {
            self.push(text_path, FormErrorKind::MultiLineText);
        } else {
            self.text_length(text_path, &question.text);
        }
        if let Some(context) = &question.context {
            self.text_length(format!("{path}/context"), context);
        }
        if let Some(header) = &question.header {
            if header.chars().any(char::is_control) {
                self.push(format!("{path}/header"), FormErrorKind::LabelNotOneLine);
            } else {
                self.text_length(format!("{path}/header"), header);
            }
        }
    }

    /// Options, schema and their agreement with the answer type.
    fn kind(&mut self, question: &Question, path: &str) -> Option<jsonschema::Validator> {
        let answer_type = question.answer_type;
        let options_path = format!("{path}/options");
        match (&question.options, answer_type.has_options()) {
            (None, true) => self.push(options_path, FormErrorKind::MissingOptions { answer_type }),
            (Some(options), true) if options.is_empty() => {
                self.push(options_path, FormErrorKind::EmptyOptions { answer_type });
            }
            (Some(options), true) if options.len() > MAX_OPTIONS => self.push(
                options_path,
                FormErrorKind::TooManyOptions {
                    count: options.len(),
                    max: MAX_OPTIONS,
                },
            ),
            (Some(options), true) => {
                for (j, option) in options.iter().enumerate() {
                    let at = format!("{options_path}/{j}");
                    let label_path = if option.description.is_some() {
                        format!("{at}/label")
                    } else {
                        at.clone()
                    };
                    if option.label.trim().is_empty() {
                        self.push(label_path, FormErrorKind::EmptyLabel);
                    } else if option.label.chars().any(char::is_control) {
                        self.push(label_path, FormErrorKind::LabelNotOneLine);
                    } else if option.label.len() > MAX_TEXT_BYTES {
                        self.too_long(label_path, option.label.len(), MAX_TEXT_BYTES);
                    } else if let Some(first) =
                        options[..j].iter().position(|o| o.label == option.label)
                    {
                        self.push(
                            label_path,
                            FormErrorKind::DuplicateLabel {
                                label: option.label.clone(),
                                first,
                            },
                        );
                    }
                    if let Some(description) = &option.description {
                        self.text_length(format!("{at}/description"), description);
                    }
                }
            }
            (Some(_), false) => self.push(
                options_path,
                FormErrorKind::UnexpectedOptions { answer_type },
            ),
            (None, false) => {}
        }
        if question.allow_other && !answer_type.has_options() {
            self.push(
                format!("{path}/allow_other"),
                FormErrorKind::UnexpectedAllowOther { answer_type },
            );
        }
        let schema_path = format!("{path}/schema");
        match (&question.schema, answer_type) {
            (None, AnswerType::Schema) => self.push(schema_path, FormErrorKind::MissingSchema),
            (Some(schema), AnswerType::Schema) => return self.schema(schema, schema_path),
            (Some(_), _) => self.push(schema_path, FormErrorKind::UnexpectedSchema { answer_type }),
            (None, _) => {}
        }
        None
    }

    fn schema(&mut self, schema: &Value, path: String) -> Option<jsonschema::Validator> {
        if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
            self.push(path, FormErrorKind::SchemaNotAnObject);
            return None;
        }
        let bytes = json_bytes(schema);
        if bytes > MAX_SCHEMA_BYTES {
            self.push(
                path,
                FormErrorKind::SchemaTooLarge {
                    bytes,
                    max: MAX_SCHEMA_BYTES,
                },
            );
            return None;
        }
        let before = self.errors.len();
        schema::check_references(schema, &path, &mut self.errors);
        if self.errors.len() > before {
            return None;
        }
        match schema::compile(schema) {
            Ok(validator) => Some(validator),
            Err(reason) => {
                self.push(path, FormErrorKind::SchemaInvalid { reason });
                None
            }
        }
    }

    /// Resolves a `when` predicate to question indices, checking each reference.
    fn gate(&mut self, form: &Form, own: usize, when: &When, path: &str) -> Option<Gate> {
        let leaf = |this: &mut Self, question_id: &str, operator: &str, values: &[&Value]| {
            let index = this.reference(form, own, question_id, &format!("{path}/question_id"))?;
            let target = &form.questions[index];
            if !this.sound[index] {
                return Some(index);
            }
            if operator == "contains" && target.answer_type != AnswerType::MultiSelect {
                this.push(
                    format!("{path}/contains"),
                    FormErrorKind::WhenContainsNotMultiSelect {
                        id: question_id.to_owned(),
                        answer_type: target.answer_type,
                    },
                );
                return None;
            }
            let mut ok = true;
            for (n, value) in values.iter().enumerate() {
                let at = if operator == "one_of" {
                    format!("{path}/one_of/{n}")
                } else {
                    format!("{path}/{operator}")
                };
                let as_answer = if operator == "contains" {
                    Value::Array(vec![(*value).clone()])
                } else {
                    (*value).clone()
                };
                if as_answer.is_null() {
                    continue;
                }
                if let Err(reason) =
                    check_answer(target, this.compiled[index].validator.as_ref(), &as_answer)
                {
                    ok = false;
                    this.push(
                        at,
                        FormErrorKind::WhenImpossibleValue {
                            id: question_id.to_owned(),
                            answer_type: target.answer_type,
                            value: value.to_string(),
                            reason: reason.to_string(),
                        },
                    );
                }
            }
            ok.then_some(index)
        };
        Some(match when {
            When::Equals { question_id, value } => {
                Gate::Equals(leaf(self, question_id, "equals", &[value])?, value.clone())
            }
            When::NotEquals { question_id, value } => Gate::NotEquals(
                leaf(self, question_id, "not_equals", &[value])?,
                value.clone(),
            ),
            When::Contains { question_id, value } => Gate::Contains(
                leaf(self, question_id, "contains", &[value])?,
                value.clone(),
            ),
            When::OneOf {
                question_id,
                values,
            } => {
                let refs: Vec<&Value> = values.iter().collect();
                Gate::OneOf(leaf(self, question_id, "one_of", &refs)?, values.clone())
            }
            When::All(items) | When::Any(items) => {
                let operator = when.operator();
                let gates: Vec<Option<Gate>> = items
                    .iter()
                    .enumerate()
                    .map(|(n, item)| self.gate(form, own, item, &format!("{path}/{operator}/{n}")))
                    .collect();
                let gates: Vec<Gate> = gates.into_iter().collect::<Option<_>>()?;
                if matches!(when, When::All(_)) {
                    Gate::All(gates)
                } else {
                    Gate::Any(gates)
                }
            }
            When::Not(inner) => Gate::Not(Box::new(self.gate(
                form,
                own,
                inner,
                &format!("{path}/not"),
            )?)),
        })
    }

    /// The index of an earlier question named by a predicate.
    fn reference(&mut self, form: &Form, own: usize, id: &str, path: &str) -> Option<usize> {
        match form.questions.iter().position(|q| q.id == id) {
            None => {
                self.push(
                    path.to_owned(),
                    FormErrorKind::WhenUnknownQuestion { id: id.to_owned() },
                );
                None
            }
            Some(index) if index == own => {
                self.push(
                    path.to_owned(),
                    FormErrorKind::WhenSelfReference { id: id.to_owned() },
                );
                None
            }
            Some(index) if index > own => {
                self.push(
                    path.to_owned(),
                    FormErrorKind::WhenForwardReference {
                        id: id.to_owned(),
                        index,
                    },
                );
                None
            }
            Some(index) => Some(index),
        }
    }

    fn text_length(&mut self, path: String, text: &str) {
        if text.len() > MAX_TEXT_BYTES {
            self.too_long(path, text.len(), MAX_TEXT_BYTES);
        }
    }

    fn too_long(&mut self, path: String, bytes: usize, max: usize) {
        self.push(path, FormErrorKind::TooLong { bytes, max });
    }
}

/// The size of a form in bytes of compact JSON, counted without building the JSON
/// for its texts (schemas and defaults are serialized to measure them).
fn form_bytes(form: &Form) -> usize {
    form.questions
        .iter()
        .map(|q| {
            64 + q.id.len()
                + q.text.len()
                + q.context.as_ref().map_or(0, String::len)
                + q.header.as_ref().map_or(0, String::len)
                + q.choices()
                    .iter()
                    .map(|c| 4 + c.label.len() + c.description.as_ref().map_or(0, String::len))
                    .sum::<usize>()
                + q.schema.as_ref().map_or(0, json_bytes)
                + q.default.as_ref().map_or(0, json_bytes)
                + q.when.as_ref().map_or(0, |w| json_bytes(&w.to_json()))
        })
        .sum()
}

fn json_bytes(value: &Value) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |s| s.len())
}
