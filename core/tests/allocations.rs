//! The hot path allocates nothing: recording a boolean or option answer and emitting
//! the next prompt makes no heap allocation. The answer that completes the form
//! allocates once: the answers, moved into the one shared slice that both the
//! result sent and what the state keeps of it (see `State::outcome`) hold. This file holds one
//! test so that no other test's allocations are counted.

use std::alloc::System;
use std::sync::Arc;

use askuser_core::strategies::decide_event;
use askuser_core::{
    AnsweredBy, Command, Event, InquiryId, Origin, Policy, Request, State, parse_form,
};
use serde_json::Value;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The shared benchmark form and walk (benches/data/form.json).
fn bench_walk(inquiry: &InquiryId) -> Vec<Event> {
    let data: Value = serde_json::from_str(include_str!("../../benches/data/form.json")).unwrap();
    let form = parse_form(&serde_json::json!({"questions": data["questions"]})).unwrap();
    let mut events = vec![Event::Requested(Request {
        inquiry: inquiry.clone(),
        form: Arc::clone(form.form()),
        policy: Policy::default(),
        origin: Origin::default(),
        call: None,
    })];
    for step in data["walk"].as_array().unwrap() {
        events.push(match step[0].as_str().unwrap() {
            "answer" => Event::Answered {
                inquiry: inquiry.clone(),
                question: step[1].as_str().unwrap().to_owned(),
                value: step[2].clone(),
                by: AnsweredBy::User,
                remember: false,
                note: None,
            },
            _ => Event::Back {
                inquiry: inquiry.clone(),
            },
        });
    }
    events
}

#[test]
fn boolean_and_option_answers_allocate_nothing() {
    let mut state = State::new();
    let mut out: Vec<Command> = Vec::with_capacity(4);
    // A first walk warms up the state's map and the output buffer.
    for event in bench_walk(&InquiryId::new("warm-up")) {
        out.clear();
        let decision = decide_event(&state, &event).expect("the walk fits");
        state.apply_decision(decision, &mut out);
    }
    let events = bench_walk(&InquiryId::new("measured"));
    let mut counted = Vec::new();
    let mut text_allocations = 0;
    let mut completing = 0;
    for (index, event) in events.iter().enumerate() {
        out.clear();
        let region = Region::new(GLOBAL);
        // The whole road: deciding, then applying.
        let decision = decide_event(&state, event).expect("the walk fits");
        state.apply_decision(decision, &mut out);
        let allocations = region.change().allocations + region.change().reallocations;
        if let Event::Answered {
            question, value, ..
        } = event
        {
            let is_text = ["note", "name"].contains(&question.as_str());
            if index == events.len() - 1 {
                completing = allocations;
            } else if is_text {
                text_allocations += allocations;
            } else {
                counted.push((question.clone(), value.clone(), allocations));
            }
        }
    }
    assert!(
        matches!(out.as_slice(), [Command::Respond { .. }]),
        "the walk completes: {out:?}"
    );
    let allocating: Vec<_> = counted.iter().filter(|(_, _, n)| *n > 0).collect();
    assert_eq!(
        allocating,
        Vec::<&(String, Value, usize)>::new(),
        "answers that allocated"
    );
    assert_eq!(
        counted.len(),
        8,
        "every boolean, select and multi-select answer but the last was measured"
    );
    // The shared slice of the answers (nothing is copied for the state's record).
    assert!(
        completing <= 1,
        "the completing answer allocated {completing} times"
    );
    assert!(
        text_allocations >= 2,
        "the counter sees the text answers' copies"
    );
}
