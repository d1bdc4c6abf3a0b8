//! Runs a form in the real terminal and prints the `jp-form` result on standard
//! output (the prompts themselves are on standard error).
//!
//! ```text
//! cargo run -p askuser-terminal --example prompt_demo              # the built-in form
//! cargo run -p askuser-terminal --example prompt_demo -- '<json>'  # your own jp-form arguments
//! ```
//!
//! The built-in form has one question of each answer type. Output, last line:
//! the result JSON; `turn ended` after End Turn or Ctrl+C. Exit status: 0 on a
//! result or an ended turn, 2 for an invalid form, 3 when there is no terminal, 1
//! for other errors.

use std::process::ExitCode;

use askuser_core::{Input, InquiryId, Request, State, parse_form, reduce};
use askuser_terminal::{Finish, TerminalError, TerminalPrompter, run_with_engine};
use serde_json::{Value, json};

fn builtin_form() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean",
         "context": "The migration adds a `tenants` table and backfills 12,000 rows."},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": [{"label": "staging", "description": "safe to try things"},
                     {"label": "production", "description": "live traffic"}],
         "allow_other": true, "when": {"question_id": "apply", "equals": true}},
        {"id": "checks", "text": "Which checks should run first?", "answer_type": "multi_select",
         "options": ["lint", "unit tests", "smoke tests"], "default": ["unit tests"],
         "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}},
        {"id": "limits", "text": "Resource limits for the migration job?", "answer_type": "schema",
         "schema": {"type": "object",
                    "properties": {"replicas": {"type": "integer", "minimum": 1}},
                    "required": ["replicas"]},
         "default": {"replicas": 2},
         "when": {"question_id": "apply", "equals": true}}
    ]})
}

fn main() -> ExitCode {
    let arguments = match std::env::args().nth(1) {
        Some(text) => match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(error) => {
                eprintln!("the argument is not JSON: {error}");
                return ExitCode::from(2);
            }
        },
        None => builtin_form(),
    };
    let form = match parse_form(&arguments) {
        Ok(form) => form,
        Err(errors) => {
            eprintln!("the form is invalid:\n{errors}");
            return ExitCode::from(2);
        }
    };
    let mut state = State::new();
    let first = reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("demo-1"),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .expect("the demo form is valid");
    let mut prompter = TerminalPrompter::new();
    match run_with_engine(&mut prompter, first, &mut state) {
        Ok(Finish::Responded { outcome, .. }) => {
            println!("{}", outcome.to_json());
            ExitCode::SUCCESS
        }
        Ok(Finish::TurnEnded { .. }) => {
            println!("turn ended");
            ExitCode::SUCCESS
        }
        Ok(other) => {
            eprintln!("the inquiry did not reach the person: {other:?}");
            ExitCode::FAILURE
        }
        Err(TerminalError::NotATerminal) => {
            eprintln!("no interactive terminal: no person can be asked");
            ExitCode::from(3)
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
