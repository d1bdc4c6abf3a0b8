//! Who is asking, from where: a process that waits on a stream records its
//! origin ([`Event::Attached`]) and, when it stops cleanly, [`Event::Detached`].
//! Deciding refuses an origin too long or not plain text; applying remembers the
//! latest origin and changes no inquiry; replay gives the same state.

use askuser_core::limits::MAX_ORIGIN_FIELD_BYTES;
use askuser_core::strategies::{decide_event, reduce_event};
use askuser_core::{
    AgentOrigin, AnswerInput, Event, Input, InquiryId, Origin, Policy, Refusal, Request, State,
    parse_form, reduce,
};
use proptest::prelude::*;
use serde_json::json;

fn laptop() -> AgentOrigin {
    AgentOrigin {
        label: Some("Claude (repo: billing-api)".into()),
        host: Some("Claude Code 2.1.3".into()),
        machine: Some("laptop".into()),
        directory: Some("/home/ana/src/billing-api".into()),
        repository: Some("billing-api".into()),
    }
}

fn ask(state: &mut State, id: &str) {
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))
    .unwrap();
    reduce(
        state,
        &Input::Ask(Request {
            inquiry: InquiryId::new(id),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
    )
    .unwrap();
}

#[test]
fn attaching_records_the_origin_and_changes_no_inquiry() {
    let mut state = State::new();
    ask(&mut state, "call-1");
    let before = state.clone();
    let decision = state.decide(&Input::Attach(laptop())).unwrap();
    assert_eq!(decision.events(), [Event::Attached { origin: laptop() }]);
    assert_eq!(decision.event().inquiry(), None);
    let mut commands = Vec::new();
    state.apply_decision(decision, &mut commands);
    assert_eq!(commands, []);
    assert_eq!(state.agent(), Some(&laptop()));
    assert_eq!(
        state.pending(&"call-1".into()),
        before.pending(&"call-1".into())
    );
    assert_eq!(state.open_inquiries().count(), 1);

    // Stopping cleanly keeps whose questions these are.
    let detached = state
        .decide(&Input::Detach(laptop()))
        .unwrap()
        .event()
        .clone();
    assert_eq!(detached, Event::Detached { origin: laptop() });
    assert_eq!(reduce_event(&mut state, &detached).unwrap(), []);
    assert_eq!(state.agent(), Some(&laptop()));
    assert_eq!(laptop().line(), "Claude Code 2.1.3 · billing-api · laptop");
}

#[test]
fn replay_applies_the_latest_origin_and_a_snapshot_keeps_it() {
    let other = AgentOrigin {
        host: Some("gemini".into()),
        ..AgentOrigin::default()
    };
    let events = [
        Event::Attached { origin: laptop() },
        Event::Detached { origin: laptop() },
        Event::Attached {
            origin: other.clone(),
        },
    ];
    let mut state = State::new();
    let mut commands = Vec::new();
    for event in &events {
        state.apply(event, &mut commands);
    }
    assert_eq!(commands, []);
    assert_eq!(state.agent(), Some(&other));
    let snapshot = serde_json::to_string(&state).unwrap();
    let restored: State = serde_json::from_str(&snapshot).unwrap();
    assert_eq!(restored, state);
    // A state written before origins were recorded reads as none.
    let old: State = serde_json::from_str(&serde_json::to_string(&State::new()).unwrap()).unwrap();
    assert_eq!(old.agent(), None);
}

#[test]
fn a_hostile_or_oversized_origin_is_refused_with_the_field_named() {
    let state = State::new();
    let refused = |origin: AgentOrigin| {
        state
            .decide(&Input::Attach(origin))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused(AgentOrigin {
            host: Some("Claude\u{1b}]2;pwned\u{7}".into()),
            ..laptop()
        }),
        "the agent's origin cannot be recorded: its host holds U+001B ESCAPE at character 7; write it as one line of plain text"
    );
    assert_eq!(
        refused(AgentOrigin {
            repository: Some("billing\u{202e}ipa".into()),
            ..laptop()
        }),
        "the agent's origin cannot be recorded: its repository holds U+202E RIGHT-TO-LEFT OVERRIDE at character 8; write it as one line of plain text"
    );
    assert_eq!(
        refused(AgentOrigin {
            directory: Some("/tmp/a\nb".into()),
            ..laptop()
        }),
        "the agent's origin cannot be recorded: its directory holds U+000A LINE FEED at character 7; write it as one line of plain text"
    );
    assert_eq!(
        refused(AgentOrigin {
            machine: Some("m".repeat(MAX_ORIGIN_FIELD_BYTES - 1)),
            ..laptop()
        }),
        "the agent's origin cannot be recorded: its machine is 513 bytes long; at most 512 are kept"
    );
    // Exactly at the limit (quotes included) is kept; a refused Detached too.
    let fits = AgentOrigin {
        machine: Some("m".repeat(MAX_ORIGIN_FIELD_BYTES - 2)),
        ..laptop()
    };
    assert!(state.decide(&Input::Attach(fits.clone())).is_ok());
    let detach = Event::Detached {
        origin: AgentOrigin {
            label: Some("\u{9b}2J".into()),
            ..AgentOrigin::default()
        },
    };
    assert!(matches!(
        decide_event(&state, &detach),
        Err(Refusal::BadOrigin { field, .. }) if field == "label"
    ));
}

fn origin_strategy() -> impl Strategy<Value = AgentOrigin> {
    let field = || proptest::option::of(any::<String>());
    (field(), field(), field(), field(), field()).prop_map(
        |(label, host, machine, directory, repository)| AgentOrigin {
            label,
            host,
            machine,
            directory,
            repository,
        },
    )
}

proptest! {
    /// Any origin: either refused with nothing changed, or recorded, changing no
    /// inquiry, and replayed to the same state; what is recorded is plain text
    /// within the limit.
    #[test]
    fn any_origin_is_refused_or_recorded_and_replays_alike(origin in origin_strategy()) {
        let mut state = State::new();
        ask(&mut state, "call-1");
        let before = state.clone();
        match state.decide(&Input::Attach(origin.clone())) {
            Err(Refusal::BadOrigin { .. }) => {}
            Err(other) => prop_assert!(false, "{other}"),
            Ok(decision) => {
                let event = decision.event().clone();
                let mut commands = Vec::new();
                state.apply_decision(decision, &mut commands);
                prop_assert!(commands.is_empty());
                for (_, text) in origin.fields() {
                    let text = text.unwrap_or_default();
                    prop_assert!(serde_json::to_string(text).unwrap().len() <= MAX_ORIGIN_FIELD_BYTES);
                    prop_assert!(askuser_core::text::forbidden_char(text, askuser_core::text::Lines::One).is_none());
                }
                let mut replayed = before.clone();
                replayed.apply(&event, &mut Vec::new());
                prop_assert_eq!(&replayed, &state);
                prop_assert_eq!(state.agent(), Some(&origin));
                let at = state.at(&"call-1".into()).unwrap();
                prop_assert!(reduce(&mut state, &AnswerInput::new(at, json!(true)).into()).is_ok());
                return Ok(());
            }
        }
        prop_assert_eq!(state, before);
    }
}
