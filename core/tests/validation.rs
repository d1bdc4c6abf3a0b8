//! Every validation rule, with the exact message a model reads.
#![allow(clippy::needless_pass_by_value)] // the helpers take `json!` literals

use askuser_core::limits::{MAX_OPTIONS, MAX_QUESTIONS, MAX_TEXT_BYTES};
use askuser_core::{ParseOptions, parse_form, parse_form_with};
use serde_json::{Value, json};

/// The errors of a call, as "path: message" lines.
fn errors(arguments: Value) -> Vec<String> {
    match parse_form(&arguments) {
        Ok(_) => vec![],
        Err(errors) => errors.0.iter().map(ToString::to_string).collect(),
    }
}

fn one(question: Value) -> Vec<String> {
    errors(json!({ "questions": [question] }))
}

fn two(first: Value, second: Value) -> Vec<String> {
    errors(json!({ "questions": [first, second] }))
}

fn boolean(id: &str) -> Value {
    json!({"id": id, "text": "Proceed?", "answer_type": "boolean"})
}

#[test]
fn the_form_itself() {
    assert_eq!(
        errors(json!([])),
        ["(the form): must be an object with a `questions` list"]
    );
    assert_eq!(
        errors(json!({})),
        ["/questions: is required: add `questions`, a list of at least one question"]
    );
    assert_eq!(
        errors(json!({"questions": []})),
        ["/questions: the form has no questions; add at least one"]
    );
    let many: Vec<Value> = (0..=MAX_QUESTIONS)
        .map(|i| boolean(&format!("q{i}")))
        .collect();
    assert_eq!(
        errors(json!({ "questions": many })),
        ["/questions: the form has 65 questions; the limit is 64: split it into several calls"]
    );
    assert_eq!(
        errors(json!({"questions": [boolean("a")], "title": "x"})),
        ["/title: unknown field `title`; remove it (known fields: questions)"]
    );
}

#[test]
fn ids() {
    assert_eq!(
        two(boolean("a"), boolean("a")),
        [
            "/questions/1/id: id \"a\" is already used by /questions/0; give every question a unique id"
        ]
    );
    assert_eq!(
        one(json!({"id": "", "text": "Proceed?", "answer_type": "boolean"})),
        ["/questions/0/id: is empty; give the question a short unique id such as \"env\""]
    );
    assert_eq!(
        one(json!({"text": "Proceed?", "answer_type": "boolean"})),
        ["/questions/0/id: is required: add an id such as \"env\""]
    );
    assert_eq!(
        one(json!({"id": 7, "text": "Proceed?", "answer_type": "boolean"})),
        ["/questions/0/id: must be a string"]
    );
}

#[test]
fn texts() {
    assert_eq!(
        one(json!({"id": "a", "text": " ", "answer_type": "boolean"})),
        ["/questions/0/text: is empty; write the question as one line"]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Line one\nline two", "answer_type": "boolean"})),
        ["/questions/0/text: must be a single line; put the extra lines in `context`"]
    );
    let long = "x".repeat(MAX_TEXT_BYTES + 1);
    assert_eq!(
        one(json!({"id": "a", "text": long, "answer_type": "boolean"})),
        ["/questions/0/text: is 4097 bytes long; the limit is 4096: shorten it"]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Ok?", "answer_type": "boolean", "context": "many\nlines\nare fine"})
        ),
        Vec::<String>::new()
    );
}

#[test]
fn answer_types() {
    assert_eq!(
        one(json!({"id": "a", "text": "When?", "answer_type": "date"})),
        [
            "/questions/0/answer_type: unknown answer_type `date`; use one of boolean, select, multi_select, text, schema"
        ]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "When?"})),
        [
            "/questions/0/answer_type: is required: add answer_type: one of boolean, select, multi_select, text, schema"
        ]
    );
    let lenient = ParseOptions {
        reject_unknown_fields: false,
        require_answer_type: false,
    };
    let form = parse_form_with(
        &json!({"questions": [{"id": "a", "text": "When?", "extra": 1}]}),
        lenient,
    )
    .unwrap();
    assert_eq!(form.question(0).answer_type, askuser_core::AnswerType::Text);
}

