//! A client whose form shows only yes/no, free text and single choice, and lists
//! fields by name (Codex 0.171.0, told by its `clientInfo`): the MCP Python SDK
//! introduces itself as Codex and answers the rounds askuser shapes for it. Set
//! `ASKUSER_TEST_PYTHON` (see `scripts/mcp-venv.sh`).

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use askuser_app::log::Session;
use askuser_core::InquiryId;
use common::{Scratch, accept, checked_rounds, messages, replayed_result};
use serde_json::{Value, json};

/// Codex's `clientInfo`, as it sends it.
fn codex() -> Value {
    json!({"name": "codex-mcp-client", "version": "0.171.0"})
}

/// One round of every kind: a multi-select without and with own answers, a
/// number, an integer, a yes/no, free text and a single choice.
fn every_kind() -> Value {
    json!({"questions": [
        {"id": "features", "text": "Which features?", "context": "Pick any.",
         "answer_type": "multi_select",
         "options": [{"label": "Auth", "description": "Sign-in"}, "API", "Admin"]},
        {"id": "extras", "text": "Anything else?", "answer_type": "multi_select",
         "options": ["Docs", "Tests"], "allow_other": true, "default": ["Docs"]},
        {"id": "budget", "text": "Budget in euros?", "answer_type": "schema",
         "schema": {"type": "number", "minimum": 0}},
        {"id": "replicas", "text": "How many replicas?", "answer_type": "schema",
         "schema": {"type": "integer", "minimum": 1}},
        {"id": "deploy", "text": "Deploy now?", "answer_type": "boolean"},
        {"id": "note", "text": "Anything to note?", "answer_type": "text"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"]}
    ]})
}

/// The answers as Codex sends them: each option's yes/no, numbers as text.
/// The last field of each of Codex's rounds: its form has no Decline button,
/// so Reply and End Turn are choices there.
fn instead() -> Value {
    json!({"type": "string", "title": "Send these answers, or instead:", "oneOf": [
        {"const": "send", "title": "Send the answers above"},
        {"const": "reply", "title": "Reply to the assistant instead (the answers above are not sent)"},
        {"const": "end_turn", "title": "End the turn (the assistant gets no answers)"}],
        "default": "send"})
}

fn codex_answers(replicas: &str) -> Value {
    json!({
        "1.features.1": true, "1.features.2": false, "1.features.3": true,
        "2.extras.1": false, "2.extras.2": true, "2.extras.other": "Benchmarks",
        "3.budget": "12.5", "4.replicas": replicas,
        "5.deploy": true, "6.note": "ship it", "7.env": "production"
    })
}

/// The same answers from a client with the specification's full form.
fn full_answers() -> Value {
    json!({
        "features": ["Auth", "Admin"], "extras": ["Tests"], "extras.other": "Benchmarks",
        "budget": 12.5, "replicas": 42, "deploy": true, "note": "ship it", "env": "production"
    })
}

fn expected() -> Value {
    json!({"features": ["Auth", "Admin"], "extras": ["Tests", "Benchmarks"], "budget": 12.5,
           "replicas": 42, "deploy": true, "note": "ship it", "env": "production"})
}

/// Codex gets one round it can show, in both protocol generations: the
/// multi-selects as a yes/no per option (an own answer beside the second), the
/// numbers as text, every field named so its name sorts in question order. Its
/// answers are recorded as a full client's are, and the model gets the same
/// result, byte for byte.
#[test]
fn codex_gets_a_round_it_can_show_and_the_model_the_same_result() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let calls = |answers: Value| json!([{"tool": "ask_user", "arguments": every_kind(), "responses": [accept(&answers)]}]);
        let out = scratch.drive(
            "codex",
            None,
            json!({"mode": mode, "client_info": codex(), "calls": calls(codex_answers("42"))}),
        );
        let call = &out["calls"][0];
        assert_eq!(messages(call), ["Questions 1\u{2013}7 of 7"], "{mode}");
        insta::assert_json_snapshot!("codex_round", call["rounds"][0]["requestedSchema"]);
        let names: Vec<&String> = call["rounds"][0]["requestedSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "the names sort in question order");
        assert_eq!(call["isError"], false, "{mode}");
        assert_eq!(call["structuredContent"], expected(), "{mode}");
        assert_eq!(call["text"], json!([expected().to_string()]), "{mode}");

        let full = Scratch::new().drive(
            "full",
            None,
            json!({"mode": mode, "calls": calls(full_answers())}),
        );
        let full = &full["calls"][0];
        assert_eq!(call["text"], full["text"], "{mode}");
        assert_eq!(
            call["structuredContent"], full["structuredContent"],
            "{mode}"
        );

        let log = scratch.log();
        assert_eq!(
            checked_rounds(&*log, "codex"),
            [vec![
                "features", "extras", "budget", "replicas", "deploy", "note", "env"
            ]]
        );
        assert_eq!(
            events(&*log, "codex"),
            [
                "shown call-1: features, extras, budget, replicas, deploy, note, env",
                "answered call-1: features = [\"Auth\",\"Admin\"]",
                "answered call-1: extras = [\"Tests\",\"Benchmarks\"]",
                "answered call-1: budget = 12.5",
                "answered call-1: replicas = 42",
                "answered call-1: deploy = true",
                "answered call-1: note = \"ship it\"",
                "answered call-1: env = \"production\"",
            ],
            "{mode}"
        );
        assert_eq!(
            replayed_result(&*log, "codex"),
            json!({"type": "result", "inquiry": "call-1", "result": expected(), "cancelled": false})
        );
    }
}

