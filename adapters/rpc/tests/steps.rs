//! An action says what it answers: a host names the `step` (and question) of the
//! `prompt` or `review` line it acts on, and one sent after another surface moved
//! the inquiry on (here a second server on the same log, as the web inbox or the
//! terminal would) is refused with a `stale` error line saying what is current,
//! then the line the inquiry shows now; nothing is recorded. A line without a
//! `step` is taken on whatever the inquiry shows, as before.

use std::sync::Arc;

use askuser_app::log::{Log, MemLog};
use askuser_rpc::{Desk, Server};
use serde_json::{Value, json};

const ASK: &str = r#"{"type":"ask","inquiry":"c1","arguments":{"questions":[{"id":"apply","text":"Apply?","answer_type":"boolean"},{"id":"env","text":"Where?","answer_type":"select","options":["staging","production"]},{"id":"note","text":"Anything else?","answer_type":"text"}]}}"#;

/// The host's server and another surface's, on one log and stream.
fn two_surfaces() -> (Arc<dyn Log>, Server, Server) {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let mut host = Server::new(Desk::new(Arc::clone(&log)), "s").unwrap();
    let prompt = one(&mut host, ASK);
    assert_eq!(prompt, apply(0));
    let other = Server::new(Desk::new(Arc::clone(&log)), "s").unwrap();
    (log, host, other)
}

/// The lines answering `line`, as JSON text.
fn send(server: &mut Server, line: &str) -> Vec<String> {
    server
        .handle_line(line)
        .iter()
        .map(Value::to_string)
        .collect()
}

/// What another surface does, having seen everything recorded so far: the one
/// line answering `line`.
fn elsewhere(other: &mut Server, line: &str) -> String {
    other.catch_up();
    one(other, line)
}

/// The one line answering `line`.
fn one(server: &mut Server, line: &str) -> String {
    let lines = send(server, line);
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines.into_iter().next().unwrap()
}

fn head(log: &Arc<dyn Log>) -> u64 {
    log.info("s").unwrap().head
}

fn apply(step: u32) -> String {
    format!(
        r#"{{"type":"prompt","inquiry":"c1","question":{{"id":"apply","text":"Apply?","context":null,"header":null,"answer_type":"boolean","options":[],"allow_other":false,"schema":null}},"progress":{{"n":1,"m":3}},"prefill":null,"can_back":false,"label":"Assistant","step":{step}}}"#
    )
}

fn env(step: u32) -> String {
    env_prefilled(step, &Value::Null)
}

fn env_prefilled(step: u32, prefill: &Value) -> String {
    format!(
        r#"{{"type":"prompt","inquiry":"c1","question":{{"id":"env","text":"Where?","context":null,"header":null,"answer_type":"select","options":[{{"label":"staging","description":null}},{{"label":"production","description":null}}],"allow_other":false,"schema":null}},"progress":{{"n":2,"m":3}},"prefill":{prefill},"can_back":true,"label":"Assistant","step":{step}}}"#
    )
}

fn note(step: u32, prefill: &Value) -> String {
    format!(
        r#"{{"type":"prompt","inquiry":"c1","question":{{"id":"note","text":"Anything else?","context":null,"header":null,"answer_type":"text","options":[],"allow_other":false,"schema":null}},"progress":{{"n":3,"m":3}},"prefill":{prefill},"can_back":true,"label":"Assistant","step":{step}}}"#
    )
}

fn review(step: u32) -> String {
    format!(
        r#"{{"type":"review","inquiry":"c1","answers":{{"apply":true,"env":"staging","note":"ok"}},"step":{step}}}"#
    )
}

const RESULT: &str = r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging","note":"ok"},"cancelled":false}"#;

#[test]
fn an_answer_with_a_stale_step_is_refused_with_what_is_current_and_nothing_is_recorded() {
    let (log, mut host, mut other) = two_surfaces();
    // Another surface answers the question the host is showing.
    assert_eq!(
        elsewhere(
            &mut other,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":0}"#
        ),
        env(1)
    );
    // What another surface recorded reaches the host unrequested, with its step.
    let caught: Vec<String> = host.catch_up().iter().map(Value::to_string).collect();
    assert_eq!(caught, [env(1)]);

    // The host's person answers the question they were shown, too late.
    let before = head(&log);
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":false,"step":0}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)","current":{"inquiry":"c1","question":"env","step":1}}"#.to_owned(),
            env(1),
        ]
    );
    assert_eq!(head(&log), before, "nothing was recorded");

    // The answer to what is current is taken.
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"env","value":"staging","step":1}"#
        ),
        note(2, &Value::Null)
    );
    assert_eq!(head(&log), before + 1);
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"note","value":"ok","step":2}"#
        ),
        RESULT
    );
}

