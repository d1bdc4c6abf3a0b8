//! `run_inquiry` with a scripted person against the real core reducer, on RFD D30's
//! apply / env / note form.

use askuser_core::{
    CancelReason, Event, Input, InquiryId, Policy, Request, State, parse_form, reduce,
};
use askuser_terminal::{Action, Asked, Finish, ScriptedPrompter, TerminalError, run_inquiry};
use askuser_testkit::build;
use serde_json::{Value, json};

fn migration_form() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]})
}

/// Runs the form with `policy` and a scripted person; returns the finish, the
/// prompter and the events applied.
fn run_with(
    arguments: &Value,
    policy: Policy,
    script: Vec<Action>,
) -> (Result<Finish, TerminalError>, ScriptedPrompter, Vec<Event>) {
    let form = parse_form(arguments).expect("a valid form");
    let mut state = State::new();
    let first = reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("call-1"),
            form: form.form().clone(),
            policy,
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .expect("a new inquiry");
    let mut prompter = ScriptedPrompter::new(script);
    let mut events = Vec::new();
    let finish = run_inquiry(&mut prompter, first, |input| {
        let decision = state.decide(input)?;
        events.extend(decision.events().iter().cloned());
        let mut commands = Vec::new();
        state.apply_decision(decision, &mut commands);
        Ok(commands)
    });
    (finish, prompter, events)
}

fn run(script: Vec<Action>) -> (Result<Finish, TerminalError>, ScriptedPrompter, Vec<Event>) {
    run_with(&migration_form(), Policy::default(), script)
}

fn result_json(finish: Result<Finish, TerminalError>) -> Value {
    match finish {
        Ok(Finish::Responded { outcome, .. }) => outcome.to_json(),
        other => panic!("expected a response, got {other:?}"),
    }
}

fn asked(question: &str, prefill: Option<Value>, can_back: bool, progress: &str) -> Asked {
    Asked {
        question: question.to_owned(),
        prefill,
        can_back,
        progress: Some(progress.to_owned()),
    }
}

#[test]
fn answering_no_skips_the_rest() {
    let (finish, prompter, _) = run(vec![Action::Answer(json!(false))]);
    assert_eq!(
        result_json(finish),
        json!({"apply": false, "env": null, "note": null})
    );
    assert_eq!(prompter.asked(), [asked("apply", None, false, "[1/3]")]);
}

#[test]
fn answering_everything_gives_the_full_map() {
    let (finish, _, events) = run(vec![
        Action::Answer(json!(true)),
        Action::Answer(json!("production")),
        Action::Answer(json!("weekly run")),
    ]);
    assert_eq!(
        result_json(finish),
        json!({"apply": true, "env": "production", "note": "weekly run"})
    );
    // The review is wanted before the first answer (events[0]).
    assert_eq!(events[0], build::review_wanted("call-1"));
    assert_eq!(
        events[2],
        build::answered("call-1", "env", json!("production"))
    );
}

#[test]
fn back_from_note_reprompts_env_prefilled() {
    let (finish, prompter, _) = run(vec![
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Back,
        Action::Answer(json!("production")),
        Action::Answer(json!("")),
    ]);
    assert_eq!(
        prompter.asked(),
        [
            asked("apply", None, false, "[1/3]"),
            asked("env", None, true, "[2/3]"),
            asked("note", None, true, "[3/3]"),
            asked("env", Some(json!("staging")), true, "[2/3]"),
            asked("note", None, true, "[3/3]"),
        ]
    );
    assert_eq!(
        result_json(finish),
        json!({"apply": true, "env": "production", "note": ""})
    );
}

#[test]
fn reply_after_apply_returns_the_cancel_marker() {
    let (finish, _, events) = run(vec![
        Action::Answer(json!(true)),
        Action::Reply { message: None },
    ]);
    assert_eq!(
        events[2],
        build::cancelled("call-1", CancelReason::UserReply)
    );
    assert_eq!(
        result_json(finish),
        json!({"cancelled": true, "answered": {"apply": true}})
    );
}

#[test]
fn end_turn_sends_no_response() {
    let (finish, prompter, events) = run(vec![Action::Answer(json!(true)), Action::EndTurn]);
    assert_eq!(
        finish.ok(),
        Some(Finish::TurnEnded {
            inquiry: InquiryId::new("call-1")
        })
    );
    assert_eq!(prompter.remaining(), 0);
    assert_eq!(
        events.last(),
        Some(&build::turn_ended_in(
            "call-1",
            askuser_core::Surface::Terminal
        ))
    );
}

#[test]
fn an_invalid_answer_is_shown_and_the_prompt_asked_again() {
    let (finish, prompter, _) = run(vec![
        Action::Answer(json!(true)),
        Action::Answer(json!("dev")),
        Action::Answer(json!("staging")),
        Action::Answer(json!("n/a")),
    ]);
    assert_eq!(
        prompter.invalid_messages(),
        ["\"dev\" is not one of the options: \"staging\", \"production\""]
    );
    assert_eq!(
        prompter
            .asked()
            .iter()
            .map(|a| a.question.as_str())
            .collect::<Vec<_>>(),
        ["apply", "env", "env", "note"]
    );
    assert_eq!(
        result_json(finish),
        json!({"apply": true, "env": "staging", "note": "n/a"})
    );
}

#[test]
fn a_script_that_runs_out_is_an_error_not_a_panic() {
    let (finish, _, _) = run(vec![Action::Answer(json!(true))]);
    assert_eq!(
        finish.err().map(|e| e.to_string()).as_deref(),
        Some("the script has no action left for question \"env\"")
    );
}

#[test]
fn a_policy_failure_finishes_without_prompting() {
    let policy = Policy {
        interactive: false,
        ..Policy::default()
    };
    let (finish, prompter, _) = run_with(&migration_form(), policy, vec![]);
    let Ok(Finish::Failed {
        reason, message, ..
    }) = finish
    else {
        panic!("expected a failure, got {finish:?}");
    };
    assert_eq!(reason, CancelReason::NoPromptBackend);
    assert!(message.starts_with("ask_user cannot run because no interactive terminal"));
    assert!(prompter.asked().is_empty());
}

#[test]
fn a_single_question_has_no_progress() {
    let arguments = json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "boolean"}]});
    let (finish, prompter, _) = run_with(
        &arguments,
        Policy::default(),
        vec![Action::Reply { message: None }],
    );
    assert_eq!(prompter.asked()[0].progress, None);
    assert_eq!(
        result_json(finish),
        json!({"cancelled": true, "answered": {}})
    );
}

#[test]
fn no_commands_is_a_stall_and_engine_refusals_are_typed() {
    let mut prompter = ScriptedPrompter::default();
    let stalled = run_inquiry(&mut prompter, Vec::new(), |_| Ok(Vec::new()));
    assert!(matches!(stalled, Err(TerminalError::Stalled)));
    let mut state = State::new();
    let commands = reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("call-1"),
            form: askuser_core::parse_form(&migration_form())
                .unwrap()
                .form()
                .clone(),
            policy: Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .unwrap();
    let mut prompter = ScriptedPrompter::new([Action::Back]);
    let failed = run_inquiry(&mut prompter, commands, |input| reduce(&mut state, input));
    assert_eq!(
        failed.err().map(|e| e.to_string()).as_deref(),
        Some(
            "the engine did not accept the event: inquiry \"call-1\" has no earlier answered question to go back to"
        )
    );
}
