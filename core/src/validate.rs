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
use crate::pointer::At;
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
/// structural problem was already reported by the parser). A suppressed entry
/// `/questions/N#type` marks question N's answer type as unknown.
pub(crate) fn validate_with_suppressed(
    form: impl Into<Arc<Form>>,
    suppressed: &[String],
) -> Result<ValidForm, FormErrors> {
    let form = form.into();
    let mut checker = Checker {
        errors: Vec::new(),
        compiled: Vec::with_capacity(form.questions.len()),
        sound: Vec::with_capacity(form.questions.len()),
        untyped: suppressed
            .iter()
            .filter_map(|s| {
                s.strip_prefix("/questions/")?
                    .strip_suffix("#type")?
                    .parse()
                    .ok()
            })
            .collect(),
    };
    checker.form(&form);
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
    /// Questions whose answer type the parser could not read.
    untyped: Vec<usize>,
}

impl Checker {
    fn push(&mut self, at: &At<'_>, kind: FormErrorKind) {
        self.errors.push(FormError::new(at.pointer(), kind));
    }

    fn form(&mut self, form: &Form) {
        let count = form.questions.len();
        let questions = At::Root.key("questions");
        if count == 0 {
            self.push(&questions, FormErrorKind::NoQuestions);
            return;
        }
        if count > MAX_QUESTIONS {
            let kind = FormErrorKind::TooManyQuestions {
                count,
                max: MAX_QUESTIONS,
            };
            self.push(&questions, kind);
            return;
        }
        let bytes = form_bytes(form);
        if bytes > MAX_FORM_BYTES {
            let kind = FormErrorKind::FormTooLarge {
                bytes,
                max: MAX_FORM_BYTES,
            };
            self.push(&At::Root, kind);
            return;
        }
        for (i, question) in form.questions.iter().enumerate() {
            let at = At::question(i);
            self.identity(form, i, &at);
            let options_sound = self.options(question, &at);
            let (validator, schema_sound) = self.schema_field(question, &at);
            let sound = options_sound && schema_sound && !self.untyped.contains(&i);
            let default = match (&question.default, sound) {
                (Some(value), true) => match check_answer(question, validator.as_ref(), value) {
                    Ok(answer) => Some(answer),
                    Err(reason) => {
                        let kind = FormErrorKind::InvalidDefault {
                            reason: reason.to_string(),
                        };
                        self.push(&at.key("default"), kind);
                        None
                    }
                },
                _ => None,
            };
            let gate = question
                .when
                .as_ref()
                .and_then(|when| self.gate(form, i, when, &at.key("when")));
            self.sound.push(sound);
            self.compiled.push(Compiled::new(validator, default, gate));
        }
    }

    /// The id and the texts.
    fn identity(&mut self, form: &Form, i: usize, at: &At<'_>) {
        let question = &form.questions[i];
        let id = at.key("id");
        if is_blank(&question.id) {
            self.push(&id, FormErrorKind::EmptyId);
        } else if has_control(&question.id) {
            self.push(&id, FormErrorKind::IdNotOneLine);
        } else if question.id.len() > MAX_ID_BYTES {
            self.too_long(&id, question.id.len(), MAX_ID_BYTES);
        } else if let Some(first) = form.questions[..i].iter().position(|q| q.id == question.id) {
            let kind = FormErrorKind::DuplicateId {
                id: question.id.clone(),
                first,
            };
            self.push(&id, kind);
        }
        let text = at.key("text");
        if is_blank(&question.text) {
            self.push(&text, FormErrorKind::EmptyText);
        } else if question.text.bytes().any(|b| b == b'\n' || b == b'\r') {
            self.push(&text, FormErrorKind::MultiLineText);
        } else {
            self.text_length(&text, &question.text);
        }
        if let Some(context) = &question.context {
            self.text_length(&at.key("context"), context);
        }
        if let Some(header) = &question.header {
            let at = at.key("header");
            if has_control(header) {
                self.push(&at, FormErrorKind::LabelNotOneLine);
            } else {
                self.text_length(&at, header);
            }
        }
    }