#[test]
fn a_stale_submit_back_and_reply_are_refused_each_with_the_line_shown_now() {
    let (log, mut host, mut other) = two_surfaces();
    assert_eq!(
        one(&mut host, r#"{"type":"review","inquiry":"c1"}"#),
        apply(1)
    );
    for (line, next) in [
        (
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":1}"#,
            env(2),
        ),
        (
            r#"{"type":"answer","inquiry":"c1","question":"env","value":"staging","step":2}"#,
            note(3, &Value::Null),
        ),
        (
            r#"{"type":"answer","inquiry":"c1","question":"note","value":"ok","step":3}"#,
            review(4),
        ),
    ] {
        assert_eq!(one(&mut host, line), next);
    }
    // Another surface goes Back from the review.
    assert_eq!(
        elsewhere(&mut other, r#"{"type":"back","inquiry":"c1","step":4}"#),
        note(5, &json!("ok"))
    );
    let before = head(&log);
    // The host submits the review it shows: what the other surface did is passed
    // on first, then the refusal.
    assert_eq!(
        send(&mut host, r#"{"type":"submit","inquiry":"c1","step":4}"#),
        [
            note(5, &json!("ok")),
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since the review (step 4) was shown: it now shows question \"note\" (step 5)","current":{"inquiry":"c1","question":"note","step":5}}"#.to_owned(),
        ]
    );
    // The other surface answers again: the review is back, at a later step.
    assert_eq!(
        elsewhere(
            &mut other,
            r#"{"type":"answer","inquiry":"c1","question":"note","value":"ok","step":5}"#
        ),
        review(6)
    );
    let moved = head(&log);
    assert_eq!(moved, before + 1);
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"back","inquiry":"c1","question":"note","step":5}"#
        ),
        [
            review(6),
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since question \"note\" (step 5) was shown: it now shows the review (step 6)","current":{"inquiry":"c1","question":null,"step":6}}"#.to_owned(),
        ]
    );
    // Sent again from what it showed before: refused, and the review it shows now
    // follows (nothing new was passed on).
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"reply","inquiry":"c1","message":"wait","step":4}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since the review (step 4) was shown: it now shows the review (step 6)","current":{"inquiry":"c1","question":null,"step":6}}"#.to_owned(),
            review(6),
        ]
    );
    assert_eq!(head(&log), moved, "nothing was recorded");
    assert_eq!(
        one(&mut host, r#"{"type":"submit","inquiry":"c1","step":6}"#),
        RESULT
    );
}

#[test]
fn a_line_without_a_step_is_taken_on_what_the_inquiry_shows() {
    let (log, mut host, mut other) = two_surfaces();
    assert_eq!(
        elsewhere(
            &mut other,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true}"#
        ),
        env(1)
    );
    let before = head(&log);
    // No step: the answer is for the question it names, whatever was shown when.
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"env","value":"staging"}"#
        ),
        note(2, &Value::Null)
    );
    assert_eq!(
        one(&mut host, r#"{"type":"back","inquiry":"c1"}"#),
        env_prefilled(3, &json!("staging"))
    );
    assert_eq!(head(&log), before + 2);
    // Without a step the question still has to be the one shown.
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"note","value":"ok"}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"unexpected_question","message":"inquiry \"c1\" is asking question \"env\" (step 3), not \"note\": answer that question, or go back or reply from it","current":{"inquiry":"c1","question":"env","step":3}}"#.to_owned(),
            env_prefilled(3, &json!("staging")),
        ]
    );
    assert_eq!(head(&log), before + 2);
}

#[test]
fn an_action_naming_a_finished_or_unknown_inquiry_is_refused_as_before() {
    let (_log, mut host, mut other) = two_surfaces();
    assert_eq!(
        elsewhere(
            &mut other,
            r#"{"type":"reply","inquiry":"c1","step":0,"question":"apply"}"#
        ),
        r#"{"type":"result","inquiry":"c1","result":{"cancelled":true,"answered":{}},"cancelled":true}"#
    );
    assert_eq!(host.catch_up().len(), 1, "the result, passed on");
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":0}"#
        ),
        r#"{"type":"error","inquiry":"c1","code":"inquiry_finished","message":"inquiry \"c1\" already finished (replied); it takes no more input: show how it ended instead"}"#
    );
    assert_eq!(
        one(&mut host, r#"{"type":"submit","inquiry":"c9","step":0}"#),
        r#"{"type":"error","inquiry":"c9","message":"no inquiry \"c9\" was asked in this session; send an \"ask\" for it first"}"#
    );
}

