//! Answering a pending file (issue 27): a file that no longer shows the questions
//! its inquiry recorded is refused, naming what differs, and nothing is recorded;
//! the answers are recorded in one append, decided again when another process
//! appended first; an inquiry another surface finished or began first is left as
//! it is.

use std::sync::Arc;

use askuser_app::Desk;
use askuser_app::pending::{self, Mismatch, NotRecorded, PendingFile, compare};
use askuser_core::{Command, Ending, Event, InquiryId};
use askuser_dialects::Dialect;
use askuser_store::{Log, MemLog};
use serde_json::{Value, json};

fn deploy_call() -> Value {
    json!({"questions": [
        {"id": "deploy", "text": "Deploy to PRODUCTION now?", "answer_type": "boolean"},
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": [{"label": "PostgreSQL", "description": "The shared server"}, "SQLite"]}
    ]})
}

/// Asks `arguments` (jp-form) as `inquiry` in stream `s` and returns its pending file.
fn ask(journal: &mut Desk, inquiry: &str, arguments: &Value) -> PendingFile {
    let call = Dialect::JpForm.parse(arguments).expect("a valid call");
    let id = InquiryId::new(inquiry);
    journal
        .request("s", &call, arguments, call.request(id.clone()))
        .expect("recorded");
    PendingFile::for_call(None, "s", &id, &call, "2026-01-01T00:00:00.000Z".into())
}

/// The events of stream `s`, in order.
fn events(log: &dyn Log) -> Vec<Event> {
    log.read("s", 1)
        .expect("the stream")
        .map(|recorded| recorded.expect("a record").event)
        .collect()
}

fn answered(question: &str, value: Value) -> Event {
    Event::Answered {
        inquiry: InquiryId::new("call-1"),
        question: question.into(),
        value,
        by: askuser_core::AnsweredBy::User,
        remember: false,
        note: None,
    }
}

/// Another surface answers the question `call-1` shows now (`question`, checked)
/// with `value`, through its own desk.
fn answer_elsewhere(desk: &mut Desk, question: &str, value: Value) {
    let id = InquiryId::new("call-1");
    let at = desk.state("s").unwrap().at(&id).expect("open");
    assert_eq!(at.question.as_deref(), Some(question));
    let input = askuser_core::AnswerInput::new(at, value).into();
    assert!(desk.input("s", &input).unwrap().refusal().is_none());
}

/// What `answer` refused with, when it did.
fn refused(journal: &mut Desk, file: &PendingFile, answers: &[Value]) -> NotRecorded {
    pending::answer(journal, file, answers)
        .expect("the log works")
        .expect_err("refused")
}

#[test]
fn an_edited_question_text_is_refused_and_nothing_is_recorded() {
    let mut journal = Desk::memory();
    let mut file = ask(&mut journal, "call-1", &deploy_call());
    file.questions[0].question = "Do you like this colour?".into();
    let answers = [json!(true), json!("SQLite")];
    assert_eq!(
        refused(&mut journal, &file, &answers),
        NotRecorded::Mismatch {
            mismatch: Mismatch {
                differences: vec![
                    "question \"deploy\" reads \"Do you like this colour?\" in the file but \"Deploy to PRODUCTION now?\" in the log".into()
                ]
            },
            open: true,
        }
    );
    assert_eq!(journal.log().info("s").unwrap().head, 1);
}

#[test]
fn edited_options_and_descriptions_are_refused() {
    let mut journal = Desk::memory();
    let mut file = ask(&mut journal, "call-1", &deploy_call());
    file.questions[1].options = vec!["SQLite".into(), "PostgreSQL".into()];
    file.questions[1]
        .option_descriptions
        .insert("PostgreSQL".into(), "A local file".into());
    let NotRecorded::Mismatch { mismatch, open } =
        refused(&mut journal, &file, &[json!(true), json!("SQLite")])
    else {
        panic!("not a mismatch");
    };
    assert!(open);
    assert_eq!(
        mismatch.to_string(),
        "the options of question \"db\" are \"SQLite\", \"PostgreSQL\" in the file but \"PostgreSQL\", \"SQLite\" in the log; \
         the description of option \"PostgreSQL\" of question \"db\" is \"A local file\" in the file but \"The shared server\" in the log"
    );
    assert_eq!(journal.log().info("s").unwrap().head, 1);
}

