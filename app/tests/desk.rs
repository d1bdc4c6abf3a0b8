//! The desk's outcomes, asserted whole: what was taken, what changed elsewhere
//! first (as the one narrator's data, [`Happened`]), what is shown now and how
//! the inquiry ended.

use std::sync::Arc;

use askuser_app::{Desk, Ending, Happened, Outcome, Taken};
use askuser_core::{AnswerInput, At, Command, Input, InquiryId, Refusal};
use askuser_dialects::Dialect;
use askuser_store::{Log, MemLog};
use serde_json::{Value, json};

fn two_questions() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]}]})
}

/// Asks the two questions as `c1` of stream `s`; the first prompt.
fn ask(desk: &mut Desk) -> Command {
    let arguments = two_questions();
    let call = Dialect::JpForm.parse(&arguments).unwrap();
    let asked = desk
        .request("s", &call, &arguments, call.request(InquiryId::new("c1")))
        .unwrap();
    let Taken::Recorded { seq: 1, commands } = &asked.taken else {
        panic!("asked: {asked:?}")
    };
    assert_eq!(asked.showing.as_ref(), commands.first());
    assert_eq!((asked.elsewhere.len(), &asked.ended), (0, &None));
    commands[0].clone()
}

/// What `desk` shows of `c1` now.
fn shown(desk: &mut Desk) -> At {
    desk.state("s").unwrap().at(&InquiryId::new("c1")).unwrap()
}

fn answer(at: At, value: Value) -> Input {
    AnswerInput::new(at, value).into()
}

/// Two desks on one log, `c1` asked through the first.
fn two_desks() -> (Desk, Desk, Command) {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut here = Desk::new(Arc::clone(&log));
    let first = ask(&mut here);
    (here, Desk::new(log), first)
}

/// What each event caught means (every one here tells something).
fn happened(outcome: &[askuser_app::Followed]) -> Vec<Happened> {
    outcome
        .iter()
        .map(|f| f.happened.clone().expect("it tells"))
        .collect()
}

fn answered(question: &str, asked: &str, value: Value) -> Happened {
    Happened::Answered {
        inquiry: InquiryId::new("c1"),
        question: question.to_owned(),
        asked: asked.to_owned(),
        value,
        note: None,
        ahead: false,
    }
}

#[test]
fn an_answer_taken_says_what_is_shown_next() {
    let mut desk = Desk::memory();
    let first = ask(&mut desk);
    let Command::Prompt(first) = first else {
        panic!()
    };
    let outcome = desk.input("s", &answer(first.at(), json!(true))).unwrap();
    let next = desk.pending("s", &InquiryId::new("c1")).unwrap().unwrap();
    assert!(matches!(&next, Command::Prompt(p) if p.question().id == "env"));
    assert_eq!(
        outcome,
        Outcome {
            elsewhere: Vec::new(),
            taken: Taken::Recorded {
                seq: 2,
                commands: vec![next.clone()],
            },
            showing: Some(next),
            ended: None,
        }
    );
}

#[test]
fn an_answer_another_desk_gave_first_is_refused_with_what_happened_there() {
    let (mut here, mut there, first) = two_desks();
    let Command::Prompt(first) = first else {
        panic!()
    };
    let at = shown(&mut there);
    assert!(
        there
            .input("s", &answer(at, json!(true)))
            .unwrap()
            .refusal()
            .is_none()
    );

    let late = here.input("s", &answer(first.at(), json!(false))).unwrap();
    assert_eq!(
        happened(&late.elsewhere),
        [answered("apply", "Apply the migration?", json!(true))]
    );
    let Some(Refusal::Stale { current, .. }) = late.refusal() else {
        panic!("stale: {late:?}")
    };
    assert_eq!(current.question.as_deref(), Some("env"));
    assert!(matches!(&late.showing, Some(Command::Prompt(p)) if p.question().id == "env"));
    assert_eq!((&late.ended, late.commands()), (&None, &[][..]));
    // Told once: the next catch-up has nothing more.
    assert_eq!(here.catch_up("s").unwrap(), []);
}

#[test]
fn an_inquiry_finished_elsewhere_ends_the_outcome() {
    let (mut here, mut there, first) = two_desks();
    let Command::Prompt(first) = first else {
        panic!()
    };
    let at = shown(&mut there);
    there.input("s", &answer(at, json!(true))).unwrap();
    let at = shown(&mut there);
    let finished = there.input("s", &answer(at, json!("staging"))).unwrap();
    assert_eq!(finished.ending(), Some(Ending::Answered));

    let late = here.input("s", &answer(first.at(), json!(false))).unwrap();
    assert_eq!(
        happened(&late.elsewhere),
        [
            answered("apply", "Apply the migration?", json!(true)),
            answered("env", "Where?", json!("staging")),
        ]
    );
    assert!(matches!(
        late.refusal(),
        Some(Refusal::InquiryFinished { .. })
    ));
    assert_eq!(late.showing, None);
    assert_eq!(late.ended, finished.ended);
    assert_eq!(late.ending(), Some(Ending::Answered));
}

#[test]
fn a_catch_up_tells_a_reply_given_elsewhere_with_its_message() {
    let (mut here, mut there, _) = two_desks();
    let at = shown(&mut there);
    let reply = Input::Reply {
        at,
        message: Some("use the old schema".to_owned()),
    };
    assert_eq!(
        there.input("s", &reply).unwrap().ending(),
        Some(Ending::Replied)
    );
    let caught = here.catch_up("s").unwrap();
    assert_eq!(
        happened(&caught),
        [Happened::Replied {
            inquiry: InquiryId::new("c1"),
            message: Some("use the old schema".to_owned()),
        }]
    );
    assert!(matches!(
        caught[0].caught.commands[..],
        [Command::Respond { .. }]
    ));
    assert_eq!(here.catch_up("s").unwrap(), []);
}
