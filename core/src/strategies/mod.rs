//! Proptest strategies for property-testing form flows (feature `proptest`).
//!
//! - [`Scenario`]: your own inquiry ids, [`Policy`](crate::Policy), origin and forms; its
//!   [`inputs`](Scenario::inputs) are what a host and a person might do over
//!   them, as [`Input`](crate::Input)s of every kind, made against the state as it evolves so
//!   that most target what is current (see [`Scenario`] for the mix).
//!   [`arb_moves`] and [`Scenario::play`] are the two halves, for a fuzz target.
//! - [`arb_form`]: arbitrary *valid* forms (every answer type, options with
//!   descriptions, "Other", defaults, and `when` predicates of every operator over
//!   earlier questions).
//! - [`arb_invalid_form`]: a valid form broken by one known mutation.
//! - [`arb_steps`] and [`session_events`], [`arb_events_for`], [`arb_session`]:
//!   [`Event`](crate::Event) sequences for one inquiry (id `"inquiry"`, a one-minute timeout),
//!   for tests of the engine's deciding and applying themselves, judged with
//!   [`decide_event`] and [`reduce_event`] (helpers for those tests only: a host
//!   decides an [`Input`](crate::Input) with [`State::decide`](crate::State::decide)).
//!
//! Property-testing your own host: give a [`Scenario`] your ids, policy and form,
//! run each generated input as your host does (decide, record, apply), and assert
//! what must hold whatever a person does. Here: `env` is only ever sent after a
//! yes to `apply`, and replaying the recorded events gives the same state and
//! the same commands.
//!
//! ```
//! use askuser_core::strategies::Scenario;
//! use askuser_core::{Command, OnTimeout, Policy, State, Timeout, parse_form};
//! use proptest::prelude::*;
//! use serde_json::{Value, json};
//!
//! let form = parse_form(&json!({"questions": [
//!     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
//!     {"id": "env", "text": "Which environment?", "answer_type": "select",
//!      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
//! ]})).unwrap();
//! // Your policy: 30 seconds to answer, then the defaults; your label.
//! let policy = Policy {
//!     label: Some("Deploy bot".into()),
//!     timeout: Some(Timeout { after_ms: 30_000, on_timeout: OnTimeout::Defaults }),
//!     ..Policy::default()
//! };
//! let scenario = Scenario::new(["deploy-1", "deploy-2"], policy)
//!     .with_forms([form.form().clone()]);
//!
//! proptest!(ProptestConfig::with_cases(64), |(inputs in scenario.inputs(30))| {
//!     let (mut state, mut log, mut commands) = (State::new(), Vec::new(), Vec::new());
//!     for input in &inputs {
//!         prop_assert!(["deploy-1", "deploy-2"].contains(&input.inquiry().unwrap().as_str()));
//!         // Decide, append to your log, apply. A refused input (a stale page, a
//!         // late answer, a reused id) records nothing and changes nothing.
//!         if let Ok(decision) = state.decide(input) {
//!             log.extend_from_slice(decision.events());
//!             state.apply_decision(decision, &mut commands);
//!         }
//!     }
//!     for command in &commands {
//!         if let Command::Respond { outcome, .. } = command {
//!             let production = outcome.get("env") == Some(json!("production"));
//!             prop_assert!(!production || outcome.get("apply") == Some(Value::Bool(true)));
//!         }
//!     }
//!     // What replay runs: the recorded events, applied without deciding again.
//!     let (mut replayed, mut again) = (State::new(), Vec::new());
//!     for event in &log {
//!         replayed.apply(event, &mut again);
//!     }
//!     prop_assert_eq!(replayed, state);
//!     prop_assert_eq!(again, commands);
//! });
//! ```

mod events;
mod forms;
mod scenario;

pub use events::{
    Step, arb_events_for, arb_session, arb_steps, decide_event, reduce_event, session_events,
};
pub use forms::{Breakage, arb_form, arb_form_of, arb_invalid_form, invalid_answer, sample_answer};
pub use scenario::{Action, Move, Scenario, arb_moves};
