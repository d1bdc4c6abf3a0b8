//! The input strategies ([`Scenario`]) with a host's own policy and ids: every
//! input is accepted or refused with the state unchanged, a replay of what was
//! recorded gives the same state and commands, and the inputs mostly target what
//! is current.

use std::collections::BTreeSet;

use askuser_core::strategies::{Scenario, arb_form_of};
use askuser_core::{
    Command, Event, Input, InquiryId, OnTimeout, Origin, Persistence, Policy, State, Target,
    Timeout, parse_form,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::json;

/// A host's own policy: remembered answers, a 30 s timeout filling in defaults,
/// its own label.
fn deploy_policy() -> Policy {
    Policy {
        persistence: Persistence::Turn,
        label: Some("Deploy bot".into()),
        timeout: Some(Timeout {
            after_ms: 30_000,
            on_timeout: OnTimeout::Defaults,
        }),
        ..Policy::default()
    }
}

const IDS: [&str; 3] = ["deploy-7f3a", "deploy-7f3b", "deploy-7f3c"];

fn deploy_scenario() -> Scenario {
    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "window", "text": "When?", "answer_type": "text", "default": "tonight"},
    ]}))
    .unwrap();
    Scenario::new(IDS, deploy_policy())
        .with_forms([form.form().clone()])
        .with_origin(Origin {
            turn: "turn-1".into(),
            resumes: true,
            ..Origin::default()
        })
}

/// Runs `inputs` through the engine as a host that records does; returns the
/// events recorded, the commands, and the state.
fn run(inputs: &[Input]) -> Result<(Vec<Event>, Vec<Command>, State), TestCaseError> {
    let mut state = State::new();
    let (mut log, mut commands) = (Vec::new(), Vec::new());
    for input in inputs {
        let before = state.clone();
        if let Ok(decision) = state.decide(input) {
            prop_assert!(!decision.events().is_empty());
            log.extend(decision.events().iter().cloned());
            state.apply_decision(decision, &mut commands);
        } else {
            // Refused: reduce must agree, and change nothing.
            prop_assert!(askuser_core::reduce(&mut state, input).is_err());
            prop_assert_eq!(&state, &before, "a refused input changed the state");
        }
    }
    Ok((log, commands, state))
}

fn replay(log: &[Event]) -> (Vec<Command>, State) {
    let mut state = State::new();
    let mut commands = Vec::new();
    for event in log {
        state.apply(event, &mut commands);
    }
    (commands, state)
}

/// Replays `log` twice, each event recorded a second after the one before it:
/// applying it, and for the state alone ([`State::replay_at`], which builds no
/// prompt). The states must agree.
fn replayed_for_the_state_alone_agrees(log: &[Event]) -> Result<(), TestCaseError> {
    let (mut applied, mut alone) = (State::new(), State::new());
    let mut commands = Vec::new();
    for (at, event) in (1_000_u64..).step_by(1_000).zip(log) {
        applied.apply_at(event, at, &mut commands);
        alone.replay_at(event, at);
        prop_assert_eq!(&alone, &applied, "after {:?}", event);
    }
    Ok(())
}

