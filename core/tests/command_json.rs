//! Commands serialize to a stable JSON, tagged by `"type"`: one fixed value for
//! each kind, read back to the same command. A prompt whose question or
//! prefill does not fit its form is not read back.

use askuser_core::{
    Answer, AnswerError, AnsweredBy, CancelReason, Command, InquiryId, Outcome, OutcomeStatus,
    Problem, Progress, Prompt, Slot, parse_form,
};
use serde_json::{Value, json};

fn form() -> askuser_core::ValidForm {
    parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy?", "answer_type": "boolean"}]}))
    .unwrap()
}

const FORM: &str = r#"{"questions":[{"id":"ok","text":"Deploy?","answer_type":"boolean"}]}"#;

fn id() -> InquiryId {
    InquiryId::new("c1")
}

fn outcome(status: OutcomeStatus) -> Outcome {
    Outcome {
        form: form(),
        answers: vec![Some(Slot {
            answer: Answer::Bool(true),
            by: AnsweredBy::User,
            note: None,
        })]
        .into(),
        status,
        message: None,
    }
}

/// Every kind of command, with its JSON (`FORM` stands for the form's).
fn each_kind() -> Vec<(Command, String)> {
    let answered =
        r#"{"form":FORM,"answers":[{"answer":{"bool":true},"by":"user"}],"status":"completed"}"#;
    vec![
        (
            Command::Prompt(Prompt {
                inquiry: id(),
                form: form(),
                index: 0,
                progress: Some(Progress { n: 1, m: 1 }),
                prefill: Some(Answer::Bool(false)),
                prefill_note: Some("why".into()),
                can_back: false,
                label: Some("Assistant".into()),
                step: 3,
            }),
            r#"{"type":"prompt","inquiry":"c1","form":FORM,"index":0,"progress":{"n":1,"m":1},"prefill":{"bool":false},"prefill_note":"why","can_back":false,"label":"Assistant","step":3}"#.to_owned(),
        ),
        (
            Command::AskAssistant {
                inquiry: id(),
                question: "ok".into(),
                schema: json!({"type": "boolean"}),
            },
            r#"{"type":"ask_assistant","inquiry":"c1","question":"ok","schema":{"type":"boolean"}}"#.to_owned(),
        ),
        (
            Command::Review {
                inquiry: id(),
                outcome: outcome(OutcomeStatus::Completed),
                step: 4,
            },
            format!(r#"{{"type":"review","inquiry":"c1","outcome":{answered},"step":4}}"#),
        ),
        (
            Command::Respond {
                inquiry: id(),
                outcome: outcome(OutcomeStatus::Completed),
            },
            format!(r#"{{"type":"respond","inquiry":"c1","outcome":{answered}}}"#),
        ),
        (
            Command::Fail {
                inquiry: id(),
                reason: CancelReason::NoPromptBackend,
                message: "no terminal".into(),
            },
            r#"{"type":"fail","inquiry":"c1","reason":"no_prompt_backend","message":"no terminal"}"#.to_owned(),
        ),
        (
            Command::EndTurn { inquiry: id() },
            r#"{"type":"end_turn","inquiry":"c1"}"#.to_owned(),
        ),
        (
            Command::Reject {
                inquiry: id(),
                tool: "ask_user".into(),
                problems: vec![Problem::new("/questions", "is empty")],
            },
            r#"{"type":"reject","inquiry":"c1","tool":"ask_user","problems":[{"path":"/questions","message":"is empty"}]}"#.to_owned(),
        ),
        (
            Command::InvalidAnswer {
                inquiry: id(),
                question: "ok".into(),
                message: "expected true or false, got a string".into(),
                reason: Some(AnswerError::ExpectedBool {
                    found: "a string".into(),
                }),
            },
            r#"{"type":"invalid_answer","inquiry":"c1","question":"ok","message":"expected true or false, got a string","reason":{"code":"expected_bool","found":"a string"}}"#.to_owned(),
        ),
    ]
    .into_iter()
    .map(|(command, text)| (command, text.replace("FORM", FORM)))
    .collect()
}

#[test]
fn each_kind_of_command_has_its_fixed_json_and_reads_back() {
    for (command, expected) in each_kind() {
        assert_eq!(serde_json::to_string(&command).unwrap(), expected);
        let read: Command = serde_json::from_str(&expected).unwrap();
        assert_eq!(read, command);
    }
}

#[test]
fn a_prompt_that_does_not_fit_its_form_is_not_read_back() {
    let (_, prompt) = each_kind().remove(0);
    let mut value: Value = serde_json::from_str(&prompt).unwrap();
    value["index"] = json!(1);
    assert_eq!(
        serde_json::from_value::<Command>(value.clone())
            .unwrap_err()
            .to_string(),
        "a prompt for question 1 of a form of 1 questions"
    );
    value["index"] = json!(0);
    value["prefill"] = json!({"text": "yes"});
    assert_eq!(
        serde_json::from_value::<Command>(value)
            .unwrap_err()
            .to_string(),
        "a prompt whose prefill does not fit its question"
    );
}
