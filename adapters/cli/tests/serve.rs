//! `askuser serve` driven over pipes through whole sessions, for every dialect:
//! rejected calls, invalid answers, bad lines, and each session replayed from its
//! log with `askuser log replay`.

mod common;

use common::{Scratch, example};
use serde_json::{Value, json};

/// A line of input, or a line longer than the protocol allows.
enum Sent {
    Line(Value),
    Raw(&'static str),
    TooLong,
}

fn line(value: Value) -> Sent {
    Sent::Line(value)
}

fn arguments(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(example(name)).unwrap()).unwrap()
}

/// Serves `sent` in stream `s` of a fresh log; returns the scratch directory and
/// a text of the exit status, the lines sent and the lines received.
fn session(sent: &[Sent]) -> (Scratch, String) {
    let scratch = Scratch::new();
    let mut input = String::new();
    let mut shown = String::new();
    for item in sent {
        match item {
            Sent::Line(value) => {
                input.push_str(&value.to_string());
                shown.push_str(&value.to_string());
            }
            Sent::Raw(text) => {
                input.push_str(text);
                shown.push_str(text);
            }
            Sent::TooLong => {
                input.push_str(&"x".repeat(askuser_rpc_max() + 1));
                shown.push_str("<1 MiB + 1 bytes of x>");
            }
        }
        input.push('\n');
        shown.push('\n');
    }
    let run = scratch.run_db(&["serve", "--stream", "s"], &input);
    assert_eq!(run.stderr, "");
    let text = format!(
        "exit: {}\n--- sent\n{shown}--- received\n{}",
        run.code, run.stdout
    );
    (scratch, text)
}

fn askuser_rpc_max() -> usize {
    1 << 20
}

/// `askuser log replay s`: exit status and output.
fn replay(scratch: &Scratch) -> (i32, String) {
    let run = scratch.run_db(&["log", "replay", "s"], "");
    assert_eq!(run.stderr, "");
    (run.code, run.stdout)
}

