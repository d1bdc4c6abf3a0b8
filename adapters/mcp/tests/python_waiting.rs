//! No forms is not no answer: when nobody can answer at the client (it has no
//! forms, or its form comes back faster than a person reads), the call notes why
//! in the log and waits for an answer from another window (`examples/elsewhere.rs`,
//! a `Session` on the same sled log, as the web inbox or a terminal), which then
//! reaches the model in the same turn; when nobody answers in time, the call ends
//! as it did before it waited. An answer the client sends after its own tool-call
//! timeout is noted as late. With the MCP Python SDK (`ASKUSER_TEST_PYTHON`).

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use common::Scratch;
use serde_json::{Value, json};

/// The events of `stream` after its request, in words, with the milliseconds
/// a client took written as `N`.
fn events(stream: &str, scratch: &Scratch) -> Vec<String> {
    let took = |words: &str, before: &str| {
        let (head, tail) = words.split_once(before)?;
        let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
        Some(format!("{head}{before}N{rest}"))
    };
    common::events(stream, scratch)
        .into_iter()
        .map(|words| match words {
            _ if words.contains(": no person (") => took(&words, " after ").unwrap_or(words),
            _ if words.contains(": late (") => took(&words, "late (").unwrap_or(words),
            _ if words.contains(": moved on (") => took(&words, "new call ").unwrap_or(words),
            _ => words,
        })
        .collect()
}

fn apply() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"}]})
}

/// What a call's result shows the model.
fn result(call: &Value) -> Value {
    json!({"isError": call["isError"], "text": call["text"],
           "structuredContent": call["structuredContent"]})
}

const WAITING: &str =
    "No inbox runs: answer with askuser web or askuser resume (waiting up to 20 s)";

/// The line the final words end with where no web inbox runs.
const NO_INBOX: &str = "No askuser web inbox runs: start one with askuser web, or keep one running with askuser setup inbox.";

