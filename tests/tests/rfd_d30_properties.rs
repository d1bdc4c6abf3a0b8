//! Property-testing a form flow, as a user of askuser would: RFD D30's migration form
//! driven by arbitrary people (answers, Back, invalid answers, Reply, End Turn), with
//! the guarantees that must hold whatever they do.

use askuser_core::strategies::{arb_events_for, reduce_event};
use askuser_core::{Answer, Command, Form, OutcomeStatus, State, parse_form};
use proptest::prelude::*;
use serde_json::{Value, json};

fn migration_form() -> Form {
    parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]}))
    .expect("RFD D30's form is valid")
    .form()
    .as_ref()
    .clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn whatever_the_person_does_the_result_is_consistent(events in arb_events_for(migration_form(), 24)) {
        let mut state = State::new();
        for event in &events {
            for command in reduce_event(&mut state, event).unwrap_or_default() {
                let Command::Respond { outcome, .. } = command else { continue };
                // Never an answer to a question whose `when` is false.
                let answers: Vec<Option<Answer>> =
                    outcome.answers.iter().map(|s| s.as_ref().map(|s| s.answer.clone())).collect();
                for (index, answer) in answers.iter().enumerate() {
                    prop_assert!(answer.is_none() || outcome.form.is_asked(index, &answers));
                }
                let result = outcome.to_json();
                match outcome.status {
                    // A completed form names every question; env and note are asked exactly
                    // when apply is true.
                    OutcomeStatus::Completed => {
                        let keys: Vec<&str> = result.as_object().unwrap().keys().map(String::as_str).collect();
                        prop_assert_eq!(keys, ["apply", "env", "note"]);
                        let applied = result["apply"] == json!(true);
                        prop_assert_eq!(result["env"] != Value::Null, applied);
                        prop_assert_eq!(result["note"] != Value::Null, applied);
                    }
                    // A Reply carries the cancel marker and only what was answered.
                    OutcomeStatus::Cancelled => {
                        prop_assert_eq!(&result["cancelled"], &json!(true));
                        let answered = result["answered"].as_object().unwrap();
                        prop_assert!(answered.values().all(|v| !v.is_null()));
                        if answered.contains_key("env") || answered.contains_key("note") {
                            prop_assert_eq!(&answered["apply"], &json!(true));
                        }
                    }
                    // A timeout says so, and splits the person's answers from the ones
                    // it filled; none is null.
                    OutcomeStatus::TimedOut { .. } => {
                        prop_assert_eq!(&result["timed_out"], &json!(true));
                        for part in ["answered", "filled_by_timeout"] {
                            let answers = result[part].as_object().unwrap();
                            prop_assert!(answers.values().all(|v| !v.is_null()));
                        }
                    }
                }
            }
        }
    }
}
