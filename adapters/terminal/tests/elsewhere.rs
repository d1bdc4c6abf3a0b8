//! `run_with_engine` when another surface moves the inquiry while the person is
//! at a prompt: the person's action is not recorded, the lines say what changed
//! and what became of it, and the walk goes on from the inquiry as it is now (or
//! ends as it ended there).

use std::collections::VecDeque;

use askuser_core::{
    CancelReason, Command, Event, Input, InquiryId, Policy, Refusal, Request, State, parse_form,
    reduce,
};
use askuser_terminal::{
    Action, Elsewhere, Engine, Finish, Review, ScriptedPrompter, run_with_engine,
};
use askuser_testkit::build;
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

/// When the other surface's events land: before the walk records the person's
/// next action (it then sees them when it checks), between that check and
/// the append (the engine refuses the action), or while the next prompt waits
/// for a key (the host's waiter wakes the walk).
#[derive(Clone, Copy, PartialEq)]
enum When {
    BeforeTheCheck,
    BeforeTheAppend,
    WhileWaiting,
}

/// The engine of a host with a log that another surface also writes: `others`
/// are recorded by that surface the `after`-th time the walk records something.
struct Racing {
    state: State,
    inquiry: InquiryId,
    others: Vec<Event>,
    when: When,
    after: usize,
    applied: usize,
    /// What the other surface recorded that the walk has not been told yet.
    unseen: Vec<Event>,
    /// The commands the last of them yielded.
    yielded: Vec<Command>,
}

impl Racing {
    fn new(
        arguments: &Value,
        others: Vec<Event>,
        when: When,
        after: usize,
    ) -> (Self, Vec<Command>) {
        let mut state = State::new();
        let inquiry = InquiryId::new("c1");
        let form = parse_form(arguments).expect("a valid form");
        let first = reduce(
            &mut state,
            &Input::Ask(Request {
                inquiry: inquiry.clone(),
                form: form.form().clone(),
                policy: Policy::default(),
                origin: askuser_core::Origin::default(),
                call: None,
            }),
        )
        .expect("a new inquiry");
        let engine = Self {
            state,
            inquiry,
            others,
            when,
            after,
            applied: 0,
            unseen: Vec::new(),
            yielded: Vec::new(),
        };
        (engine, first)
    }

    /// The other surface records its events, once.
    fn race(&mut self) {
        for event in std::mem::take(&mut self.others) {
            // Recorded by the other surface: applied, as a catch-up applies it.
            self.yielded.clear();
            self.state.apply(&event, &mut self.yielded);
            self.unseen.push(event);
        }
    }
}

impl Engine for Racing {
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, Refusal> {
        if self.when == When::BeforeTheAppend && self.applied == self.after {
            self.race();
        }
        self.applied += 1;
        reduce(&mut self.state, input)
    }

    fn woken(&mut self) -> bool {
        if self.when == When::WhileWaiting && self.applied == self.after {
            self.race();
        }
        !self.unseen.is_empty()
    }

    fn elsewhere(&mut self, inquiry: &InquiryId) -> Option<Elsewhere> {
        if self.when == When::BeforeTheCheck && self.applied == self.after {
            self.race();
        }
        if self.unseen.is_empty() {
            return None;
        }
        let form = self.state.form(inquiry).cloned();
        let happened = (std::mem::take(&mut self.unseen).iter())
            .filter_map(|event| askuser_core::Happened::of(event, &self.yielded, form.as_ref()))
            .collect();
        let commands = match self.state.pending(inquiry) {
            Some(command) => vec![command],
            None => std::mem::take(&mut self.yielded),
        };
        assert_eq!(inquiry, &self.inquiry);
        Some(Elsewhere { happened, commands })
    }
}

/// The person answered `question` of inquiry c1 elsewhere.
fn answered(question: &str, value: Value) -> Event {
    build::answered("c1", question, value)
}

fn outcome_json(finish: Finish) -> Value {
    match finish {
        Finish::Responded { outcome, .. } => outcome.to_json(),
        other => panic!("expected a response, got {other:?}"),
    }
}

#[test]
fn a_question_answered_elsewhere_is_said_in_words_and_the_next_one_is_asked() {
    // The walk recorded apply = true (with the review it wants); then the browser
    // answered env while the person picked production here.
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![answered("env", json!("staging"))],
        When::BeforeTheCheck,
        1,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("production")),
        Action::Answer(json!("weekly run")),
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "weekly run"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Answered elsewhere: \"Which environment?\" → staging",
            "✗ Your answer was not sent: production",
        ]
    );
    let asked: Vec<&str> = person.asked().iter().map(|a| a.question.as_str()).collect();
    assert_eq!(asked, ["apply", "env", "note"]);
}

#[test]
fn typed_text_stays_in_the_field_of_the_next_typed_question() {
    let form = json!({"questions": [
        {"id": "why", "text": "Why?", "answer_type": "text"},
        {"id": "how", "text": "How?", "answer_type": "text"}]});
    let (mut engine, first) = Racing::new(
        &form,
        vec![answered("why", json!("it is late"))],
        When::BeforeTheCheck,
        0,
    );
    let mut person = ScriptedPrompter::new([
        Action::AnswerWithNote {
            value: json!("tests pass"),
            note: "checked twice".into(),
        },
        Action::Answer(json!("tests pass")),
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"why": "it is late", "how": "tests pass"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Answered elsewhere: \"Why?\" → it is late",
            "✗ Your answer was not sent; it is filled in below. Your note: checked twice",
        ]
    );
    assert_eq!(person.asked()[1].question, "how");
    assert_eq!(person.asked()[1].prefill, Some(json!("tests pass")));
}

