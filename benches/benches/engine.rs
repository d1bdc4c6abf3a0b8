//! Engine benchmarks: the shared walk through the reducer, form validation, and a
//! dialect's parse + render. Figures and the command are in benches/README.md.
//!
//! Run: `cargo bench -p askuser-benches --bench engine`

use std::hint::black_box;

use askuser_benches::{form_arguments, walk_events};
use askuser_core::{AnswerInput, Command, Input, InquiryId, State, parse_form};
use askuser_dialects::Dialect;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

fn walk(c: &mut Criterion) {
    let events = walk_events();
    let mut group = c.benchmark_group("reducer");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function("walk (Requested + 12 events)", |b| {
        let mut out: Vec<Command> = Vec::with_capacity(4);
        b.iter_batched(
            State::new,
            |mut state| {
                for event in &events {
                    out.clear();
                    state.apply(black_box(event), &mut out);
                }
                assert!(matches!(out.as_slice(), [Command::Respond { .. }]));
                state
            },
            BatchSize::SmallInput,
        );
    });
    // The 12 events after the request: the per-event cost without validation.
    let (request, answers) = events.split_first().expect("a request");
    group.throughput(Throughput::Elements(answers.len() as u64));
    group.bench_function("walk without the request (12 events)", |b| {
        let mut out: Vec<Command> = Vec::with_capacity(4);
        b.iter_batched(
            || {
                let mut state = State::new();
                state.apply(request, &mut Vec::new());
                state
            },
            |mut state| {
                for event in answers {
                    out.clear();
                    state.apply(black_box(event), &mut out);
                }
                state
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn claude_call() -> Value {
    json!({"questions": [
        {"question": "Which database should the service use?", "header": "Database", "multiSelect": false,
         "options": [{"label": "PostgreSQL", "description": "Relational, the team's default"},
                     {"label": "SQLite", "description": "Embedded, no server"},
                     {"label": "DynamoDB", "description": "Managed key-value"}]},
        {"question": "Which features do you want?", "header": "Features", "multiSelect": true,
         "options": [{"label": "Auth"}, {"label": "API"}, {"label": "Admin"}, {"label": "Metrics"}]},
        {"question": "How many replicas?", "header": "Replicas",
         "options": [{"label": "1"}, {"label": "3"}, {"label": "5"}]},
        {"question": "Deploy now?", "header": "Deploy",
         "options": [{"label": "Yes", "description": "Deploy after the migration"}, {"label": "No"}]}
    ]})
}

fn validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("validation");
    let arguments = form_arguments();
    group.bench_function("jp-form: the 10-question bench form", |b| {
        b.iter(|| parse_form(black_box(&arguments)).expect("valid"));
    });
    let claude = claude_call();
    group.bench_function("claude: a 4-question call", |b| {
        b.iter(|| Dialect::Claude.parse(black_box(&claude)).expect("valid"));
    });
    group.finish();
}

fn dialect_round_trip(c: &mut Criterion) {
    let claude = claude_call();
    let call = Dialect::Claude.parse(&claude).expect("valid");
    let inquiry = InquiryId::new("bench");
    let mut state = State::new();
    let mut commands = askuser_core::reduce(&mut state, &Input::Ask(call.request(inquiry.clone())))
        .expect("a new inquiry");
    for (question, value) in [
        ("q1", json!("PostgreSQL")),
        ("q2", json!(["Auth", "Metrics"])),
        ("q3", json!("3")),
        ("q4", json!("Yes")),
    ] {
        let shown = state.at(&inquiry).expect("the walk is open");
        assert_eq!(shown.question.as_deref(), Some(question));
        commands = askuser_core::reduce(&mut state, &AnswerInput::new(shown, value).into())
            .expect("the question being asked");
    }
    let Some(Command::Respond { outcome, .. }) = commands.first() else {
        panic!("the claude walk completes: {commands:?}");
    };
    let mut group = c.benchmark_group("dialect");
    group.bench_function("claude: parse + render", |b| {
        b.iter(|| {
            let call = Dialect::Claude.parse(black_box(&claude)).expect("valid");
            call.render(black_box(outcome))
        });
    });
    group.bench_function("claude: render", |b| {
        b.iter(|| call.render(black_box(outcome)));
    });
    group.finish();
}

criterion_group!(benches, walk, validation, dialect_round_trip);
criterion_main!(benches);
