//! Semantic validation of a form into a [`ValidForm`].

use std::sync::Arc;

use serde_json::Value;

use crate::answer::check_answer;
use crate::error::{FormError, FormErrorKind, FormErrors};
use crate::form::{AnswerType, Choice, Form, Question};
use crate::gate::Gate;
use crate::limits::{
    MAX_FORM_BYTES, MAX_ID_BYTES, MAX_OPTIONS, MAX_QUESTIONS, MAX_SCHEMA_BYTES, MAX_TEXT_BYTES,
    MAX_WHEN_DEPTH, json_bytes, json_string_bytes,
};
use crate::pointer::At;
use crate::schema;
use crate::text::{Lines, forbidden_char, forbidden_control, look};
use crate::valid_form::{Compiled, ValidForm};
use crate::when::When;

/// What to write instead of a forbidden character, by field.
const ID_FIX: &str = "use a short plain id such as \"env\"";
const TEXT_FIX: &str =
    "write the question as plain text, without control, bidi-control or invisible characters";
const ONE_LINE_FIX: &str =
    "write it as one line of plain text, without control, bidi-control or invisible characters";
const LABEL_FIX: &str = "write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`";
const FREE_TEXT_FIX: &str = "remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate";
const SEPARATOR_FIX: &str =
    "write a newline (\\n) instead; a terminal shows this separator as nothing";
const FORMAT_FIX: &str = "remove it: it draws nothing, so the text could pass for another (the invisible characters allowed here are joiners, bidi marks, variation selectors, the zero-width space, the word joiner, the soft hyphen and emoji tags)";

