//! The protocol's line reader and parser against arbitrary bytes, then a whole
//! server session over them: lines never exceed the cap or hold a newline, a line
//! with a key given twice is never read as a message, and every line the server
//! sends back is a JSON object with a `type`; never a panic.

#![no_main]

use askuser_app::from_str_unique;
use askuser_rpc::{Desk, MAX_LINE_BYTES, Server, fuzz_read_lines, parse_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let capacity = usize::from(data.first().copied().unwrap_or(1)) + 1;
    for line in fuzz_read_lines(data, capacity).into_iter().flatten() {
        assert!(line.len() <= MAX_LINE_BYTES);
        assert!(!line.contains(&b'\n'));
        let Ok(text) = std::str::from_utf8(&line) else {
            continue;
        };
        let parsed = parse_input(text);
        if from_str_unique(text).is_err() {
            assert!(parsed.is_err(), "a line that is not strict JSON was read: {text:?}");
        }
    }
    let Ok(mut server) = Server::new(Desk::memory(), "fuzz") else {
        return;
    };
    let mut output = Vec::new();
    server.serve(data, &mut output).expect("writing to memory cannot fail");
    for line in String::from_utf8(output).expect("the server writes UTF-8").lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert!(value.get("type").is_some_and(serde_json::Value::is_string), "{line}");
    }
});