    /// `options` and `allow_other` against the answer type; whether the options are usable.
    fn options(&mut self, question: &Question, at: &At<'_>) -> bool {
        let answer_type = question.answer_type;
        let field = at.key("options");
        let before = self.errors.len();
        match (&question.options, answer_type.has_options()) {
            (None, true) => self.push(&field, FormErrorKind::MissingOptions { answer_type }),
            (Some(options), true) if options.is_empty() => {
                self.push(&field, FormErrorKind::EmptyOptions { answer_type });
            }
            (Some(options), true) if options.len() > MAX_OPTIONS => {
                let kind = FormErrorKind::TooManyOptions {
                    count: options.len(),
                    max: MAX_OPTIONS,
                };
                self.push(&field, kind);
            }
            (Some(options), true) => {
                for (j, option) in options.iter().enumerate() {
                    let item = field.index(j);
                    let label = if option.description.is_some() {
                        item.key("label")
                    } else {
                        item
                    };
                    if is_blank(&option.label) {
                        self.push(&label, FormErrorKind::EmptyLabel);
                    } else if has_control(&option.label) {
                        self.push(&label, FormErrorKind::LabelNotOneLine);
                    } else if option.label.len() > MAX_TEXT_BYTES {
                        self.too_long(&label, option.label.len(), MAX_TEXT_BYTES);
                    } else if let Some(first) =
                        options[..j].iter().position(|o| o.label == option.label)
                    {
                        let kind = FormErrorKind::DuplicateLabel {
                            label: option.label.clone(),
                            first,
                        };
                        self.push(&label, kind);
                    }
                    if let Some(description) = &option.description {
                        self.text_length(&item.key("description"), description);
                    }
                }
            }
            (Some(_), false) => self.push(&field, FormErrorKind::UnexpectedOptions { answer_type }),
            (None, false) => {}
        }
        let sound = self.errors.len() == before;
        if question.allow_other && !answer_type.has_options() {
            let kind = FormErrorKind::UnexpectedAllowOther { answer_type };
            self.push(&at.key("allow_other"), kind);
        }
        sound
    }

    /// `schema` against the answer type; the compiled schema, and whether it is usable.
    fn schema_field(
        &mut self,
        question: &Question,
        at: &At<'_>,
    ) -> (Option<jsonschema::Validator>, bool) {
        let answer_type = question.answer_type;
        let field = at.key("schema");
        match (&question.schema, answer_type) {
            (None, AnswerType::Schema) => {
                self.push(&field, FormErrorKind::MissingSchema);
                (None, false)
            }
            (Some(schema), AnswerType::Schema) => {
                let validator = self.schema(schema, &field);
                let sound = validator.is_some();
                (validator, sound)
            }
            (Some(_), _) => {
                self.push(&field, FormErrorKind::UnexpectedSchema { answer_type });
                (None, false)
            }
            (None, _) => (None, true),
        }
    }