#[test]
fn without_forms_the_call_waits_and_an_answer_from_another_window_reaches_the_model() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "waits",
        None,
        json!({"elicit": false, "env": {"ASKUSER_MCP_WAIT_MS": "20000"}, "calls": [
            {"tool": "ask_user", "arguments": apply(), "progress": true,
             "elsewhere_while_waiting": {"after": 1.0, "actions": [{"answer": true}]}}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        result(call),
        json!({"isError": false, "text": ["{\"apply\":true}"],
               "structuredContent": {"apply": true}})
    );
    assert_eq!(call["rounds"], json!([]));
    assert_eq!(call["progress"], json!([[1.0, WAITING]]));
    assert_eq!(
        events("waits", &scratch),
        [
            "client noted call-1: no forms",
            "answered call-1: apply = true",
        ]
    );
}

/// In both protocol generations: a 2026-07-28 client's retry carrying the
/// dismissal waits as the elicitation's response does.
#[test]
fn a_form_dismissed_faster_than_a_person_reads_is_no_person_and_the_call_waits() {
    for (mode, stream) in [("legacy", "headless"), ("2026-07-28", "stateless")] {
        let scratch = Scratch::new();
        let out = scratch.drive(
            stream,
            None,
            json!({"mode": mode,
                   "env": {"ASKUSER_MCP_WAIT_MS": "20000", "ASKUSER_MCP_NO_PERSON_MS": "5000"},
                   "calls": [
                {"tool": "ask_user", "arguments": apply(),
                 "responses": [{"action": "cancel"}],
                 "elsewhere_while_waiting": {"after": 1.0,
                                             "actions": [{"answer": false}]}}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(
            result(call),
            json!({"isError": false, "text": ["{\"apply\":false}"],
                   "structuredContent": {"apply": false}}),
            "{mode}"
        );
        assert_eq!(
            events(stream, &scratch),
            [
                "shown call-1: apply",
                "client noted call-1: no person (cancel after N ms)",
                "answered call-1: apply = false",
            ],
            "{mode}"
        );
    }
}

/// A form accepted with every answer at its default sooner than a person reads
/// it was read by nobody (a client that accepts for nobody): it is noted like a
/// dismissal and the call waits for another window, in both protocol
/// generations; a fast answer that is not the default stays the answer.
#[test]
fn a_form_accepted_at_its_defaults_faster_than_a_person_reads_is_noted_like_a_dismissal() {
    let defaulted = json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean",
         "default": true}]});
    for (mode, stream) in [("legacy", "unread"), ("2026-07-28", "unread-stateless")] {
        let scratch = Scratch::new();
        let scenario = |content: Value| {
            json!({"mode": mode,
                   "env": {"ASKUSER_MCP_WAIT_MS": "20000", "ASKUSER_MCP_NO_PERSON_MS": "5000"},
                   "calls": [
                {"tool": "ask_user", "arguments": defaulted,
                 "responses": [{"action": "accept", "content": content}]}]})
        };
        let mut unread = scenario(json!({"apply": true}));
        unread["calls"][0]["elsewhere_while_waiting"] =
            json!({"after": 1.0, "actions": [{"answer": false}]});
        let out = scratch.drive(stream, None, unread);
        assert_eq!(
            result(&out["calls"][0]),
            json!({"isError": false, "text": ["{\"apply\":false}"],
                   "structuredContent": {"apply": false}}),
            "{mode}"
        );
        assert_eq!(
            events(stream, &scratch),
            [
                "shown call-1: apply",
                "client noted call-1: no person (accept after N ms)",
                "answered call-1: apply = false",
            ],
            "{mode}"
        );
        let answered = format!("{stream}-answered");
        let out = scratch.drive(&answered, None, scenario(json!({"apply": false})));
        assert_eq!(
            result(&out["calls"][0]),
            json!({"isError": false, "text": ["{\"apply\":false}"],
                   "structuredContent": {"apply": false}}),
            "{mode}"
        );
        assert_eq!(
            events(&answered, &scratch),
            ["shown call-1: apply", "answered call-1: apply = false"],
            "{mode}"
        );
    }
}

#[test]
fn when_nobody_answers_in_time_the_call_says_how_long_it_waited_and_where() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "nobody",
        None,
        json!({"elicit": false, "env": {"ASKUSER_MCP_WAIT_MS": "600"}, "calls": [
            {"tool": "ask_user", "arguments": apply()}]}),
    );
    assert_eq!(
        result(&out["calls"][0]),
        json!({"isError": true, "structuredContent": null, "text": [
            format!("ask_user: this MCP client cannot show forms (it does not support elicitation), and nobody answered in another window (the askuser web inbox, `askuser web`, or a terminal, `askuser resume`) within 600 ms, so the questions were closed. Do not retry this tool call in this turn; ask the user in plain words instead.\n{NO_INBOX}")]})
    );
    assert_eq!(
        events("nobody", &scratch),
        [
            "client noted call-1: no forms",
            "cancelled call-1 (no_prompt_backend)",
        ]
    );

    let out = scratch.drive(
        "declined",
        None,
        json!({"env": {"ASKUSER_MCP_WAIT_MS": "600", "ASKUSER_MCP_NO_PERSON_MS": "5000"},
               "calls": [{"tool": "ask_user", "arguments": apply(),
                          "responses": [{"action": "decline"}]}]}),
    );
    let text = out["calls"][0]["text"][0].as_str().unwrap().to_owned();
    let (head, tail) = text.split_once(" ms after").unwrap();
    let head = head.trim_end_matches(|c: char| c.is_ascii_digit());
    assert_eq!(
        format!("{head}N ms after{tail}"),
        format!(
            "ask_user: nobody is at this client to answer its form (it was declined N ms after it went out, faster than anyone reads), and nobody answered them in another window within 600 ms. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn; continue without the answers, or end your turn.\n{NO_INBOX}"
        )
    );
    // The client may have a person another time: the questions stay open.
    assert_eq!(
        events("declined", &scratch),
        [
            "shown call-1: apply",
            "client noted call-1: no person (decline after N ms)",
        ]
    );
}

/// A web inbox's presence on the log (`examples/inbox.rs`, as `askuser web`
/// holds it while it serves) at `link`, until dropped.
struct Inbox(std::process::Child);

