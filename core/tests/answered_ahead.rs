//! Answers given ahead (`AnsweredAhead`, from a form that shows several
//! questions at once) and forms shown (`Shown`): what the engine takes, what it
//! refuses, and where a kept answer ends up.

use askuser_core::strategies::reduce_event;
use askuser_core::{
    AnsweredBy, CancelReason, Command, Event, InquiryId, Refusal, Request, State, parse_form,
};
use serde_json::{Value, json};

fn start(state: &mut State, id: &InquiryId) {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Env?", "answer_type": "select", "options": ["a", "b"],
         "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Note?", "answer_type": "text"}
    ]}))
    .unwrap();
    let request = Event::Requested(Request {
        inquiry: id.clone(),
        form: form.form().clone(),
        policy: askuser_core::Policy::default(),
        origin: askuser_core::Origin::default(),
        call: None,
    });
    reduce_event(state, &request).unwrap();
}

fn ahead(id: &InquiryId, question: &str, value: Value) -> Event {
    Event::AnsweredAhead {
        inquiry: id.clone(),
        question: question.to_owned(),
        value,
    }
}

fn answered(id: &InquiryId, question: &str, value: Value) -> Event {
    Event::Answered {
        inquiry: id.clone(),
        question: question.to_owned(),
        value,
        by: AnsweredBy::User,
        remember: false,
        note: None,
    }
}

fn why(refusal: Result<Vec<Command>, Refusal>) -> String {
    match refusal {
        Err(Refusal::NotForThisQuestion { why, .. }) => why,
        other => panic!("not refused as expected: {other:?}"),
    }
}

fn outcome(commands: &[Command]) -> Value {
    match commands.last() {
        Some(Command::Respond { outcome, .. }) => outcome.to_json(),
        other => panic!("no response: {other:?}"),
    }
}

#[test]
fn an_answer_given_ahead_is_checked_and_kept_for_a_reply() {
    let mut state = State::new();
    let id = InquiryId::new("c1");
    start(&mut state, &id);
    assert_eq!(
        why(reduce_event(&mut state, &ahead(&id, "apply", json!(true)))),
        "it is not after the question being asked; answer that one"
    );
    assert_eq!(
        why(reduce_event(&mut state, &ahead(&id, "env", json!("a")))),
        "its `when` does not hold for the answers recorded"
    );
    assert!(
        why(reduce_event(&mut state, &ahead(&id, "note", json!(3))))
            .starts_with("the answer does not fit: ")
    );
    assert_eq!(
        why(reduce_event(&mut state, &ahead(&id, "nope", json!("x")))),
        "the form has no such question"
    );
    let shown = |questions: &[&str]| Event::Shown {
        inquiry: id.clone(),
        questions: questions.iter().map(|q| (*q).to_owned()).collect(),
    };
    assert_eq!(
        why(reduce_event(&mut state, &shown(&["apply", "nope"]))),
        "the form has no such question, or shows its review"
    );
    assert_eq!(
        reduce_event(&mut state, &shown(&["apply", "note"])),
        Ok(vec![])
    );
    assert_eq!(
        reduce_event(&mut state, &ahead(&id, "note", json!("n"))),
        Ok(vec![])
    );
    let reply = Event::Cancelled {
        inquiry: id.clone(),
        reason: CancelReason::UserReply,
        message: None,
    };
    assert_eq!(
        outcome(&reduce_event(&mut state, &reply).unwrap()),
        json!({"cancelled": true, "answered": {"note": "n"}})
    );
}

#[test]
fn an_answer_in_its_turn_replaces_the_one_given_ahead() {
    let mut state = State::new();
    let id = InquiryId::new("c1");
    start(&mut state, &id);
    reduce_event(&mut state, &ahead(&id, "note", json!("first"))).unwrap();
    // `env` is skipped: the walk reaches `note`, which is asked as usual.
    let next = reduce_event(&mut state, &answered(&id, "apply", json!(false))).unwrap();
    assert!(matches!(&next[..], [Command::Prompt(p)] if p.index == 2));
    let done = reduce_event(&mut state, &answered(&id, "note", json!("second"))).unwrap();
    assert_eq!(
        outcome(&done),
        json!({"apply": false, "env": null, "note": "second"})
    );
}
