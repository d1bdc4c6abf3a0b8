//! The journal over many streams: what it keeps per stream is kept by stream
//! *and* inquiry, so the same inquiry id in two streams never mixes.

use askuser_app::{Desk, Taken};
use askuser_core::{AnswerInput, Command, Input, InquiryId};
use askuser_dialects::{Dialect, ToolResult};
use serde_json::{Value, json};

/// Asks `arguments` in `dialect` as inquiry `call-1` of `stream` and answers its
/// one question with `value`; the response command.
fn ask_and_answer(
    journal: &mut Desk,
    stream: &str,
    dialect: Dialect,
    arguments: &Value,
    value: Value,
) -> Command {
    let call = dialect.parse(arguments).expect("a valid call");
    let asked = journal
        .request(
            stream,
            &call,
            arguments,
            call.request(InquiryId::new("call-1")),
        )
        .unwrap();
    let Taken::Recorded { commands, .. } = asked.taken else {
        panic!("asked")
    };
    let Command::Prompt(prompt) = &commands[0] else {
        panic!("a prompt: {commands:?}")
    };
    let answer = Input::from(AnswerInput::new(prompt.at(), value));
    let Taken::Recorded { mut commands, .. } = journal.input(stream, &answer).unwrap().taken else {
        panic!("answered")
    };
    commands.pop().expect("the response")
}

#[test]
fn two_streams_each_with_call_1_in_other_dialects_render_each_with_its_own_call() {
    let mut journal = Desk::memory();
    let jp = json!({"question": "Deploy now?", "answer_type": "boolean"});
    let claude = json!({"questions": [{"question": "Which database?", "header": "DB",
        "options": [{"label": "SQLite", "description": "a file"},
                    {"label": "Postgres", "description": "a server"}],
        "multiSelect": false}]});
    let first = ask_and_answer(&mut journal, "a", Dialect::Jp, &jp, json!(true));
    let second = ask_and_answer(&mut journal, "b", Dialect::Claude, &claude, json!("SQLite"));
    let id = InquiryId::new("call-1");
    // Both finished; each stream's call renders its own result.
    for (stream, command, expected) in [
        (
            "a",
            &first,
            json!({"answer_type": "boolean", "answer": true}),
        ),
        (
            "b",
            &second,
            json!({"answers": {"Which database?": "SQLite"}}),
        ),
    ] {
        let call = journal
            .call(stream, &id)
            .unwrap()
            .expect("the recorded call");
        assert_eq!(
            call.tool_result(command),
            Some(ToolResult::Success(expected)),
            "{stream}"
        );
    }
    // Asked in the other order of lookups, the same.
    let call = journal.call("a", &id).unwrap().unwrap();
    assert_eq!(call.dialect(), Dialect::Jp);
    let call = journal.call("b", &id).unwrap().unwrap();
    assert_eq!(call.dialect(), Dialect::Claude);
}
