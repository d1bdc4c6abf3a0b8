//! Every example of the source documents, per dialect: parsed, walked through the
//! engine, and rendered exactly as the document shows.

mod common;

use askuser_core::UiInput;
use askuser_core::{Answer, Outcome, OutcomeStatus, Slot};
use askuser_dialects::{Dialect, ToolResult};
use common::{Step, parse, success, walk};
use serde_json::json;

// ---- RFD 083 (jp) -------------------------------------------------------------

fn rfd_083_select() -> serde_json::Value {
    json!({
        "question": "The current approach modifies production config in place. Apply with backup, apply without backup, or abort?",
        "answer_type": "select",
        "options": ["backup", "overwrite", "abort"],
    })
}

#[test]
fn rfd_083_select_body() {
    let call = parse(Dialect::Jp, &rfd_083_select());
    assert_eq!(call.tool_name(), "ask_user");
    assert_eq!(call.form().question(0).id, "answer");
    let result = walk(&call, vec![Step::Ui(UiInput::Pick(0))]);
    assert_eq!(
        success(result),
        json!({"answer_type": "select", "answer": "backup"})
    );
}

#[test]
fn rfd_083_boolean_body_keeps_the_boolean_typed() {
    let call = parse(
        Dialect::Jp,
        &json!({"question": "Proceed with the migration?", "answer_type": "boolean"}),
    );
    let result = walk(&call, vec![Step::Ui(UiInput::Bool(true))]);
    assert_eq!(
        success(result),
        json!({"answer_type": "boolean", "answer": true})
    );
}

#[test]
fn rfd_083_text_body_with_the_default_type() {
    let call = parse(
        Dialect::Jp,
        &json!({"question": "What's the target directory?", "context": "The build writes here.\nIt is created if missing."}),
    );
    assert_eq!(
        call.form().question(0).context.as_deref(),
        Some("The build writes here.\nIt is created if missing.")
    );
    let result = walk(&call, vec![Step::Ui(UiInput::Text("/tmp/output".into()))]);
    assert_eq!(
        success(result),
        json!({"answer_type": "text", "answer": "/tmp/output"})
    );
}

#[test]
fn rfd_083_default_prefills_the_prompt() {
    let call = parse(
        Dialect::Jp,
        &json!({"question": "Apply?", "answer_type": "select", "options": ["backup", "abort"], "default": "abort"}),
    );
    assert_eq!(
        call.form().default_answer(0),
        Some(&Answer::Choice(1)),
        "the default is checked against the options"
    );
}

// ---- RFD D30 (jp-form) --------------------------------------------------------