#[test]
fn a_file_pointed_at_another_inquiry_is_refused_naming_what_that_one_asks() {
    let mut journal = Desk::memory();
    let mut file = ask(&mut journal, "call-1", &deploy_call());
    let other = json!({"questions": [
        {"id": "colour", "text": "Do you like this colour?", "answer_type": "boolean"}]});
    ask(&mut journal, "call-2", &other);
    file.inquiry = "call-2".into();
    let NotRecorded::Mismatch { mismatch, open } =
        refused(&mut journal, &file, &[json!(true), json!("SQLite")])
    else {
        panic!("not a mismatch");
    };
    assert!(open);
    assert_eq!(
        mismatch.to_string(),
        "the file has 2 questions but the log 1; \
         question 1 is \"deploy\" in the file but \"colour\" in the log; \
         question \"colour\" reads \"Deploy to PRODUCTION now?\" in the file but \"Do you like this colour?\" in the log"
    );
    // An inquiry the stream does not hold at all.
    file.inquiry = "call-9".into();
    let error = pending::answer(&mut journal, &file, &[]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "stream \"s\" holds no inquiry \"call-9\": is this the database the pending file was written with? (pass --db)"
    );
    assert_eq!(journal.log().info("s").unwrap().head, 2);
}

#[test]
fn every_field_a_person_reads_is_compared() {
    let call = Dialect::JpForm
        .parse(&json!({"questions": [
            {"id": "a", "text": "A?", "answer_type": "boolean", "context": "Why", "header": "Head"},
            {"id": "b", "text": "B?", "answer_type": "select", "options": ["x", "y"],
             "allow_other": true, "when": {"question_id": "a", "equals": true}},
            {"id": "c", "text": "C?", "answer_type": "schema", "schema": {"type": "integer"}}]}))
        .unwrap();
    let recorded = call.form().questions();
    let file = PendingFile::for_call(None, "s", &InquiryId::new("i"), &call, String::new());
    assert_eq!(compare(&file, recorded), None);

    let mut edited = file.clone();
    edited.questions[0].context = None;
    edited.questions[0].header = Some("Other".into());
    edited.questions[0].answer_type = "text".into();
    edited.questions[1].allow_other = false;
    edited.questions[1].when = Some(json!({"question_id": "a", "equals": false}));
    edited.questions[2].schema = Some(json!({"type": "string"}));
    edited.questions[2].answer = json!(5);
    let mismatch = compare(&edited, recorded).expect("a mismatch");
    assert_eq!(
        mismatch.differences,
        [
            "the context of question \"a\" is none in the file but \"Why\" in the log",
            "the header of question \"a\" is \"Other\" in the file but \"Head\" in the log",
            "the answer type of question \"a\" is \"text\" in the file but \"boolean\" in the log",
            "question \"b\" does not take free text besides its options in the file but takes it in the log",
            "the condition (\"when\") of question \"b\" is {\"question_id\":\"a\",\"equals\":false} in the file but {\"question_id\":\"a\",\"equals\":true} in the log",
            "the schema of question \"c\" is {\"type\":\"string\"} in the file but {\"type\":\"integer\"} in the log",
        ]
    );
    assert_eq!(
        mismatch.to_string(),
        "the context of question \"a\" is none in the file but \"Why\" in the log; \
         the header of question \"a\" is \"Other\" in the file but \"Head\" in the log; \
         the answer type of question \"a\" is \"text\" in the file but \"boolean\" in the log; \
         and 3 more differences"
    );

    // Hostile text is shown escaped and cut.
    let mut hostile = file.clone();
    hostile.questions[0].question = format!("\u{1b}[2J{}", "y".repeat(100));
    assert_eq!(
        compare(&hostile, recorded).unwrap().differences,
        [format!(
            "question \"a\" reads \"\\u{{1b}}[2J{}…\" in the file but \"A?\" in the log",
            "y".repeat(71)
        )]
    );
}

#[test]
fn the_answers_are_recorded_in_one_append_decided_again_after_a_rival_writer() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    let file = ask(&mut journal, "call-1", &deploy_call());
    // Another process asks in the same stream after this journal last looked.
    let mut rival = Desk::new(Arc::clone(&log));
    let other = json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "boolean"}]});
    ask(&mut rival, "call-2", &other);

    let recorded = pending::answer(&mut journal, &file, &[json!("yes"), json!("SQLite")])
        .unwrap()
        .unwrap();
    assert_eq!(
        recorded
            .answers
            .iter()
            .map(|(question, value)| (question.id.as_str(), value.clone()))
            .collect::<Vec<_>>(),
        [("deploy", Some(json!(true))), ("db", Some(json!("SQLite")))]
    );
    assert!(matches!(
        recorded.commands.last(),
        Some(Command::Respond { .. })
    ));
    let events = events(&*log);
    assert_eq!(events.len(), 4);
    assert!(matches!(&events[1], Event::Requested(r) if r.inquiry.as_str() == "call-2"));
    assert_eq!(
        events[2..],
        [
            answered("deploy", json!(true)),
            answered("db", json!("SQLite"))
        ]
    );
}

