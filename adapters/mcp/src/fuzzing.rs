//! The fuzz targets' door (built only with `--cfg fuzzing`, as `cargo fuzz`
//! builds): a tool call's arguments and the client's elicitation results
//! through the walk, as the server's rounds take them, on a log in memory.

use std::sync::Arc;

use askuser_app::log::{Log, MemLog, StoreError};
use askuser_core::Input;
use askuser_dialects::Dialect;
use askuser_dialects::dialect::mcp::Fields;
use rmcp::model::{CallToolResult, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use crate::mrtr::elicit_params;
use crate::recorder::Recorder;
use crate::server::{done_result, end_turn, error_result, finish, reply};
use crate::walk::{Next, Walk};

/// What a walk came to.
#[derive(Debug)]
pub struct Walked {
    /// Each round's `requestedSchema`, as sent.
    pub rounds: Vec<Value>,
    /// A round that could not be sent as an elicitation, and why.
    pub unsendable: Option<String>,
    /// The tool result the model gets.
    pub result: CallToolResult,
    /// Whether every round recorded derives again from the log (`check_rounds`):
    /// else the first that does not, or why the log could not be read.
    pub rounds_derive: Result<(), String>,
}

/// Walks `dialect`'s call with `arguments` for a client whose forms show
/// `limited` fields or all of them, answering each round (its
/// `requestedSchema`) with what `respond` gives (an `ElicitResult` as the
/// client sends it; one that does not read as such is a `cancel`). `None`, or
/// more rounds than the server sends, and the person dismissed the form.
#[must_use]
pub fn rounds(
    dialect: Dialect,
    arguments: &Value,
    limited: bool,
    respond: &mut dyn FnMut(&Value) -> Option<Value>,
) -> Walked {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let shared = Arc::clone(&log);
    let recorder = Recorder::new(
        Arc::new(move || Ok(askuser_app::Desk::new(Arc::clone(&shared)))),
        "fuzz",
    );
    let mut walked = Walked {
        rounds: Vec::new(),
        unsendable: None,
        result: error_result(String::new()),
        rounds_derive: Ok(()),
    };
    walked.result = walk(dialect, arguments, limited, respond, &recorder, &mut walked);
    walked.rounds_derive = match crate::check_rounds(&*log, "fuzz") {
        Ok(checks) => match checks.into_iter().find(|check| !check.matches()) {
            Some(check) => Err(format!("{check:?}")),
            None => Ok(()),
        },
        // A call refused before anything was recorded.
        Err(StoreError::NoSuchStream(_)) => Ok(()),
        Err(error) => Err(error.to_string()),
    };
    walked
}

fn walk(
    dialect: Dialect,
    arguments: &Value,
    limited: bool,
    respond: &mut dyn FnMut(&Value) -> Option<Value>,
    recorder: &Recorder,
    walked: &mut Walked,
) -> CallToolResult {
    let call = match dialect.parse(arguments) {
        Ok(call) => call,
        Err(rejection) => return error_result(rejection.tool_error_text()),
    };
    let requested = recorder.request(|inquiry| {
        let mut request = call.recorded_request(inquiry, arguments);
        request.policy.interactive = true;
        Input::Ask(request)
    });
    let Ok((inquiry, Ok(step))) = requested else {
        return error_result("not recorded".to_owned());
    };
    let started = Walk::start(
        call.form().clone(),
        inquiry,
        step.commands,
        step.at,
        step.head,
    );
    let mut walk = match started {
        Ok(walk) => walk.showing(if limited {
            Fields::Limited
        } else {
            Fields::Full
        }),
        Err(finished) => return finish(&call, &finished),
    };
    for _ in 0..3 * call.form().len() + 3 {
        let round = match walk.next_round(recorder) {
            Ok(Next::Ask(round)) => round,
            Ok(Next::Done(done)) => return done_result(&call, &done),
            Ok(Next::Assistant) => break,
            Err(error) => return error_result(error),
        };
        walked.rounds.push(round.requested().clone());
        if let Err(error) = elicit_params(&round) {
            walked.unsendable = Some(error.to_string());
        }
        let Some(result) = respond(round.requested()) else {
            break;
        };
        let Ok(result) = serde_json::from_value::<ElicitResult>(result) else {
            break;
        };
        let content = match result.action {
            ElicitationAction::Accept => match result.content {
                Some(Value::Object(content)) => content,
                _ => Map::new(),
            },
            ElicitationAction::Decline => return reply(recorder, &call, &mut walk),
            _ => return end_turn(recorder, &call, &mut walk),
        };
        if walk.empty_twice(&content) {
            break;
        }
        match walk.accept(recorder, &round, &content) {
            Ok(Some(done)) => return done_result(&call, &done),
            Ok(None) => {}
            Err(error) => return error_result(error.to_string()),
        }
    }
    end_turn(recorder, &call, &mut walk)
}