impl Inbox {
    fn start(scratch: &Scratch, link: &str) -> Self {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new(common::example("inbox"))
            .arg(scratch.db())
            .arg(link)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the inbox starts");
        let mut ready = String::new();
        let stdout = child.stdout.take().expect("its standard output");
        std::io::BufReader::new(stdout)
            .read_line(&mut ready)
            .expect("it says it is ready");
        assert_eq!(ready, "ready\n");
        Self(child)
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        // Its standard input closed, it ends its presence and stops.
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

/// With a web inbox running on the log, the waiting call's progress says where
/// to answer first (its link, never its token), and so do its final words when
/// nobody answers; the call waits as long as it is allowed.
#[test]
fn with_an_inbox_running_the_waiting_call_gives_its_link() {
    let scratch = Scratch::new();
    let inbox = Inbox::start(&scratch, "http://127.0.0.1:8765/");
    let out = scratch.drive(
        "inboxed",
        None,
        json!({"elicit": false,
               "env": {"ASKUSER_MCP_WAIT_MS": "600", "ASKUSER_MCP_SHARED_LOG": "1"},
               "calls": [{"tool": "ask_user", "arguments": apply(), "progress": true}]}),
    );
    drop(inbox);
    let call = &out["calls"][0];
    assert_eq!(
        call["progress"],
        json!([[
            1.0,
            "Answer at http://127.0.0.1:8765/ (waiting up to 600 ms)"
        ]])
    );
    assert_eq!(
        result(call),
        json!({"isError": true, "structuredContent": null, "text": [
            "ask_user: this MCP client cannot show forms (it does not support elicitation), and nobody answered in another window (the askuser web inbox, `askuser web`, or a terminal, `askuser resume`) within 600 ms, so the questions were closed. Do not retry this tool call in this turn; ask the user in plain words instead.\nThe askuser web inbox: http://127.0.0.1:8765/"]})
    );
    assert_eq!(
        events("inboxed", &scratch),
        [
            "client noted call-1: no forms",
            "cancelled call-1 (no_prompt_backend)",
        ]
    );
}

/// With no inbox and no pending directory, the call says at once how to
/// answer, and waits at most a minute (not the 10 it is allowed) for an inbox
/// or a terminal to answer.
#[test]
fn without_an_inbox_the_call_says_how_to_answer_and_waits_a_minute_at_most() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "no-inbox",
        None,
        json!({"elicit": false,
               "env": {"ASKUSER_MCP_WAIT_MS": "600000"},
               "calls": [{"tool": "ask_user", "arguments": apply(), "progress": true,
                          "elsewhere_while_waiting": {"after": 1.0, "actions": [{"answer": true}]}}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(
        call["progress"],
        json!([[
            1.0,
            "No inbox runs: answer with askuser web or askuser resume (waiting up to 1 min)"
        ]])
    );
    assert_eq!(
        result(call),
        json!({"isError": false, "text": ["{\"apply\":true}"],
               "structuredContent": {"apply": true}})
    );
}

#[test]
fn an_answer_after_the_clients_own_timeout_is_noted_as_late() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "late",
        None,
        json!({"env": {"ASKUSER_MCP_CLIENT_TIMEOUT_MS": "200"}, "calls": [
            {"tool": "ask_user", "arguments": apply(), "delay": 0.6,
             "responses": [{"action": "accept", "content": {"apply": true}}]}]}),
    );
    assert_eq!(out["calls"][0]["structuredContent"], json!({"apply": true}));
    assert_eq!(
        events("late", &scratch),
        [
            "shown call-1: apply",
            "client noted call-1: late (N ms, timeout 200 ms)",
            "answered call-1: apply = true",
        ]
    );
}

/// Gemini CLI, as its `clientInfo` names it: it stops a call (Esc) without a
/// cancel.
fn gemini() -> Value {
    json!({"name": "gemini-cli-mcp-client", "version": "0.61.0"})
}

/// Gemini CLI's Esc stops a waiting call and tells the server nothing; its next
/// call says the model moved on. The same call made again takes the open
/// questions over (they are not asked twice), and the answer given in another
/// window reaches it. The left call ends with words nobody reads.
#[test]
fn a_call_left_without_a_cancel_is_taken_over_by_the_same_call_made_again() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "left",
        None,
        json!({"elicit": false, "client_info": gemini(),
               "env": {"ASKUSER_MCP_WAIT_MS": "20000"}, "calls": [
            {"tool": "ask_user", "arguments": apply(), "leave_after": 2.5},
            {"tool": "ask_user", "arguments": apply(),
             "elsewhere_while_waiting": {"after": 1.0, "actions": [{"answer": true}]}}]}),
    );
    assert_eq!(
        result(&out["calls"][1]),
        json!({"isError": false, "text": ["{\"apply\":true}"],
               "structuredContent": {"apply": true}})
    );
    assert_eq!(
        out["left"],
        json!([{"isError": true, "text": ["ask_user: a new call came while this one waited, so this one stopped waiting. Its questions stay open in the askuser web inbox; the answers are given to the same call made again."]}])
    );
    assert_eq!(
        events("left", &scratch),
        [
            "client noted call-1: no forms",
            "client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "client noted call-1: moved on (a new call N ms in)",
            "client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "answered call-1: apply = true",
        ]
    );
}

