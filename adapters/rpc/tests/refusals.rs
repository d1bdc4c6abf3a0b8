//! Over JSON lines, each mistake is its own `error` line with its `code`: a
//! question the form does not have, one that is not the one asked, a `submit`
//! with no review, a step the inquiry never reached, an action on a finished
//! inquiry. One that named something the inquiry does not show carries
//! `current` and is followed by the line it shows now; only a line sent for
//! something shown at an earlier step is `stale`.

use askuser_rpc::{Desk, Server};
use serde_json::Value;

const ASK: &str = r#"{"type":"ask","inquiry":"c1","arguments":{"questions":[{"id":"apply","text":"Apply?","answer_type":"boolean"},{"id":"env","text":"Where?","answer_type":"select","options":["staging","production"]}]}}"#;

const APPLY: &str = r#"{"type":"prompt","inquiry":"c1","question":{"id":"apply","text":"Apply?","context":null,"header":null,"answer_type":"boolean","options":[],"allow_other":false,"schema":null},"progress":{"n":1,"m":2},"prefill":null,"can_back":false,"label":"Assistant","step":0}"#;

fn send(server: &mut Server, line: &str) -> Vec<String> {
    server
        .handle_line(line)
        .iter()
        .map(Value::to_string)
        .collect()
}

fn asked() -> Server {
    let mut server = Server::new(Desk::memory(), "s").unwrap();
    assert_eq!(send(&mut server, ASK), [APPLY]);
    server
}

#[test]
fn a_question_the_form_does_not_have_is_unknown_with_or_without_a_step() {
    let mut server = asked();
    let refused = r#"{"type":"error","inquiry":"c1","code":"unknown_question","message":"inquiry \"c1\" has no question \"nope\": its form never asks it; act on what it shows now, question \"apply\" (step 0)","current":{"inquiry":"c1","question":"apply","step":0}}"#;
    for line in [
        r#"{"type":"answer","inquiry":"c1","question":"nope","value":true,"step":0}"#,
        r#"{"type":"answer","inquiry":"c1","question":"nope","value":true}"#,
    ] {
        assert_eq!(send(&mut server, line), [refused, APPLY]);
    }
}

#[test]
fn another_question_of_the_form_is_not_the_one_asked() {
    let mut server = asked();
    assert_eq!(
        send(
            &mut server,
            r#"{"type":"answer","inquiry":"c1","question":"env","value":"staging","step":0}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"unexpected_question","message":"inquiry \"c1\" is asking question \"apply\" (step 0), not \"env\": answer that question, or go back or reply from it","current":{"inquiry":"c1","question":"apply","step":0}}"#,
            APPLY
        ]
    );
}

#[test]
fn a_submit_with_no_review_and_a_step_never_reached_are_named() {
    let mut server = asked();
    assert_eq!(
        send(&mut server, r#"{"type":"submit","inquiry":"c1","step":0}"#),
        [
            r#"{"type":"error","inquiry":"c1","code":"not_in_review","message":"inquiry \"c1\" shows no review to submit or change an answer from: it shows question \"apply\" (step 0); answer that (a review shows once every question is answered, on a surface that asked for one)","current":{"inquiry":"c1","question":"apply","step":0}}"#,
            APPLY
        ]
    );
    assert_eq!(
        send(
            &mut server,
            r#"{"type":"back","inquiry":"c1","question":"apply","step":3}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"future_step","message":"inquiry \"c1\" never showed question \"apply\" (step 3): it is at step 0; act on what it shows now, question \"apply\" (step 0)","current":{"inquiry":"c1","question":"apply","step":0}}"#,
            APPLY
        ]
    );
}

#[test]
fn an_action_on_a_finished_inquiry_says_how_it_ended() {
    let mut server = asked();
    assert_eq!(
        send(&mut server, r#"{"type":"end_turn","inquiry":"c1"}"#),
        [r#"{"type":"turn_ended","inquiry":"c1"}"#]
    );
    assert_eq!(
        send(
            &mut server,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":0}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"inquiry_finished","message":"inquiry \"c1\" already finished (turn ended); it takes no more input: show how it ended instead"}"#
        ]
    );
}
