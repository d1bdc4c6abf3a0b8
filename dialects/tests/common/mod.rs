//! Walking a parsed call through the engine, for the integration tests.

#![allow(dead_code)] // each test file uses a part

use askuser_core::{AnswerInput, Command, Input, InquiryId, State, reduce};
use askuser_core::{UiInput, ui_answer};
use askuser_dialects::{Call, Dialect, ToolResult};
use serde_json::Value;

/// One thing the person does at a prompt.
pub enum Step {
    /// Answer with this JSON value.
    Answer(Value),
    /// Answer with what a UI collected, through `ui_answer`.
    Ui(UiInput),
    /// Go back.
    Back,
    /// Cancel to reply.
    Reply,
    /// End the turn.
    EndTurn,
}

/// Parses `arguments` in `dialect`, panicking with the tool error text if rejected.
pub fn parse(dialect: Dialect, arguments: &Value) -> Call {
    dialect
        .parse(arguments)
        .unwrap_or_else(|rejection| panic!("{}", rejection.tool_error_text()))
}

/// Walks `call` through the engine with `steps`; gives what the model receives at
/// the end (`None` for End Turn). Panics if the walk ends early or an answer is refused.
pub fn walk(call: &Call, steps: Vec<Step>) -> Option<ToolResult> {
    let inquiry = InquiryId::new("call-1");
    let mut state = State::new();
    let mut commands =
        reduce(&mut state, &Input::Ask(call.request(inquiry))).expect("a new inquiry");
    for step in steps {
        let [Command::Prompt(prompt)] = commands.as_slice() else {
            panic!("expected a prompt before the next step, got {commands:?}");
        };
        let at = prompt.at();
        let input = match step {
            Step::Answer(value) => AnswerInput::new(at, value).into(),
            Step::Ui(input) => {
                let value = ui_answer(prompt.question(), input)
                    .unwrap_or_else(|e| panic!("ui_answer refused: {e}"));
                AnswerInput::new(at, value).into()
            }
            Step::Back => Input::Back(at),
            Step::Reply => Input::Reply { at, message: None },
            Step::EndTurn => Input::EndTurn {
                inquiry: at.inquiry,
                surface: None,
            },
        };
        commands = reduce(&mut state, &input).expect("the engine accepts the step");
        if let [Command::InvalidAnswer { message, .. }] = commands.as_slice() {
            panic!("the engine refused an answer: {message}");
        }
    }
    match commands.as_slice() {
        [command] if !matches!(command, Command::Prompt(_)) => call.tool_result(command),
        other => panic!("expected the walk to finish, got {other:?}"),
    }
}

/// The successful result of a walk.
pub fn success(result: Option<ToolResult>) -> Value {
    match result {
        Some(ToolResult::Success(value)) => value,
        other => panic!("expected a successful result, got {other:?}"),
    }
}
