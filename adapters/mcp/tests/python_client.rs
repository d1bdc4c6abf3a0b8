//! End to end: the official MCP Python SDK (`mcp` on `PyPI`) drives the server over
//! stdio, answering its elicitation forms as a person would. Set
//! `ASKUSER_TEST_PYTHON` (see `scripts/mcp-venv.sh`).

mod common;

use askuser_app::Desk;
use askuser_app::pending::{PendingFile, answer};
use common::{Scratch, accept, checked_rounds, messages, migration, replayed_result};
use serde_json::{Value, json};

#[test]
fn tools_list_and_instructions() {
    let scratch = Scratch::new();
    let out = scratch.drive("tools", None, json!({"list_tools": true}));
    insta::assert_json_snapshot!("tools_list", out["tools"]);
    assert_eq!(
        out["instructions"],
        "askuser asks the user typed questions through this client's own forms (MCP elicitation), as few forms as the questions' dependencies allow, and records every step. Call ask_user (typed questions with `when` branching) or AskUserQuestion (Claude Code's shape) only for what the user alone can tell you, never for secrets. If the user declines, the result carries the answers given so far; if the user dismisses the form, the tool fails: do not ask again in this turn. If this client cannot show forms (no elicitation), askuser never answers for the user: the tool fails with a message saying so and how the user can answer such questions (a pending file, or the web inbox); tell the user, and do not retry in that turn."
    );
}

#[test]
fn a_branching_form_in_rounds_with_a_json_answer_refused_then_accepted() {
    branching_form("legacy");
}

/// The same rounds and result when the client negotiated 2026-07-28: each round is
/// an `input_required` result, retried with the response and the sealed state.
#[test]
fn the_branching_form_through_multi_round_trip_requests() {
    branching_form("2026-07-28");
}

fn branching_form(mode: &str) {
    let scratch = Scratch::new();
    let responses = [
        accept(&json!({"apply": true, "note": "run it at night"})),
        accept(&json!({"env": "production", "limits": "{\"mem\": 2}"})),
        accept(&json!({"confirm": true, "limits": "{\"cpu\": 1.5}"})),
    ];
    let out = scratch.drive(
        "branching",
        None,
        json!({"mode": mode, "calls": [{"tool": "ask_user", "arguments": migration(), "responses": responses}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        messages(call),
        [
            "Questions 1\u{2013}2 of 5",
            "Questions 3\u{2013}4 of 5",
            "Questions 4\u{2013}5 of 5\nAn answer was not accepted; the note beside it says why. Please answer it again.",
        ]
    );
    insta::assert_json_snapshot!("branching_rounds", call["rounds"]);
    let expected = json!({"apply": true, "env": "production", "confirm": true,
                          "note": "run it at night", "limits": {"cpu": 1.5}});
    assert_eq!(call["isError"], false);
    assert_eq!(call["structuredContent"], expected);
    assert_eq!(call["text"], json!([expected.to_string()]));
    let log = scratch.log();
    assert_eq!(
        replayed_result(&*log, "branching"),
        json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": false})
    );
    // The rounds as sent, recorded, and derived again by the replay.
    assert_eq!(
        checked_rounds(&*log, "branching"),
        [
            vec!["apply", "note"],
            vec!["env", "limits"],
            vec!["confirm", "limits"]
        ]
    );
    let transcript = askuser_app::log::transcript(&*log, "branching").unwrap();
    insta::assert_snapshot!("branching_transcript", transcript);
}

#[test]
fn the_no_branch_is_one_round() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "no",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(),
                          "responses": [accept(&json!({"apply": false, "note": ""}))]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(messages(call), ["Questions 1\u{2013}2 of 5"]);
    assert_eq!(
        call["structuredContent"],
        json!({"apply": false, "env": null, "confirm": null, "note": "", "limits": null})
    );
}

#[test]
fn decline_is_a_reply_with_the_answers_so_far() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "decline",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(),
                          "responses": [accept(&json!({"apply": true, "note": "n"})),
                                        {"action": "decline"}]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(call["isError"], false);
    // `note`, given in the first round beside `apply`, is kept though the engine
    // had not reached it.
    let expected = json!({"cancelled": true, "answered": {"apply": true, "note": "n"}});
    assert_eq!(call["structuredContent"], expected);
    assert_eq!(
        replayed_result(&*scratch.log(), "decline"),
        json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": true})
    );
}

#[test]
fn cancel_is_a_tool_error_not_to_retry() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "cancel",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(),
                          "responses": [{"action": "cancel"}]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], true);
    assert_eq!(
        call["text"],
        json!([
            "ask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."
        ])
    );
    assert_eq!(
        replayed_result(&*scratch.log(), "cancel"),
        json!({"type": "turn_ended", "inquiry": "call-1"})
    );
}