fn rfd_d30_form() -> serde_json::Value {
    json!({
        "questions": [
            {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
            {"id": "env", "text": "Which environment?", "answer_type": "select",
             "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
            {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
             "when": {"question_id": "apply", "equals": true}},
        ]
    })
}

#[test]
fn rfd_d30_return_shape_maps_every_id_with_null_for_unanswered() {
    let call = parse(Dialect::JpForm, &rfd_d30_form());
    // The RFD's map, rendered from an outcome where `note` holds no answer (as after
    // a Back that discarded it): every id, in form order, `null` where unanswered.
    let outcome = Outcome {
        form: call.form().clone(),
        answers: vec![
            Some(Slot {
                answer: Answer::Bool(true),
                by: askuser_core::AnsweredBy::User,
                note: None,
            }),
            Some(Slot {
                answer: Answer::Choice(1),
                by: askuser_core::AnsweredBy::User,
                note: None,
            }),
            None,
        ]
        .into(),
        status: OutcomeStatus::Completed,
        message: None,
    };
    assert_eq!(
        serde_json::to_string(&call.render(&outcome)).unwrap(),
        r#"{"apply":true,"env":"production","note":null}"#
    );
}

#[test]
fn rfd_d30_walks_apply_env_note() {
    let call = parse(Dialect::JpForm, &rfd_d30_form());
    let result = walk(
        &call,
        vec![
            Step::Ui(UiInput::Text("y".into())),
            Step::Ui(UiInput::Text("production".into())),
            Step::Ui(UiInput::Text("weekly run".into())),
        ],
    );
    assert_eq!(
        serde_json::to_string(&success(result)).unwrap(),
        r#"{"apply":true,"env":"production","note":"weekly run"}"#
    );
    let result = walk(&call, vec![Step::Answer(json!(false))]);
    assert_eq!(
        serde_json::to_string(&success(result)).unwrap(),
        r#"{"apply":false,"env":null,"note":null}"#
    );
}

#[test]
fn rfd_d30_reply_gives_the_cancel_marker_and_end_turn_no_result() {
    let call = parse(Dialect::JpForm, &rfd_d30_form());
    let result = walk(&call, vec![Step::Answer(json!(true)), Step::Reply]);
    assert_eq!(
        success(result),
        json!({"cancelled": true, "answered": {"apply": true}})
    );
    let result = walk(&call, vec![Step::Answer(json!(true)), Step::EndTurn]);
    assert_eq!(result, None);
}

// ---- the pi spec (pi) ---------------------------------------------------------

fn pi_call() -> serde_json::Value {
    json!({
        "questions": [
            {
                "question": "Which database should we use?",
                "header": "Database Selection",
                "options": [
                    { "label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB" },
                    { "label": "SQLite", "description": "Lightweight, file-based" },
                    { "label": "MongoDB", "description": "Document store" }
                ]
            },
            {
                "question": "What should we name this service?",
                "header": "Service Setup"
            }
        ],
        "metadata": { "source": "project-setup" }
    })
}

#[test]
fn pi_postgresql_and_order_processor() {
    let call = parse(Dialect::Pi, &pi_call());
    assert_eq!(call.metadata(), Some(&json!({"source": "project-setup"})));
    let form = call.form();
    assert_eq!(form.question(0).id, "q1");
    assert!(form.question(0).allow_other, "\"Other\" is always allowed");
    assert_eq!(form.question(1).id, "q2");
    assert_eq!(form.question(1).answer_type, askuser_core::AnswerType::Text);
    let result = walk(
        &call,
        vec![
            Step::Ui(UiInput::Pick(0)),
            Step::Ui(UiInput::Text("order-processor".into())),
        ],
    );
    let expected = json!({
        "answered": true,
        "answers": [
            {
                "question": "Which database should we use?",
                "answer": "PostgreSQL (Recommended)",
                "selectedOption": "PostgreSQL (Recommended)",
                "wasCustom": false
            },
            {
                "question": "What should we name this service?",
                "answer": "order-processor",
                "wasCustom": true
            }
        ]
    });
    assert_eq!(
        serde_json::to_string(&success(result)).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn pi_other_dynamodb() {
    // The spec's "user selected Other" result shows the database question alone.
    let mut arguments = pi_call();
    arguments["questions"].as_array_mut().unwrap().truncate(1);
    let call = parse(Dialect::Pi, &arguments);
    let result = walk(
        &call,
        vec![Step::Ui(UiInput::Text("I want to use DynamoDB".into()))],
    );
    let expected = json!({
        "answered": true,
        "answers": [
            {
                "question": "Which database should we use?",
                "answer": "I want to use DynamoDB",
                "wasCustom": true
            }
        ]
    });
    assert_eq!(
        serde_json::to_string(&success(result)).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn pi_cancel_is_atomic_and_details_echo_the_metadata() {
    let call = parse(Dialect::Pi, &pi_call());
    let result = walk(&call, vec![Step::Ui(UiInput::Pick(1)), Step::Reply]);
    let cancelled = json!({"answered": false, "answers": [], "cancelled": true});
    assert_eq!(success(result), cancelled);
    let outcome = Outcome {
        form: call.form().clone(),
        answers: vec![None, None].into(),
        status: OutcomeStatus::Cancelled,
        message: None,
    };
    assert_eq!(
        call.details(&outcome),
        json!({"result": cancelled, "metadata": {"source": "project-setup"}})
    );
}

#[test]
fn pi_multi_select_answers_a_list() {
    let call = parse(
        Dialect::Pi,
        &json!({"questions": [{
            "question": "Which features should we include?",
            "header": "Feature Selection",
            "multiSelect": true,
            "options": [
                {"label": "Authentication", "description": "OAuth2 + JWT"},
                {"label": "REST API", "description": "OpenAPI spec included"},
                {"label": "Admin Dashboard"}
            ]
        }]}),
    );
    let result = walk(
        &call,
        vec![Step::Ui(UiInput::List(vec![
            "Admin Dashboard".into(),
            "Authentication".into(),
            "Audit log".into(),
        ]))],
    );
    assert_eq!(
        success(result),
        json!({"answered": true, "answers": [{
            "question": "Which features should we include?",
            "answer": ["Authentication", "Admin Dashboard", "Audit log"],
            "selectedOption": "Authentication, Admin Dashboard",
            "wasCustom": true
        }]})
    );
}

// ---- REQ-AUQ / Claude Code (claude) -------------------------------------------

fn claude_call() -> serde_json::Value {
    json!({
        "questions": [
            {
                "question": "Which auth method should we use?",
                "header": "Auth method",
                "options": [
                    {"label": "OAuth2 (Recommended)", "description": "Delegated login"},
                    {"label": "API keys", "description": "Simple, per client"}
                ],
                "multiSelect": false
            },
            {
                "question": "Which features should we enable?",
                "header": "Features",
                "options": [
                    {"label": "Auth"}, {"label": "API"}, {"label": "Admin"}
                ],
                "multiSelect": true
            }
        ]
    })
}

#[test]
fn req_auq_answers_keyed_by_question_text_with_joined_multi_select() {
    let call = parse(Dialect::Claude, &claude_call());
    assert_eq!(call.tool_name(), "AskUserQuestion");
    assert_eq!(
        call.form()
            .questions()
            .iter()
            .map(|q| q.id.as_str())
            .collect::<Vec<_>>(),
        ["q1", "q2"]
    );
    let result = walk(
        &call,
        vec![
            Step::Ui(UiInput::Pick(0)),
            Step::Ui(UiInput::Picks(vec![2, 0])),
        ],
    );
    assert_eq!(
        serde_json::to_string(&success(result)).unwrap(),
        r#"{"answers":{"Which auth method should we use?":"OAuth2 (Recommended)","Which features should we enable?":"Auth, Admin"}}"#
    );
}

#[test]
fn req_auq_other_text_replaces_the_label() {
    let call = parse(Dialect::Claude, &claude_call());
    let result = walk(
        &call,
        vec![
            Step::Ui(UiInput::Text("Passkeys".into())),
            Step::Ui(UiInput::List(vec!["API".into(), "Metrics".into()])),
        ],
    );
    assert_eq!(
        success(result),
        json!({"answers": {
            "Which auth method should we use?": "Passkeys",
            "Which features should we enable?": "API, Metrics"
        }})
    );
}

#[test]
fn req_auq_real_calls_omit_header_description_and_multi_select() {
    let call = parse(
        Dialect::Claude,
        &json!({"questions": [{"question": "Tabs or spaces?",
                               "options": [{"label": "Tabs"}, {"label": "Spaces"}]}]}),
    );
    assert_eq!(
        call.form().question(0).answer_type,
        askuser_core::AnswerType::Select
    );
    let result = walk(&call, vec![Step::Ui(UiInput::Text("Spaces".into()))]);
    assert_eq!(
        success(result),
        json!({"answers": {"Tabs or spaces?": "Spaces"}})
    );
}

#[test]
fn req_auq_cancel_reports_the_answers_so_far() {
    let call = parse(Dialect::Claude, &claude_call());
    let result = walk(&call, vec![Step::Ui(UiInput::Pick(1)), Step::Reply]);
    assert_eq!(
        success(result),
        json!({"cancelled": true, "answers": {"Which auth method should we use?": "API keys"}})
    );
}

#[test]
fn a_multi_line_claude_question_is_answered_under_its_full_text() {
    let text = "The build has two targets.\nWhich one should I fix first?";
    let call = parse(
        Dialect::Claude,
        &json!({"questions": [{"question": text,
                               "options": [{"label": "web"}, {"label": "cli"}]}]}),
    );
    let question = call.form().question(0);
    assert_eq!(question.text, "Which one should I fix first?");
    assert_eq!(
        question.context.as_deref(),
        Some("The build has two targets.")
    );
    let result = walk(&call, vec![Step::Ui(UiInput::Pick(1))]);
    assert_eq!(success(result), json!({"answers": {text: "cli"}}));
}

// ---- policy failures ----------------------------------------------------------

#[test]
fn a_policy_failure_is_sent_as_its_message() {
    use askuser_core::{Command, Input, InquiryId, State, reduce};
    let call = parse(Dialect::Claude, &claude_call());
    let mut request = call.request(InquiryId::new("c"));
    request.policy.interactive = false;
    let commands = reduce(&mut State::new(), &Input::Ask(request)).unwrap();
    let [command @ Command::Fail { .. }] = commands.as_slice() else {
        panic!("expected a failure, got {commands:?}");
    };
    assert_eq!(
        call.tool_result(command),
        Some(ToolResult::Error(
            "AskUserQuestion cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.".into()
        ))
    );
    let policy = call.policy();
    assert!(policy.exclusive);
    assert_eq!(policy.persistence, askuser_core::Persistence::None);
    assert_eq!(policy.label.as_deref(), Some("Assistant"));
}
