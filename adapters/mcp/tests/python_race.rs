//! Another surface (the web inbox, a terminal: `examples/elsewhere.rs`, a
//! `Session` on the same sled log) acts while the MCP Python SDK client's form
//! is shown. The round the client sends back afterwards is never recorded over
//! what the other surface did: when it finished the inquiry, the tool result is
//! the result it produced, said in words; when it answered some questions, the
//! next round asks what is still open, with what the person typed filled in.
//! Set `ASKUSER_TEST_PYTHON` (see `scripts/mcp-venv.sh`).

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use common::{Scratch, accept, checked_rounds, events, messages, migration, replayed_result};
use serde_json::{Value, json};

fn claude_call() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]})
}

/// Where the other surfaces are, as the person and the model are told.
const WHERE: &str = "another window (the askuser web inbox or a terminal)";

/// The inquiry is finished in another window while round 1 is shown: answered
/// and submitted (`ask_user`), or replied to (`AskUserQuestion`). The round the
/// client sends back afterwards (answers; a decline) is not recorded; the tool
/// result is the other window's, in the call's dialect, saying so in words, with
/// what the person sent here. In both protocol generations.
#[test]
fn a_round_sent_after_another_window_finished_the_inquiry_gets_its_result() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let web = json!([{"answer": false}, {"answer": "from the web"}, {"submit": true}]);
        let out = scratch.drive(
            "finished",
            None,
            json!({"mode": mode, "calls": [
                {"tool": "ask_user", "arguments": migration(),
                 "elsewhere": [{"round": 1, "actions": web}],
                 "responses": [accept(&json!({"apply": true, "note": "from mcp"}))]},
                {"tool": "AskUserQuestion", "arguments": claude_call(),
                 "elsewhere": [{"round": 1, "actions": [{"reply": "Ask me about the database later"}]}],
                 "responses": [{"action": "decline"}]}]}),
        );
        let answered = json!({"apply": false, "env": null, "confirm": null,
                              "note": "from the web", "limits": null});
        let replied = json!({"cancelled": true, "answers": {},
                             "response": "Ask me about the database later"});
        let calls = &out["calls"];
        assert_eq!(messages(&calls[0]), ["Questions 1\u{2013}2 of 5"], "{mode}");
        assert_eq!(messages(&calls[1]), ["Question 1 of 1"], "{mode}");
        let results: Vec<Value> = calls
            .as_array()
            .unwrap()
            .iter()
            .map(|call| {
                json!({"isError": call["isError"], "text": call["text"],
                       "structuredContent": call["structuredContent"]})
            })
            .collect();
        assert_eq!(
            results,
            [
                json!({"isError": false, "structuredContent": answered, "text": [format!(
                    "The user answered these questions in {WHERE} while this client's form was open; their answers are the result:\n{answered}\nWhat the user then sent from this client's form came too late and was not recorded: {{\"Apply the proposed migration?\":true,\"Anything the migration should know?\":\"from mcp\"}}."
                )]}),
                json!({"isError": false, "structuredContent": replied, "text": [format!(
                    "The user chose to reply instead of answering, in {WHERE}, while this client's form was open; the result holds the answers given so far:\n{replied}\nThe user then declined this client's form; that was not recorded."
                )]}),
            ],
            "{mode}"
        );
        // Nothing of the late round is in the log: only the other window's steps
        // (and, left out here, the results handed to the client: call-1's
        // before call-8 is asked).
        assert_eq!(
            events("finished", &scratch),
            [
                "shown call-1: apply, note",
                "review wanted call-1",
                "answered call-1: apply = false",
                "answered call-1: note = \"from the web\"",
                "submitted call-1",
                "requested call-8 (1 question: q1)",
                "shown call-8: q1",
                "reply call-8: Ask me about the database later",
            ],
            "{mode}"
        );
        assert_eq!(
            replayed_result(&*scratch.log(), "finished"),
            json!({"type": "result", "inquiry": "call-8", "result": replied, "cancelled": true})
        );
    }
}

