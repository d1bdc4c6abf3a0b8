//! Routing policy (RFD 083's precedence table), remembered answers, parallel
//! inquiries, and events that do not fit the state.

use std::collections::BTreeMap;

use askuser_core::strategies::reduce_event;
use askuser_core::{
    AnsweredBy, CancelReason, Command, Ending, Event, InquiryId, Origin, Persistence, Policy,
    Refusal, Request, State, Target, parse_form,
};
use serde_json::{Value, json};

fn form() -> std::sync::Arc<askuser_core::Form> {
    parse_form(&json!({"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select", "options": ["postgres", "sqlite"]},
        {"id": "ok", "text": "Proceed?", "answer_type": "boolean"}
    ]}))
    .unwrap()
    .form()
    .clone()
}

fn request(id: &str, policy: Policy, origin: Origin) -> Event {
    Event::Requested(Request {
        inquiry: InquiryId::new(id),
        form: form(),
        policy,
        origin,
        call: None,
    })
}

fn answer(id: &str, question: &str, value: Value, by: AnsweredBy, remember: bool) -> Event {
    Event::Answered {
        inquiry: InquiryId::new(id),
        question: question.into(),
        value,
        by,
        remember,
        note: None,
    }
}

fn fail(commands: &[Command]) -> (CancelReason, String) {
    match commands {
        [
            Command::Fail {
                reason, message, ..
            },
        ] => (reason.clone(), message.clone()),
        other => panic!("expected a failure, got {other:?}"),
    }
}

fn prompted(commands: &[Command]) -> String {
    match commands {
        [Command::Prompt(p)] => p.question().id.clone(),
        other => panic!("expected a prompt, got {other:?}"),
    }
}

fn result(commands: &[Command]) -> Value {
    match commands {
        [Command::Respond { outcome, .. }] => outcome.to_json(),
        other => panic!("expected a response, got {other:?}"),
    }
}

/// Decides and applies an input the engine must accept.
fn run(state: &mut State, event: &Event) -> Vec<Command> {
    reduce_event(state, event).expect("the engine accepts the input")
}

/// The refusal of an input the engine must refuse, as text; the state is unchanged.
fn refused(state: &mut State, event: &Event) -> String {
    let before = state.clone();
    let refusal = reduce_event(state, event).expect_err("the engine refuses the input");
    assert_eq!(*state, before, "a refused input changes nothing");
    refusal.to_string()
}

#[test]
fn a_static_answer_wins_and_is_never_shown() {
    let policy = Policy {
        static_answers: BTreeMap::from([("db".to_owned(), json!("sqlite"))]),
        ..Policy::default()
    };
    let mut state = State::new();
    assert_eq!(
        prompted(&run(&mut state, &request("a", policy, Origin::default()))),
        "ok"
    );
    let commands = run(
        &mut state,
        &answer("a", "ok", json!(true), AnsweredBy::User, false),
    );
    assert_eq!(result(&commands), json!({"db": "sqlite", "ok": true}));
}

#[test]
fn a_static_answer_that_does_not_fit_names_the_configuration() {
    let policy = Policy {
        static_answers: BTreeMap::from([("db".to_owned(), json!("oracle"))]),
        interactive: false,
        ..Policy::default()
    };
    let mut state = State::new();
    let (reason, message) = fail(&run(&mut state, &request("a", policy, Origin::default())));
    assert_eq!(reason, CancelReason::InvalidStaticAnswer);
    assert_eq!(
        message,
        "ask_user: the configured answer for question \"db\" (policy.static_answers.db = \"oracle\") does not fit the question: \"oracle\" is not one of the options: \"postgres\", \"sqlite\". Update the configuration; do not retry."
    );
    assert_eq!(state.finished(&InquiryId::new("a")), Some(Ending::Failed));
}

#[test]
fn no_terminal_fails_an_exclusive_question() {
    let policy = Policy {
        interactive: false,
        ..Policy::default()
    };
    let (reason, message) = fail(&run(
        &mut State::new(),
        &request("a", policy, Origin::default()),
    ));
    assert_eq!(reason, CancelReason::NoPromptBackend);
    assert_eq!(
        message,
        "ask_user cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing."
    );
}

#[test]
fn an_exclusive_question_is_never_routed_to_the_assistant() {
    let policy = Policy {
        target: Target::Assistant,
        ..Policy::default()
    };
    let (reason, message) = fail(&run(
        &mut State::new(),
        &request("a", policy, Origin::default()),
    ));
    assert_eq!(reason, CancelReason::AssistantRoutingDenied);
    assert_eq!(
        message,
        "ask_user requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn."
    );
}