/// Runs `inputs` twice: as their asker, handing each result over in the
/// decision that finishes its inquiry ([`State::decide_handing_over`]), and as
/// a host that hands it over after ([`Input::Deliver`] once owed). The states
/// and the commands must agree, and every handing over must be exactly the
/// owed result's.
fn hand_over_twice(inputs: &[Input]) -> Result<(), TestCaseError> {
    let (mut asker, mut host) = (State::new(), State::new());
    let (mut asker_commands, mut host_commands) = (Vec::new(), Vec::new());
    for input in inputs {
        let (Ok(both), Ok(alone)) = (asker.decide_handing_over(input), host.decide(input)) else {
            prop_assert!(asker.decide_handing_over(input).is_err(), "{input:?}");
            prop_assert!(host.decide(input).is_err(), "{input:?}");
            continue;
        };
        prop_assert_eq!(&both.events()[..alone.events().len()], alone.events());
        prop_assert_eq!(both.event(), alone.event());
        let hands_over = both.hands_over();
        asker.apply_decision(both, &mut asker_commands);
        host.apply_decision(alone, &mut host_commands);
        let owed: Vec<InquiryId> = host.owed().map(|(id, _)| id.clone()).collect();
        prop_assert_eq!(
            hands_over,
            input.inquiry().is_some_and(|id| owed.contains(id))
        );
        if let Some(id) = input.inquiry().filter(|id| owed.contains(id)) {
            let deliver = Input::Deliver {
                inquiry: id.clone(),
            };
            askuser_core::reduce(&mut host, &deliver)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert_eq!(&asker, &host);
    }
    prop_assert_eq!(asker_commands, host_commands);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_hosts_own_inquiries_replay_to_the_same_state_and_commands(
        inputs in deploy_scenario().inputs(40)
    ) {
        let (log, commands, state) = run(&inputs)?;
        let (replayed_commands, replayed) = replay(&log);
        prop_assert_eq!(replayed_commands, commands);
        prop_assert_eq!(replayed, state);
        replayed_for_the_state_alone_agrees(&log)?;
        let ids: BTreeSet<&str> = IDS.into_iter().collect();
        for input in &inputs {
            prop_assert!(input.inquiry().is_some_and(|id| ids.contains(id.as_str())), "{input:?}");
            if let Input::Ask(request) = input {
                prop_assert_eq!(&request.policy, &deploy_policy());
            }
        }
    }

    #[test]
    fn the_asker_handing_results_over_reaches_what_deciding_then_delivering_does(
        inputs in deploy_scenario().inputs(40)
    ) {
        hand_over_twice(&inputs)?;
    }

    #[test]
    fn arbitrary_forms_and_an_assistant_policy_replay_too(
        inputs in Scenario::new(["a", "b"], Policy {
            target: Target::Assistant,
            exclusive: false,
            ..Policy::default()
        }).inputs(30)
    ) {
        let (log, commands, state) = run(&inputs)?;
        let (replayed_commands, replayed) = replay(&log);
        prop_assert_eq!(replayed_commands, commands);
        prop_assert_eq!(replayed, state);
        replayed_for_the_state_alone_agrees(&log)?;
    }
}

/// What the inputs of `scenario` did over `cases` generated sequences.
#[derive(Debug, Default)]
struct Tally {
    inputs: usize,
    accepted: usize,
    after_finish: usize,
    kinds: BTreeSet<&'static str>,
    events: BTreeSet<&'static str>,
    refusals: BTreeSet<String>,
}

fn kind(input: &Input) -> &'static str {
    match input {
        Input::Ask(_) => "ask",
        Input::RejectCall { .. } => "reject_call",
        Input::Answer(_) => "answer",
        Input::AnswerAhead { .. } => "answer_ahead",
        Input::Show { .. } => "show",
        Input::NoteClient { .. } => "note_client",
        Input::Back(_) => "back",
        Input::Reply { .. } => "reply",
        Input::Cancel { .. } => "cancel",
        Input::EndTurn { .. } => "end_turn",
        Input::TimeOut { .. } => "time_out",
        Input::WantReview { .. } => "want_review",
        Input::Submit(_) => "submit",
        Input::Change { .. } => "change",
        Input::Deliver { .. } => "deliver",
        Input::Attach(_) => "attach",
        Input::Detach(_) => "detach",
    }
}

fn event_kind(event: &Event) -> &'static str {
    match event {
        Event::Requested(_) => "requested",
        Event::Rejected { .. } => "rejected",
        Event::Denied { .. } => "denied",
        Event::Answered { .. } => "answered",
        Event::AnsweredAhead { .. } => "answered_ahead",
        Event::Shown { .. } => "shown",
        Event::AnswerRefused { .. } => "answer_refused",
        Event::Back { .. } => "back",
        Event::Cancelled { .. } => "cancelled",
        Event::TurnEnded { .. } => "turn_ended",
        Event::TimedOut { .. } => "timed_out",
        Event::ReviewWanted { .. } => "review_wanted",
        Event::Submitted { .. } => "submitted",
        Event::ChangeWanted { .. } => "change_wanted",
        Event::Attached { .. } => "attached",
        Event::Detached { .. } => "detached",
        Event::Delivered { .. } => "delivered",
        Event::ClientNoted { .. } => "client_noted",
    }
}

fn tally(sequences: impl Strategy<Value = Vec<Input>>, cases: usize) -> Tally {
    let mut runner = TestRunner::deterministic();
    let mut tally = Tally::default();
    for _ in 0..cases {
        let inputs = sequences.new_tree(&mut runner).unwrap().current();
        let mut state = State::new();
        for input in &inputs {
            let id: &InquiryId = input
                .inquiry()
                .expect("a scenario's inputs name an inquiry");
            tally.inputs += 1;
            tally.kinds.insert(kind(input));
            // A result handed over comes after its inquiry finished by design.
            let late = !matches!(input, Input::Deliver { .. });
            if late && state.was_requested(id) && state.at(id).is_none() {
                tally.after_finish += 1;
            }
            match state.decide(input) {
                Ok(decision) => {
                    tally.accepted += 1;
                    tally
                        .events
                        .extend(decision.events().iter().map(event_kind));
                    state.apply_decision(decision, &mut Vec::new());
                }
                Err(refusal) => {
                    let debug = format!("{refusal:?}");
                    let variant = debug.split([' ', '(']).next().unwrap_or_default();
                    tally.refusals.insert(variant.to_owned());
                }
            }
        }
    }
    tally
}

fn percent(part: usize, whole: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let share = 100.0 * part as f64 / whole as f64;
    share
}

