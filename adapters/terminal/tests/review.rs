//! `run_with_engine` against the real core: the review before a form is sent,
//! Reply with a message, and answers remembered for the turn.

use askuser_core::{
    AnsweredBy, Command, Event, InquiryId, Origin, Persistence, Policy, Request, State, parse_form,
    reduce,
};
use askuser_terminal::{Action, Finish, Review, ScriptedPrompter, run_with_engine};
use serde_json::{Value, json};

fn migration() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
         "when": {"question_id": "apply", "equals": true}}
    ]})
}

fn request(state: &mut State, id: &str, arguments: &Value, policy: Policy) -> Vec<Command> {
    let form = parse_form(arguments).expect("a valid form");
    reduce(
        state,
        &Event::Requested(Request {
            inquiry: InquiryId::new(id),
            form: form.form().clone(),
            policy,
            origin: Origin {
                turn: "t1".into(),
                ..Origin::default()
            },
            call: None,
        }),
    )
    .expect("a new inquiry")
}

fn outcome_json(finish: Finish) -> Value {
    match finish {
        Finish::Responded { outcome, .. } => outcome.to_json(),
        other => panic!("expected a response, got {other:?}"),
    }
}

fn prefills(person: &ScriptedPrompter) -> Vec<(String, Option<Value>)> {
    person
        .asked()
        .iter()
        .map(|a| (a.question.clone(), a.prefill.clone()))
        .collect()
}

#[test]
fn the_review_goes_back_to_an_earlier_answer_and_the_later_ones_come_back() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("weekly run")),
        Action::Answer(json!("production")),
        Action::Answer(json!("weekly run")),
    ])
    .with_reviews([Review::Change(1), Review::Submit]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "production", "note": "weekly run"})
    );
    assert_eq!(
        prefills(&person),
        [
            ("apply".into(), None),
            ("env".into(), None),
            ("note".into(), None),
            ("env".into(), Some(json!("staging"))),
            ("note".into(), Some(json!("weekly run"))),
        ]
    );
}

#[test]
fn the_review_can_change_the_last_answer_without_an_event() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut events = Vec::new();
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("typo")),
        Action::Answer(json!("fixed")),
    ])
    .with_reviews([Review::Change(2)]);
    let mut recorder = Recording {
        state: &mut state,
        events: &mut events,
    };
    let finish = run_with_engine(&mut person, first, &mut recorder).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "fixed"})
    );
    assert_eq!(person.asked()[3].prefill, Some(json!("typo")));
    assert_eq!(events.len(), 3, "no event for the held answer: {events:?}");
}

/// A state that records what it applies.
struct Recording<'a> {
    state: &'a mut State,
    events: &'a mut Vec<Event>,
}

impl askuser_terminal::Engine for Recording<'_> {
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, askuser_core::Refusal> {
        self.events.push(event.clone());
        reduce(self.state, event)
    }

    fn preview(&mut self, event: &Event) -> Option<Vec<Command>> {
        reduce(&mut self.state.clone(), event).ok()
    }
}

#[test]
fn reply_and_end_turn_from_the_review() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("n/a")),
    ])
    .with_reviews([Review::Reply {
        message: Some("ask me tomorrow".into()),
    }]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"cancelled": true, "answered": {"apply": true, "env": "staging"},
               "message": "ask me tomorrow"})
    );

    let first = request(&mut state, "c2", &migration(), Policy::default());
    let mut person =
        ScriptedPrompter::new([Action::Answer(json!(false))]).with_reviews([Review::EndTurn]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        finish,
        Finish::TurnEnded {
            inquiry: InquiryId::new("c2")
        }
    );
}

#[test]
fn a_single_question_is_never_reviewed() {
    let mut state = State::new();
    let one = json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "boolean"}]});
    let first = request(&mut state, "c1", &one, Policy::default());
    let mut person =
        ScriptedPrompter::new([Action::Answer(json!(true))]).with_reviews([Review::EndTurn]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(outcome_json(finish), json!({"ok": true}));
}

#[test]
fn an_answer_remembered_for_the_turn_answers_the_next_inquiry() {
    let mut state = State::new();
    let policy = Policy {
        persistence: Persistence::Turn,
        ..Policy::default()
    };
    let one = json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "boolean"}]});
    let first = request(&mut state, "c1", &one, policy.clone());
    let mut person = ScriptedPrompter::new([Action::Remember(json!(true))]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(outcome_json(finish), json!({"ok": true}));
    let second = request(&mut state, "c2", &one, policy);
    let Some(Command::Respond { outcome, .. }) = second.first() else {
        panic!("the remembered answer answers at once: {second:?}");
    };
    assert_eq!(
        outcome.answers[0].as_ref().map(|s| s.by),
        Some(AnsweredBy::Cache)
    );
}

#[test]
fn a_timeout_sends_the_timed_out_event_and_the_policy_decides() {
    let mut state = State::new();
    let policy = Policy {
        timeout: Some(askuser_core::Timeout {
            after_ms: 60_000,
            on_timeout: askuser_core::OnTimeout::Cancel,
        }),
        ..Policy::default()
    };
    let first = request(&mut state, "c1", &migration(), policy);
    let mut person = ScriptedPrompter::new([Action::Answer(json!(true)), Action::TimedOut]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"timed_out": true, "answered": {"apply": true}, "filled_by_timeout": {}})
    );

    let policy = Policy {
        timeout: Some(askuser_core::Timeout {
            after_ms: 60_000,
            on_timeout: askuser_core::OnTimeout::EndTurn,
        }),
        ..Policy::default()
    };
    let first = request(&mut state, "c2", &migration(), policy);
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("n/a")),
    ])
    .with_reviews([Review::TimedOut]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        finish,
        Finish::TurnEnded {
            inquiry: InquiryId::new("c2")
        }
    );
}
