//! The protocol remembers: a restarted server re-sends the open inquiries' prompts,
//! a timeout is taken at the deadline the log recorded (an early one is refused),
//! `persistence: "turn"` reuses a remembered answer, an ask with no turn is its
//! own turn, a Reply carries the person's message in every dialect, and `error`
//! lines name the inquiry.

use std::fmt::Write as _;

use askuser_rpc::{Desk, Server};
use serde_json::{Value, json};

/// Feeds `lines` to `server`, giving the transcript: `> sent`, `< received`.
fn talk(server: &mut Server, lines: &[Value]) -> String {
    let mut out = String::new();
    for line in lines {
        let _ = writeln!(out, "> {line}");
        for answer in server.handle_line(&line.to_string()) {
            let _ = writeln!(out, "< {answer}");
        }
    }
    out
}

fn greeting(server: &mut Server) -> String {
    let mut out = String::new();
    for line in server.greeting() {
        let _ = writeln!(out, "< {line}");
    }
    out
}

fn migration(inquiry: &str) -> Value {
    json!({"type": "ask", "inquiry": inquiry, "dialect": "jp-form", "arguments": {"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production (Recommended)"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text"}]}})
}

#[allow(clippy::needless_pass_by_value)] // called with json!(...)
fn answer(inquiry: &str, question: &str, value: Value) -> Value {
    json!({"type": "answer", "inquiry": inquiry, "question": question, "value": value})
}

#[test]
fn a_restarted_server_lists_the_open_inquiries_and_sends_their_prompts_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("log.db");
    let mut first = Server::new(Desk::open(&db).unwrap(), "s").unwrap();
    let before = greeting(&mut first)
        + &talk(
            &mut first,
            &[
                migration("c1"),
                answer("c1", "apply", json!(true)),
                json!({"type": "ask", "inquiry": "c2", "dialect": "claude", "arguments": {"questions": [
                    {"question": "Which database?", "header": "Database",
                     "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]}]}}),
                json!({"type": "ask", "inquiry": "c3", "dialect": "jp",
                       "arguments": {"question": "Deploy now?", "answer_type": "boolean"}}),
                answer("c3", "answer", json!("yes")),
            ],
        );
    drop(first);
    // The host crashed and started again: the new server shows what is still open.
    let mut second = Server::new(Desk::open(&db).unwrap(), "s").unwrap();
    let after = greeting(&mut second)
        + &talk(
            &mut second,
            &[
                answer("c1", "env", json!("staging")),
                json!({"type": "back", "inquiry": "c1"}),
                json!({"type": "reply", "inquiry": "c2"}),
                answer("c3", "answer", json!(true)),
            ],
        );
    insta::assert_snapshot!("restart", format!("{before}--- restart ---\n{after}"));
}

#[test]
fn timeouts_are_held_to_the_deadline_the_log_recorded() {
    let timed = |inquiry: &str, on_timeout: &str| {
        let mut ask = migration(inquiry);
        ask["policy"] = json!({"timeout": {"after_ms": 30_000, "on_timeout": on_timeout}});
        ask["origin"] = json!({"turn": "t1"});
        ask
    };
    let timed_out = |inquiry: &str| json!({"type": "timed_out", "inquiry": inquiry});
    // The log's clock, which stamps every record and the `timed_out` lines as
    // they arrive, moves only when told.
    let clock = askuser_app::log::ManualClock::new(askuser_app::log::Timestamp(1_767_225_600_000));
    let log = askuser_app::log::MemLog::new().with_clock(clock.clone());
    let mut server = Server::new(Desk::new(std::sync::Arc::new(log)), "s").unwrap();
    let mut transcript = talk(
        &mut server,
        &[timed("d1", "defaults"), answer("d1", "apply", json!(true))],
    );
    // 29.5 s after `env` was put up: early, refused, and nothing changes.
    clock.advance(29_500);
    transcript += &talk(&mut server, &[timed_out("d1")]);
    clock.advance(500);
    transcript += &talk(
        &mut server,
        &[
            timed_out("d1"),
            // A second host firing after the first is told it finished.
            timed_out("d1"),
            timed("c1", "cancel"),
            answer("c1", "apply", json!(false)),
        ],
    );
    clock.advance(30_000);
    transcript += &talk(
        &mut server,
        &[
            timed_out("c1"),
            timed("e1", "end_turn"),
            migration("n1"),
            timed_out("n1"),
        ],
    );
    clock.advance(30_000);
    transcript += &talk(
        &mut server,
        &[
            timed_out("e1"),
            timed_out("e1"),
            json!({"type": "ask", "inquiry": "bad", "dialect": "jp",
                   "arguments": {"question": "Deploy now?", "answer_type": "boolean"},
                   "policy": {"timeout": {"after_ms": "soon"}}}),
        ],
    );
    insta::assert_snapshot!("timeouts", transcript);
}

#[test]
fn persistence_turn_reuses_a_remembered_answer_for_the_rest_of_the_turn_only() {
    let ask = |inquiry: &str, persistence: &str, turn: Option<&str>| {
        let mut ask = json!({"type": "ask", "inquiry": inquiry, "dialect": "jp",
            "arguments": {"question": "Run the tests first?", "answer_type": "boolean"},
            "policy": {"persistence": persistence}});
        if let Some(turn) = turn {
            ask["origin"] = json!({"turn": turn});
        }
        ask
    };
    let remembered = |inquiry: &str| {
        json!({"type": "answer", "inquiry": inquiry, "question": "answer", "value": true,
               "remember": true})
    };
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    let transcript = talk(
        &mut server,
        &[
            // Remembered: the next ask of the turn is answered at once.
            ask("a1", "turn", Some("t1")),
            remembered("a1"),
            ask("a2", "turn", Some("t1")),
            // A new turn asks again.
            ask("a3", "turn", Some("t2")),
            // The policy does not allow remembering: asked every time.
            ask("b1", "none", Some("t3")),
            remembered("b1"),
            ask("b2", "none", Some("t3")),
        ],
    );
    insta::assert_snapshot!("persistence_turn", transcript);
    // What was recorded: `remember` only where the policy allows it.
    let log = server.desk().log().clone();
    let report = askuser_rpc::replay(&*log, "s").unwrap();
    let remembered: Vec<(String, bool)> = report
        .events
        .iter()
        .filter_map(|e| match &e.event {
            askuser_core::Event::Answered {
                inquiry, remember, ..
            } => Some((inquiry.to_string(), *remember)),
            _ => None,
        })
        .collect();
    assert_eq!(
        remembered,
        [("a1".to_owned(), true), ("b1".to_owned(), false)]
    );
}

#[test]
fn an_ask_with_no_turn_is_its_own_turn() {
    let jp = |inquiry: &str| {
        json!({"type": "ask", "inquiry": inquiry, "dialect": "jp",
               "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})
    };
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    let transcript = talk(
        &mut server,
        &[
            jp("x1"),
            jp("x2"),
            json!({"type": "end_turn", "inquiry": "x1"}),
            answer("x2", "answer", json!(false)),
        ],
    );
    insta::assert_snapshot!("own_turn", transcript);
}

#[test]
fn a_reply_with_a_message_reaches_the_result_in_every_dialect() {
    let calls = [
        (
            "jp",
            json!({"question": "Deploy now?", "answer_type": "boolean"}),
        ),
        (
            "jp-form",
            json!({"questions": [{"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}),
        ),
        (
            "claude",
            json!({"questions": [{"question": "Deploy now?", "header": "Deploy",
                                   "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        ),
        ("pi", json!({"questions": [{"question": "Deploy now?"}]})),
        (
            "opencode",
            json!({"questions": [{"question": "Deploy now?", "header": "Deploy",
                "options": [{"label": "Yes", "description": "now"}, {"label": "No", "description": "later"}]}]}),
        ),
        (
            "codex",
            json!({"questions": [{"id": "deploy", "header": "Deploy", "question": "Deploy now?",
                "options": [{"label": "Yes", "description": "now"}, {"label": "No", "description": "later"}]}]}),
        ),
        (
            "gemini",
            json!({"questions": [{"header": "Deploy", "question": "Deploy now?", "type": "yesno"}]}),
        ),
    ];
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    let mut lines = Vec::new();
    for (dialect, arguments) in calls {
        lines.push(
            json!({"type": "ask", "inquiry": dialect, "dialect": dialect,
                          "arguments": arguments}),
        );
        lines.push(json!({"type": "reply", "inquiry": dialect,
                          "message": "Not today: the release is frozen until Monday."}));
    }
    let mut transcript = String::new();
    for line in talk(&mut server, &lines).lines() {
        if !line.contains(r#""type":"prompt""#) && !line.starts_with(r#"> {"type":"ask""#) {
            let _ = writeln!(transcript, "{line}");
        }
    }
    insta::assert_snapshot!("reply_with_message", transcript);
}

#[test]
fn error_lines_name_the_inquiry_whenever_the_line_names_one() {
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    let transcript = talk(
        &mut server,
        &[
            json!({"type": "ask", "inquiry": "c1", "dialect": "jp",
                   "arguments": {"question": "Deploy now?", "answer_type": "boolean"}}),
            json!({"type": "answer", "inquiry": "c1", "question": "answer"}),
            json!({"type": "answer", "inquiry": "c1", "question": "answer", "value": true,
                   "note": 7}),
            json!({"type": "launch", "inquiry": "c1"}),
            json!({"type": "back", "inquiry": "c1"}),
            json!({"type": "reply"}),
        ],
    );
    insta::assert_snapshot!("errors", transcript);
}

#[test]
fn a_ui_that_reviews_gets_a_review_line_and_a_reply_from_it_keeps_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::new(Desk::open(&dir.path().join("log.db")).unwrap(), "s").unwrap();
    greeting(&mut server);
    let review = json!({"type": "review", "inquiry": "c1"});
    let lines = talk(
        &mut server,
        &[
            migration("c1"),
            review.clone(),
            answer("c1", "apply", json!(false)),
            answer("c1", "note", json!("later")),
            json!({"type": "submit", "inquiry": "c1"}),
            migration("c2"),
            json!({"type": "submit", "inquiry": "c2"}),
            json!({"type": "review", "inquiry": "c2"}),
            answer("c2", "apply", json!(false)),
            answer("c2", "note", json!("")),
            json!({"type": "reply", "inquiry": "c2", "message": "not now"}),
        ],
    );
    let prompt = |inquiry: &str, id: &str, n: u32, can_back: bool, step: u32| {
        let (text, answer_type) = match id {
            "apply" => ("Apply the proposed migration?", "boolean"),
            _ => ("Optional note for the migration log", "text"),
        };
        format!(
            "{{\"type\":\"prompt\",\"inquiry\":\"{inquiry}\",\"question\":{{\"id\":\"{id}\",\"text\":\"{text}\",\"context\":null,\"header\":null,\"answer_type\":\"{answer_type}\",\"options\":[],\"allow_other\":false,\"schema\":null}},\"progress\":{{\"n\":{n},\"m\":3}},\"prefill\":null,\"can_back\":{can_back},\"label\":\"Assistant\",\"step\":{step}}}"
        )
    };
    assert_eq!(
        lines,
        format!(
            "> {}\n< {}\n> {review}\n< {}\n> {}\n< {}\n> {}\n< {}\n> {}\n< {}\n\
             > {}\n< {}\n> {}\n< {}\n< {}\n> {}\n< {}\n> {}\n< {}\n> {}\n< {}\n> {}\n< {}\n",
            migration("c1"),
            prompt("c1", "apply", 1, false, 0),
            // The review moved the step on: the prompt comes again, with the step
            // an answer to it names.
            prompt("c1", "apply", 1, false, 1),
            answer("c1", "apply", json!(false)),
            prompt("c1", "note", 3, true, 2),
            answer("c1", "note", json!("later")),
            r#"{"type":"review","inquiry":"c1","answers":{"apply":false,"env":null,"note":"later"},"step":3}"#,
            json!({"type": "submit", "inquiry": "c1"}),
            r#"{"type":"result","inquiry":"c1","result":{"apply":false,"env":null,"note":"later"},"cancelled":false}"#,
            migration("c2"),
            prompt("c2", "apply", 1, false, 0),
            json!({"type": "submit", "inquiry": "c2"}),
            r#"{"type":"error","inquiry":"c2","code":"not_in_review","message":"inquiry \"c2\" shows no review to submit or change an answer from: it shows question \"apply\" (step 0); answer that (a review shows once every question is answered, on a surface that asked for one)","current":{"inquiry":"c2","question":"apply","step":0}}"#,
            prompt("c2", "apply", 1, false, 0),
            json!({"type": "review", "inquiry": "c2"}),
            prompt("c2", "apply", 1, false, 1),
            answer("c2", "apply", json!(false)),
            prompt("c2", "note", 3, true, 2),
            answer("c2", "note", json!("")),
            r#"{"type":"review","inquiry":"c2","answers":{"apply":false,"env":null,"note":""},"step":3}"#,
            json!({"type": "reply", "inquiry": "c2", "message": "not now"}),
            r#"{"type":"result","inquiry":"c2","result":{"cancelled":true,"answered":{"apply":false,"note":""},"message":"not now"},"cancelled":true}"#,
        )
    );
}