#[test]
fn a_non_exclusive_question_without_a_person_goes_to_the_assistant() {
    let policy = Policy {
        interactive: false,
        exclusive: false,
        ..Policy::default()
    };
    let mut state = State::new();
    let commands = run(&mut state, &request("a", policy, Origin::default()));
    assert_eq!(
        commands,
        vec![Command::AskAssistant {
            inquiry: InquiryId::new("a"),
            question: "db".into(),
            schema: json!({"type": "string", "enum": ["postgres", "sqlite"]}),
        }]
    );
    let commands = run(
        &mut state,
        &answer("a", "db", json!("mysql"), AnsweredBy::Assistant, false),
    );
    assert_eq!(
        commands,
        vec![
            Command::InvalidAnswer {
                inquiry: InquiryId::new("a"),
                question: "db".into(),
                message: "\"mysql\" is not one of the options: \"postgres\", \"sqlite\"".into(),
                reason: Some(askuser_core::AnswerError::NotAnOption {
                    value: "mysql".into(),
                    options: "\"postgres\", \"sqlite\"".into(),
                }),
            },
            Command::AskAssistant {
                inquiry: InquiryId::new("a"),
                question: "db".into(),
                schema: json!({"type": "string", "enum": ["postgres", "sqlite"]}),
            },
        ]
    );
    run(
        &mut state,
        &answer("a", "db", json!("postgres"), AnsweredBy::Assistant, false),
    );
    let commands = run(
        &mut state,
        &answer("a", "ok", json!(false), AnsweredBy::Assistant, false),
    );
    assert_eq!(result(&commands), json!({"db": "postgres", "ok": false}));
}

#[test]
fn a_subagent_may_not_ask_the_person() {
    let origin = Origin {
        subagent: true,
        ..Origin::default()
    };
    let mut state = State::new();
    let (reason, message) = fail(&run(&mut state, &request("a", Policy::default(), origin)));
    assert_eq!(reason, CancelReason::SubagentDenied);
    assert_eq!(
        message,
        "ask_user is not available to sub-agents: only the parent conversation can ask the user questions. Do not retry; continue without user input or return what you need to the parent."
    );
    assert_eq!(
        state.finished(&InquiryId::new("a")),
        Some(Ending::Failed),
        "the denied request's id is used up"
    );
}

fn turn(name: &str) -> Origin {
    Origin {
        turn: name.into(),
        ..Origin::default()
    }
}

#[test]
fn a_remembered_answer_is_reused_until_the_turn_changes() {
    let policy = Policy {
        persistence: Persistence::Turn,
        ..Policy::default()
    };
    let mut state = State::new();
    run(&mut state, &request("a", policy.clone(), turn("t1")));
    run(
        &mut state,
        &answer("a", "db", json!("sqlite"), AnsweredBy::User, true),
    );
    run(
        &mut state,
        &answer("a", "ok", json!(true), AnsweredBy::User, false),
    );
    // Same turn: `db` comes from the cache, `ok` (not remembered) is asked.
    assert_eq!(
        prompted(&run(&mut state, &request("b", policy.clone(), turn("t1")))),
        "ok"
    );
    let commands = run(
        &mut state,
        &answer("b", "ok", json!(false), AnsweredBy::User, false),
    );
    let [Command::Respond { outcome, .. }] = commands.as_slice() else {
        panic!("{commands:?}")
    };
    assert_eq!(
        outcome.answers[0].as_ref().map(|s| s.by),
        Some(AnsweredBy::Cache)
    );
    assert_eq!(outcome.to_json(), json!({"db": "sqlite", "ok": false}));
    // A new turn forgets it.
    assert_eq!(
        prompted(&run(&mut state, &request("c", policy, turn("t2")))),
        "db"
    );
}

#[test]
fn remembering_is_ignored_when_persistence_forbids_it() {
    let mut state = State::new();
    run(&mut state, &request("a", Policy::default(), turn("t1")));
    run(
        &mut state,
        &answer("a", "db", json!("sqlite"), AnsweredBy::User, true),
    );
    run(
        &mut state,
        &answer("a", "ok", json!(true), AnsweredBy::User, false),
    );
    assert_eq!(
        prompted(&run(
            &mut state,
            &request("b", Policy::default(), turn("t1"))
        )),
        "db"
    );
}

#[test]
fn parallel_inquiries_are_kept_apart_and_end_together_with_the_turn() {
    let mut state = State::new();
    run(&mut state, &request("a", Policy::default(), turn("t1")));
    run(&mut state, &request("b", Policy::default(), turn("t1")));
    assert_eq!(
        prompted(&run(
            &mut state,
            &answer("b", "db", json!("sqlite"), AnsweredBy::User, false)
        )),
        "ok"
    );
    assert_eq!(state.answers(&InquiryId::new("a")).unwrap()[0], None);
    let commands = run(
        &mut state,
        &Event::TurnEnded {
            inquiry: InquiryId::new("b"),
            surface: None,
        },
    );
    assert_eq!(
        commands,
        vec![
            Command::EndTurn {
                inquiry: InquiryId::new("b")
            },
            Command::EndTurn {
                inquiry: InquiryId::new("a")
            },
        ]
    );
    assert_eq!(state.open_inquiries().count(), 0);
}