#[test]
fn ask_user_question_with_a_multi_select_and_own_text() {
    let scratch = Scratch::new();
    let arguments = json!({"questions": [
        {"question": "Which features?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth", "description": "Sign-in"}, {"label": "API"}, {"label": "Admin"}]},
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]});
    let out = scratch.drive(
        "claude",
        None,
        json!({"calls": [{"tool": "AskUserQuestion", "arguments": arguments,
                          "responses": [accept(&json!({"q1": ["Admin", "Auth"], "q2.other": "DuckDB"}))]}]}),
    );
    let call = &out["calls"][0];
    insta::assert_json_snapshot!("claude_round", call["rounds"]);
    assert_eq!(
        call["structuredContent"],
        json!({"answers": {"Which features?": "Auth, Admin", "Which database?": "DuckDB"}})
    );
}

#[test]
fn a_refused_call_is_a_tool_error_with_every_problem() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "refused",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": {"questions": [
            {"id": "a", "text": "Pick?", "answer_type": "select"}]}}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], true);
    assert_eq!(call["rounds"], json!([]));
    insta::assert_json_snapshot!("refused_text", call["text"]);
}

#[test]
fn without_elicitation_and_no_pending_dir_the_call_fails() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "headless",
        None,
        json!({"elicit": false, "calls": [{"tool": "ask_user", "arguments": migration()}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], true);
    assert_eq!(
        call["text"],
        json!([
            "ask_user: this MCP client cannot show forms (it does not support elicitation), so the user cannot be asked here. Do not retry this tool call in this turn; ask the user in plain words instead. Tell the user that to answer such questions with this client, askuser mcp can be started with --pending-dir DIR: the questions then wait in a file, answered with `askuser answer FILE` or from a browser with `askuser web`."
        ])
    );
}

#[test]
fn without_elicitation_the_questions_wait_in_a_pending_file() {
    let scratch = Scratch::new();
    let dir = scratch.dir.path().join("pending");
    std::fs::create_dir(&dir).unwrap();
    let out = scratch.drive(
        "pending",
        Some(&dir),
        json!({"elicit": false, "calls": [{"tool": "ask_user", "arguments": migration()}]}),
    );
    let call = &out["calls"][0];
    let path = dir.join("askuser-pending-call-1.json");
    let shown = path.display();
    assert_eq!(call["isError"], false);
    let words = format!(
        "Questions pending. User input required.\n\nTo answer, run:\n  askuser answer {shown} --answers '[...]'\n(one answer per question, in order; null for a question that is skipped)\n\nOr fill in each \"answer\" in the file and run:\n  askuser answer {shown}\n\nQuestions saved to: {shown}\n"
    );
    assert_eq!(call["text"], json!([&words]));
    assert_eq!(
        call["structuredContent"],
        json!({"status": "pending", "file": shown.to_string(), "instructions": words})
    );
    assert!(
        out["instructions"]
            .as_str()
            .unwrap()
            .ends_with("it writes the questions to a pending file, and the tool result says the exact command the user runs to answer (`askuser answer FILE`); tell the user, and end your turn.")
    );
    let file = PendingFile::read(&path).unwrap();
    assert_eq!(
        file.db.as_deref(),
        Some(scratch.db().display().to_string().as_str())
    );
    assert_eq!(
        (file.stream.as_str(), file.inquiry.as_str()),
        ("pending", "call-1")
    );
    // The person answers later, as `askuser answer` does.
    let mut journal = Desk::open(&scratch.db()).unwrap();
    let answers = [
        json!(false),
        Value::Null,
        Value::Null,
        json!("later"),
        Value::Null,
    ];
    let commands = answer(&mut journal, &file, &answers)
        .unwrap()
        .unwrap()
        .commands;
    let finished = journal
        .state("pending")
        .unwrap()
        .finished(&askuser_core::InquiryId::new("call-1"))
        .is_some();
    assert!(finished, "the inquiry is finished");
    assert!(matches!(
        commands.last(),
        Some(askuser_core::Command::Respond { .. })
    ));
    drop(journal);
    assert_eq!(
        replayed_result(&*scratch.log(), "pending"),
        json!({"type": "result", "inquiry": "call-1", "cancelled": false,
               "result": {"apply": false, "env": null, "confirm": null, "note": "later", "limits": null}})
    );
}