/// Another window answers the first question while round 1 is shown: the
/// round sent back afterwards is not recorded over it; the next round asks what
/// is still open from there, says what happened, and offers what the person
/// typed for those questions as the fields' defaults. The other window wanted a
/// review; the form sent here is it. In both protocol generations.
#[test]
fn a_round_sent_after_another_window_answered_the_first_question_goes_on_from_there() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let out = scratch.drive(
            "moved",
            None,
            json!({"mode": mode, "calls": [{"tool": "ask_user", "arguments": migration(),
                "elsewhere": [{"round": 1, "actions": [{"answer": true}]}],
                "responses": [accept(&json!({"apply": false, "note": "from mcp"})),
                              accept(&json!({"env": "staging", "note": "from mcp",
                                             "limits": "{\"cpu\": 1}"}))]}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(
            messages(call),
            [
                "Questions 1\u{2013}2 of 5".to_owned(),
                format!(
                    "Questions 2\u{2013}4 of 5\nYour last form was not sent: meanwhile, in {WHERE},\n- \u{201c}Apply the proposed migration?\u{201d} was answered: yes\nWhat you had answered is filled in below; check it and send."
                ),
            ],
            "{mode}"
        );
        assert_eq!(
            call["rounds"][1]["requestedSchema"],
            json!({"type": "object", "properties": {
                "env": {"type": "string", "title": "Which environment?",
                        "description": "The migration adds an index.",
                        "oneOf": [{"const": "staging", "title": "staging"},
                                  {"const": "production", "title": "production"}]},
                "note": {"type": "string", "title": "Anything the migration should know?",
                         "default": "from mcp"},
                "limits": {"type": "string", "title": "Resource limits?",
                           "description": "Type a JSON value matching this schema: {\"type\":\"object\",\"properties\":{\"cpu\":{\"type\":\"number\"}},\"required\":[\"cpu\"]}"}},
              "required": ["env", "limits"]}),
            "{mode}"
        );
        let expected = json!({"apply": true, "env": "staging", "confirm": null,
                              "note": "from mcp", "limits": {"cpu": 1}});
        assert_eq!(call["isError"], false, "{mode}");
        assert_eq!(call["structuredContent"], expected, "{mode}");
        assert_eq!(call["text"], json!([expected.to_string()]), "{mode}");
        assert_eq!(
            events("moved", &scratch),
            [
                "shown call-1: apply, note",
                "review wanted call-1",
                "answered call-1: apply = true",
                "shown call-1: env, note, limits",
                "answered call-1: env = \"staging\"",
                "answered call-1: note = \"from mcp\"",
                "answered call-1: limits = {\"cpu\":1}",
                "submitted call-1",
            ],
            "{mode}"
        );
        let log = scratch.log();
        assert_eq!(
            replayed_result(&*log, "moved"),
            json!({"type": "result", "inquiry": "call-1", "result": expected, "cancelled": false})
        );
        assert_eq!(
            checked_rounds(&*log, "moved"),
            [vec!["apply", "note"], vec!["env", "note", "limits"]]
        );
    }
}

/// Another window answers every question while round 1 is shown and shows its
/// review: the next round is that review (send, or ask the last question
/// again); asked again, the question offers what the person typed here.
#[test]
fn a_round_sent_after_another_window_answered_every_question_shows_its_review() {
    for mode in ["legacy", "2026-07-28"] {
        let scratch = Scratch::new();
        let out = scratch.drive(
            "review",
            None,
            json!({"mode": mode, "calls": [{"tool": "ask_user", "arguments": migration(),
                "elsewhere": [{"round": 1, "actions": [{"answer": false}, {"answer": "from the web"}]}],
                "responses": [accept(&json!({"apply": true, "note": "from mcp"})),
                              accept(&json!({"send": false})),
                              accept(&json!({"note": "from mcp, after all"}))]}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(
            messages(call),
            [
                "Questions 1\u{2013}2 of 5".to_owned(),
                format!(
                    "Your last form was not sent: meanwhile, the questions were answered in {WHERE}, which shows them for review:\n- Apply the proposed migration?: no\n- Anything the migration should know?: from the web\nSend these answers?"
                ),
                "Question 4 of 5".to_owned(),
            ],
            "{mode}"
        );
        assert_eq!(
            call["rounds"][1]["requestedSchema"],
            json!({"type": "object", "properties": {"send": {
                "type": "boolean", "title": "Send these answers",
                "description": "Yes sends them to the assistant; no asks the last question again.",
                "default": true}}, "required": ["send"]}),
            "{mode}"
        );
        assert_eq!(
            call["rounds"][2]["requestedSchema"]["properties"]["note"]["default"], "from mcp",
            "{mode}"
        );
        let expected = json!({"apply": false, "env": null, "confirm": null,
                              "note": "from mcp, after all", "limits": null});
        assert_eq!(call["structuredContent"], expected, "{mode}");
        assert_eq!(call["text"], json!([expected.to_string()]), "{mode}");
        assert_eq!(
            events("review", &scratch),
            [
                "shown call-1: apply, note",
                "review wanted call-1",
                "answered call-1: apply = false",
                "answered call-1: note = \"from the web\"",
                "back call-1",
                "shown call-1: note",
                "answered call-1: note = \"from mcp, after all\"",
                "submitted call-1",
            ],
            "{mode}"
        );
        assert_eq!(
            checked_rounds(&*scratch.log(), "review"),
            [vec!["apply", "note"], vec!["note"]]
        );
    }
}