#[test]
fn an_answer_with_a_step_is_read_as_a_ui_s_input_with_its_note_and_line_breaks() {
    let mut host = Server::new(Desk::memory(), "s").unwrap();
    host.handle_line(ASK);
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":"yes","step":0,"note":"after 6pm"}"#
        ),
        env(1)
    );
    one(
        &mut host,
        r#"{"type":"answer","inquiry":"c1","question":"env","value":" staging ","step":1}"#,
    );
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"note","value":"a\r\nb","step":2}"#
        ),
        r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging","note":"a\nb","_notes":{"apply":"after 6pm"}},"cancelled":false}"#
    );
}

#[test]
fn what_another_surface_recorded_comes_before_the_refusal_of_a_line_it_made_stale() {
    // The host sends its line before the server passed on what the other surface
    // recorded (no `catch_up` between): those lines come first, then the refusal
    // (the prompt it shows now was just passed on: it is not sent twice).
    let (_log, mut host, mut other) = two_surfaces();
    elsewhere(
        &mut other,
        r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":0}"#,
    );
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":false,"step":0}"#
        ),
        [
            env(1),
            r#"{"type":"error","inquiry":"c1","code":"stale","message":"inquiry \"c1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)","current":{"inquiry":"c1","question":"env","step":1}}"#.to_owned(),
        ]
    );
    assert_eq!(host.catch_up(), Vec::<Value>::new(), "passed on once");
    // Finished elsewhere: the host gets the result the model is owed, then the
    // refusal of its own line.
    elsewhere(
        &mut other,
        r#"{"type":"reply","inquiry":"c1","message":"later","step":1,"question":"env"}"#,
    );
    let result = r#"{"type":"result","inquiry":"c1","result":{"cancelled":true,"answered":{"apply":true},"message":"later"},"cancelled":true}"#;
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"back","inquiry":"c1","question":"env","step":1}"#
        ),
        [
            result,
            r#"{"type":"error","inquiry":"c1","code":"inquiry_finished","message":"inquiry \"c1\" already finished (replied); it takes no more input: show how it ended instead"}"#,
        ]
    );
}

#[test]
fn a_review_wanted_elsewhere_is_passed_on_as_the_prompt_with_its_new_step() {
    let (_log, mut host, mut other) = two_surfaces();
    assert_eq!(
        elsewhere(&mut other, r#"{"type":"review","inquiry":"c1"}"#),
        apply(1)
    );
    let caught: Vec<String> = host.catch_up().iter().map(Value::to_string).collect();
    assert_eq!(caught, [apply(1)]);
    // Wanted and answered together (as the web inbox records them): the prompt
    // of the answer alone.
    let (_log, mut host, mut other) = two_surfaces();
    elsewhere(&mut other, r#"{"type":"review","inquiry":"c1"}"#);
    elsewhere(
        &mut other,
        r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":1}"#,
    );
    let caught: Vec<String> = host.catch_up().iter().map(Value::to_string).collect();
    assert_eq!(caught, [env(2)]);
}

/// `change` from the review: the first answer is prompted again in one step,
/// prefilled; once answered, the later answers come back and so does the
/// review. Off the review, or for a question nobody answered, it is refused.
#[test]
fn change_from_the_review_asks_that_question_again_and_keeps_the_later_answers() {
    let (_log, mut host, _other) = two_surfaces();
    one(&mut host, r#"{"type":"review","inquiry":"c1"}"#);
    for line in [
        r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":1}"#,
        r#"{"type":"answer","inquiry":"c1","question":"env","value":"staging","step":2}"#,
        r#"{"type":"answer","inquiry":"c1","question":"note","value":"ok","step":3}"#,
    ] {
        one(&mut host, line);
    }
    let prompt = one(
        &mut host,
        r#"{"type":"change","inquiry":"c1","question":"apply","step":4}"#,
    );
    assert_eq!(
        prompt,
        apply(7).replace(r#""prefill":null"#, r#""prefill":true"#)
    );
    assert_eq!(
        send(
            &mut host,
            r#"{"type":"change","inquiry":"c1","question":"apply","step":7}"#
        ),
        [
            r#"{"type":"error","inquiry":"c1","code":"not_in_review","message":"inquiry \"c1\" shows no review to submit or change an answer from: it shows question \"apply\" (step 7); answer that (a review shows once every question is answered, on a surface that asked for one)","current":{"inquiry":"c1","question":"apply","step":7}}"#,
            prompt.as_str()
        ]
    );
    assert_eq!(
        one(
            &mut host,
            r#"{"type":"answer","inquiry":"c1","question":"apply","value":true,"step":7}"#
        ),
        review(10)
    );
    assert_eq!(
        one(&mut host, r#"{"type":"submit","inquiry":"c1","step":10}"#),
        RESULT
    );
}