#[test]
fn an_inquiry_another_surface_finished_or_began_first_is_left_as_it_is() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    let file = ask(&mut journal, "call-1", &deploy_call());
    let mut rival = Desk::new(Arc::clone(&log));
    answer_elsewhere(&mut rival, "deploy", json!(false));
    // Begun elsewhere: the file's answers would mix with the other surface's.
    let NotRecorded::PartlyAnswered(given) =
        refused(&mut journal, &file, &[json!(true), json!("SQLite")])
    else {
        panic!("not partly answered");
    };
    assert_eq!(
        given
            .iter()
            .map(|(question, value)| (question.id.as_str(), value.clone()))
            .collect::<Vec<_>>(),
        [("deploy", json!(false))]
    );
    assert_eq!(log.info("s").unwrap().head, 2);

    // Finished elsewhere: nothing is recorded, and the result is the log's.
    answer_elsewhere(&mut rival, "db", json!("PostgreSQL"));
    let NotRecorded::Finished(finished) =
        refused(&mut journal, &file, &[json!(true), json!("SQLite")])
    else {
        panic!("finished elsewhere");
    };
    assert_eq!(log.info("s").unwrap().head, 3);
    assert_eq!(finished.ending, Ending::Answered);
    assert!(matches!(finished.result, Command::Respond { .. }));
    assert_eq!(
        finished.call,
        journal.call("s", &InquiryId::new("call-1")).unwrap()
    );

    // A finished inquiry is compared too: an edited file never prints its result.
    let mut edited = file.clone();
    edited.questions[0].question = "Do you like this colour?".into();
    assert!(matches!(
        refused(&mut journal, &edited, &[]),
        NotRecorded::Mismatch { open: false, .. }
    ));
}

#[test]
fn a_review_another_surface_asked_for_is_sent_with_the_answers() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    let file = ask(&mut journal, "call-1", &deploy_call());
    // The web inbox records that it wants a review just before its first answer;
    // here the answer never came.
    let wanted = askuser_core::Input::WantReview {
        inquiry: InquiryId::new("call-1"),
    };
    let mut elsewhere = Desk::new(Arc::clone(&log));
    assert!(elsewhere.input("s", &wanted).unwrap().refusal().is_none());
    let recorded = pending::answer(&mut journal, &file, &[json!(true), json!("SQLite")])
        .unwrap()
        .unwrap();
    assert!(matches!(
        recorded.commands.last(),
        Some(Command::Respond { .. })
    ));
    assert_eq!(
        events(&*log)[2..],
        [
            answered("deploy", json!(true)),
            answered("db", json!("SQLite")),
            Event::Submitted {
                inquiry: InquiryId::new("call-1")
            }
        ]
    );
}

#[test]
fn a_finished_inquirys_result_is_read_from_the_state_even_after_compaction() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut journal = Desk::new(Arc::clone(&log));
    let file = ask(&mut journal, "call-1", &deploy_call());
    let recorded = pending::answer(&mut journal, &file, &[json!(true), json!("SQLite")])
        .unwrap()
        .unwrap();
    // Every event is dropped: only the snapshot of the state is left.
    askuser_store::compact::compact(&*log, "s", true).unwrap();
    assert!(log.read("s", 1).is_err());

    // Another process answers the file again: nothing is recorded, and how the
    // inquiry ended, its result and its call come from the state alone.
    let mut later = Desk::new(Arc::clone(&log));
    let NotRecorded::Finished(finished) =
        refused(&mut later, &file, &[json!(false), json!("PostgreSQL")])
    else {
        panic!("finished by the first answers");
    };
    assert_eq!(finished.ending, Ending::Answered);
    assert_eq!(Some(&finished.result), recorded.commands.last());
    assert_eq!(finished.call, recorded.call);
    assert_eq!(log.info("s").unwrap().head, 3);

    // A file that says it was answered is given the same result again.
    let mut answered = file.clone();
    "answered".clone_into(&mut answered.status);
    let NotRecorded::Finished(again) = refused(&mut later, &answered, &[]) else {
        panic!("finished");
    };
    assert_eq!(again, finished);
}

#[test]
fn a_file_that_says_answered_for_an_open_inquiry_records_nothing() {
    let mut journal = Desk::memory();
    let mut file = ask(&mut journal, "call-1", &deploy_call());
    "answered".clone_into(&mut file.status);
    assert_eq!(
        refused(&mut journal, &file, &[json!(true), json!("SQLite")]),
        NotRecorded::NoResult
    );
    assert_eq!(journal.log().info("s").unwrap().head, 1);
}