    fn schema(&mut self, schema: &Value, at: &At<'_>) -> Option<jsonschema::Validator> {
        if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
            self.push(at, FormErrorKind::SchemaNotAnObject);
            return None;
        }
        let bytes = value_bytes(schema);
        if bytes > MAX_SCHEMA_BYTES {
            let kind = FormErrorKind::SchemaTooLarge {
                bytes,
                max: MAX_SCHEMA_BYTES,
            };
            self.push(at, kind);
            return None;
        }
        let before = self.errors.len();
        schema::check_references(schema, at, &mut self.errors);
        if self.errors.len() > before {
            return None;
        }
        match schema::compile(schema) {
            Ok(validator) => Some(validator),
            Err(reason) => {
                self.push(at, FormErrorKind::SchemaInvalid { reason });
                None
            }
        }
    }

    /// One comparison's reference and values: the index of the question it reads,
    /// when the reference is sound and every value possible.
    fn leaf(
        &mut self,
        form: &Form,
        own: usize,
        question_id: &str,
        operator: &str,
        values: &[&Value],
        at: &At<'_>,
    ) -> Option<usize> {
        let index = self.reference(form, own, question_id, &at.key("question_id"))?;
        let target = &form.questions[index];
        if !self.sound[index] {
            return Some(index);
        }
        let operand = at.key(operator);
        if operator == "contains" && target.answer_type != AnswerType::MultiSelect {
            let kind = FormErrorKind::WhenContainsNotMultiSelect {
                id: question_id.to_owned(),
                answer_type: target.answer_type,
            };
            self.push(&operand, kind);
            return None;
        }
        let mut ok = true;
        for (n, value) in values.iter().enumerate() {
            if value.is_null() {
                continue;
            }
            let validator = self.compiled[index]
                .validator
                .get()
                .and_then(|compiled| compiled.as_ref().ok());
            let checked = if operator == "contains" {
                check_answer(target, validator, &Value::Array(vec![(*value).clone()]))
            } else {
                check_answer(target, validator, value)
            };
            if let Err(reason) = checked {
                ok = false;
                let kind = FormErrorKind::WhenImpossibleValue {
                    id: question_id.to_owned(),
                    answer_type: target.answer_type,
                    value: value.to_string(),
                    reason: reason.to_string(),
                };
                if operator == "one_of" {
                    self.push(&operand.index(n), kind);
                } else {
                    self.push(&operand, kind);
                }
            }
        }
        ok.then_some(index)
    }

    /// Resolves a `when` predicate to question indices, checking each reference.
    fn gate(&mut self, form: &Form, own: usize, when: &When, at: &At<'_>) -> Option<Gate> {
        let operator = when.operator();
        Some(match when {
            When::Equals { question_id, value } => Gate::Equals(
                self.leaf(form, own, question_id, operator, &[value], at)?,
                value.clone(),
            ),
            When::NotEquals { question_id, value } => Gate::NotEquals(
                self.leaf(form, own, question_id, operator, &[value], at)?,
                value.clone(),
            ),
            When::Contains { question_id, value } => Gate::Contains(
                self.leaf(form, own, question_id, operator, &[value], at)?,
                value.clone(),
            ),
            When::OneOf {
                question_id,
                values,
            } => {
                let refs: Vec<&Value> = values.iter().collect();
                Gate::OneOf(
                    self.leaf(form, own, question_id, operator, &refs, at)?,
                    values.clone(),
                )
            }
            When::All(items) | When::Any(items) => {
                let group = at.key(operator);
                let gates: Vec<Option<Gate>> = items
                    .iter()
                    .enumerate()
                    .map(|(n, item)| self.gate(form, own, item, &group.index(n)))
                    .collect();
                let gates: Vec<Gate> = gates.into_iter().collect::<Option<_>>()?;
                if matches!(when, When::All(_)) {
                    Gate::All(gates)
                } else {
                    Gate::Any(gates)
                }
            }
            When::Not(inner) => Gate::Not(Box::new(self.gate(form, own, inner, &at.key("not"))?)),
        })
    }

    /// The index of an earlier question named by a predicate.
    fn reference(&mut self, form: &Form, own: usize, id: &str, at: &At<'_>) -> Option<usize> {
        let kind = match form.questions.iter().position(|q| q.id == id) {
            Some(index) if index < own => return Some(index),
            None => FormErrorKind::WhenUnknownQuestion { id: id.to_owned() },
            Some(index) if index == own => FormErrorKind::WhenSelfReference { id: id.to_owned() },
            Some(index) => FormErrorKind::WhenForwardReference {
                id: id.to_owned(),
                index,
            },
        };
        self.push(at, kind);
        None
    }

    fn text_length(&mut self, at: &At<'_>, text: &str) {
        if text.len() > MAX_TEXT_BYTES {
            self.too_long(at, text.len(), MAX_TEXT_BYTES);
        }
    }

    fn too_long(&mut self, at: &At<'_>, bytes: usize, max: usize) {
        self.push(at, FormErrorKind::TooLong { bytes, max });
    }
}

/// Whether a text is empty or only white space (an ASCII first character that is not
/// white space settles it without scanning).
fn is_blank(text: &str) -> bool {
    match text.as_bytes().first() {
        None => true,
        Some(b) if b.is_ascii() && !b.is_ascii_whitespace() => false,
        Some(_) => text.trim().is_empty(),
    }
}

/// Whether a text has a control character (a line break, a tab, ...); ASCII text is
/// checked byte by byte.
fn has_control(text: &str) -> bool {
    if text.is_ascii() {
        text.bytes().any(|b| b.is_ascii_control())
    } else {
        text.chars().any(char::is_control)
    }
}

/// The size of a form in bytes of compact JSON, estimated without serializing it
/// (string escapes are not counted).
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
                + q.schema.as_ref().map_or(0, value_bytes)
                + q.default.as_ref().map_or(0, value_bytes)
                + q.when.as_ref().map_or(0, when_bytes)
        })
        .sum()
}

fn when_bytes(when: &When) -> usize {
    match when {
        When::Equals { question_id, value }
        | When::NotEquals { question_id, value }
        | When::Contains { question_id, value } => 32 + question_id.len() + value_bytes(value),
        When::OneOf {
            question_id,
            values,
        } => 32 + question_id.len() + values.iter().map(value_bytes).sum::<usize>(),
        When::All(items) | When::Any(items) => 10 + items.iter().map(when_bytes).sum::<usize>(),
        When::Not(inner) => 10 + when_bytes(inner),
    }
}

/// The length of a value as compact JSON (at most: numbers count as their longest
/// form; escapes are not counted), computed without serializing it.
fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(b) => 4 + usize::from(!b),
        // The longest a number prints (e.g. `-1.2345678901234567e-308`).
        Value::Number(_) => 24,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| value_bytes(v) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() + 4 + value_bytes(v))
                .sum::<usize>()
        }
    }
}