/// The share of inputs that arrive after their inquiry finished, measured over
/// 2,000 sequences each: 73 % (`arb_events_for`, 20 steps) and 81 %
/// (`arb_session`, 40 steps) for the event strategies, under 10 % here.
#[test]
fn most_inputs_target_what_is_current_and_every_kind_is_generated() {
    let every_input = [
        "answer",
        "answer_ahead",
        "ask",
        "back",
        "cancel",
        "change",
        "deliver",
        "end_turn",
        "note_client",
        "reject_call",
        "reply",
        "show",
        "submit",
        "time_out",
        "want_review",
    ];
    let every_event = [
        "answer_refused",
        "answered",
        "answered_ahead",
        "back",
        "cancelled",
        "change_wanted",
        "client_noted",
        "delivered",
        "rejected",
        "requested",
        "review_wanted",
        "shown",
        "submitted",
        "timed_out",
        "turn_ended",
    ];
    let deploy = tally(deploy_scenario().inputs(40), 1_000);
    let arbitrary = tally(Scenario::new(["only"], deploy_policy()).inputs(40), 1_000);
    for (name, tally) in [("deploy", &deploy), ("arbitrary forms", &arbitrary)] {
        let late = percent(tally.after_finish, tally.inputs);
        let accepted = percent(tally.accepted, tally.inputs);
        println!(
            "{name}: {} inputs, {late:.1} % after their inquiry finished, {accepted:.1} % accepted",
            tally.inputs
        );
        assert!(late < 10.0, "{name}: {late:.1} % after finish");
        assert!(accepted > 70.0, "{name}: {accepted:.1} % accepted");
        assert_eq!(tally.kinds, every_input.into_iter().collect(), "{name}");
        assert_eq!(tally.events, every_event.into_iter().collect(), "{name}");
        for refusal in [
            "Stale",
            "InquiryFinished",
            "DuplicateInquiry",
            "NothingToGoBackTo",
        ] {
            assert!(
                tally.refusals.contains(refusal),
                "{name}: {:?}",
                tally.refusals
            );
        }
    }
}

/// Without a timeout in the policy no time out is generated; moves are the same
/// function of their seed (the same moves give the same inputs).
#[test]
fn no_time_out_without_a_timeout_and_the_same_moves_give_the_same_inputs() {
    let scenario = Scenario::new(["x", "y"], Policy::default());
    let none = tally(scenario.inputs(40), 500);
    assert!(!none.kinds.contains("time_out"), "{:?}", none.kinds);
    let mut runner = TestRunner::deterministic();
    let form = arb_form_of(4).new_tree(&mut runner).unwrap().current();
    let scenario = scenario.with_forms([form]);
    let moves = askuser_core::strategies::arb_moves(30)
        .new_tree(&mut runner)
        .unwrap()
        .current();
    assert_eq!(scenario.play(&moves), scenario.play(&moves));
}

/// The moves of a short session, made into inputs against what the engine shows:
/// a reviewing surface's answer, a stale page, the submit of the review, a late
/// submit from a surface that lost the race, then the next inquiry, timed out.
#[test]
fn moves_become_inputs_on_what_each_inquiry_shows() {
    use askuser_core::strategies::{Action, Move};
    use askuser_core::{AnswerInput, At};

    let form = parse_form(&json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
    ]}))
    .unwrap();
    let policy = Policy {
        timeout: Some(Timeout {
            after_ms: 1_000,
            on_timeout: OnTimeout::Cancel,
        }),
        ..Policy::default()
    };
    let scenario = Scenario::new(["a", "b"], policy).with_forms([form.form().clone()]);
    let step = |action, seed| Move { action, seed };
    let inputs = scenario.play(&[
        step(Action::Answer, 1),
        step(Action::Submit, 1),
        step(Action::Stale, 0),
        step(Action::Answer, 1),
        step(Action::Submit, 0),
        step(Action::Late, 1),
        step(Action::TimeOut, 3),
        step(Action::TimeOut, 3),
    ]);
    let (a, b) = (InquiryId::new("a"), InquiryId::new("b"));
    let ask = |id: &InquiryId| match &inputs[..] {
        [Input::Ask(request), ..] => Input::Ask(askuser_core::Request {
            inquiry: id.clone(),
            ..request.clone()
        }),
        _ => panic!("the first input asks"),
    };
    let expected = vec![
        ask(&a),
        AnswerInput::new(At::question(a.clone(), "apply", 0), json!(false))
            .reviewed()
            .into(),
        AnswerInput::new(At::question(a.clone(), "apply", 0), json!(true)).into(),
        AnswerInput::new(At::question(a.clone(), "env", 2), json!("production")).into(),
        Input::Submit(At::review(a.clone(), 3)),
        Input::Submit(At::review(a.clone(), 3)),
        ask(&b),
        Input::TimeOut {
            inquiry: b,
            message: None,
            fired_at_ms: 0,
        },
    ];
    assert_eq!(inputs, expected);
    let mut state = State::new();
    let refused: Vec<usize> = (0..inputs.len())
        .filter(|&index| askuser_core::reduce(&mut state, &inputs[index]).is_err())
        .collect();
    assert_eq!(refused, [2, 5], "the stale answer and the late submit");
}
