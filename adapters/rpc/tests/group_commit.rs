//! `serve_watching` records the inputs a host has already written as a group (one
//! flush for the group) and answers each exactly as if it came alone, recording
//! each result it handed over; an inquiry id stays used after its inquiry
//! finished, however long the session.

use std::io::Cursor;

use askuser_rpc::{Desk, Server};
use serde_json::{Value, json};

fn ask(inquiry: &str) -> Value {
    json!({"type": "ask", "inquiry": inquiry, "dialect": "jp",
           "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})
}

fn answer(inquiry: &str, value: &Value) -> Value {
    json!({"type": "answer", "inquiry": inquiry, "question": "answer", "value": value})
}

/// 600 inputs: asks answered at once, an answer to a finished inquiry, an ask that
/// reuses a finished inquiry's id, and a bad line, in a burst.
fn burst() -> Vec<Value> {
    let mut lines = Vec::new();
    for i in 0..200 {
        let id = format!("t{i}");
        lines.push(ask(&id));
        lines.push(answer(&id, &json!(i % 2 == 0)));
        lines.push(match i % 3 {
            0 => answer(&id, &json!(true)),
            1 => ask(&id),
            _ => json!({"type": "answer"}),
        });
    }
    lines
}

fn text(lines: &[Value]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn a_burst_is_answered_line_for_line_as_one_input_at_a_time_and_all_of_it_is_recorded() {
    let inputs = burst();
    let mut one_by_one = Server::new(Desk::memory(), "s").unwrap();
    let mut expected = text(&one_by_one.greeting());
    for line in &inputs {
        expected += &text(&one_by_one.handle_line(&line.to_string()));
    }

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("log.db");
    let mut grouped = Server::new(Desk::open(&db).unwrap(), "s").unwrap();
    let mut output = Vec::new();
    grouped
        .serve_watching(Cursor::new(text(&inputs).into_bytes()), &mut output)
        .unwrap();
    assert_eq!(String::from_utf8(output).unwrap(), expected);
    // Every input recorded one by one is in the log, flushed before the server
    // returned: the same events, in the same order.
    let recorded = |server: &mut Server| -> Vec<String> {
        let log = server.desk().log();
        log.read("s", 1)
            .unwrap()
            .map(|recorded| format!("{:?}", recorded.unwrap().event))
            .collect()
    };
    let expected_events = recorded(&mut one_by_one);
    drop(grouped);
    let mut reopened = Server::new(Desk::open(&db).unwrap(), "s").unwrap();
    assert_eq!(recorded(&mut reopened), expected_events);
    // Each result handed over is recorded so, once, after the answer that
    // finished its inquiry: a restarted server is not given them again.
    let delivered = |i: usize| format!("Delivered {{ inquiry: InquiryId(\"t{i}\") }}");
    assert_eq!(expected_events.len(), 600);
    assert!((0..200).all(|i| expected_events[3 * i + 2] == delivered(i)));
    assert_eq!(
        reopened.greeting(),
        [json!({"type": "ready", "stream": "s", "protocol": 1, "open": []})]
    );
}