/// A client that cancels a call while it waits for another window (a host's
/// Esc or its own timeout) stops waiting, but the person may be answering in
/// the inbox: the questions stay open, and the answer given afterwards is kept
/// for the same call made again, which gets it at once.
#[test]
fn a_call_cancelled_while_it_waits_keeps_its_questions_and_their_answer() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "stopped",
        None,
        json!({"elicit": false, "env": {"ASKUSER_MCP_WAIT_MS": "20000"}, "calls": [
            {"tool": "ask_user", "arguments": apply(), "cancel_after": 1.0,
             "then_elsewhere": [{"answer": true}]},
            {"tool": "ask_user", "arguments": apply()}]}),
    );
    assert_eq!(
        result(&out["calls"][1]),
        json!({"isError": false, "text": ["{\"apply\":true}"],
               "structuredContent": {"apply": true}})
    );
    assert_eq!(
        events("stopped", &scratch),
        [
            "client noted call-1: no forms",
            "client noted call-1: stopped waiting (the client cancelled it)",
            "answered call-1: apply = true",
        ]
    );
}

/// A result given to a call of Gemini CLI, which may have been stopped there
/// unseen, is kept: the same call made again is answered with it at once.
#[test]
fn an_answer_to_a_call_that_may_have_been_stopped_unseen_is_kept_for_the_same_call() {
    let scratch = Scratch::new();
    let out = scratch.drive(
        "kept",
        None,
        json!({"elicit": false, "client_info": gemini(),
               "env": {"ASKUSER_MCP_WAIT_MS": "20000"}, "calls": [
            {"tool": "ask_user", "arguments": apply(),
             "elsewhere_while_waiting": {"after": 1.0, "actions": [{"answer": false}]}},
            {"tool": "ask_user", "arguments": apply()}]}),
    );
    let answered = json!({"isError": false, "text": ["{\"apply\":false}"],
                          "structuredContent": {"apply": false}});
    assert_eq!(
        [result(&out["calls"][0]), result(&out["calls"][1])],
        [answered.clone(), answered]
    );
    assert_eq!(
        events("kept", &scratch),
        [
            "client noted call-1: no forms",
            "client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "answered call-1: apply = false",
        ]
    );
}

