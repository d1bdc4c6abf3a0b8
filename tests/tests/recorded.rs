//! The engine, its adapters and the log together: every accepted input is in the
//! log before its lines are returned, and every session replays to the same lines.

use std::fmt::Write as _;
use std::sync::Arc;

use askuser_app::Taken;
use askuser_core::{AnswerInput, Command, Input, InquiryId};
use askuser_dialects::Dialect;
use askuser_rpc::{Desk, Server, replay};
use askuser_store::{Log, MemLog};
use askuser_terminal::{Action, ScriptedPrompter, run_inquiry};
use serde_json::{Value, json};

fn migration() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]})
}

fn memory() -> (Arc<MemLog>, Desk) {
    let log = Arc::new(MemLog::new());
    let journal = Desk::new(log.clone());
    (log, journal)
}

/// A transcript of a session: each line sent, then the lines it got, with the
/// stream's head after it (so a line that was recorded shows the head moving).
fn transcript(server: &mut Server, log: &MemLog, sent: &[Value]) -> String {
    let mut text = String::new();
    for line in sent {
        let outputs = server.handle_line(&line.to_string());
        let head = log.stream("s").unwrap().map_or(0, |info| info.head);
        let _ = write!(text, "> {line}\n  (head {head})\n");
        for output in outputs {
            let _ = writeln!(text, "< {output}");
        }
    }
    text
}

#[test]
fn two_inquiries_open_at_once_are_answered_interleaved_and_each_input_is_recorded_first() {
    let (log, journal) = memory();
    let mut server = Server::new(journal, "s").unwrap();
    let jp = json!({"question": "Deploy now?", "answer_type": "boolean"});
    let text = transcript(
        &mut server,
        &log,
        &[
            json!({"type": "ask", "inquiry": "a", "arguments": migration()}),
            json!({"type": "ask", "inquiry": "b", "dialect": "jp", "arguments": jp}),
            json!({"type": "answer", "inquiry": "b", "question": "answer", "value": "no"}),
            json!({"type": "answer", "inquiry": "a", "question": "apply", "value": true}),
            json!({"type": "back", "inquiry": "b"}),
            json!({"type": "answer", "inquiry": "a", "question": "env", "value": " staging "}),
            json!({"type": "reply", "inquiry": "a"}),
        ],
    );
    insta::assert_snapshot!("interleaved", text);
    let report = replay(&*log, "s").unwrap();
    assert!(report.matches());
    assert_eq!(
        report.final_lines(),
        [
            &json!({"type": "result", "inquiry": "b", "result": {"answer_type": "boolean", "answer": false}, "cancelled": false}),
            &json!({"type": "result", "inquiry": "a", "result": {"cancelled": true, "answered": {"apply": true, "env": "staging"}}, "cancelled": true}),
        ]
    );
}

#[test]
fn the_terminal_loop_records_through_the_journal_and_replays() {
    let (log, mut journal) = memory();
    let arguments = json!({"questions": [
        {"question": "Which database should we use?", "header": "Database",
         "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
        {"question": "What should we name this service?"}
    ]});
    let call = Dialect::Pi.parse(&arguments).unwrap();
    let Taken::Recorded { commands, .. } = journal
        .request(
            "t",
            &call,
            &arguments,
            call.request(InquiryId::new("call-1")),
        )
        .unwrap()
        .taken
    else {
        panic!("the request is recorded");
    };
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!("SQLite")),
        Action::Back,
        Action::Answer(json!(["DynamoDB"])),
        Action::Answer(json!("DynamoDB")),
        Action::Answer(json!("orders")),
    ]);
    let mut last = Vec::new();
    run_inquiry(&mut person, commands, |input| {
        let Taken::Recorded { commands, .. } = journal.input("t", input).unwrap().taken else {
            panic!("every scripted action fits");
        };
        last.clone_from(&commands);
        Ok(commands)
    })
    .unwrap();
    let Some(Command::Respond { .. }) = last.first() else {
        panic!("the form completes");
    };
    assert_eq!(
        call.tool_result(&last[0]),
        Some(askuser_dialects::ToolResult::Success(
            json!({"answered": true, "answers": [
                {"question": "Which database should we use?", "answer": "DynamoDB", "wasCustom": true},
                {"question": "What should we name this service?", "answer": "orders", "wasCustom": true}
            ]})
        ))
    );
    assert_eq!(person.invalid_messages(), ["expected a string, got a list"]);
    // The request, review wanted, four answers or Backs (one refused), the
    // answers reviewed and submitted: every step recorded.
    assert_eq!(log.stream("t").unwrap().unwrap().head, 8);
    let report = replay(&*log, "t").unwrap();
    assert!(report.matches());
    assert_eq!(report.events.len(), 8);
}

#[test]
fn a_fork_continues_with_a_different_answer_and_both_replay() {
    let (log, journal) = memory();
    let mut server = Server::new(journal, "s").unwrap();
    for line in [
        json!({"type": "ask", "inquiry": "a", "arguments": migration()}),
        json!({"type": "answer", "inquiry": "a", "question": "apply", "value": false}),
    ] {
        server.handle_line(&line.to_string());
    }
    log.fork("s", 1, "what-if").unwrap();
    // A new journal on the same log continues the fork's open inquiry.
    let mut journal = Desk::new(log.clone());
    let state = journal.state("what-if").unwrap();
    assert_eq!(
        state
            .open_inquiries()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["a"]
    );
    let at = state.at(&InquiryId::new("a")).expect("a question on show");
    let answer = Input::Answer(AnswerInput::new(at, json!(true)));
    let answered = journal.input("what-if", &answer).unwrap();
    let Taken::Recorded { seq, .. } = answered.taken else {
        panic!("the answer fits");
    };
    assert_eq!(seq, 2);
    let Some(Command::Prompt(next)) = &answered.showing else {
        panic!("the next question: {:?}", answered.showing);
    };
    assert_eq!(next.question().id, "env");
    for stream in ["s", "what-if"] {
        let report = replay(&*log, stream).unwrap();
        assert!(report.matches(), "{}", report.to_text());
        assert!(
            report.events.iter().all(|e| e.recorded.is_none()),
            "nothing but events is recorded"
        );
    }
}

#[test]
fn a_durable_server_resumes_an_open_inquiry_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.db");
    {
        let mut server = Server::new(Desk::open(&path).unwrap(), "s").unwrap();
        let out = server.handle_line(
            &json!({"type": "ask", "inquiry": "a", "arguments": migration()}).to_string(),
        );
        assert_eq!(out[0]["type"], "prompt");
    }
    let mut server = Server::new(Desk::open(&path).unwrap(), "s").unwrap();
    let out = server.handle_line(
        &json!({"type": "answer", "inquiry": "a", "question": "apply", "value": false}).to_string(),
    );
    assert_eq!(
        out,
        [
            json!({"type": "result", "inquiry": "a", "result": {"apply": false, "env": null, "note": null}, "cancelled": false})
        ]
    );
}
