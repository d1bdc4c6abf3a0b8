//! The session driver's cost per input with 1 and with 10,000 inquiries open: it
//! must not depend on how many are open (issue 9; the old journal cloned the whole
//! state per input, 0.9 ms with few open and 17 ms with 6,000).
//!
//! Each iteration hands the driver two inputs: a new request (a two-question form)
//! and the answer that finishes it, over an in-memory log (the log's own cost is
//! measured in `benches/store.rs`), and once over sled with buffered durability.
//!
//! Run: `cargo bench -p askuser-benches --bench session`. Figures: `benches/README.md`.

use std::sync::Arc;

use askuser_core::{AnswerInput, At, Form, Input, InquiryId, parse_form};
use askuser_sled::SledLog;
use askuser_store::{Durability, Log, MemLog, Session};
use askuser_testkit::build::ask;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

fn form() -> Arc<Form> {
    parse_form(&json!({"questions": [
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"]},
        {"id": "ok", "text": "Proceed?", "answer_type": "boolean",
         "when": {"question_id": "env", "equals": "production"}}
    ]}))
    .expect("the benchmark form is valid")
    .form()
    .clone()
}

fn request(form: &Arc<Form>, id: &str) -> Input {
    ask(id, Arc::clone(form))
}

/// The answer to a new inquiry's first question (`env`, shown at step 0).
fn answer(id: &str) -> Input {
    AnswerInput::new(At::question(InquiryId::new(id), "env", 0), json!("staging")).into()
}

/// A session on `log` with `open` inquiries waiting for a person.
fn session_with_open(log: Arc<dyn Log>, form: &Arc<Form>, open: usize) -> Session {
    let mut session = Session::open(log, "bench").expect("open the session");
    for n in 0..open {
        session
            .handle(&request(form, &format!("open-{n}")))
            .expect("request");
    }
    session
}

fn drive(c: &mut Criterion) {
    let form = form();
    let mut group = c.benchmark_group("session");
    group.throughput(Throughput::Elements(2));
    for open in [1, 10_000] {
        for backend in ["memory", "sled"] {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let log: Arc<dyn Log> = match backend {
                "memory" => Arc::new(MemLog::new()),
                _ => Arc::new(
                    SledLog::open(dir.path().join("db"))
                        .expect("open sled")
                        .with_durability(Durability::Buffered),
                ),
            };
            let mut session = session_with_open(log, &form, open);
            let mut next = 0_u64;
            group.bench_function(format!("{backend}/open_{open}"), |b| {
                b.iter(|| {
                    next += 1;
                    let id = format!("bench-{next}");
                    session.handle(&request(&form, &id)).expect("request");
                    session.handle(&answer(&id)).expect("answer");
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, drive);
criterion_main!(benches);
