//! RFD D30's migration form (apply / env / note) through every path the RFD describes.

use askuser_core::strategies::reduce_event;
use askuser_core::{
    AnsweredBy, CancelReason, Command, Event, InquiryId, Origin, Policy, Progress, Request, State,
    parse_form,
};
use serde_json::{Value, json};

fn id() -> InquiryId {
    InquiryId::new("call-1")
}

fn start(state: &mut State) -> Vec<Command> {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]}))
    .expect("RFD D30's form is valid");
    accepted(
        state,
        &Event::Requested(Request {
            inquiry: id(),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
    )
}

/// Decides and applies an input the engine must accept.
fn accepted(state: &mut State, event: &Event) -> Vec<Command> {
    reduce_event(state, event).expect("the engine accepts the input")
}

fn answer(state: &mut State, question: &str, value: Value) -> Vec<Command> {
    accepted(
        state,
        &Event::Answered {
            inquiry: id(),
            question: question.into(),
            value,
            by: AnsweredBy::User,
            remember: false,
            note: None,
        },
    )
}

/// The prompt's question id, progress, prefill and Back flag.
fn prompt_of(commands: &[Command]) -> (String, Option<Progress>, Option<Value>, bool) {
    match commands {
        [Command::Prompt(p)] => (
            p.question().id.clone(),
            p.progress,
            p.prefill_value(),
            p.can_back,
        ),
        other => panic!("expected one prompt, got {other:?}"),
    }
}

fn result_of(commands: &[Command]) -> Value {
    match commands {
        [Command::Respond { outcome, .. }] => outcome.to_json(),
        other => panic!("expected one response, got {other:?}"),
    }
}

#[test]
fn the_first_prompt_shows_progress_and_offers_no_back() {
    let mut state = State::new();
    let commands = start(&mut state);
    assert_eq!(
        prompt_of(&commands),
        ("apply".into(), Some(Progress { n: 1, m: 3 }), None, false)
    );
    let [Command::Prompt(prompt)] = commands.as_slice() else {
        unreachable!()
    };
    assert_eq!(prompt.progress.unwrap().to_string(), "[1/3]");
    assert_eq!(prompt.label.as_deref(), Some("Assistant"));
}

#[test]
fn apply_false_skips_the_rest() {
    let mut state = State::new();
    start(&mut state);
    let commands = answer(&mut state, "apply", json!(false));
    assert_eq!(
        result_of(&commands),
        json!({"apply": false, "env": null, "note": null})
    );
}

#[test]
fn apply_true_walks_every_question() {
    let mut state = State::new();
    start(&mut state);
    let commands = answer(&mut state, "apply", json!(true));
    assert_eq!(
        prompt_of(&commands),
        ("env".into(), Some(Progress { n: 2, m: 3 }), None, true)
    );
    let commands = answer(&mut state, "env", json!("production"));
    assert_eq!(
        prompt_of(&commands),
        ("note".into(), Some(Progress { n: 3, m: 3 }), None, true)
    );
    let commands = answer(&mut state, "note", json!("weekly run"));
    assert_eq!(
        result_of(&commands),
        json!({"apply": true, "env": "production", "note": "weekly run"})
    );
}

#[test]
fn back_from_note_reprompts_env_prefilled_and_discards_it() {
    let mut state = State::new();
    start(&mut state);
    answer(&mut state, "apply", json!(true));
    answer(&mut state, "env", json!("staging"));
    let commands = accepted(&mut state, &Event::Back { inquiry: id() });
    assert_eq!(
        prompt_of(&commands),
        (
            "env".into(),
            Some(Progress { n: 2, m: 3 }),
            Some(json!("staging")),
            true
        )
    );
    assert_eq!(
        state.answers(&id()).unwrap()[1],
        None,
        "the env answer is discarded"
    );
    let commands = answer(&mut state, "env", json!("production"));
    assert_eq!(prompt_of(&commands).0, "note");
    let commands = answer(&mut state, "note", json!(""));
    assert_eq!(
        result_of(&commands),
        json!({"apply": true, "env": "production", "note": ""})
    );
}

#[test]
fn a_changed_answer_after_back_regates_later_questions() {
    let mut state = State::new();
    start(&mut state);
    answer(&mut state, "apply", json!(true));
    let commands = accepted(&mut state, &Event::Back { inquiry: id() });
    assert_eq!(
        prompt_of(&commands),
        (
            "apply".into(),
            Some(Progress { n: 1, m: 3 }),
            Some(json!(true)),
            false
        )
    );
    let commands = answer(&mut state, "apply", json!(false));
    assert_eq!(
        result_of(&commands),
        json!({"apply": false, "env": null, "note": null})
    );
}

#[test]
fn reply_after_apply_cancels_with_the_answers_so_far() {
    let mut state = State::new();
    start(&mut state);
    answer(&mut state, "apply", json!(true));
    let commands = accepted(
        &mut state,
        &Event::Cancelled {
            inquiry: id(),
            reason: CancelReason::UserReply,
            message: None,
        },
    );
    assert_eq!(
        result_of(&commands),
        json!({"cancelled": true, "answered": {"apply": true}})
    );
}

#[test]
fn end_turn_ends_the_turn_without_a_response() {
    let mut state = State::new();
    start(&mut state);
    answer(&mut state, "apply", json!(true));
    let commands = accepted(
        &mut state,
        &Event::TurnEnded {
            inquiry: id(),
            surface: None,
        },
    );
    assert_eq!(commands, vec![Command::EndTurn { inquiry: id() }]);
    assert_eq!(state.finished(&id()), Some(askuser_core::Ending::TurnEnded));
}

#[test]
fn an_invalid_answer_is_explained_and_the_same_prompt_follows() {
    let mut state = State::new();
    start(&mut state);
    answer(&mut state, "apply", json!(true));
    let before = state.clone();
    let commands = answer(&mut state, "env", json!("dev"));
    let [
        Command::InvalidAnswer {
            question, message, ..
        },
        Command::Prompt(prompt),
    ] = commands.as_slice()
    else {
        panic!("expected an invalid-answer notice and the prompt again, got {commands:?}");
    };
    assert_eq!(question, "env");
    assert_eq!(
        message,
        "\"dev\" is not one of the options: \"staging\", \"production\""
    );
    assert_eq!(prompt.question().id, "env");
    assert_eq!(
        state.answers(&id()),
        before.answers(&id()),
        "an invalid answer records no answer"
    );
}

#[test]
fn a_single_question_form_shows_no_progress() {
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Proceed?", "answer_type": "boolean", "default": true}
    ]}))
    .unwrap();
    let mut state = State::new();
    let commands = accepted(
        &mut state,
        &Event::Requested(Request {
            inquiry: id(),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
    );
    assert_eq!(
        prompt_of(&commands),
        ("ok".into(), None, Some(json!(true)), false)
    );
}
