//! What a client did that is not the person's choice ([`Event::ClientNoted`]):
//! noted on an open inquiry and changing nothing of it, so the questions stay
//! answerable from every other surface; refused once the inquiry is finished.

use askuser_core::strategies::reduce_event;
use askuser_core::{
    AnswerInput, ClientNote, Command, Event, FormAction, Input, InquiryId, Origin, Policy, Refusal,
    Request, State, parse_form, reduce,
};
use serde_json::json;

fn asked() -> State {
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))
    .unwrap();
    let mut state = State::new();
    reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("call-1"),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: Origin::default(),
            call: None,
        }),
    )
    .unwrap();
    state
}

fn noted(note: ClientNote) -> Input {
    Input::NoteClient {
        inquiry: "call-1".into(),
        note,
    }
}

#[test]
fn a_note_changes_nothing_and_the_question_stays_answerable() {
    let mut state = asked();
    let before = state.clone();
    let note = ClientNote::NoPerson {
        action: FormAction::Cancel,
        after_ms: 18,
    };
    let decision = state.decide(&noted(note.clone())).unwrap();
    assert_eq!(
        decision.events(),
        [Event::ClientNoted {
            inquiry: "call-1".into(),
            note
        }]
    );
    let mut commands = Vec::new();
    state.apply_decision(decision, &mut commands);
    assert_eq!(commands, []);
    assert_eq!(state, before);
    let at = state.at(&"call-1".into()).unwrap();
    let done = reduce(
        &mut state,
        &Input::Answer(AnswerInput::new(at, json!(true))),
    )
    .unwrap();
    assert!(
        matches!(done.last(), Some(Command::Respond { .. })),
        "{done:?}"
    );
}

#[test]
fn a_note_on_a_finished_inquiry_is_refused_and_each_note_reads_back() {
    let mut state = asked();
    let at = state.at(&"call-1".into()).unwrap();
    reduce(
        &mut state,
        &Input::Answer(AnswerInput::new(at, json!(true))),
    )
    .unwrap();
    assert_eq!(
        state.decide(&noted(ClientNote::CannotShow)).unwrap_err(),
        Refusal::InquiryFinished {
            inquiry: "call-1".into(),
            ended: Some(askuser_core::Ending::Answered),
        }
    );
    for (note, json) in [
        (ClientNote::NoForms, json!({"kind": "no_forms"})),
        (ClientNote::CannotShow, json!({"kind": "cannot_show"})),
        (
            ClientNote::Headless {
                mode: "claude -p".into(),
            },
            json!({"kind": "headless", "mode": "claude -p"}),
        ),
        (
            ClientNote::NoPerson {
                action: FormAction::Decline,
                after_ms: 1,
            },
            json!({"kind": "no_person", "action": "decline", "after_ms": 1}),
        ),
        (
            ClientNote::Late {
                timeout_ms: 60_000,
                after_ms: 61_250,
            },
            json!({"kind": "late", "timeout_ms": 60_000, "after_ms": 61_250}),
        ),
    ] {
        let event = Event::ClientNoted {
            inquiry: "call-1".into(),
            note,
        };
        let written = serde_json::to_value(&event).unwrap();
        assert_eq!(
            written,
            json!({"client_noted": {"inquiry": "call-1", "note": json}})
        );
        assert_eq!(serde_json::from_value::<Event>(written).unwrap(), event);
        // Applying a note of a finished inquiry (a replay) changes nothing.
        let before = state.clone();
        let _ = reduce_event(&mut state, &event);
        assert_eq!(state, before);
    }
}