#[test]
fn a_forged_or_replayed_request_state_is_refused() {
    let scratch = Scratch::new();
    let step = |state: &str, response: Value| json!({"state": state, "response": response});
    let out = scratch.drive(
        "mrtr",
        None,
        json!({"mode": "2026-07-28", "calls": [{"tool": "ask_user", "arguments": migration(), "steps": [
            step("forged", accept(&json!({"apply": true, "note": "n"}))),
            step("latest", accept(&json!({"apply": true, "note": "n"}))),
            step("first", accept(&json!({"apply": false, "note": "n"}))),
            step("latest", json!({"action": "decline"})),
        ]}]}),
    );
    let refused = |why: &str| {
        json!({"isError": true, "structuredContent": null, "text": [format!(
            "ask_user: the requestState was refused ({why}). Call ask_user again without requestState to ask anew."
        )]})
    };
    assert_eq!(
        out["calls"][0]["steps"],
        json!([
            {"inputRequired": "askuser_round", "message": "Questions 1\u{2013}2 of 5"},
            refused("it was not issued by this server for this call, or it expired"),
            {"inputRequired": "askuser_round", "message": "Questions 3\u{2013}4 of 5"},
            refused("it is not the latest state of its questions"),
            {"isError": false, "text": ["{\"cancelled\":true,\"answered\":{\"apply\":true,\"note\":\"n\"}}"],
             "structuredContent": {"cancelled": true, "answered": {"apply": true, "note": "n"}}},
        ])
    );
    let log = scratch.log();
    assert_eq!(
        replayed_result(&*log, "mrtr"),
        json!({"type": "result", "inquiry": "call-1", "cancelled": true,
               "result": {"cancelled": true, "answered": {"apply": true, "note": "n"}}})
    );
    assert_eq!(
        checked_rounds(&*log, "mrtr"),
        [vec!["apply", "note"], vec!["env", "limits"]]
    );
}