/// What to write instead of `ch` in free text.
fn free_text_fix(ch: char) -> &'static str {
    match ch {
        '\u{2028}' | '\u{2029}' => SEPARATOR_FIX,
        c if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') => {
            FREE_TEXT_FIX
        }
        _ => FORMAT_FIX,
    }
}

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
        let bytes = json_bytes(form);
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
            let gate = question.when.as_ref().and_then(|when| {
                let at = at.key("when");
                if levels_exceed(when, MAX_WHEN_DEPTH) {
                    let kind = FormErrorKind::WhenTooDeep {
                        max: MAX_WHEN_DEPTH,
                    };
                    self.push(&at, kind);
                    return None;
                }
                self.gate(form, i, when, &at)
            });
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
        } else if self.one_line(&id, &question.id, ID_FIX)
            && self.fits(&id, &question.id, MAX_ID_BYTES)
            && let Some(first) = form.questions[..i].iter().position(|q| q.id == question.id)
        {
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
        } else if self.one_line(&text, &question.text, TEXT_FIX) {
            self.fits(&text, &question.text, MAX_TEXT_BYTES);
        }
        if let Some(context) = &question.context {
            self.free_text(&at.key("context"), context);
        }
        if let Some(header) = &question.header {
            let at = at.key("header");
            if self.one_line(&at, header, ONE_LINE_FIX) {
                self.fits(&at, header, MAX_TEXT_BYTES);
            }
        }
        if let Some(default) = &question.default {
            self.free_value(&at.key("default"), default);
        }
    }

    /// Whether a one-line field is free of control, bidi-control and invisible
    /// characters; pushes an error naming the first one otherwise.
    fn one_line(&mut self, at: &At<'_>, text: &str, fix: &'static str) -> bool {
        match forbidden_char(text, Lines::One) {
            None => true,
            Some(found) => {
                self.push(at, FormErrorKind::ForbiddenCharacter { found, fix });
                false
            }
        }
    }

    /// Checks a multi-line field: no control character but newline and tab, and
    /// within [`MAX_TEXT_BYTES`].
    fn free_text(&mut self, at: &At<'_>, text: &str) {
        if let Some(found) = forbidden_control(text) {
            let kind = FormErrorKind::ForbiddenCharacter {
                found,
                fix: free_text_fix(found.ch),
            };
            self.push(at, kind);
        } else {
            self.fits(at, text, MAX_TEXT_BYTES);
        }
    }

    /// Checks every string (and object key) inside a value for control characters
    /// other than newline and tab; whether there was none.
    fn free_value(&mut self, at: &At<'_>, value: &Value) -> bool {
        let check = |this: &mut Self, at: &At<'_>, text: &str| match forbidden_control(text) {
            None => true,
            Some(found) => {
                let fix = free_text_fix(found.ch);
                this.push(at, FormErrorKind::ForbiddenCharacter { found, fix });
                false
            }
        };
        // Every string is checked (not only up to the first problem), so that one
        // refusal names them all.
        match value {
            Value::String(text) => check(self, at, text),
            Value::Array(items) => items.iter().enumerate().fold(true, |clean, (n, item)| {
                self.free_value(&at.index(n), item) && clean
            }),
            Value::Object(map) => map.iter().fold(true, |clean, (key, item)| {
                let here = at.key(key);
                let key_clean = check(self, &here, key);
                self.free_value(&here, item) && key_clean && clean
            }),
            _ => true,
        }
    }

    /// Checks every `title` and `description` inside a schema against
    /// [`MAX_TEXT_BYTES`], as a question's own text is: the surfaces show them
    /// as Markdown beside the field. Whether all fit.
    fn schema_texts(&mut self, at: &At<'_>, value: &Value) -> bool {
        match value {
            Value::Array(items) => items.iter().enumerate().fold(true, |fit, (n, item)| {
                self.schema_texts(&at.index(n), item) && fit
            }),
            Value::Object(map) => map.iter().fold(true, |fit, (key, item)| {
                let here = at.key(key);
                let shown = match item {
                    Value::String(text) if key == "title" || key == "description" => {
                        self.fits(&here, text, MAX_TEXT_BYTES)
                    }
                    _ => self.schema_texts(&here, item),
                };
                shown && fit
            }),
            _ => true,
        }
    }

    /// Whether `text` is within `max` bytes as JSON; pushes [`FormErrorKind::TooLong`]
    /// otherwise.
    fn fits(&mut self, at: &At<'_>, text: &str, max: usize) -> bool {
        let bytes = json_string_bytes(text) - 2;
        if bytes > max {
            self.push(at, FormErrorKind::TooLong { bytes, max });
            return false;
        }
        true
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
            (Some(options), true) => self.labels(options, &field),
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

    /// Each option's label (and description): not blank, one line of plain text,
    /// within the limit, and neither the same as an earlier label nor looking
    /// the same ([`look`]: NFKC and the confusable skeleton).
    fn labels(&mut self, options: &[Choice], field: &At<'_>) {
        // Each sound label's look, computed only where there is another label.
        let mut looks: Vec<Option<String>> = Vec::with_capacity(options.len());
        for (j, option) in options.iter().enumerate() {
            let item = field.index(j);
            let label = if option.description.is_some() {
                item.key("label")
            } else {
                item
            };
            let mut seen = None;
            if is_blank(&option.label) {
                self.push(&label, FormErrorKind::EmptyLabel);
            } else if self.one_line(&label, &option.label, LABEL_FIX)
                && self.fits(&label, &option.label, MAX_TEXT_BYTES)
            {
                if let Some(first) = options[..j].iter().position(|o| o.label == option.label) {
                    let kind = FormErrorKind::DuplicateLabel {
                        label: option.label.clone(),
                        first,
                    };
                    self.push(&label, kind);
                } else if options.len() > 1 {
                    let shape = look(&option.label);
                    if let Some(first) = looks.iter().position(|l| l.as_ref() == Some(&shape)) {
                        let kind = FormErrorKind::LookAlikeLabel {
                            label: option.label.clone(),
                            like: options[first].label.clone(),
                            first,
                        };
                        self.push(&label, kind);
                    }
                    seen = Some(shape);
                }
            }
            looks.push(seen);
            if let Some(description) = &option.description {
                self.free_text(&item.key("description"), description);
            }
        }
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
        let bytes = json_bytes(schema);
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
        if self.errors.len() > before
            || !self.free_value(at, schema)
            || !self.schema_texts(at, schema)
        {
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

/// Whether a predicate has more than `max` levels (a comparison alone is one),
/// looking no deeper than `max + 1`.
fn levels_exceed(when: &When, max: usize) -> bool {
    match when {
        _ if max == 0 => true,
        When::All(items) | When::Any(items) => items.iter().any(|w| levels_exceed(w, max - 1)),
        When::Not(inner) => levels_exceed(inner, max - 1),
        _ => false,
    }
}
