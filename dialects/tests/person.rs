//! What the person did, as every dialect tells the model: a timeout (the answers it
//! filled, and that the person did not answer in time), a Reply with a message, and
//! notes beside answers. The exact texts are snapshots.

use askuser_core::{
    AnswerInput, AnswerType, Command, Input, InquiryId, OnTimeout, State, Timeout, reduce,
};
use askuser_dialects::{Call, Dialect, ToolResult};
use serde_json::{Map, Value, json};

/// One call per dialect: a first question the person answers (with the value
/// given), then a choice with a recommended option, then free text with no
/// default (`jp` asks a single question, answered by nobody).
fn calls() -> Vec<(Dialect, Value, Option<Value>)> {
    vec![
        (
            Dialect::Jp,
            json!({"question": "Which language?", "answer_type": "select",
                   "options": ["go", "rust (Recommended)", "ruby"]}),
            None,
        ),
        (
            Dialect::JpForm,
            json!({"questions": [
                {"id": "apply", "text": "Apply the change?", "answer_type": "boolean"},
                {"id": "lang", "text": "Which language?", "answer_type": "select",
                 "options": ["go", "rust (Recommended)"]},
                {"id": "why", "text": "Why?", "answer_type": "text"}]}),
            Some(json!(true)),
        ),
        (
            Dialect::Claude,
            json!({"questions": [
                {"question": "Which database?", "header": "Database",
                 "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]},
                {"question": "Which language?", "header": "Language",
                 "options": [{"label": "go"}, {"label": "rust (Recommended)"}]}]}),
            Some(json!("SQLite")),
        ),
        (
            Dialect::Pi,
            json!({"questions": [
                {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]},
                {"question": "Which language?", "options": ["go", "rust (Recommended)"]},
                {"question": "Why?"}]}),
            Some(json!("SQLite")),
        ),
        (
            Dialect::OpenCode,
            json!({"questions": [
                {"question": "Which database?", "header": "Database",
                 "options": [{"label": "PostgreSQL", "description": "Relational"},
                             {"label": "SQLite", "description": "File-based"}]},
                {"question": "Which language?", "header": "Language",
                 "options": [{"label": "go", "description": "Fast builds"},
                             {"label": "rust (Recommended)", "description": "Safe"}]}]}),
            Some(json!("SQLite")),
        ),
        (
            Dialect::Codex,
            json!({"questions": [
                {"id": "db", "header": "Database", "question": "Which database?",
                 "options": [{"label": "PostgreSQL", "description": "Relational"},
                             {"label": "SQLite", "description": "File-based"}]},
                {"id": "lang", "header": "Language", "question": "Which language?",
                 "options": [{"label": "go", "description": "Fast builds"},
                             {"label": "rust (Recommended)", "description": "Safe"}]}]}),
            Some(json!("SQLite")),
        ),
        (
            Dialect::Gemini,
            json!({"questions": [
                {"header": "Database", "question": "Which database?", "type": "choice",
                 "options": [{"label": "PostgreSQL", "description": "Relational"},
                             {"label": "SQLite", "description": "File-based"}]},
                {"header": "Language", "question": "Which language?", "type": "choice",
                 "options": [{"label": "go", "description": "Fast builds"},
                             {"label": "rust (Recommended)", "description": "Safe"}]},
                {"header": "Why", "question": "Why?", "type": "text"}]}),
            Some(json!("SQLite")),
        ),
    ]
}

