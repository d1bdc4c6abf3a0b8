//! What a client did that was not the person's choice, as a transcript tells it:
//! no person at the client, a form it could not show, an answer after its own
//! timeout; the answer given in another window follows.

use std::sync::Arc;

use askuser_core::{AnswerInput, ClientNote, FormAction, Input};
use askuser_store::{MemLog, Session, transcript};
use askuser_testkit::build;
use serde_json::json;

#[test]
fn a_transcript_says_what_the_client_did_and_that_the_answer_came_from_elsewhere() {
    let log = Arc::new(MemLog::new());
    let mut session = Session::open(log.clone(), "headless").unwrap();
    let form = build::form(&json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"}]}));
    session
        .handle(&Input::Ask(build::request("call-1", form)))
        .unwrap();
    for note in [
        ClientNote::NoPerson {
            action: FormAction::Cancel,
            after_ms: 38,
        },
        ClientNote::CannotShow,
        ClientNote::Headless {
            mode: "claude -p".into(),
        },
        ClientNote::Late {
            timeout_ms: 60_000,
            after_ms: 61_250,
        },
        ClientNote::StopsSilently {
            host: "Gemini\u{1b}[2J CLI".into(),
        },
        ClientNote::MovedOn { after_ms: 23_456 },
        ClientNote::StoppedWaiting { disconnected: true },
    ] {
        let input = Input::NoteClient {
            inquiry: "call-1".into(),
            note,
        };
        session.handle(&input).unwrap();
    }
    let at = session.state().at(&"call-1".into()).unwrap();
    session
        .handle(&Input::Answer(AnswerInput::new(at, json!(true))))
        .unwrap();
    assert_eq!(
        transcript(&*log, "headless").unwrap(),
        "Asked \"Apply the migration?\"; the answer was Yes.\n\
         No person at the client: its form was dismissed 38 ms after it went out, faster than anyone reads; the questions waited for another window.\n\
         The client's form came back empty twice, so it may not show these questions; they waited for another window.\n\
         No person at the client: it runs headless (claude -p), so no form was sent; the questions waited for another window.\n\
         Late: what the client sent came 61 s after the call, past its own 60 s timeout; the model had stopped waiting.\n\
         Gemini\\u{1b}[2J CLI does not tell when its person stops a call (Esc sends no cancel): an answer given in another window is kept for the same call made again.\n\
         The model moved on: a new call came 23 s into this one's wait; the model had stopped waiting, and the answers are kept for the same call made again.\n\
         The call stopped waiting (the client disconnected): the questions stayed open, and the answers are kept for the same call made again.\n"
    );
}
