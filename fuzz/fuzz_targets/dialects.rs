//! Every dialect's parser against arbitrary JSON: a call is either accepted (and then
//! walks and renders) or rejected with a non-empty list of problems; never a panic.

#![no_main]

use askuser_core::{Command, Input, InquiryId, State, reduce};
use askuser_dialects::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(arguments) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    for dialect in Dialect::ALL {
        match dialect.parse(&arguments) {
            Ok(call) => {
                let mut state = State::new();
                let commands = reduce(
                    &mut state,
                    &Input::Ask(call.request(InquiryId::new("f"))),
                )
                .expect("a call the dialect accepted is not refused");
                assert!(
                    matches!(commands.as_slice(), [Command::Prompt(_)]),
                    "{commands:?}"
                );
                let _ = call.tool_result(&commands[0]);
            }
            Err(rejection) => {
                assert!(!rejection.errors.is_empty());
                assert!(!rejection.tool_error_text().is_empty());
            }
        }
    }
});