#[test]
fn options() {
    assert_eq!(
        one(json!({"id": "a", "text": "Which?", "answer_type": "select"})),
        [
            "/questions/0/options: answer_type `select` needs `options`: add a list of at least one choice"
        ]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Which?", "answer_type": "multi_select", "options": []})),
        ["/questions/0/options: is empty; answer_type `multi_select` needs at least one choice"]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Name?", "answer_type": "text", "options": ["x"]})),
        [
            "/questions/0/options: `options` only goes with select and multi_select, and this question is `text`: remove `options` or change answer_type"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Which?", "answer_type": "select", "options": ["x", "y", "x"]})
        ),
        [
            "/questions/0/options/2: option \"x\" is listed twice (first at index 0); make every label distinct"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Which?", "answer_type": "select", "options": ["x", {"label": "", "description": "d"}]})
        ),
        ["/questions/0/options/1/label: is empty; give every option a label"]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Which?", "answer_type": "select", "options": ["x", 3]})),
        ["/questions/0/options/1: must be a string label or a {\"label\", \"description\"} object"]
    );
    let many: Vec<String> = (0..=MAX_OPTIONS).map(|i| format!("o{i}")).collect();
    assert_eq!(
        one(json!({"id": "a", "text": "Which?", "answer_type": "select", "options": many})),
        ["/questions/0/options: has 65 options; the limit is 64"]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Ok?", "answer_type": "boolean", "allow_other": true})),
        [
            "/questions/0/allow_other: `allow_other` only goes with select and multi_select, and this question is `boolean`: remove it"
        ]
    );
}

#[test]
fn schemas() {
    assert_eq!(
        one(json!({"id": "a", "text": "Config?", "answer_type": "schema"})),
        [
            "/questions/0/schema: answer_type `schema` needs `schema`: add a JSON Schema for the answer, such as {\"type\": \"object\"}"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Name?", "answer_type": "text", "schema": {"type": "string"}})
        ),
        [
            "/questions/0/schema: `schema` only goes with answer_type `schema`, and this question is `text`: remove `schema` or change answer_type"
        ]
    );
    assert_eq!(
        one(json!({"id": "a", "text": "Config?", "answer_type": "schema", "schema": "string"})),
        [
            "/questions/0/schema: must be a JSON Schema: an object such as {\"type\": \"string\"}, or true/false"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Config?", "answer_type": "schema",
                   "schema": {"properties": {"x": {"$ref": "https://example.com/x.json"}}}})
        ),
        [
            "/questions/0/schema/properties/x/$ref: \"https://example.com/x.json\" points outside this schema; only local references such as \"#/$defs/name\" are allowed: inline the definition"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Config?", "answer_type": "schema",
                   "schema": {"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}})
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Config?", "answer_type": "schema", "schema": {"type": "strnig"}})
        ),
        [
            "/questions/0/schema: is not a valid JSON Schema: \"strnig\" is not valid under any of the schemas listed in the 'anyOf' keyword"
        ]
    );
}

#[test]
fn defaults() {
    assert_eq!(
        one(json!({"id": "a", "text": "Ok?", "answer_type": "boolean", "default": "yes"})),
        [
            "/questions/0/default: is not a valid answer to this question (expected true or false, got a string): fix it or remove `default`"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Which?", "answer_type": "select", "options": ["x", "y"], "default": "z"})
        ),
        [
            "/questions/0/default: is not a valid answer to this question (\"z\" is not one of the options: \"x\", \"y\"): fix it or remove `default`"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Count?", "answer_type": "schema", "schema": {"type": "integer"}, "default": "x"})
        ),
        [
            "/questions/0/default: is not a valid answer to this question (does not match the schema: \"x\" is not of type \"integer\"): fix it or remove `default`"
        ]
    );
}