/// Text that is no number is refused by the engine, and the number asked again
/// (alone, the rest kept) with the reason beside it.
#[test]
fn codex_text_that_is_no_number_is_asked_again_with_the_reason() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "nan",
        None,
        json!({"client_info": codex(), "calls": [{"tool": "ask_user", "arguments": every_kind(),
               "responses": [accept(&codex_answers("forty-two")), accept(&json!({"4.replicas": " 42 "}))]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        messages(call),
        [
            "Questions 1\u{2013}7 of 7",
            "Question 7 of 7\nAn answer was not accepted; the note beside it says why. Please answer it again."
        ]
    );
    assert_eq!(
        call["rounds"][1]["requestedSchema"],
        json!({"type": "object", "properties": {"4.replicas": {
            "type": "string", "title": "How many replicas?",
            "description": "Your last answer was not accepted: does not match the schema: \"forty-two\" is not of type \"integer\"\n\nType a whole number, at least 1.\nEnter needs text here; Ctrl+N moves on without it."},
            "~instead": instead()},
            "required": []})
    );
    assert_eq!(call["structuredContent"], expected());
    assert_eq!(
        checked_rounds(&*scratch.log(), "nan"),
        [
            vec![
                "features", "extras", "budget", "replicas", "deploy", "note", "env"
            ],
            vec!["replicas"]
        ]
    );
}

/// A form that comes back empty twice (Codex's own "provide the requested
/// info?" prompt sends nothing) is not asked a third time: the call ends with a
/// tool error saying where the questions wait, nothing is recorded for them, and
/// the inquiry stays open. (The first empty form answers the free-text question
/// with the empty text, as for any client: a blank field is its answer.)
#[test]
fn a_form_empty_twice_ends_the_call_and_leaves_the_questions_open() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let out = scratch.drive(
            "empty",
            None,
            json!({"mode": mode, "client_info": codex(), "calls": [{"tool": "ask_user",
                   "arguments": every_kind(), "responses": [accept(&json!({})), accept(&json!({}))]}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(call["rounds"].as_array().unwrap().len(), 2, "{mode}");
        assert_eq!(call["isError"], true, "{mode}");
        assert_eq!(
            call["text"],
            json!([
                "ask_user: this client's form came back empty twice, so it may not be able to show these questions. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn."
            ]),
            "{mode}"
        );
        let log = scratch.log();
        assert_eq!(
            events(&*log, "empty"),
            [
                "shown call-1: features, extras, budget, replicas, deploy, note, env",
                "answered ahead call-1: note = \"\"",
                "shown call-1: features, extras, budget, replicas, deploy, env",
                "client noted call-1: cannot show the form",
            ],
            "{mode}"
        );
        let session = Session::open(log, "empty".to_owned()).unwrap();
        let at = session.state().at(&InquiryId::new("call-1"));
        assert_eq!(
            at.and_then(|at| at.question),
            Some("features".to_owned()),
            "{mode}: the inquiry is open, asking its first question"
        );
    }
}

/// Claude Code's `AskUserQuestion` with `multiSelect` on Codex: one yes/no per
/// option beside the own-answer field; the model gets what a full client's
/// answers give.
#[test]
fn codex_answers_ask_user_question_with_multi_select() {
    let arguments = json!({"questions": [
        {"question": "Which features?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth", "description": "Sign-in"}, {"label": "API"}]}]});
    let drive = |client: Value, answers: Value| {
        let mut scenario = json!({"calls": [{"tool": "AskUserQuestion", "arguments": arguments,
                                             "responses": [accept(&answers)]}]});
        if !client.is_null() {
            scenario["client_info"] = client;
        }
        Scratch::new().drive("claude", None, scenario)["calls"][0].clone()
    };
    let call = drive(
        codex(),
        json!({"1.q1.1": true, "1.q1.2": false, "1.q1.other": "Billing"}),
    );
    assert_eq!(
        call["rounds"][0]["requestedSchema"],
        json!({"type": "object", "properties": {
            "1.q1.1": {"type": "boolean", "title": "Which features? \u{2014} Auth",
                       "description": "Sign-in", "default": false},
            "1.q1.2": {"type": "boolean", "title": "Which features? \u{2014} API", "default": false},
            "1.q1.other": {"type": "string", "title": "Or your own answer to: Which features?",
                           "description": "Enter needs text here; Ctrl+N moves on without it."},
            "~instead": instead()},
            "required": []})
    );
    let full = drive(Value::Null, json!({"q1": ["Auth"], "q1.other": "Billing"}));
    assert_eq!(
        call["structuredContent"],
        json!({"answers": {"Which features?": "Auth, Billing"}})
    );
    assert_eq!(call["text"], full["text"]);
    assert_eq!(call["structuredContent"], full["structuredContent"]);
}

/// The stream's events after the request, in words.
fn events(log: &dyn askuser_app::log::Log, stream: &str) -> Vec<String> {
    askuser_rpc::replay(log, stream)
        .unwrap()
        .events
        .iter()
        .skip(1)
        // The result handed over to the client: `python_resume.rs` checks those.
        .filter(|e| !matches!(e.event, askuser_core::Event::Delivered { .. }))
        .map(|e| askuser_rpc::describe_event(&e.event))
        .collect()
}

/// Reply chosen in a round's last field: one more small form asks for the
/// Reply's message (a free-text field, then the choice to send it, last). Sent,
/// the model gets the Reply with its message; dismissed, the Reply goes without
/// one; End the turn there ends it.
#[test]
fn a_reply_chosen_in_codex_s_form_asks_for_its_message() {
    let arguments = json!({"questions": [
        {"id": "deploy", "text": "Deploy now?", "answer_type": "boolean"}]});
    let reply = accept(&json!({"1.deploy": true, "~instead": "reply"}));
    let drive = |second: Value| {
        let scenario = json!({"client_info": codex(), "calls": [
            {"tool": "ask_user", "arguments": arguments, "responses": [reply, second]}]});
        let scratch = Scratch::new();
        let call = scratch.drive("reply", None, scenario)["calls"][0].clone();
        (call, events(&*scratch.log(), "reply"))
    };
    let (sent, recorded) = drive(accept(
        &json!({"message": "use the staging copy", "~instead": "reply"}),
    ));
    assert_eq!(
        sent["rounds"][1],
        json!({"message": "Reply to the assistant: what should it read? (Esc sends the Reply without a message.)",
               "requestedSchema": {"type": "object", "properties": {
            "message": {"type": "string", "title": "Your reply to the assistant",
                        "description": "Optional. Enter needs text here; Ctrl+N moves on without it."},
            "~instead": {"type": "string", "title": "Send the Reply, or instead:", "oneOf": [
                {"const": "reply", "title": "Send the Reply"},
                {"const": "end_turn", "title": "End the turn (the assistant gets no answers)"}],
                "default": "reply"}}}})
    );
    assert_eq!(
        (sent["text"].clone(), recorded),
        (
            json!(["{\"cancelled\":true,\"answered\":{},\"message\":\"use the staging copy\"}"]),
            vec![
                "shown call-1: deploy".to_owned(),
                "reply call-1: use the staging copy".to_owned()
            ]
        )
    );
    let (dismissed, recorded) = drive(json!({"action": "cancel"}));
    assert_eq!(
        (dismissed["text"].clone(), recorded.last().cloned()),
        (
            json!(["{\"cancelled\":true,\"answered\":{}}"]),
            Some("reply call-1".to_owned())
        )
    );
    let (ended, recorded) = drive(accept(&json!({"~instead": "end_turn"})));
    assert_eq!(
        (ended["text"].clone(), recorded.last().cloned()),
        (
            json!([
                "ask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."
            ]),
            Some("turn ended call-1 in the agent's own window".to_owned())
        )
    );
}