#[test]
fn events_that_do_not_fit_are_errors_and_change_nothing() {
    let mut state = State::new();
    run(
        &mut state,
        &request("a", Policy::default(), Origin::default()),
    );
    let open = state.clone();
    assert_eq!(
        refused(
            &mut state,
            &answer("zz", "db", json!("sqlite"), AnsweredBy::User, false)
        ),
        "no inquiry \"zz\" was requested; send the request first"
    );
    assert_eq!(
        refused(
            &mut state,
            &answer("a", "ok", json!(true), AnsweredBy::User, false)
        ),
        "inquiry \"a\" is asking question \"db\" (step 0), not \"ok\": answer that question, or go back or reply from it"
    );
    assert_eq!(
        refused(
            &mut state,
            &Event::Back {
                inquiry: InquiryId::new("a")
            }
        ),
        "inquiry \"a\" has no earlier answered question to go back to"
    );
    assert_eq!(
        refused(
            &mut state,
            &request("a", Policy::default(), Origin::default())
        ),
        "inquiry \"a\" was already requested in this stream; use a new id for a new request"
    );
    assert_eq!(state, open);
    run(
        &mut state,
        &Event::Cancelled {
            inquiry: InquiryId::new("a"),
            reason: CancelReason::UserReply,
            message: None,
        },
    );
    let finished = state.clone();
    assert_eq!(
        reduce_event(
            &mut state,
            &Event::TurnEnded {
                inquiry: InquiryId::new("a"),
                surface: None
            }
        ),
        Err(Refusal::InquiryFinished {
            inquiry: "a".into(),
            ended: Some(askuser_core::Ending::Replied),
        })
    );
    assert_eq!(state, finished);
}

#[test]
fn a_system_cancellation_fails_the_call() {
    let mut state = State::new();
    run(
        &mut state,
        &request("a", Policy::default(), Origin::default()),
    );
    let commands = run(
        &mut state,
        &Event::Cancelled {
            inquiry: InquiryId::new("a"),
            reason: CancelReason::Unknown("host_shutdown".into()),
            message: None,
        },
    );
    assert_eq!(
        fail(&commands),
        (
            CancelReason::Unknown("host_shutdown".into()),
            "ask_user was cancelled (host_shutdown). Do not retry this tool call in this turn."
                .to_owned()
        )
    );
}

#[test]
fn an_invalid_form_is_rejected_with_every_problem() {
    let form = askuser_core::Form::new(vec![askuser_core::Question::new(
        "a",
        "",
        askuser_core::AnswerType::Select,
    )]);
    let mut state = State::new();
    let commands = run(
        &mut state,
        &Event::Requested(Request {
            inquiry: InquiryId::new("a"),
            form: form.into(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
    );
    let [Command::Reject { problems, .. }] = commands.as_slice() else {
        panic!("{commands:?}")
    };
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.message))
        .collect();
    assert_eq!(
        lines,
        [
            "/questions/0/text: is empty; write the question as one line",
            "/questions/0/options: answer_type `select` needs `options`: add a list of at least one choice"
        ]
    );
    assert_eq!(state, State::new());
}

#[test]
fn the_record_of_finished_inquiries_is_bounded() {
    let mut state = State::new();
    let total = askuser_core::FINISHED_REMEMBERED + 10;
    for n in 0..total {
        let id = format!("i{n}");
        run(
            &mut state,
            &request(&id, Policy::default(), Origin::default()),
        );
        run(
            &mut state,
            &Event::Cancelled {
                inquiry: InquiryId::new(&id),
                reason: CancelReason::UserReply,
                message: None,
            },
        );
    }
    assert_eq!(
        state.finished(&InquiryId::new("i0")),
        None,
        "the oldest record is forgotten"
    );
    assert_eq!(state.finished(&InquiryId::new("i9")), None);
    assert_eq!(
        state.finished(&InquiryId::new("i10")),
        Some(Ending::Replied)
    );
    assert_eq!(
        state.finished(&InquiryId::new(format!("i{}", total - 1))),
        Some(Ending::Replied)
    );
    assert_eq!(
        refused(
            &mut state,
            &Event::Back {
                inquiry: InquiryId::new("i0")
            }
        ),
        "inquiry \"i0\" already finished; it takes no more input: show how it ended instead"
    );
    // The id of a forgotten inquiry is still used: a request reusing it is refused
    // rather than overwriting the first call's record (issue 10, finding 3).
    assert_eq!(
        refused(
            &mut state,
            &request("i0", Policy::default(), Origin::default())
        ),
        "inquiry \"i0\" was already requested in this stream; use a new id for a new request"
    );
    assert_eq!(
        refused(
            &mut state,
            &Event::Back {
                inquiry: InquiryId::new("i10")
            }
        ),
        "inquiry \"i10\" already finished (replied); it takes no more input: show how it ended instead"
    );
}