#[test]
fn an_inquiry_finished_elsewhere_ends_as_it_ended_there() {
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![
            answered("env", json!("staging")),
            answered("note", json!("from the browser")),
            build::submitted("c1"),
        ],
        When::BeforeTheCheck,
        1,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Reply {
            message: Some("not today".into()),
        },
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "from the browser"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Answered elsewhere: \"Which environment?\" → staging",
            "↻ Answered elsewhere: \"Optional note for the migration log\" → from the browser",
            "↻ Submitted elsewhere.",
            "✗ Your reply was not sent: not today",
            "The assistant got the answers:",
            "  Apply the proposed migration? — Yes",
            "  Which environment? — staging",
            "  Optional note for the migration log — from the browser",
        ]
    );
}

#[test]
fn a_submit_the_engine_refuses_after_a_reply_elsewhere_ends_with_the_reply() {
    // The walk recorded three answers (the first with the review it wants); the browser's Reply
    // lands between the check and the append of the person's submit.
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![build::cancelled_with("c1", CancelReason::UserReply, "wait")],
        When::BeforeTheAppend,
        3,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("")),
    ])
    .with_reviews([Review::Submit]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"cancelled": true, "answered": {"apply": true, "env": "staging", "note": ""},
               "message": "wait"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Replied elsewhere instead of answering: wait",
            "The assistant got a reply instead, with the answers so far:",
            "  Apply the proposed migration? — Yes",
            "  Which environment? — staging",
            "  Optional note for the migration log — \"\"",
            "  and the message: wait",
        ]
    );
}

#[test]
fn the_turn_ended_elsewhere_ends_the_walk_without_a_result() {
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![build::turn_ended_in("c1", askuser_core::Surface::Web)],
        When::BeforeTheCheck,
        0,
    );
    let mut person = ScriptedPrompter::new([Action::Back]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        finish,
        Finish::TurnEnded {
            inquiry: InquiryId::new("c1")
        }
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ The turn was ended in the web inbox.",
            "The turn ended: the assistant gets no result.",
        ]
    );
}

#[test]
fn end_turn_after_the_form_was_finished_elsewhere_ends_with_that_result() {
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![answered("apply", json!(false))],
        When::BeforeTheAppend,
        0,
    );
    let mut person = ScriptedPrompter::new(VecDeque::from([Action::EndTurn]));
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    // apply = false gates the rest off: the browser's answer finished the form,
    // so End Turn is refused and the walk ends with that result.
    assert_eq!(
        outcome_json(finish),
        json!({"apply": false, "env": null, "note": null})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Answered elsewhere: \"Apply the proposed migration?\" → No",
            "The assistant got the answers:",
            "  Apply the proposed migration? — No",
            "  Which environment? — (not answered)",
            "  Optional note for the migration log — (not answered)",
        ]
    );
}

#[test]
fn an_answer_to_a_question_asked_again_elsewhere_is_not_recorded_from_the_old_screen() {
    // The browser went Back and answered the first question again while the
    // person was at "Which environment?": the same question is current again,
    // at a later step, so the answer from the old screen is refused (it names
    // the step it was shown at) and the person sees the question anew.
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![build::back("c1"), answered("apply", json!(true))],
        When::BeforeTheAppend,
        1,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("production")),
        Action::Answer(json!("staging")),
        Action::Answer(json!("weekly run")),
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "weekly run"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Went back elsewhere, to an earlier question.",
            "↻ Answered elsewhere: \"Apply the proposed migration?\" → Yes",
            "✗ Your answer was not sent; it is filled in below.",
        ]
    );
    let asked: Vec<&str> = person.asked().iter().map(|a| a.question.as_str()).collect();
    assert_eq!(asked, ["apply", "env", "env", "note"]);
    assert_eq!(person.asked()[2].prefill, Some(json!("production")));
}

#[test]
fn a_question_answered_elsewhere_while_the_person_waits_is_left_without_a_key() {
    // The walk recorded apply = true; the browser answers env while the person
    // has pressed no key at it.
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![answered("env", json!("staging"))],
        When::WhileWaiting,
        1,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("weekly run")),
    ]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": "weekly run"})
    );
    assert_eq!(
        person.elsewhere_lines(),
        ["↻ Answered elsewhere: \"Which environment?\" → staging"]
    );
    let asked: Vec<&str> = person.asked().iter().map(|a| a.question.as_str()).collect();
    assert_eq!(asked, ["apply", "note"]);
}

#[test]
fn a_review_submitted_elsewhere_while_the_person_waits_ends_with_its_result() {
    let (mut engine, first) = Racing::new(
        &migration(),
        vec![build::submitted("c1")],
        When::WhileWaiting,
        3,
    );
    let mut person = ScriptedPrompter::new([
        Action::Answer(json!(true)),
        Action::Answer(json!("staging")),
        Action::Answer(json!("")),
    ])
    .with_reviews([Review::Change(0)]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": true, "env": "staging", "note": ""})
    );
    assert_eq!(
        person.elsewhere_lines(),
        [
            "↻ Submitted elsewhere.",
            "The assistant got the answers:",
            "  Apply the proposed migration? — Yes",
            "  Which environment? — staging",
            "  Optional note for the migration log — \"\"",
        ]
    );
}

#[test]
fn a_wake_for_nothing_of_this_inquiry_leaves_the_prompt_as_it_was() {
    // Woken, but nothing was recorded for the inquiry: the prompt goes on.
    let (mut engine, first) = Racing::new(&migration(), Vec::new(), When::WhileWaiting, 1);
    let mut person = ScriptedPrompter::new([Action::Answer(json!(false))]);
    let finish = run_with_engine(&mut person, first, &mut engine).unwrap();
    assert_eq!(
        outcome_json(finish),
        json!({"apply": false, "env": null, "note": null})
    );
    assert!(person.elsewhere_lines().is_empty());
}
