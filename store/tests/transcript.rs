//! The transcript of a stream, as `askuser log transcript` prints it and an
//! agent puts into a compacted conversation: what a person did is told in
//! words, notes, Backs and changes included.

use std::sync::Arc;

use askuser_core::{AnswerInput, At, Command, Input, InquiryId};
use askuser_store::{Log, MemLog, Session, transcript};
use askuser_testkit::build::{db_form, request};
use serde_json::json;

/// Handles `input`; the command it gave.
fn step(session: &mut Session, input: &Input) -> Command {
    let handled = session.handle(input).expect("taken");
    handled.commands.into_iter().next().expect("a command")
}

fn at(command: &Command) -> At {
    match command {
        Command::Prompt(prompt) => prompt.at(),
        Command::Review { inquiry, step, .. } => At::review(inquiry.clone(), *step),
        other => panic!("not a prompt or a review: {other:?}"),
    }
}

#[test]
fn the_transcript_tells_notes_backs_and_changes_in_words() {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut session = Session::open(Arc::clone(&log), "s").unwrap();
    let id = InquiryId::new("call-1");
    step(&mut session, &Input::Ask(request("call-1", db_form())));
    session
        .handle(&Input::WantReview {
            inquiry: id.clone(),
        })
        .unwrap();
    let db = session.state().pending(&id).expect("db asked");
    let answer = |shown: &Command, value, note: Option<&str>| {
        Input::from(AnswerInput::new(at(shown), value).with_note(note.map(str::to_owned)))
    };
    let migrate = step(&mut session, &answer(&db, json!("PostgreSQL"), None));
    let db = step(&mut session, &Input::Back(at(&migrate)));
    let migrate = step(&mut session, &answer(&db, json!("SQLite"), None));
    let review = step(&mut session, &answer(&migrate, json!(true), None));
    let db = step(
        &mut session,
        &Input::Change {
            at: at(&review),
            question: "db".into(),
        },
    );
    let review = step(
        &mut session,
        &answer(&db, json!("PostgreSQL"), Some("it is what production runs")),
    );
    step(&mut session, &Input::Submit(at(&review)));
    assert_eq!(
        transcript(&*log, "s").unwrap(),
        "Asked \"Which database should we use?\"; the answer was PostgreSQL. The user's note beside it: it is what production runs\n\
         Asked \"Migrate the data now?\"; the answer was Yes.\n\
         The user went back from \"Migrate the data now?\".\n\
         The user changed the answer to \"Which database should we use?\" (it was SQLite).\n"
    );
}

/// A question nobody answered in time: its time in words, not milliseconds,
/// with what was answered before and the message the person was typing.
#[test]
fn the_transcript_says_a_timeout_in_words() {
    let clock = askuser_store::ManualClock::new(askuser_store::Timestamp(1_000_000));
    let log: Arc<dyn Log> = Arc::new(MemLog::new().with_clock(clock.clone()));
    let mut session = Session::open(Arc::clone(&log), "s").unwrap();
    let mut asked = request("call-1", db_form());
    asked.policy.timeout = Some(askuser_core::Timeout {
        after_ms: 20_000,
        on_timeout: askuser_core::OnTimeout::Cancel,
    });
    let db = step(&mut session, &Input::Ask(asked));
    clock.advance(5_000);
    step(
        &mut session,
        &Input::from(AnswerInput::new(at(&db), json!("SQLite"))),
    );
    clock.advance(20_000);
    step(
        &mut session,
        &Input::TimeOut {
            inquiry: InquiryId::new("call-1"),
            message: Some("still checking the backups".into()),
            fired_at_ms: 1_025_000,
        },
    );
    assert_eq!(
        transcript(&*log, "s").unwrap(),
        "Asked \"Which database should we use?\"; the answer was SQLite.\n\
         The user did not answer within 20 seconds; the question timed out.\n\
         The user's message, sent as the time ran out: still checking the backups\n"
    );
}
