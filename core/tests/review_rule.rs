//! The review rule every surface follows: a surface that reviews shows a review
//! before sending a form of two or more questions; a one-question form (a
//! yes/no, a pick from a list, a text) is sent with its answer, as the answer is
//! the whole form.

use askuser_core::{AnswerInput, At, Command, Input, InquiryId, Request, State, parse_form};
use serde_json::{Value, json};

/// The commands a reviewing surface's answer `value` to the first question of
/// `questions` yields, the form just asked.
fn first_answer(questions: &Value, value: Value) -> Vec<Command> {
    let form = parse_form(&json!({ "questions": questions })).unwrap();
    let mut state = State::new();
    askuser_core::reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("c1"),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .unwrap();
    let first = form.form().questions[0].id.clone();
    let at = At::question(InquiryId::new("c1"), first.as_str(), 0);
    let answer = AnswerInput::new(at, value).reviewed();
    askuser_core::reduce(&mut state, &answer.into()).unwrap()
}

fn kinds(commands: &[Command]) -> Vec<&'static str> {
    commands
        .iter()
        .map(|command| match command {
            Command::Respond { .. } => "respond",
            Command::Review { .. } => "review",
            Command::Prompt(_) => "prompt",
            _ => "other",
        })
        .collect()
}

#[test]
fn a_one_question_form_is_sent_with_its_answer_on_a_surface_that_reviews() {
    for (question, value) in [
        (
            json!({"id": "go", "text": "Go?", "answer_type": "boolean"}),
            json!(true),
        ),
        (
            json!({"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}),
            json!("staging"),
        ),
        (
            json!({"id": "checks", "text": "Which?", "answer_type": "multi_select", "options": ["lint", "test"]}),
            json!(["lint"]),
        ),
        (
            json!({"id": "why", "text": "Why?", "answer_type": "text"}),
            json!("because"),
        ),
    ] {
        let id = question["id"].clone();
        assert_eq!(
            kinds(&first_answer(&json!([question]), value)),
            ["respond"],
            "{id}"
        );
    }
}

#[test]
fn a_form_of_two_questions_is_reviewed_before_it_is_sent() {
    let questions = json!([
        {"id": "go", "text": "Go?", "answer_type": "boolean"},
        {"id": "why", "text": "Why?", "answer_type": "text"},
    ]);
    let form = parse_form(&json!({ "questions": questions })).unwrap();
    assert!(form.wants_review());
    assert_eq!(kinds(&first_answer(&questions, json!(true))), ["prompt"]);
}