/// Streamable HTTP on loopback, in both protocol generations: one stream per MCP
/// session (a 2026-07-28 call, stateless, is its own).
#[test]
fn over_streamable_http_in_both_protocol_generations() {
    let scratch = Scratch::new();
    let responses = [
        accept(&json!({"apply": true, "note": "n"})),
        accept(&json!({"env": "staging", "limits": "{\"cpu\": 1}"})),
    ];
    let expected = json!({"apply": true, "env": "staging", "confirm": null,
                          "note": "n", "limits": {"cpu": 1}});
    for mode in ["legacy", "2026-07-28"] {
        let out = scratch.drive_http(
            &format!("web-{mode}"),
            json!({"mode": mode, "calls": [{"tool": "ask_user", "arguments": migration(), "responses": responses}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(
            messages(call),
            ["Questions 1\u{2013}2 of 5", "Questions 3\u{2013}4 of 5"],
            "{mode}"
        );
        assert_eq!(call["structuredContent"], expected, "{mode}");
    }
    let log = scratch.log();
    let streams: Vec<String> = log.streams().unwrap().into_iter().map(|s| s.name).collect();
    // Numbered as they first record: the sessions that only list tools or
    // discover the server leave no gap.
    assert_eq!(streams, ["web-2026-07-28-1", "web-legacy-1"]);
    for stream in &streams {
        assert_eq!(
            replayed_result(&*log, stream),
            json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": false})
        );
    }
}

/// Opens 3,000 MCP sessions, one after another, at `$MCP_URL`, then sends each
/// a notification: 202 while it lives, 404 once closed. Writes
/// `{"opened": N, "live": [indices]}` to the file named first.
const FLOOD: &str = r#"
import http.client, json, os, sys
from urllib.parse import urlsplit
url = urlsplit(os.environ["MCP_URL"])
def post(body, session=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25",
               "Authorization": "Bearer " + os.environ["MCP_TOKEN"]}
    if session:
        headers["Mcp-Session-Id"] = session
    connection.request("POST", url.path, body=json.dumps(body), headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, response.getheader("mcp-session-id")
initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}
sessions = [post(initialize)[1] for _ in range(3000)]
live = [n for n, session in enumerate(sessions)
        if post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202]
with open(sys.argv[1], "w") as out:
    json.dump({"opened": len([s for s in sessions if s]), "live": live}, out)
"#;

/// 3,000 sessions opened in a loop while a real client's call waits on the
/// person: 64 live at most, so the newest 63 stay beside the client's, whose
/// call (a request under way) is never the one closed; its form goes on, and a
/// second call in the same session works.
#[test]
fn a_flood_of_sessions_is_capped_and_a_waiting_client_carries_on() {
    let scratch = Scratch::new();
    let report = scratch.dir.path().join("flood.json");
    let responses = [
        accept(&json!({"apply": true, "note": "n"})),
        accept(&json!({"env": "staging", "limits": "{\"cpu\": 1}"})),
    ];
    let call = json!({"tool": "ask_user", "arguments": migration(), "responses": responses});
    let mut flooded = call.clone();
    flooded["elsewhere"] = json!([{"round": 1, "actions": []}]);
    let out = scratch.drive_http(
        "flood",
        json!({"mode": "legacy", "calls": [flooded, call],
               "elsewhere_command": [common::python(), "-c", FLOOD, report]}),
    );
    let flood: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        flood,
        json!({"opened": 3000, "live": (2937..3000).collect::<Vec<_>>()})
    );
    let expected = json!({"apply": true, "env": "staging", "confirm": null,
                          "note": "n", "limits": {"cpu": 1}});
    for call in out["calls"].as_array().unwrap() {
        assert_eq!(call["structuredContent"], expected);
    }
    assert_eq!(out["calls"].as_array().unwrap().len(), 2);
}

/// A request whose `Origin` is not the server's own loopback origin is refused
/// with 403 before it reaches MCP (the transport spec's rule against browsers
/// on other sites); the server's own origin, and no `Origin`, pass.
#[test]
fn a_foreign_origin_is_refused_over_http() {
    use std::io::{BufRead as _, Read as _, Write as _};
    let scratch = Scratch::new();
    let mut child = std::process::Command::new(common::example("http_server"))
        .arg(scratch.db())
        .arg("origin")
        .arg(common::TOKEN)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the HTTP server starts");
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let address = url.trim().trim_start_matches("http://");
    let (authority, path) = address.split_once('/').unwrap();
    let status = |origin: Option<&str>| {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let origin = origin
            .map(|o| format!("Origin: {o}\r\n"))
            .unwrap_or_default();
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        write!(
            stream,
            "POST /{path} HTTP/1.1\r\nHost: {authority}\r\n{origin}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nAuthorization: Bearer {}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            common::TOKEN,
            body.len()
        )
        .unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        String::from_utf8_lossy(&head[9..12]).into_owned()
    };
    let own = format!("http://{authority}");
    let results = [
        status(Some("http://evil.example")),
        status(Some("null")),
        status(Some(&own)),
        status(None),
    ];
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(results, ["403", "403", "200", "200"]);
}

/// A yes/no field answered with a string ("yes") is asked again with the reason;
/// a form sent back empty is asked again once, then not a third time: the call
/// ends with a tool error and the question stays open for the other surfaces
/// (never six rounds and `too_many_rounds`).
#[test]
fn a_boolean_string_is_asked_again_and_an_empty_form_twice_ends_the_call() {
    let scratch = Scratch::new();
    let one = json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]});
    let out = scratch.drive(
        "strict",
        None,
        json!({"calls": [
            {"tool": "ask_user", "arguments": one,
             "responses": [accept(&json!({"ok": "yes"})), accept(&json!({"ok": true}))]},
            {"tool": "ask_user", "arguments": one,
             "responses": [accept(&json!({})), accept(&json!({}))]}]}),
    );
    let strict = &out["calls"][0];
    assert_eq!(strict["structuredContent"], json!({"ok": true}));
    assert_eq!(
        strict["rounds"][1]["requestedSchema"]["properties"]["ok"]["description"],
        "Your last answer was not accepted: must be true or false (the form's yes/no switch), not a string \"yes\""
    );
    let empty = &out["calls"][1];
    assert_eq!(empty["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(
        empty["rounds"][1]["requestedSchema"]["properties"]["ok"]["description"],
        "Your last answer was not accepted: no answer was given; fill in this field"
    );
    assert_eq!(empty["isError"], true);
    assert_eq!(
        empty["text"],
        json!([
            "ask_user: this client's form came back empty twice, so it may not be able to show these questions. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn."
        ])
    );
    // Nothing is recorded for the empty forms but why the call ended; the second
    // call's inquiry is open.
    let log = scratch.log();
    let report = askuser_rpc::replay(&*log, "strict").unwrap();
    let events: Vec<String> = report
        .events
        .iter()
        .map(|e| askuser_rpc::describe_event(&e.event))
        .collect();
    assert_eq!(
        events,
        [
            "requested call-1 (1 question: ok)",
            "shown call-1: ok",
            "shown call-1: ok",
            "answered call-1: ok = true",
            "delivered call-1",
            "requested call-6 (1 question: ok)",
            "shown call-6: ok",
            "shown call-6: ok",
            "client noted call-6: cannot show the form",
        ]
    );
    let session = askuser_app::log::Session::open(log, "strict".to_owned()).unwrap();
    let open = session.state().at(&askuser_core::InquiryId::new("call-6"));
    assert_eq!(open.and_then(|at| at.question), Some("ok".to_owned()));
}

/// The client cancels the call while round 2 is shown (`notifications/cancelled`,
/// as an Esc or a client timeout sends): no round 3 is sent, the log records why
/// and the transcript says so, and the session's next call starts cleanly.
#[test]
fn a_call_the_client_cancels_mid_form_ends_and_the_next_call_starts_cleanly() {
    let scratch = Scratch::new();
    let one = json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]});
    let out = scratch.drive(
        "cancelled",
        None,
        json!({"calls": [
            {"tool": "ask_user", "arguments": migration(), "cancel_at_round": 2,
             "responses": [accept(&json!({"apply": true, "note": "n"}))]},
            {"tool": "ask_user", "arguments": one,
             "responses": [accept(&json!({"ok": true}))]}]}),
    );
    assert_eq!(out["calls"][0]["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(out["calls"][1]["structuredContent"], json!({"ok": true}));
    let log = scratch.log();
    let transcript = askuser_app::log::transcript(&*log, "cancelled").unwrap();
    assert_eq!(
        transcript,
        "Asked \"Apply the proposed migration?\"; the answer was Yes (not sent: client cancelled).\nAsked \"Anything the migration should know?\"; the answer was n (not sent: client cancelled).\nCould not ask \"Which environment?\" (client cancelled).\n\nAsked \"Deploy now?\"; the answer was Yes.\n"
    );
}

/// The client process ends while round 1 is shown: the server records that the
/// client went away (the question does not stay open in the log) and exits.
#[test]
fn a_client_that_disconnects_mid_form_leaves_no_open_question() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "gone",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(), "exit_at_round": 1}]}),
    );
    assert_eq!(out["exited"], true);
    // The server exits once it has recorded the end (it holds the log until then).
    let start = std::time::Instant::now();
    let log = loop {
        match askuser_sled::SledLog::open(scratch.db()) {
            Ok(log) => break log,
            Err(_) if start.elapsed() < std::time::Duration::from_secs(10) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(error) => panic!("the server still holds the log: {error}"),
        }
    };
    let transcript = askuser_app::log::transcript(&log, "gone").unwrap();
    assert_eq!(
        transcript,
        "Could not ask \"Apply the proposed migration?\" (client disconnected).\n"
    );
}

