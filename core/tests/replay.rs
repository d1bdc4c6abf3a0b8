//! Replay applies recorded events alone: it never validates a form or consults a
//! JSON Schema, so what a recorded session replays to cannot change with the
//! validator's version.

use std::sync::Arc;

use askuser_core::strategies::decide_event;
use askuser_core::{AnsweredBy, Command, Event, Form, InquiryId, Origin, Policy, Request, State};
use serde_json::json;

#[test]
fn a_recorded_schema_answer_replays_without_the_validator() {
    // A form recorded by a version whose validator took this schema (this one does
    // not compile it: `type` names no JSON type), and an answer it accepted.
    let form: Form = serde_json::from_value(json!({"questions": [
        {"id": "branch", "text": "Which branch?", "answer_type": "schema",
         "schema": {"type": "a-type-this-validator-does-not-know"}}
    ]}))
    .unwrap();
    let id = InquiryId::new("call-1");
    let recorded = [
        Event::Requested(Request {
            inquiry: id.clone(),
            form: Arc::new(form),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
        Event::Answered {
            inquiry: id.clone(),
            question: "branch".into(),
            value: json!("main"),
            by: AnsweredBy::User,
            remember: false,
            note: None,
        },
    ];
    let mut state = State::new();
    let mut out = Vec::new();
    for event in &recorded {
        out.clear();
        state.apply(event, &mut out);
    }
    let [Command::Respond { outcome, .. }] = out.as_slice() else {
        panic!("expected the recorded result, got {out:?}");
    };
    assert_eq!(outcome.to_json(), json!({"branch": "main"}));

    // Deciding the same request today rejects it: the validator is consulted there.
    let mut fresh = State::new();
    let decision = decide_event(&fresh, &recorded[0]).unwrap();
    let Event::Rejected { problems, .. } = decision.event() else {
        panic!("expected a rejection, got {:?}", decision.event());
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, "/questions/0/schema");
    fresh.apply_decision(decision, &mut out);
}
