//! A refused answer costs the log in proportion to the answer, not the form: the
//! security review grew a database by 1.1 MB per 68-byte wrong answer to a 200 KB
//! form. Each refusal is now recorded as a verdict carrying the inquiry, the
//! question and the validator's message, never the form.

use std::sync::Arc;

use askuser_core::{Event, parse_form};
use askuser_store::codec::encode_event_record;
use askuser_store::{Log, MemLog, Session};
use askuser_testkit::build::{answer_shown, ask};
use serde_json::json;

#[test]
fn a_refused_answer_costs_the_log_what_the_answer_costs_not_the_form() {
    // A 200 KB form: a boolean question first, then 48 with 4 KB of context each
    // (text that does not compress: the log compresses its records).
    let mut questions = vec![json!({"id": "ok", "text": "Proceed?", "answer_type": "boolean"})];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for n in 0..48 {
        let context: String = (0..3960)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                char::from(
                    b"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
                        [usize::try_from(seed % 64).unwrap()],
                )
            })
            .collect();
        questions.push(json!({
            "id": format!("q{n}"), "text": "Notes?", "answer_type": "text", "context": context
        }));
    }
    let form = parse_form(&json!({ "questions": questions }))
        .unwrap()
        .form()
        .clone();
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut session = Session::open(Arc::clone(&log), "s").unwrap();
    session.handle(&ask("q", form)).unwrap();
    let wrong = "x".repeat(60);
    for _ in 0..5 {
        let answer = answer_shown(session.state(), "q", json!(wrong));
        session.handle(&answer).unwrap();
    }
    let mut sizes = Vec::new();
    for recorded in log.read("s", 1).unwrap() {
        let recorded = recorded.unwrap();
        let bytes = encode_event_record("s", recorded.seq, recorded.at, &recorded.event).unwrap();
        let refused = matches!(recorded.event, Event::AnswerRefused { .. });
        sizes.push((refused, bytes.len()));
    }
    assert!(
        sizes[0].1 > 190_000,
        "the request holds the form: {sizes:?}"
    );
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    for (refused, size) in &sizes[1..] {
        assert!(refused, "{sizes:?}");
        assert!(
            *size < 400,
            "a refused 62-byte answer took {size} bytes: {sizes:?}"
        );
    }
}
