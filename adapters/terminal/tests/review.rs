//! `run_with_engine` against the real core: the review before a form is sent,
//! Reply with a message, answers remembered for the turn, and a timeout the engine
//! finds early.

use askuser_core::{
    AnsweredBy, Command, Event, Input, InquiryId, Origin, Persistence, Policy, Request, State,
    parse_form, reduce,
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
        &Input::Ask(Request {
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
fn the_review_goes_back_to_an_earlier_answer_and_keeps_the_later_ones() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("weekly run")),
        Action::Answer(json!("production")),
    ])
    .with_reviews([Review::Change(1), Review::Submit]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "production", "note": "weekly run"})
    );
    // The note still applies after the change: it keeps its answer, not asked again.
    assert_eq!(
        prefills(&person),
        [
            ("apply".into(), None),
            ("env".into(), None),
            ("note".into(), None),
            ("env".into(), Some(json!("staging"))),
        ]
    );
}

#[test]
fn a_change_that_gates_questions_in_asks_them_and_only_them() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(false)),
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("first run")),
    ])
    .with_reviews([Review::Change(0), Review::Submit]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "first run"})
    );
    assert_eq!(
        prefills(&person),
        [
            ("apply".into(), None),
            ("apply".into(), Some(json!(false))),
            ("env".into(), None),
            ("note".into(), None),
        ]
    );
}

#[test]
fn every_answer_is_recorded_before_the_review_and_changing_the_last_is_one_change() {
    let mut state = State::new();
    let first = request(&mut state, "c1", &migration(), Policy::default());
    let mut events = Vec::new();
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("typo")),
        Action::Answer(json!("fixed")),
    ])
    .with_reviews([Review::Change(2), Review::Submit]);
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
    let kinds: Vec<String> = events.iter().map(askuser_rpc_free_describe).collect();
    assert_eq!(
        kinds,
        [
            "review_wanted",
            "answered apply",
            "answered env",
            "answered note",
            "change note",
            "answered note",
            "submitted"
        ]
    );
}

/// An event's kind, and the question it answers.
fn askuser_rpc_free_describe(event: &Event) -> String {
    match event {
        Event::Answered { question, .. } => format!("answered {question}"),
        Event::ReviewWanted { .. } => "review_wanted".into(),
        Event::Back { .. } => "back".into(),
        Event::ChangeWanted { question, .. } => format!("change {question}"),
        Event::Submitted { .. } => "submitted".into(),
        other => format!("{other:?}"),
    }
}

/// A state that records what it applies.
struct Recording<'a> {
    state: &'a mut State,
    events: &'a mut Vec<Event>,
}

impl askuser_terminal::Engine for Recording<'_> {
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, askuser_core::Refusal> {
        let decision = self.state.decide(input)?;
        self.events.extend(decision.events().iter().cloned());
        let mut commands = Vec::new();
        self.state.apply_decision(decision, &mut commands);
        Ok(commands)
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
        json!({"cancelled": true, "answered": {"apply": true, "env": "staging", "note": "n/a"},
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
fn a_one_question_form_is_sent_with_its_answer_without_a_review() {
    let mut state = State::new();
    for (id, form, value) in [
        (
            "c1",
            json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "boolean"}]}),
            json!(true),
        ),
        (
            "c2",
            json!({"questions": [{"id": "why", "text": "Why?", "answer_type": "text"}]}),
            json!("because"),
        ),
    ] {
        let first = request(&mut state, id, &form, Policy::default());
        // A review scripted for it is never asked for.
        let mut person = ScriptedPrompter::new([Action::Answer(value.clone())])
            .with_reviews([Review::Reply { message: None }]);
        let finish = run_with_engine(&mut person, first, &mut state).unwrap();
        let question = form["questions"][0]["id"].as_str().unwrap().to_owned();
        assert_eq!(outcome_json(finish), json!({ question: value }));
    }
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
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::TimedOut { message: None },
    ]);
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
    .with_reviews([Review::TimedOut { message: None }]);
    let finish = run_with_engine(&mut person, first, &mut state).unwrap();
    assert_eq!(
        finish,
        Finish::TurnEnded {
            inquiry: InquiryId::new("c2")
        }
    );
}

/// An engine whose state learns the time each input is recorded at, and whose
/// clock (the host's, which the prompter's timeouts carry) is `now`; each input
/// moves the clock by `step` milliseconds.
struct Clocked {
    state: State,
    now: u64,
    step: u64,
}

impl askuser_terminal::Engine for Clocked {
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, askuser_core::Refusal> {
        let decision = self.state.decide(input)?;
        let mut out = Vec::new();
        self.state.apply_decision_at(decision, self.now, &mut out);
        Ok(out)
    }

    fn now_ms(&mut self) -> u64 {
        self.now += self.step;
        self.now
    }
}

/// A terminal whose clock runs ahead of the log's fires early: the engine
/// refuses the timeout, the person is told how long is left, and the question
/// is asked again; fired at the deadline, the timeout is taken.
#[test]
fn an_early_timeout_is_refused_and_the_question_asked_again() {
    let form = parse_form(&migration()).unwrap();
    let mut engine = Clocked {
        state: State::new(),
        now: 1_767_225_600_000,
        step: 40_000,
    };
    let ask = Input::Ask(Request {
        inquiry: InquiryId::new("c1"),
        form: form.form().clone(),
        policy: Policy {
            timeout: Some(askuser_core::Timeout {
                after_ms: 60_000,
                on_timeout: askuser_core::OnTimeout::Cancel,
            }),
            ..Policy::default()
        },
        origin: Origin::default(),
        call: None,
    });
    let first = askuser_terminal::Engine::handle(&mut engine, &ask).unwrap();
    let mut person = ScriptedPrompter::new([
        Action::TimedOut { message: None },
        Action::TimedOut { message: None },
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"timed_out": true, "answered": {}, "filled_by_timeout": {}})
    );
    assert_eq!(
        person.invalid_messages(),
        [
            "The time to answer is not up yet: 20 s left by the log's clock, so the question is still open"
        ]
    );
    assert_eq!(
        prefills(&person),
        [("apply".to_owned(), None), ("apply".to_owned(), None)]
    );
}
