//! Property tests of the reducer's invariants over arbitrary forms and event sequences.

use askuser_core::strategies::{arb_form, arb_invalid_form, arb_session, sample_answer};
use askuser_core::strategies::{decide_event, reduce_event};
use askuser_core::{Answer, Command, Event, State, validate};
use proptest::prelude::*;

/// Applies every event, checking the invariants after each; returns all commands.
fn run_checked(events: &[Event]) -> Result<(State, Vec<Vec<Command>>), TestCaseError> {
    let mut state = State::new();
    let mut all = Vec::new();
    for event in events {
        let before = state.clone();
        let Ok(commands) = reduce_event(&mut state, event) else {
            prop_assert_eq!(&before, &state, "a refused input changed the state");
            continue;
        };
        prop_assert!(
            !commands.is_empty(),
            "every accepted input yields a command: {event:?}"
        );
        if let ([Command::InvalidAnswer { .. }, _], Some(inquiry)) =
            (commands.as_slice(), event.inquiry())
        {
            prop_assert_eq!(
                before.answers(inquiry),
                state.answers(inquiry),
                "a refused answer recorded an answer"
            );
        }
        for command in &commands {
            if let Command::Respond { outcome, .. } = command {
                let map = outcome.to_map();
                let ids: Vec<&str> = map.keys().map(String::as_str).collect();
                let expected: Vec<&str> = outcome
                    .form
                    .questions()
                    .iter()
                    .map(|q| q.id.as_str())
                    .collect();
                prop_assert_eq!(ids, expected, "the outcome names every question, in order");
                let answers: Vec<Option<Answer>> = outcome
                    .answers
                    .iter()
                    .map(|s| s.as_ref().map(|s| s.answer.clone()))
                    .collect();
                for (index, slot) in answers.iter().enumerate() {
                    if slot.is_some() {
                        prop_assert!(
                            outcome.form.is_asked(index, &answers),
                            "answer {index} to a hidden question"
                        );
                    }
                }
            }
        }
        for inquiry in state.open_inquiries() {
            let form = state.form(inquiry).expect("open inquiries have a form");
            let slots = state.answers(inquiry).expect("open inquiries have answers");
            let answers: Vec<Option<Answer>> = slots
                .iter()
                .map(|s| s.as_ref().map(|s| s.answer.clone()))
                .collect();
            let Some(Command::Prompt(prompt)) = state.pending(inquiry) else {
                return Err(TestCaseError::fail(
                    "an open inquiry under the default policy waits on a prompt",
                ));
            };
            prop_assert!(
                answers[prompt.index..].iter().all(Option::is_none),
                "an answer at or after the current question"
            );
            for (index, answer) in answers.iter().enumerate() {
                if answer.is_some() {
                    prop_assert!(
                        form.is_asked(index, &answers),
                        "answer {index} to a hidden question"
                    );
                }
            }
        }
        all.push(commands);
    }
    Ok((state, all))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn invariants_hold_and_replay_is_exact((_form, events) in arb_session()) {
        let (first_state, first_commands) = run_checked(&events)?;
        let (second_state, second_commands) = run_checked(&events)?;
        prop_assert_eq!(first_state, second_state);
        prop_assert_eq!(first_commands, second_commands);
    }

    #[test]
    fn replaying_the_recorded_events_gives_what_the_live_run_gave((_form, events) in arb_session()) {
        // Live: decide each input, record the decision's event, apply it.
        let mut live = State::new();
        let mut recorded = Vec::new();
        let mut live_commands = Vec::new();
        for input in &events {
            let Ok(decision) = decide_event(&live, input) else { continue };
            recorded.push(decision.event().clone());
            let mut out = Vec::new();
            live.apply_decision(decision, &mut out);
            live_commands.push(out);
        }
        // Replay: apply alone, never deciding (no validation, no schema).
        let mut replayed = State::new();
        let mut replay_commands = Vec::new();
        for event in &recorded {
            let mut out = Vec::new();
            replayed.apply(event, &mut out);
            replay_commands.push(out);
        }
        prop_assert_eq!(live, replayed);
        prop_assert_eq!(live_commands, replay_commands);
    }

    #[test]
    fn a_state_survives_serialization((_form, events) in arb_session()) {
        let (state, _) = run_checked(&events)?;
        let json = serde_json::to_string(&state).expect("a state serializes");
        let back: State = serde_json::from_str(&json).expect("a serialized state reads back");
        prop_assert_eq!(back, state);
    }

    #[test]
    fn every_valid_form_is_accepted(form in arb_form()) {
        let valid = validate(form.clone());
        prop_assert!(valid.is_ok(), "{:?}", valid.err());
        let valid = valid.unwrap();
        for (index, question) in form.questions.iter().enumerate() {
            for seed in 0..8 {
                let value = sample_answer(question, seed);
                let answer = valid.check(index, &value);
                prop_assert!(answer.is_ok(), "sample answer {value} to {question:?}: {answer:?}");
                prop_assert_eq!(answer.unwrap().to_value(question), value);
            }
        }
    }

    #[test]
    fn every_broken_form_is_rejected((form, breakage) in arb_invalid_form()) {
        prop_assert!(validate(form).is_err(), "{breakage:?} was accepted");
    }
}
