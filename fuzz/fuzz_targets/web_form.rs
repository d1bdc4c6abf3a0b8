//! A question's page against arbitrary posted bodies: the body is read as
//! `axum::Form` reads it, then into an answer as the page's handler reads it.
//! Never a panic; what the form says it was shown on is what it sent; the text
//! put back holds only what the person typed; an answer the form reads for a
//! question is one the engine takes (a generated schema form's object is
//! checked by the engine, which may refuse it in words).

#![no_main]

use askuser_core::{AnswerInput, Command, Input, InquiryId, Request, State, parse_form, reduce};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// The questions a page may ask: every answer type, with and without an
/// answer of the person's own, and schema questions with and without a form
/// of their own.
fn questions() -> Vec<Value> {
    vec![
        json!({"id": "ok", "text": "Ship it?", "answer_type": "boolean"}),
        json!({"id": "db", "text": "Which database?", "answer_type": "select",
            "options": ["PostgreSQL", "SQLite"]}),
        json!({"id": "db", "text": "Which database?", "answer_type": "select",
            "options": ["PostgreSQL", "SQLite", {"label": "Both", "description": "*all*"}],
            "allow_other": true}),
        json!({"id": "f", "text": "Which features?", "answer_type": "multi_select",
            "options": ["auth", "api", "ui"], "allow_other": true}),
        json!({"id": "f", "text": "Which features?", "answer_type": "multi_select",
            "options": ["auth", "api"]}),
        json!({"id": "name", "text": "Name?", "answer_type": "text"}),
        json!({"id": "n", "text": "Replicas?", "answer_type": "schema",
            "schema": {"type": "integer", "minimum": 1, "maximum": 9}}),
        json!({"id": "s", "text": "Branch?", "answer_type": "schema", "schema": {"type": "string"}}),
        json!({"id": "o", "text": "Settings?", "answer_type": "schema",
            "schema": {"type": "object", "properties": {
                "name": {"type": "string", "maxLength": 8},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "on": {"type": "boolean"},
                "kind": {"type": "string", "enum": ["a", "b"]}},
                "required": ["name"]}}),
    ]
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    // What `axum::Form` gives the handler; a body it refuses is a 400.
    let Ok(fields) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body) else {
        return;
    };
    let all = questions();
    let question = &all[usize::from(pick) % all.len()];
    let form = parse_form(&json!({ "questions": [question] })).expect("a valid form");
    let mut state = State::new();
    let request = Request {
        inquiry: InquiryId::new("call-1"),
        form: form.form().clone(),
        policy: askuser_core::Policy::default(),
        origin: askuser_core::Origin::default(),
        call: None,
    };
    let commands = reduce(&mut state, &Input::Ask(request)).expect("asked");
    let Some(Command::Prompt(prompt)) = commands.into_iter().next() else {
        panic!("expected a prompt")
    };
    let (at, value, typed) = askuser_web::fuzzing::form_answer(&prompt, "call-1", fields.clone());
    if let Some(at) = at {
        assert_eq!(at.inquiry.as_str(), "call-1");
        let step = fields.iter().find(|(k, _)| k == "at_step").map(|(_, v)| v);
        assert_eq!(step.and_then(|s| s.parse::<u32>().ok()), Some(at.step));
    }
    for pair in &typed {
        assert!(fields.contains(pair), "{pair:?} was not sent");
        assert!(
            matches!(pair.0.as_str(), "note" | "other" | "message" | "answer"),
            "{pair:?} put back"
        );
    }
    match value {
        Ok(value) => {
            let generated = question["schema"]["type"] == "object";
            let input = AnswerInput::new(prompt.at(), value.clone()).into();
            let taken = reduce(&mut state, &input);
            assert!(
                generated || taken.is_ok(),
                "the form read {value} for {question} and the engine refused it: {taken:?}"
            );
        }
        Err(words) => assert!(!words.is_empty()),
    }
});
