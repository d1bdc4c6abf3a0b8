//! Deterministic event sequences, for tests, benchmarks and the crash test (and for
//! anyone who wants a realistic log to try the store on).
//!
//! The script walks RFD D30's three-question migration form over and over, with a
//! fresh inquiry id each time: event `n` (1-based) is a function of `n` alone, so a
//! checker can tell exactly which event belongs at each sequence number.

use std::sync::{Arc, OnceLock};

use askuser_core::{AnsweredBy, Event, Form, InquiryId, Origin, Policy, Request, parse_form};
use serde_json::json;

use askuser_store::Seq;

/// How many events one walk of the form takes: the request and three answers.
pub const EVENTS_PER_INQUIRY: u64 = 4;

/// RFD D30's migration form: `apply` (boolean), then `env` (select) and `note`
/// (text), both asked only when `apply` is true.
///
/// # Panics
///
/// Never: the form is a constant, and valid.
pub fn d30_form() -> Arc<Form> {
    static FORM: OnceLock<Arc<Form>> = OnceLock::new();
    Arc::clone(FORM.get_or_init(|| {
        let form = parse_form(&json!({"questions": [
            {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
            {"id": "env", "text": "Which environment?", "answer_type": "select",
             "options": ["staging", "production"],
             "when": {"question_id": "apply", "equals": true}},
            {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
             "when": {"question_id": "apply", "equals": true}}
        ]}))
        .expect("RFD D30's form is valid");
        Arc::clone(form.form())
    }))
}

/// Event `n` (1-based) of the script: for inquiry `i{k}` with `k = (n-1)/4`, the
/// request, `apply = true`, `env` (alternating staging and production), and a note.
/// Every walk completes the inquiry.
///
/// # Panics
///
/// If `n` is 0.
pub fn scripted_event(n: Seq) -> Event {
    assert!(n > 0, "events are numbered from 1");
    let k = (n - 1) / EVENTS_PER_INQUIRY;
    let inquiry = InquiryId::new(format!("i{k}"));
    let answer = |question: &str, value| Event::Answered {
        inquiry: inquiry.clone(),
        question: question.to_owned(),
        value,
        by: AnsweredBy::User,
        remember: false,
        note: None,
    };
    match (n - 1) % EVENTS_PER_INQUIRY {
        0 => Event::Requested(Request {
            inquiry: inquiry.clone(),
            form: d30_form(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
        1 => answer("apply", json!(true)),
        2 => answer(
            "env",
            json!(if k.is_multiple_of(2) {
                "staging"
            } else {
                "production"
            }),
        ),
        _ => answer("note", json!(format!("run {k}"))),
    }
}

/// Events `first..first + count` of the script.
pub fn scripted_events(first: Seq, count: u64) -> impl Iterator<Item = Event> {
    (first..first + count).map(scripted_event)
}

/// Copies the directory `from` (a database, a fixture) to `to`, recursively, for a
/// test to damage or open a copy and leave the original as it was.
///
/// # Errors
/// When a file cannot be read or written.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
