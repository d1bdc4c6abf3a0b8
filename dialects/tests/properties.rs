//! Properties: no JSON makes a dialect's parser panic; a rejection always names
//! fields; an accepted call always walks and renders.

use askuser_core::{AnswerInput, Command, Input, InquiryId, State, reduce};
use askuser_core::{UiInput, ui_answer};
use askuser_dialects::{Dialect, ToolResult};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Field names of every dialect, so that generated objects often look like calls.
const KEYS: [&str; 22] = [
    "question",
    "questions",
    "context",
    "answer_type",
    "options",
    "default",
    "id",
    "text",
    "schema",
    "when",
    "question_id",
    "equals",
    "header",
    "label",
    "description",
    "multiSelect",
    "metadata",
    "allow_other",
    "one_of",
    "all",
    "not",
    "$ref",
];

/// Strings that matter to the dialects.
const WORDS: [&str; 12] = [
    "boolean",
    "select",
    "multi_select",
    "text",
    "schema",
    "a",
    "b",
    "Which?",
    "",
    " ",
    "line\nbreak",
    "#/$defs/x",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        proptest::sample::select(&WORDS[..]).prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(&KEYS[..]).prop_map(str::to_owned),
        1 => "[a-z]{1,6}",
    ]
}

/// Arbitrary JSON, biased towards the dialects' shapes.
fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Walks an accepted call, answering every prompt with `text` through `ui_answer`
/// (falling back to the prefill, the first option, `true` or `{}`).
fn walk_through(dialect: Dialect, arguments: &Value, text: &str) {
    let Ok(call) = dialect.parse(arguments) else {
        return;
    };
    let id = InquiryId::new("p");
    let mut state = State::new();
    let mut commands = reduce(&mut state, &Input::Ask(call.request(id))).unwrap_or_default();
    for _ in 0..=call.form().len() * 2 {
        let [Command::Prompt(prompt)] = commands.as_slice() else {
            break;
        };
        let question = prompt.question();
        let value = ui_answer(question, UiInput::Text(text.to_owned()))
            .or_else(|_| ui_answer(question, UiInput::Pick(0)))
            .or_else(|_| ui_answer(question, UiInput::Bool(true)))
            .unwrap_or(json!({}));
        let value = prompt.prefill_value().unwrap_or(value);
        let answer = AnswerInput::new(prompt.at(), value);
        commands = reduce(&mut state, &answer.into()).unwrap_or_default();
    }
    for command in &commands {
        if let Some(ToolResult::Success(result)) = call.tool_result(command) {
            assert!(result.is_object());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_json_makes_a_parser_panic(arguments in json_value()) {
        for dialect in Dialect::ALL {
            match dialect.parse(&arguments) {
                Ok(call) => prop_assert!(!call.form().is_empty()),
                Err(rejection) => {
                    prop_assert!(!rejection.errors.is_empty());
                    for error in &rejection.errors {
                        prop_assert!(error.path.is_empty() || error.path.starts_with('/'));
                        prop_assert!(!error.message.is_empty());
                    }
                    prop_assert!(rejection.tool_error_text().starts_with(dialect.tool_name()));
                }
            }
        }
    }

    #[test]
    fn near_valid_calls_parse_or_reject_and_walk(
        questions in prop::collection::vec(
            (
                proptest::sample::select(&WORDS[..]),
                prop::option::of(prop::collection::vec(proptest::sample::select(&WORDS[..]), 0..5)),
                prop::option::of(any::<bool>()),
                prop::option::of(proptest::sample::select(&WORDS[..5])),
                prop::option::of(leaf()),
            ),
            0..6,
        ),
        text in "\\PC{0,8}",
    ) {
        let list: Vec<Value> = questions.iter().enumerate().map(|(i, (q, options, multi, answer_type, default))| {
            let mut object = json!({"question": q, "id": format!("q{i}"), "text": q});
            if let Some(options) = options {
                object["options"] = options.iter().map(|label| json!({"label": label})).collect();
            }
            if let Some(multi) = multi {
                object["multiSelect"] = json!(multi);
            }
            if let Some(answer_type) = answer_type {
                object["answer_type"] = json!(answer_type);
            }
            if let Some(default) = default {
                object["default"] = default.clone();
            }
            object
        }).collect();
        let arguments = json!({"questions": list});
        for dialect in Dialect::ALL {
            walk_through(dialect, &arguments, &text);
        }
        for (q, options, _, answer_type, default) in &questions {
            let mut jp = json!({"question": q});
            if let Some(options) = options {
                jp["options"] = json!(options);
            }
            if let Some(answer_type) = answer_type {
                jp["answer_type"] = json!(answer_type);
            }
            if let Some(default) = default {
                jp["default"] = default.clone();
            }
            walk_through(Dialect::Jp, &jp, &text);
        }
    }
}