#[test]
fn jp_form_session_with_mistakes_bad_lines_and_every_ending() {
    let migration = arguments("migration.json");
    let ask = |inquiry: &str| json!({"type": "ask", "inquiry": inquiry, "dialect": "jp-form", "arguments": migration});
    let answer = |inquiry: &str, question: &str, value: Value| {
        line(json!({"type": "answer", "inquiry": inquiry, "question": question, "value": value}))
    };
    let (scratch, text) = session(&[
        line(ask("m1")),
        answer("m1", "apply", json!("yes")),
        answer("m1", "env", json!("prod")),
        answer("m1", "note", json!("too early")),
        answer("m1", "env", json!("production")),
        line(json!({"type": "back", "inquiry": "m1"})),
        answer("m1", "env", json!("staging")),
        answer("m1", "note", json!("first run")),
        line(json!({"type": "back", "inquiry": "m1"})),
        Sent::Raw("not json"),
        Sent::Raw("[1, 2]"),
        Sent::Raw(r#"{"type": "launch"}"#),
        answer("nobody", "q", json!(1)),
        Sent::TooLong,
        line(
            json!({"type": "ask", "inquiry": "m2", "arguments": {"questions": [
            {"id": "a", "text": "A?", "answer_type": "boolean"},
            {"id": "a", "text": "B?", "answer_type": "select"}]}}),
        ),
        line(ask("m3")),
        answer("m3", "apply", json!(true)),
        line(json!({"type": "reply", "inquiry": "m3"})),
        line(ask("m4")),
        line(json!({"type": "end_turn", "inquiry": "m4"})),
        line(json!({"type": "ask", "inquiry": "m5", "interactive": false, "arguments": migration})),
        line(
            json!({"type": "ask", "inquiry": "m6", "origin": {"subagent": true}, "arguments": migration}),
        ),
        line(ask("m1")),
    ]);
    insta::assert_snapshot!("jp_form_session", text);
    let (code, report) = replay(&scratch);
    assert_eq!(code, 0);
    // The agent's working directory, the scratch one, is recorded where it runs.
    let dir = scratch.dir.path().display().to_string();
    insta::assert_snapshot!("jp_form_replay", report.replace(&dir, "<tmp>"));
}

#[test]
fn jp_session() {
    let (scratch, text) = session(&[
        line(
            json!({"type": "ask", "inquiry": "j1", "dialect": "jp", "arguments": arguments("jp.json")}),
        ),
        line(json!({"type": "answer", "inquiry": "j1", "question": "answer", "value": "keep it"})),
        line(json!({"type": "answer", "inquiry": "j1", "question": "answer", "value": "backup"})),
    ]);
    insta::assert_snapshot!("jp_session", text);
    let (code, report) = replay(&scratch);
    assert_eq!(code, 0);
    assert_eq!(
        report.lines().last(),
        Some(
            "replayed: the 6 events re-derive their lines from the log alone (this log records events, not the lines sent)"
        )
    );
}

#[test]
fn claude_session_and_a_rejected_call() {
    let (scratch, text) = session(&[
        line(
            json!({"type": "ask", "inquiry": "toolu_01", "dialect": "claude", "arguments": arguments("claude.json")}),
        ),
        line(
            json!({"type": "answer", "inquiry": "toolu_01", "question": "q1", "value": "API keys"}),
        ),
        line(
            json!({"type": "answer", "inquiry": "toolu_01", "question": "q2", "value": ["Admin", "Auth"]}),
        ),
        line(
            json!({"type": "ask", "inquiry": "toolu_02", "dialect": "claude", "arguments": {"questions": [
            {"question": "Which?", "header": 7, "options": []}]}}),
        ),
    ]);
    insta::assert_snapshot!("claude_session", text);
    let (code, report) = replay(&scratch);
    assert_eq!(code, 0);
    assert_eq!(
        report.lines().last(),
        Some(
            "replayed: the 7 events re-derive their lines from the log alone (this log records events, not the lines sent)"
        )
    );
}

#[test]
fn pi_session_with_other_and_a_cancel() {
    let (scratch, text) = session(&[
        line(
            json!({"type": "ask", "inquiry": "p1", "dialect": "pi", "arguments": arguments("pi.json")}),
        ),
        line(
            json!({"type": "answer", "inquiry": "p1", "question": "q1", "value": "I want to use DynamoDB"}),
        ),
        line(
            json!({"type": "answer", "inquiry": "p1", "question": "q2", "value": "order-processor"}),
        ),
        line(
            json!({"type": "ask", "inquiry": "p2", "dialect": "pi", "arguments": arguments("pi.json")}),
        ),
        line(json!({"type": "answer", "inquiry": "p2", "question": "q1", "value": "SQLite"})),
        line(json!({"type": "reply", "inquiry": "p2"})),
    ]);
    insta::assert_snapshot!("pi_session", text);
    let (code, report) = replay(&scratch);
    assert_eq!(code, 0);
    assert_eq!(
        report.lines().last(),
        Some(
            "replayed: the 10 events re-derive their lines from the log alone (this log records events, not the lines sent)"
        )
    );
}

#[test]
fn a_second_server_on_the_same_stream_answers_its_open_inquiry() {
    let scratch = Scratch::new();
    let ask = json!({"type": "ask", "inquiry": "c1", "dialect": "jp",
                     "arguments": {"question": "Deploy?", "answer_type": "boolean"}});
    let first = scratch.run_db(&["serve", "--stream", "s"], &format!("{ask}\n"));
    assert_eq!(first.code, 0);
    let answer = json!({"type": "answer", "inquiry": "c1", "question": "answer", "value": false});
    let second = scratch.run_db(&["serve", "--stream", "s"], &format!("{answer}\n"));
    assert_eq!(
        second.stdout,
        concat!(
            r#"{"type":"ready","stream":"s","protocol":1,"open":["c1"]}"#,
            "\n",
            r#"{"type":"prompt","inquiry":"c1","question":{"id":"answer","text":"Deploy?","context":null,"header":null,"answer_type":"boolean","options":[],"allow_other":false,"schema":null},"progress":null,"prefill":null,"can_back":false,"label":"Assistant","step":0}"#,
            "\n",
            r#"{"type":"result","inquiry":"c1","result":{"answer_type":"boolean","answer":false},"cancelled":false}"#,
            "\n"
        )
    );
}

#[test]
fn a_restarted_server_refuses_an_answer_for_a_step_gone_by_and_takes_the_current_one() {
    let scratch = Scratch::new();
    let ask = json!({"type": "ask", "inquiry": "c1", "arguments": {"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]}});
    let apply =
        json!({"type": "answer", "inquiry": "c1", "question": "apply", "value": true, "step": 0});
    let first = scratch.run_db(&["serve", "--stream", "s"], &format!("{ask}\n{apply}\n"));
    assert_eq!(first.code, 0);
    // The host shows the first question again (it lost track) and answers it.
    let env = json!({"type": "answer", "inquiry": "c1", "question": "env", "value": "staging", "step": 1});
    let second = scratch.run_db(&["serve", "--stream", "s"], &format!("{apply}\n{env}\n"));
    let prompt = r#"{"type":"prompt","inquiry":"c1","question":{"id":"env","text":"Where?","context":null,"header":null,"answer_type":"select","options":[{"label":"staging","description":null},{"label":"production","description":null}],"allow_other":false,"schema":null},"progress":{"n":2,"m":2},"prefill":null,"can_back":true,"label":"Assistant","step":1}"#;
    assert_eq!(
        second.stdout.lines().collect::<Vec<_>>(),
        [
            r#"{"type":"ready","stream":"s","protocol":1,"open":["c1"]}"#,
            prompt,
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)","current":{"inquiry":"c1","question":"env","step":1}}"#,
            prompt,
            r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging"},"cancelled":false}"#,
        ]
    );
    assert_eq!(second.code, 0);
}