/// A client that sends a progress token gets a notification as each round goes
/// out and heartbeats while the person takes their time (here every 200 ms,
/// with 0.7 s per form), each `progress` one more than the last, each message
/// the round's.
#[test]
fn a_progress_token_gets_a_notification_per_round_and_heartbeats_between() {
    let scratch = Scratch::new();
    let responses = [
        accept(&json!({"apply": true, "note": "n"})),
        accept(&json!({"env": "staging", "limits": "{\"cpu\": 1}"})),
    ];
    let out = scratch.drive(
        "progress",
        None,
        json!({"env": {"ASKUSER_MCP_HEARTBEAT_MS": "200"},
               "calls": [{"tool": "ask_user", "arguments": migration(), "progress": true,
                          "delay": 0.7, "responses": responses}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        call["structuredContent"],
        json!({"apply": true, "env": "staging", "confirm": null, "note": "n", "limits": {"cpu": 1}})
    );
    let told = call["progress"].as_array().unwrap();
    let values: Vec<String> = told.iter().map(|t| t[0].to_string()).collect();
    let expected: Vec<String> = (1..=told.len()).map(|n| format!("{n}.0")).collect();
    assert_eq!(values, expected, "{told:?}");
    let mut shown: Vec<&str> = told.iter().map(|t| t[1].as_str().unwrap()).collect();
    let sent = shown.len();
    shown.dedup();
    assert_eq!(
        shown,
        ["Questions 1\u{2013}2 of 5", "Questions 3\u{2013}4 of 5"]
    );
    assert!(sent >= 4, "a heartbeat in each round: {told:?}");
}

/// A free-text question is optional in the client's form (not in `required`):
/// left out, it is the empty answer, in the same round.
#[test]
fn a_free_text_question_may_be_left_blank_in_the_form() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "optional",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": migration(),
                          "responses": [accept(&json!({"apply": false}))]}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        call["rounds"][0]["requestedSchema"]["required"],
        json!(["apply"])
    );
    assert_eq!(call["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(
        call["structuredContent"],
        json!({"apply": false, "env": null, "confirm": null, "note": "", "limits": null})
    );
}

/// A bidi override or a control character in any model-supplied text is refused
/// over MCP as on every surface (one check, in the engine): the question, its
/// context, header, an option's label and description, a default, and a
/// schema's title and enum values. Nothing is asked.
#[test]
fn bidi_and_control_characters_are_refused_in_every_model_supplied_field() {
    let scratch = Scratch::new();
    let rlo = "\u{202e}";
    let call = json!({"questions": [
        {"id": "q1", "text": format!("Deploy{rlo}?"), "answer_type": "boolean"},
        {"id": "q2", "text": "Where?", "context": format!("ctx{rlo}"), "header": format!("H{rlo}"),
         "answer_type": "select", "default": format!("a{rlo}"),
         "options": [{"label": format!("a{rlo}"), "description": format!("d\u{7}")}, "b"]},
        {"id": "q3", "text": "Size?", "answer_type": "schema",
         "schema": {"type": "string", "title": format!("t{rlo}"), "enum": [format!("e{rlo}")]}}]});
    let out = scratch.drive(
        "bidi",
        None,
        json!({"calls": [{"tool": "ask_user", "arguments": call}]}),
    );
    let result = &out["calls"][0];
    assert_eq!(result["rounds"], json!([]));
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["text"],
        json!([
            "ask_user: the call was not run. Fix these 8 problems and call the tool again:\n- /questions/0/text: has U+202E RIGHT-TO-LEFT OVERRIDE at character 7; write the question as plain text, without control, bidi-control or invisible characters\n- /questions/1/context: has U+202E RIGHT-TO-LEFT OVERRIDE at character 4; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate\n- /questions/1/header: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; write it as one line of plain text, without control, bidi-control or invisible characters\n- /questions/1/default: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate\n- /questions/1/options/0/label: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`\n- /questions/1/options/0/description: has U+0007 BELL at character 2; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate\n- /questions/2/schema/title: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate\n- /questions/2/schema/enum/0: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate"
        ])
    );
}
