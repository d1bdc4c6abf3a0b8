//! The attacks of the security review on the engine itself: an inquiry id reused
//! after the state forgot its inquiry, answers that never fit, and answers from a
//! party the policy did not route the question to.

use askuser_core::strategies::reduce_event;
use askuser_core::{
    AnsweredBy, CancelReason, Command, Event, InquiryId, Origin, Policy, Refusal, Request, State,
    parse_form,
};
use askuser_core::{FINISHED_REMEMBERED, limits::MAX_REFUSED_ANSWERS};
use serde_json::{Value, json};

fn request(id: &str, text: &str) -> Event {
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": text, "answer_type": "boolean"}
    ]}))
    .unwrap()
    .form()
    .clone();
    Event::Requested(Request {
        inquiry: InquiryId::new(id),
        form,
        policy: Policy::default(),
        origin: Origin::default(),
        call: None,
    })
}

fn answer(id: &str, value: Value, by: AnsweredBy) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(id),
        question: "ok".into(),
        value,
        by,
        remember: false,
        note: None,
    }
}

#[test]
fn an_inquiry_id_is_never_reused_even_after_the_state_forgot_its_inquiry() {
    let mut state = State::new();
    reduce_event(&mut state, &request("first", "FIRST: deploy staging?")).unwrap();
    reduce_event(&mut state, &answer("first", json!(true), AnsweredBy::User)).unwrap();
    // Finish enough other inquiries that "first" leaves the bounded record.
    for n in 0..=FINISHED_REMEMBERED {
        let id = format!("filler-{n}");
        reduce_event(&mut state, &request(&id, "Filler?")).unwrap();
        reduce_event(&mut state, &answer(&id, json!(false), AnsweredBy::User)).unwrap();
    }
    assert_eq!(state.finished(&InquiryId::new("first")), None, "forgotten");
    let refusal =
        reduce_event(&mut state, &request("first", "SECOND: wipe production?")).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "inquiry \"first\" was already requested in this stream; use a new id for a new request"
    );
    assert!(matches!(refusal, Refusal::DuplicateInquiry { .. }));
}

#[test]
fn answers_that_never_fit_end_the_inquiry_with_a_tool_error_that_says_why() {
    let mut state = State::new();
    reduce_event(&mut state, &request("q", "Proceed?")).unwrap();
    for n in 1..MAX_REFUSED_ANSWERS {
        let commands =
            reduce_event(&mut state, &answer("q", json!("maybe"), AnsweredBy::User)).unwrap();
        match commands.as_slice() {
            [Command::InvalidAnswer { .. }, Command::Prompt(_)] => {}
            other => panic!("refused answer {n}: expected the question again, got {other:?}"),
        }
    }
    let commands =
        reduce_event(&mut state, &answer("q", json!("maybe"), AnsweredBy::User)).unwrap();
    let Some(Command::Fail {
        reason, message, ..
    }) = commands.last()
    else {
        panic!("expected the inquiry to fail, got {commands:?}");
    };
    assert_eq!(*reason, CancelReason::TooManyInvalidAnswers);
    assert_eq!(
        message,
        "ask_user: the question was answered 10 times in a row with answers that did not fit, so it was given up. Do not retry this tool call in this turn; continue without the answer or ask in plain words."
    );
    let late = reduce_event(&mut state, &answer("q", json!(true), AnsweredBy::User)).unwrap_err();
    assert!(matches!(late, Refusal::InquiryFinished { .. }), "{late:?}");
}

#[test]
fn an_answer_from_a_party_the_question_was_not_routed_to_is_refused() {
    for (by, name) in [
        (AnsweredBy::Assistant, "the assistant"),
        (AnsweredBy::Config, "configuration"),
        (AnsweredBy::Cache, "a remembered answer"),
    ] {
        let mut state = State::new();
        reduce_event(&mut state, &request("q", "Delete prod?")).unwrap();
        let refusal = reduce_event(&mut state, &answer("q", json!(true), by)).unwrap_err();
        assert!(
            matches!(refusal, Refusal::WrongAnswerer { .. }),
            "{refusal:?}"
        );
        assert_eq!(
            refusal.to_string(),
            format!(
                "question \"ok\" of inquiry \"q\" is for the user; an answer by {name} is not accepted"
            )
        );
        // Nothing moved: the person can still answer.
        let commands =
            reduce_event(&mut state, &answer("q", json!(true), AnsweredBy::User)).unwrap();
        assert!(
            matches!(commands.as_slice(), [Command::Respond { .. }]),
            "{commands:?}"
        );
    }
}
