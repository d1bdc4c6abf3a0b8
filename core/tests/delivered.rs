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

/// The ask of `id`, a form of `questions`, from an asker that takes results
/// it missed (`resumes`) or not.
fn asking(id: &str, questions: &serde_json::Value, resumes: bool) -> Input {
    let form = parse_form(&json!({ "questions": questions })).unwrap();
    Input::Ask(Request {
        inquiry: InquiryId::new(id),
        form: form.form().clone(),
        policy: Policy::default(),
        origin: Origin {
            resumes,
            ..Origin::default()
        },
        call: None,
    })
}

fn yes_or_no() -> serde_json::Value {
    json!([{"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}])
}

fn ask(state: &mut State, id: &str, resumes: bool) {
    reduce(state, &asking(id, &yes_or_no(), resumes)).unwrap();
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

/// The asker's own input, decided with the result handed over when it finishes
/// (`State::decide_handing_over`), applied.
fn as_asker(state: &mut State, input: &Input) -> (Vec<Event>, Vec<Command>) {
    let decision = state.decide_handing_over(input).unwrap();
    let events = decision.events().to_vec();
    let mut commands = Vec::new();
    state.apply_decision(decision, &mut commands);
    (events, commands)
}

fn answered(id: &str, question: &str, value: serde_json::Value) -> Event {
    Event::Answered {
        inquiry: id.into(),
        question: question.into(),
        value,
        by: askuser_core::AnsweredBy::User,
        remember: false,
        note: None,
    }
}

#[test]
fn the_asker_hands_over_the_result_in_the_decision_that_finishes_the_inquiry() {
    let questions = json!([
        {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"},
        {"id": "why", "text": "Why?", "answer_type": "text"}]);
    let mut state = State::new();
    let (events, _) = as_asker(&mut state, &asking("c1", &questions, true));
    assert_eq!(events.len(), 1, "a request finishes nothing: {events:?}");
    let mut plain = state.clone();

    // The first answer leaves the inquiry open: nothing to hand over.
    let first: Input = AnswerInput::new(state.at(&"c1".into()).unwrap(), json!(true)).into();
    let decision = state.decide_handing_over(&first).unwrap();
    assert!(!decision.hands_over());
    assert_eq!(decision.events(), [answered("c1", "ok", json!(true))]);
    let (_, commands) = as_asker(&mut state, &first);
    assert_eq!(commands, reduce(&mut plain, &first).unwrap());

    // The last one finishes it: the answer, then the result handed over, in one
    // decision; the same result as the answer alone gives.
    let last: Input = AnswerInput::new(state.at(&"c1".into()).unwrap(), json!("tests pass")).into();
    let decision = state.decide_handing_over(&last).unwrap();
    assert!(decision.hands_over());
    assert_eq!(
        decision.event(),
        &answered("c1", "why", json!("tests pass"))
    );
    let (events, commands) = as_asker(&mut state, &last);
    assert_eq!(
        events,
        [
            answered("c1", "why", json!("tests pass")),
            Event::Delivered {
                inquiry: "c1".into()
            }
        ]
    );
    assert_eq!(commands, reduce(&mut plain, &last).unwrap());
    assert_eq!(owed(&state), Vec::<&str>::new());
    assert_eq!(owed(&plain), ["c1"]);
    reduce(&mut plain, &deliver("c1")).unwrap();
    assert_eq!(state, plain, "one decision reaches the state two do");
}

#[test]
fn the_asker_hands_over_nothing_not_owed_refused_or_left_open() {
    let mut state = State::new();
    ask(&mut state, "terminal", false);
    ask(&mut state, "agent", true);

    // Nobody comes back for a terminal's result: nothing is owed, so nothing is
    // handed over.
    let yes: Input = AnswerInput::new(state.at(&"terminal".into()).unwrap(), json!(true)).into();
    let (events, _) = as_asker(&mut state, &yes);
    assert_eq!(events, [answered("terminal", "ok", json!(true))]);

    // An answer that does not fit is recorded refused; the inquiry stays open.
    let at = state.at(&"agent".into()).unwrap();
    let wrong: Input = AnswerInput::new(at, json!("maybe")).into();
    let (events, _) = as_asker(&mut state, &wrong);
    assert!(
        matches!(events.as_slice(), [Event::AnswerRefused { .. }]),
        "{events:?}"
    );
    assert_eq!(state.open_inquiries().count(), 1);

    // A Reply finishes it too, and is handed over with it.
    let at = state.at(&"agent".into()).unwrap();
    let reply = Input::Reply {
        at,
        message: Some("not now".into()),
    };
    let (events, commands) = as_asker(&mut state, &reply);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        events[1],
        Event::Delivered {
            inquiry: "agent".into()
        }
    );
    assert!(
        matches!(commands.as_slice(), [Command::Respond { .. }]),
        "{commands:?}"
    );
    assert_eq!(owed(&state), Vec::<&str>::new());
}

#[test]
fn what_the_asker_recorded_replays_to_the_same_state() {
    let mut state = State::new();
    let mut recorded = Vec::new();
    for id in ["c1", "c2"] {
        recorded.extend(as_asker(&mut state, &asking(id, &yes_or_no(), true)).0);
        let yes: Input = AnswerInput::new(state.at(&id.into()).unwrap(), json!(true)).into();
        recorded.extend(as_asker(&mut state, &yes).0);
    }
    let mut replayed = State::new();
    let mut out = Vec::new();
    for event in &recorded {
        replayed.apply(event, &mut out);
    }
    assert_eq!(replayed, state);
    assert_eq!(owed(&replayed), Vec::<&str>::new());
}
