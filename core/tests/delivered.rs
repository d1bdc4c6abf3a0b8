//! A result kept for an asker that comes back: an inquiry asked by a surface
//! that takes results it missed ([`Origin::resumes`]) is owed once it finishes
//! ([`State::owed`]), until that surface records handing it over
//! ([`Input::Deliver`], recorded as [`Event::Delivered`]); a second handing
//! over, or one of an open inquiry, is refused.

use askuser_core::{
    AnswerInput, Command, Event, Input, InquiryId, Origin, Policy, Refusal, Request, State,
    parse_form, reduce,
};
use serde_json::json;

fn ask(state: &mut State, id: &str, resumes: bool) {
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))
    .unwrap();
    let request = Request {
        inquiry: InquiryId::new(id),
        form: form.form().clone(),
        policy: Policy::default(),
        origin: Origin {
            resumes,
            ..Origin::default()
        },
        call: None,
    };
    reduce(state, &Input::Ask(request)).unwrap();
}

fn answer(state: &mut State, id: &str) -> Vec<Command> {
    let at = state.at(&InquiryId::new(id)).unwrap();
    reduce(state, &AnswerInput::new(at, json!(true)).into()).unwrap()
}

fn owed(state: &State) -> Vec<&str> {
    state.owed().map(|(id, _)| id.as_str()).collect()
}

fn deliver(id: &str) -> Input {
    Input::Deliver {
        inquiry: InquiryId::new(id),
    }
}

#[test]
fn a_finished_result_is_owed_until_handed_over_once() {
    let mut state = State::new();
    ask(&mut state, "c1", true);
    ask(&mut state, "c2", true);
    ask(&mut state, "t1", false);
    assert_eq!(owed(&state), Vec::<&str>::new());
    assert_eq!(
        state.decide(&deliver("c1")).unwrap_err(),
        Refusal::NothingOwed {
            inquiry: "c1".into(),
            why: "it is still open".into()
        }
    );

    answer(&mut state, "c2");
    answer(&mut state, "t1");
    answer(&mut state, "c1");
    // In the order they finished; a terminal's ask (no `resumes`) is not owed.
    assert_eq!(owed(&state), ["c2", "c1"]);
    let result = state.outcome(&"c1".into()).unwrap();
    assert_eq!(result.outcome().unwrap().to_json(), json!({"ok": true}));

    let decision = state.decide(&deliver("c1")).unwrap();
    assert_eq!(
        decision.events(),
        [Event::Delivered {
            inquiry: "c1".into()
        }]
    );
    assert_eq!(decision.event().inquiry(), None);
    assert_eq!(reduce(&mut state, &deliver("c1")).unwrap(), []);
    assert_eq!(owed(&state), ["c2"]);
    // Still finished, with its result, for a late surface.
    assert_eq!(state.finished(&"c1".into()).map(|_| ()), Some(()));

    for (id, why) in [
        (
            "c1",
            "its result was handed over already, or its asker does not take one it missed",
        ),
        (
            "t1",
            "its result was handed over already, or its asker does not take one it missed",
        ),
    ] {
        assert_eq!(
            state.decide(&deliver(id)).unwrap_err(),
            Refusal::NothingOwed {
                inquiry: id.into(),
                why: why.into()
            }
        );
    }
    assert_eq!(
        state.decide(&deliver("nope")).unwrap_err(),
        Refusal::UnknownInquiry {
            inquiry: "nope".into()
        }
    );
}

#[test]
fn what_is_owed_survives_a_snapshot_and_a_replay() {
    let mut state = State::new();
    ask(&mut state, "c1", true);
    ask(&mut state, "c2", true);
    answer(&mut state, "c1");
    answer(&mut state, "c2");
    reduce(&mut state, &deliver("c2")).unwrap();
    let snapshot = serde_json::to_string(&state).unwrap();
    let back: State = serde_json::from_str(&snapshot).unwrap();
    assert_eq!(back, state);
    assert_eq!(owed(&back), ["c1"]);
}
