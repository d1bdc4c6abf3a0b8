//! Timeouts in a real terminal (tmux; see `common/tmux.rs`): the time left from
//! the start, the warning in the last seconds, keys not moving the deadline, each
//! `on_timeout` action (`ASKUSER_TIMEOUT` / `ASKUSER_ON_TIMEOUT` set the policy
//! of `askuser ask`), and a Reply message being typed when the time runs out.

mod common;

use common::tmux::{Tmux, events, finished};
use common::{Scratch, example};

/// Starts the migration form with a timeout of `seconds` and `action`.
fn start(name: &str, scratch: &Scratch, seconds: &str, action: &str) -> Tmux {
    let migration = example("migration.json");
    Tmux::start_with(
        name,
        scratch,
        &[("ASKUSER_TIMEOUT", seconds), ("ASKUSER_ON_TIMEOUT", action)],
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    )
}

/// The screen with the countdown's seconds written as `N`.
fn without_seconds(screen: &str) -> String {
    screen
        .lines()
        .map(|line| match line.strip_prefix("⏳ ") {
            Some(rest) => {
                let (warning, rest) = match rest.strip_prefix("⚠ ") {
                    Some(rest) => ("⚠ ", rest),
                    None => ("", rest),
                };
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                format!("⏳ {warning}N{}", &rest[digits..])
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_countdown_shows_keys_do_not_move_it_and_cancel_sends_the_answers_so_far() {
    let scratch = Scratch::new();
    let tmux = start("cancel", &scratch, "6", "cancel");
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    let counting = tmux.wait_for("⏳ ⚠ 3 s left to answer");
    insta::assert_snapshot!("countdown_screen", without_seconds(&counting));
    tmux.keys(&["Down"]);
    let moved = tmux.wait_for("> 2) production");
    let seconds: u64 = moved
        .lines()
        .find_map(|l| l.strip_prefix("⏳ ⚠ "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a countdown line");
    // The deadline is the question's (from when it was recorded), as the web
    // inbox shows it: a key does not move it.
    assert!(seconds <= 3, "a key moved the deadline:\n{moved}");
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"timed_out\":true,\"answered\":{\"apply\":true},\"filled_by_timeout\":{},\"message\":\"The user did not answer in time: the questions timed out after 6 seconds. No answer was filled in for the user. Not answered: \\\"Which environment?\\\", \\\"Optional note for the migration log\\\".\"}\n"
        )
    );
    insta::assert_snapshot!("timed_out_screen", scratch.redact(&tmux.screen()));
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 review wanted call-1",
            "#4 answered call-1: apply = true",
            "#5 timed out call-1",
            "#6 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn defaults_fill_the_remaining_questions() {
    let scratch = Scratch::new();
    let form = scratch.path("defaults.json");
    std::fs::write(
        &form,
        r#"{"questions": [
            {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
            {"id": "env", "text": "Which environment?", "answer_type": "select",
             "options": ["staging", "production"], "default": "staging"},
            {"id": "note", "text": "A note?", "answer_type": "text"}]}"#,
    )
    .unwrap();
    let form = form.display().to_string();
    let tmux = Tmux::start_with(
        "defaults",
        &scratch,
        &[("ASKUSER_TIMEOUT", "3"), ("ASKUSER_ON_TIMEOUT", "defaults")],
        &["ask", "--db", &scratch.db(), "--stream", "s", &form],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    let counting = tmux.wait_for("s left to answer");
    let shown = without_seconds(&counting);
    assert_eq!(
        shown.lines().rev().take(2).collect::<Vec<_>>(),
        [
            "⏳ ⚠ N s left to answer; then the remaining questions take their defaults and the answers are sent.",
            "[1-2 pick · type to filter, Enter picks · Alt+N note · Esc for Back / Reply / End Turn]",
        ]
    );
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(code, 0, "{out}");
    insta::assert_snapshot!("timed_out_defaults_result", out);
}

#[test]
fn end_turn_ends_the_turn() {
    let scratch = Scratch::new();
    let tmux = start("endturn", &scratch, "2", "end_turn");
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 timed out call-1",
            "#4 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn a_reply_being_typed_when_the_time_runs_out_is_sent_with_the_result() {
    let scratch = Scratch::new();
    let tmux = start("replying", &scratch, "3", "cancel");
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("r) Reply to the assistant instead");
    tmux.keys(&["r", "Enter"]);
    tmux.wait_for("? Reply to the assistant instead of answering");
    tmux.text("use staging, I am away");
    tmux.wait_for("> use staging, I am away");
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"timed_out\":true,\"answered\":{\"apply\":true},\"filled_by_timeout\":{},\"message\":\"The user did not answer in time: the questions timed out after 3 seconds. No answer was filled in for the user. Not answered: \\\"Which environment?\\\", \\\"Optional note for the migration log\\\". When the time ran out the user was writing this reply to you: use staging, I am away\"}\n"
        )
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 review wanted call-1",
            "#4 answered call-1: apply = true",
            "#5 timed out call-1, replying: use staging, I am away",
            "#6 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn an_answer_being_typed_when_the_time_runs_out_is_given_back_to_copy() {
    let scratch = Scratch::new();
    let tmux = start("typing", &scratch, "4", "cancel");
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("run it after the nightly backup");
    tmux.wait_for("> run it after the nightly backup");
    let (code, _) = finished(&tmux, &scratch);
    assert_eq!(code, 0);
    let screen = scratch.redact(&tmux.screen());
    let end: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.starts_with("⏱"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        end,
        [
            "⏱ [3/3] Assistant asks: Optional note for the migration log: no answer in time",
            "What you were typing was not sent; here it is, to copy:",
            "  run it after the nightly backup",
            "askuser: recorded as stream \"s\" in <tmp>/log.db",
        ]
    );
}