/// Once a person has answered a round at a person's pace, their quick Esc on
/// the next round (300 ms, under `--no-person-below`) is their dismissal: the
/// turn ends, and nothing waits for another window. In both protocol
/// generations.
#[test]
fn a_quick_esc_after_a_round_a_person_answered_is_the_person_s_dismissal() {
    let migration = json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}}]});
    for (mode, stream) in [("legacy", "esc"), ("2026-07-28", "esc-stateless")] {
        let scratch = Scratch::new();
        let out = scratch.drive(
            stream,
            None,
            json!({"mode": mode,
                   "env": {"ASKUSER_MCP_WAIT_MS": "20000", "ASKUSER_MCP_NO_PERSON_MS": "1000"},
                   "calls": [
                {"tool": "ask_user", "arguments": migration,
                 "responses": [{"action": "accept", "content": {"apply": true}, "delay": 1.5},
                               {"action": "cancel", "delay": 0.3}]}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(call["rounds"].as_array().map(Vec::len), Some(2), "{mode}");
        assert_eq!(
            result(call),
            json!({"isError": true,
                   "text": ["ask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."],
                   "structuredContent": null}),
            "{mode}"
        );
        assert_eq!(
            events(stream, &scratch),
            [
                "shown call-1: apply",
                "answered call-1: apply = true",
                "shown call-1: env",
                "turn ended call-1 in the agent's own window",
            ],
            "{mode}"
        );
    }
}

/// A client that offers roots says where its project is: the server records
/// that directory (and its repository) as where the agent works, not the
/// directory the host started it in.
#[test]
fn the_directory_recorded_is_the_client_s_root() {
    let scratch = Scratch::new();
    let project = scratch.dir.path().join("my project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let root = format!("file://{}", project.display()).replace(' ', "%20");
    let out = scratch.drive(
        "rooted",
        None,
        json!({"env": {"ASKUSER_MCP_MACHINE": "laptop"},
               "roots": [root],
               "calls": [{"tool": "ask_user", "arguments": apply(),
                          "responses": [{"action": "accept", "content": {"apply": true}}]}]}),
    );
    assert_eq!(
        result(&out["calls"][0]),
        json!({"isError": false, "text": ["{\"apply\":true}"], "structuredContent": {"apply": true}})
    );
    let tmp = scratch.dir.path().display().to_string();
    let events: Vec<String> = (events("rooted", &scratch).into_iter())
        .map(|event| event.replace(&tmp, "<tmp>"))
        .collect();
    assert_eq!(
        events,
        [
            "attached host=mcp 0.1.0, machine=laptop, directory=<tmp>/my project, repository=my project",
            "shown call-1: apply",
            "answered call-1: apply = true",
            "detached host=mcp 0.1.0, machine=laptop, directory=<tmp>/my project, repository=my project",
        ]
    );
}

/// A stream not named (`askuser mcp` without `--stream`) is claimed at the
/// session's first call, once the client has said where its project is: it is
/// named after the client's root, not the directory the host started the
/// server in (a host may start its servers anywhere).
#[test]
fn a_stream_not_named_is_named_after_the_client_s_root() {
    let scratch = Scratch::new();
    let project = scratch.dir.path().join("billing-api");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let root = format!("file://{}", project.display());
    let out = scratch.drive(
        "not-this-name",
        None,
        json!({"env": {"ASKUSER_MCP_MACHINE": "laptop", "ASKUSER_MCP_CLAIM": "1"},
               "roots": [root],
               "calls": [{"tool": "ask_user", "arguments": apply(),
                          "responses": [{"action": "accept", "content": {"apply": true}}]}]}),
    );
    assert_eq!(
        result(&out["calls"][0]),
        json!({"isError": false, "text": ["{\"apply\":true}"], "structuredContent": {"apply": true}})
    );
    let streams: Vec<String> = (scratch.log().streams().unwrap().into_iter())
        .map(|info| info.name)
        .collect();
    assert_eq!(streams, ["billing-api-1"]);
    let tmp = scratch.dir.path().display().to_string();
    // The claim is the stream's first event: where the agent works.
    let claim = askuser_rpc::replay(&*scratch.log(), "billing-api-1").unwrap();
    assert_eq!(
        askuser_rpc::describe_event(&claim.events[0].event).replace(&tmp, "<tmp>"),
        "attached host=mcp 0.1.0, machine=laptop, directory=<tmp>/billing-api, repository=billing-api"
    );
    let events: Vec<String> = (events("billing-api-1", &scratch).into_iter())
        .map(|event| event.replace(&tmp, "<tmp>"))
        .collect();
    assert_eq!(
        events,
        [
            "requested call-1 (1 question: apply)",
            "attached host=mcp 0.1.0, machine=laptop, directory=<tmp>/billing-api, repository=billing-api",
            "shown call-1: apply",
            "answered call-1: apply = true",
            "detached host=mcp 0.1.0, machine=laptop, directory=<tmp>/billing-api, repository=billing-api",
        ]
    );
}
