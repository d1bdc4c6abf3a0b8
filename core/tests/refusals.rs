//! Each mistake a host can make with an action on something shown is refused as
//! itself, in words that say what to do: a question the form does not have, a
//! question that is not the one asked, a submit with no review, a step the
//! inquiry never reached, an answer while the review shows, an input on a
//! finished inquiry. Only an action on something shown at an earlier step is
//! `Stale`.

use askuser_core::{
    AnswerInput, At, Command, Ending, Input, InquiryId, Refusal, Request, State, parse_form,
};
use serde_json::json;

fn id() -> InquiryId {
    InquiryId::new("c1")
}

/// A three-question form asked: `apply` shows at step 0.
fn asked() -> State {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
        {"id": "note", "text": "Anything else?", "answer_type": "text"},
    ]}))
    .unwrap();
    let mut state = State::new();
    askuser_core::reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: id(),
            form: form.form().clone(),
            policy: askuser_core::Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .unwrap();
    state
}

fn take(state: &mut State, input: impl Into<Input>) -> Vec<Command> {
    askuser_core::reduce(state, &input.into()).unwrap()
}

/// The refusal of `input`, its words, and that nothing changed.
fn refused(state: &State, input: impl Into<Input>) -> (Refusal, String) {
    let before = state.clone();
    let refusal = state.decide(&input.into()).unwrap_err();
    assert_eq!(*state, before);
    let words = refusal.to_string();
    (refusal, words)
}

fn answer(question: &str, step: u32, value: serde_json::Value) -> AnswerInput {
    AnswerInput::new(At::question(id(), question, step), value)
}

#[test]
fn a_question_the_form_does_not_have_is_named_at_any_step() {
    let state = asked();
    for step in [0, 3] {
        let (refusal, words) = refused(&state, answer("nope", step, json!(true)));
        assert_eq!(
            refusal,
            Refusal::UnknownQuestion {
                inquiry: id(),
                question: "nope".into(),
                current: At::question(id(), "apply", 0),
            }
        );
        assert_eq!(
            words,
            "inquiry \"c1\" has no question \"nope\": its form never asks it; act on what it shows now, question \"apply\" (step 0)"
        );
    }
    // Answered without a step (what a line without one is checked with).
    assert_eq!(
        state.asking(&id(), "nope").unwrap_err().code(),
        "unknown_question"
    );
}

#[test]
fn another_question_at_the_step_the_inquiry_is_at_is_not_the_one_asked() {
    let state = asked();
    let (refusal, words) = refused(&state, answer("env", 0, json!("staging")));
    assert_eq!(
        refusal,
        Refusal::UnexpectedQuestion {
            inquiry: id(),
            expected: "apply".into(),
            got: "env".into(),
            step: 0,
        }
    );
    assert_eq!(
        words,
        "inquiry \"c1\" is asking question \"apply\" (step 0), not \"env\": answer that question, or go back or reply from it"
    );
    assert_eq!(refusal.current(), Some(At::question(id(), "apply", 0)));
}

#[test]
fn a_submit_with_no_review_says_there_is_none() {
    let state = asked();
    let (refusal, words) = refused(&state, Input::Submit(At::review(id(), 0)));
    assert_eq!(
        refusal,
        Refusal::NotInReview {
            current: At::question(id(), "apply", 0)
        }
    );
    assert_eq!(
        words,
        "inquiry \"c1\" shows no review to submit or change an answer from: it shows question \"apply\" (step 0); answer that (a review shows once every question is answered, on a surface that asked for one)"
    );
}

#[test]
fn a_step_the_inquiry_never_reached_is_not_stale() {
    let state = asked();
    let (refusal, words) = refused(&state, Input::Back(At::question(id(), "apply", 4)));
    assert_eq!(
        refusal,
        Refusal::FutureStep {
            shown: At::question(id(), "apply", 4),
            current: At::question(id(), "apply", 0),
        }
    );
    assert_eq!(
        words,
        "inquiry \"c1\" never showed question \"apply\" (step 4): it is at step 0; act on what it shows now, question \"apply\" (step 0)"
    );
}

#[test]
fn a_question_named_while_the_review_shows_is_refused_as_in_review() {
    let mut state = asked();
    take(&mut state, answer("apply", 0, json!(true)).reviewed());
    take(&mut state, answer("env", 2, json!("staging")));
    take(&mut state, answer("note", 3, json!("ok")));
    assert_eq!(state.at(&id()), Some(At::review(id(), 4)));
    let (refusal, words) = refused(&state, answer("note", 4, json!("again")));
    assert_eq!(
        refusal,
        Refusal::InReview {
            inquiry: id(),
            got: "note".into(),
            step: 4,
        }
    );
    assert_eq!(
        words,
        "inquiry \"c1\" has every answer and shows its review (step 4), not question \"note\": submit, go back, change an answer or reply from the review"
    );
    assert_eq!(refusal.current(), Some(At::review(id(), 4)));
}

#[test]
fn only_what_was_shown_at_an_earlier_step_is_stale() {
    let mut state = asked();
    take(&mut state, answer("apply", 0, json!(true)));
    let (refusal, words) = refused(&state, answer("apply", 0, json!(false)));
    assert_eq!(
        refusal,
        Refusal::Stale {
            shown: At::question(id(), "apply", 0),
            current: At::question(id(), "env", 1),
        }
    );
    assert_eq!(
        words,
        "inquiry \"c1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)"
    );
}

#[test]
fn an_input_on_a_finished_inquiry_says_how_it_ended() {
    let mut state = asked();
    take(
        &mut state,
        Input::Reply {
            at: At::question(id(), "apply", 0),
            message: None,
        },
    );
    for input in [
        Input::from(answer("apply", 0, json!(true))),
        Input::from(answer("nope", 0, json!(true))),
        Input::Submit(At::review(id(), 0)),
        Input::EndTurn {
            inquiry: id(),
            surface: None,
        },
    ] {
        let (refusal, words) = refused(&state, input);
        assert_eq!(
            refusal,
            Refusal::InquiryFinished {
                inquiry: id(),
                ended: Some(Ending::Replied),
            }
        );
        assert_eq!(
            words,
            "inquiry \"c1\" already finished (replied); it takes no more input: show how it ended instead"
        );
    }
}

/// The code a host matches on is the one the refusal serializes with.
#[test]
fn each_refusal_s_code_is_its_serialized_code() {
    let mut state = asked();
    let mut refusals = vec![
        state.decide(&answer("nope", 0, json!(1)).into()),
        state.decide(&answer("env", 0, json!(1)).into()),
        state.decide(&Input::Submit(At::review(id(), 0))),
        state.decide(&answer("apply", 9, json!(1)).into()),
        state.decide(&Input::Back(At::question(id(), "apply", 0))),
    ];
    take(&mut state, answer("apply", 0, json!(true)));
    refusals.push(state.decide(&answer("apply", 0, json!(true)).into()));
    let codes: Vec<(String, &str)> = refusals
        .iter()
        .map(|refused| {
            let refusal = refused.as_ref().unwrap_err();
            let json = serde_json::to_value(refusal).unwrap();
            (json["code"].as_str().unwrap().to_owned(), refusal.code())
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("unknown_question".to_owned(), "unknown_question"),
            ("unexpected_question".to_owned(), "unexpected_question"),
            ("not_in_review".to_owned(), "not_in_review"),
            ("future_step".to_owned(), "future_step"),
            ("nothing_to_go_back_to".to_owned(), "nothing_to_go_back_to"),
            ("stale".to_owned(), "stale"),
        ]
    );
}