#[test]
fn when_references() {
    assert_eq!(
        two(
            json!({"id": "a", "text": "First?", "answer_type": "boolean", "when": {"question_id": "b", "equals": true}}),
            boolean("b")
        ),
        [
            "/questions/0/when/question_id: refers to \"b\", which comes later (/questions/1); a question may only depend on earlier questions: reorder them"
        ]
    );
    assert_eq!(
        one(
            json!({"id": "a", "text": "Ok?", "answer_type": "boolean", "when": {"question_id": "a", "equals": true}})
        ),
        [
            "/questions/0/when/question_id: refers to its own question \"a\"; a question may only depend on earlier questions"
        ]
    );
    assert_eq!(
        two(
            boolean("a"),
            json!({"id": "b", "text": "Then?", "answer_type": "boolean", "when": {"question_id": "zz", "equals": true}})
        ),
        [
            "/questions/1/when/question_id: refers to \"zz\", which is not a question in this form; use the id of an earlier question"
        ]
    );
}

#[test]
fn when_values_that_could_never_match() {
    assert_eq!(
        two(
            boolean("a"),
            json!({"id": "b", "text": "Then?", "answer_type": "boolean", "when": {"question_id": "a", "equals": "x"}})
        ),
        [
            "/questions/1/when/equals: can never match: \"a\" is a boolean question and its answer is never \"x\" (expected true or false, got a string)"
        ]
    );
    let select = json!({"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]});
    assert_eq!(
        two(
            select.clone(),
            json!({"id": "b", "text": "Then?", "answer_type": "boolean", "when": {"question_id": "env", "one_of": ["staging", "prod"]}})
        ),
        [
            "/questions/1/when/one_of/1: can never match: \"env\" is a select question and its answer is never \"prod\" (\"prod\" is not one of the options: \"staging\", \"production\")"
        ]
    );
    assert_eq!(
        two(
            select,
            json!({"id": "b", "text": "Then?", "answer_type": "boolean", "when": {"question_id": "env", "contains": "staging"}})
        ),
        [
            "/questions/1/when/contains: `contains` needs a multi_select question, but \"env\" is `select`: use equals or one_of"
        ]
    );
}

#[test]
fn malformed_predicates() {
    let gated = |when: Value| {
        two(
            boolean("a"),
            json!({"id": "b", "text": "Then?", "answer_type": "boolean", "when": when}),
        )
    };
    assert_eq!(
        gated(json!({"question_id": "a"})),
        [
            "/questions/1/when: a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found none"
        ]
    );
    assert_eq!(
        gated(json!({"equals": true})),
        [
            "/questions/1/when/question_id: `equals` needs `question_id`: the id of an earlier question"
        ]
    );
    assert_eq!(
        gated(json!({"all": []})),
        ["/questions/1/when/all: `all` is empty; give at least one"]
    );
    assert_eq!(
        gated(json!({"any": {"question_id": "a", "equals": true}})),
        ["/questions/1/when/any: `any` must be a list of predicates"]
    );
    assert_eq!(
        gated(json!({"question_id": "a", "equal": true})),
        [
            "/questions/1/when/equal: unknown key `equal` in a predicate; use question_id with one of equals, not_equals, one_of, contains, or one of all, any, not",
            "/questions/1/when: a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found none"
        ]
    );
    assert_eq!(
        gated(json!("a == true")),
        [
            "/questions/1/when: must be an object such as {\"question_id\": \"apply\", \"equals\": true}"
        ]
    );
    assert_eq!(
        gated(
            json!({"not": {"any": [{"question_id": "a", "equals": true}, {"question_id": "a", "not_equals": false}]}})
        ),
        Vec::<String>::new()
    );
}

#[test]
fn every_problem_is_reported_at_once_in_question_order() {
    assert_eq!(
        errors(json!({"questions": [
            {"id": "a", "text": "", "answer_type": "select"},
            {"id": "a", "text": "Fine?", "answer_type": "boolean", "default": 1},
            {"id": "c", "text": "Two\nlines", "answer_type": "nope", "options": ["x"]},
        ]})),
        [
            "/questions/0/text: is empty; write the question as one line",
            "/questions/0/options: answer_type `select` needs `options`: add a list of at least one choice",
            "/questions/1/id: id \"a\" is already used by /questions/0; give every question a unique id",
            "/questions/1/default: is not a valid answer to this question (expected true or false, got a number): fix it or remove `default`",
            "/questions/2/answer_type: unknown answer_type `nope`; use one of boolean, select, multi_select, text, schema",
            "/questions/2/text: must be a single line; put the extra lines in `context`",
        ]
    );
}
