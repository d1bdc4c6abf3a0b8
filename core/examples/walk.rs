//! Walks RFD D30's migration form through the reducer with scripted answers, printing
//! each prompt the way a terminal would show it and the tool result at the end.
//!
//! Run: `cargo run -p askuser-core --example walk`

use askuser_core::{AnswerInput, Command, Input, InquiryId, Request, State, parse_form, reduce};
use serde_json::{Value, json};

fn main() {
    let arguments = json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]});
    println!("tool call arguments:\n{arguments:#}\n");
    let form = match parse_form(&arguments) {
        Ok(form) => form,
        Err(errors) => {
            eprintln!("the call was rejected:\n{errors}");
            std::process::exit(2);
        }
    };
    let id = InquiryId::new("call-1");
    let mut state = State::new();
    let script: [(&str, Option<Value>); 5] = [
        ("apply", Some(json!(true))),
        ("env", Some(json!("staging"))),
        ("back", None),
        ("env", Some(json!("production"))),
        ("note", Some(json!("weekly run"))),
    ];
    let mut commands = reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: id.clone(),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .expect("the form is valid");
    for (_question, value) in script {
        show(&commands);
        // Each action names what was shown: the question on screen, at its step.
        let shown = state.at(&id).expect("the inquiry is open");
        let input = if let Some(value) = value {
            println!("  > {value}");
            AnswerInput::new(shown, value).into()
        } else {
            println!("  > (Back)");
            Input::Back(shown)
        };
        commands = reduce(&mut state, &input).expect("the script's answers fit");
    }
    show(&commands);
}

fn show(commands: &[Command]) {
    for command in commands {
        match command {
            Command::Prompt(prompt) => {
                let question = prompt.question();
                let progress = prompt.progress.map(|p| format!("{p} ")).unwrap_or_default();
                let label = prompt
                    .label
                    .as_deref()
                    .map(|l| format!("{l} asks: "))
                    .unwrap_or_default();
                let prefill = prompt
                    .prefill_value()
                    .map(|v| format!(" (prefilled: {v})"))
                    .unwrap_or_default();
                let back = if prompt.can_back { " [b]ack" } else { "" };
                println!("{progress}{label}{}{prefill}{back}", question.text);
            }
            Command::Respond { outcome, .. } => {
                println!("\ntool result:\n{:#}", outcome.to_json());
            }
            other => println!("{other:?}"),
        }
    }
}