/// What the person (or the host's clock) does after the first answer.
#[derive(Clone, Copy)]
enum Then {
    /// The host's clock passed the deadline of a one-minute timeout.
    TimedOut(OnTimeout),
    /// The person chose Reply, with this message.
    Reply(Option<&'static str>),
    /// The person answered every question, the first with a note.
    AnswerAll,
    /// The person answered the first question with a note, went Back to it from
    /// the second, and sent it again as the surface showed it (the answer and
    /// the note prefilled), then answered every question.
    BackThenAnswerAll,
}

fn id() -> InquiryId {
    InquiryId::new("call-1")
}

/// Walks `call`: the first answer (if any), then `then`.
fn walk(call: &Call, first: Option<&Value>, then: Then) -> Value {
    let mut request = call.request(id());
    if let Then::TimedOut(on_timeout) = then {
        request.policy.timeout = Some(Timeout {
            after_ms: 60_000,
            on_timeout,
        });
    }
    let mut state = State::new();
    let commands = reduce(&mut state, &Input::Ask(request)).unwrap();
    let mut commands = commands;
    if let Some(value) = first {
        let [Command::Prompt(prompt)] = commands.as_slice() else {
            panic!("expected a prompt, got {commands:?}");
        };
        let answer = AnswerInput::new(prompt.at(), value.clone())
            .with_note(Some("it is what production runs".into()));
        commands = reduce(&mut state, &answer.into()).unwrap();
        if let (Then::BackThenAnswerAll, [Command::Prompt(second)]) = (then, commands.as_slice()) {
            let back = reduce(&mut state, &Input::Back(second.at())).unwrap();
            let [Command::Prompt(again)] = back.as_slice() else {
                panic!("expected the first question again, got {back:?}");
            };
            let prefilled = AnswerInput::new(again.at(), again.prefill_value().unwrap())
                .with_note(again.prefill_note.clone());
            commands = reduce(&mut state, &prefilled.into()).unwrap();
        }
    }
    if let Then::AnswerAll | Then::BackThenAnswerAll = then {
        // A single-question call gets its note on the one answer.
        let mut note = first
            .is_none()
            .then(|| "it is what production runs".to_owned());
        while let [Command::Prompt(prompt)] = commands.as_slice() {
            let question = prompt.question();
            let value = match question.choices().first() {
                Some(choice) if question.answer_type == AnswerType::MultiSelect => {
                    json!([choice.label])
                }
                Some(choice) => json!(choice.label),
                None if question.answer_type == AnswerType::Boolean => json!(true),
                None => json!("to keep it simple"),
            };
            let answer = AnswerInput::new(prompt.at(), value).with_note(note.take());
            commands = reduce(&mut state, &answer.into()).unwrap();
        }
        let [command] = commands.as_slice() else {
            panic!("expected one command, got {commands:?}");
        };
        return shown(call.tool_result(command));
    }
    let input = match then {
        Then::TimedOut(_) => Input::TimeOut {
            inquiry: id(),
            message: None,
            fired_at_ms: 0,
        },
        Then::Reply(message) => Input::Reply {
            at: state.at(&id()).expect("an open inquiry"),
            message: message.map(str::to_owned),
        },
        Then::AnswerAll | Then::BackThenAnswerAll => unreachable!("answered above"),
    };
    let commands = reduce(&mut state, &input).unwrap();
    let [command] = commands.as_slice() else {
        panic!("expected one command, got {commands:?}");
    };
    shown(call.tool_result(command))
}

fn shown(result: Option<ToolResult>) -> Value {
    match result {
        Some(ToolResult::Success(value)) => json!({ "success": value }),
        Some(ToolResult::Text(text)) => json!({ "text": text }),
        Some(ToolResult::Error(text)) => json!({ "error": text }),
        None => json!("end turn: no tool result"),
    }
}

/// Every dialect's result for `then`, keyed by dialect name.
fn every_dialect(then: Then) -> Value {
    let mut results = Map::new();
    for (dialect, arguments, first) in calls() {
        let call = dialect
            .parse(&arguments)
            .unwrap_or_else(|r| panic!("{dialect}: {}", r.tool_error_text()));
        results.insert(dialect.name().to_owned(), walk(&call, first.as_ref(), then));
    }
    Value::Object(results)
}

#[test]
fn a_timeout_with_defaults_says_which_answers_it_filled() {
    insta::assert_json_snapshot!(
        "timeout_defaults",
        every_dialect(Then::TimedOut(OnTimeout::Defaults))
    );
}

#[test]
fn a_timeout_that_cancels_says_the_person_did_not_answer_in_time() {
    insta::assert_json_snapshot!(
        "timeout_cancel",
        every_dialect(Then::TimedOut(OnTimeout::Cancel))
    );
}

#[test]
fn a_timeout_that_ends_the_turn_sends_no_result() {
    let results = every_dialect(Then::TimedOut(OnTimeout::EndTurn));
    for (dialect, result) in results.as_object().unwrap() {
        assert_eq!(result, &json!("end turn: no tool result"), "{dialect}");
    }
}

#[test]
fn no_timeout_text_ever_tells_the_model_to_use_its_judgment() {
    for on_timeout in [OnTimeout::Defaults, OnTimeout::Cancel] {
        let text = every_dialect(Then::TimedOut(on_timeout)).to_string();
        assert!(!text.to_lowercase().contains("judgment"), "{text}");
        assert!(!text.to_lowercase().contains("judgement"), "{text}");
    }
}

#[test]
fn a_reply_without_a_message_is_each_host_s_cancel() {
    insta::assert_json_snapshot!("reply", every_dialect(Then::Reply(None)));
}

#[test]
fn a_reply_with_a_message_carries_it_where_each_host_has_a_place() {
    insta::assert_json_snapshot!(
        "reply_with_message",
        every_dialect(Then::Reply(Some(
            "Use the database we already run; ask me about the language later."
        )))
    );
}

#[test]
fn a_note_beside_an_answer_reaches_the_model_where_the_host_has_a_place() {
    insta::assert_json_snapshot!("notes", every_dialect(Then::AnswerAll));
}

#[test]
fn a_note_kept_through_back_reaches_the_model_in_every_dialect() {
    assert_eq!(
        every_dialect(Then::BackThenAnswerAll),
        every_dialect(Then::AnswerAll)
    );
}

#[test]
fn a_blank_reply_message_is_no_message() {
    assert_eq!(
        every_dialect(Then::Reply(Some("  \n"))),
        every_dialect(Then::Reply(None))
    );
}
