//! The terminal prompts in a real terminal (tmux; see `common/tmux.rs`): every
//! answer type, filtering and digits, the menu Esc opens, Reply with a message,
//! End Turn's confirmation, Ctrl+C, Back with prefills, the review, `$EDITOR`,
//! and what reaches the terminal. Screens are asserted whole.

mod common;

use common::tmux::{Tmux, events, finished};
use common::{Scratch, example};

/// Writes a jp-form call to `form.json` in the scratch directory.
fn form(scratch: &Scratch, json: &str) -> String {
    let path = scratch.path("form.json");
    std::fs::write(&path, json).unwrap();
    path.display().to_string()
}

const LANGUAGES: &str = r#"{"questions": [{"id": "lang", "text": "Which language?",
    "answer_type": "select", "options": ["go", "rust", "ruby", "scala", "bash"]}]}"#;

#[test]
fn typing_s_filters_to_scala_and_enter_picks_it() {
    let scratch = Scratch::new();
    let form = form(&scratch, LANGUAGES);
    let tmux = Tmux::start(
        "filter",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &form],
    );
    tmux.wait_for("? Assistant asks: Which language?");
    tmux.keys(&["s"]);
    assert_eq!(
        tmux.wait_for("Which language? s"),
        "Assistant asks you a question\n\
         ? Assistant asks: Which language? s\n\
         > 4) scala\n  \
         2) rust\n  \
         5) bash\n\
         [1-5 pick · type to filter, Enter picks · Alt+N note · Esc for Reply / End Turn]"
    );
    tmux.keys(&["Enter"]);
    // The form's one question: sent with its answer, no review.
    assert_eq!(
        finished(&tmux, &scratch),
        (0, "{\"lang\":\"scala\"}\n".into())
    );
    assert_eq!(
        tmux.screen(),
        "Assistant asks you a question\n\
         > Assistant asks: Which language? scala\n\
         askuser: recorded as stream \"s\" in ./log.db"
            .replace("./log.db", &scratch.db())
    );
}

#[test]
fn every_answer_type_digits_and_a_schema_answer_rejected_then_accepted() {
    let scratch = Scratch::new();
    let release = example("release.json");
    let tmux = Tmux::start(
        "types",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &release],
    );
    tmux.wait_for("? [1/5] Assistant asks: Ship release 2.4 today?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/5] Assistant asks: Which channel?");
    tmux.keys(&["0"]);
    tmux.wait_for("Which channel? (Other)");
    tmux.text("qa");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [3/5] Assistant asks: Which checks must pass first?");
    tmux.keys(&["1", "Down", "Down", "Space", "Enter"]);
    tmux.wait_for("? [4/5] Assistant asks: One line for the release notes");
    // Readline keys: Ctrl+W deletes a word, Ctrl+A goes to the start.
    tmux.text("ship them");
    tmux.keys(&["C-w"]);
    tmux.text("it");
    tmux.keys(&["C-a"]);
    tmux.text("we ");
    tmux.keys(&["C-e"]);
    tmux.text("!");
    tmux.keys(&["Enter"]);
    tmux.wait_for("> {\"percent\":10}");
    tmux.keys(&["C-u"]);
    tmux.text("{\"percent\": 0}");
    tmux.keys(&["Enter"]);
    let rejected = tmux.wait_for("✗ ");
    insta::assert_snapshot!("schema_answer_rejected_screen", rejected);
    tmux.keys(&["C-u"]);
    tmux.text("{\"percent\": 5}");
    tmux.keys(&["Enter"]);
    let review = tmux.wait_for("? Review your answers");
    insta::assert_snapshot!("review_screen", review);
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ship\":true,\"channel\":\"qa\",\"checks\":[\"lint\",\"smoke tests\"],\"notes\":\"we ship it!\",\"rollout\":{\"percent\":5}}\n"
        )
    );
    insta::assert_snapshot!("every_answer_type_screen", scratch.redact(&tmux.screen()));
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (5 questions: ship, channel, checks, notes, rollout)",
            "#3 review wanted call-1",
            "#4 answered call-1: ship = true",
            "#5 answered call-1: channel = \"qa\"",
            "#6 answered call-1: checks = [\"lint\",\"smoke tests\"]",
            "#7 answered call-1: notes = \"we ship it!\"",
            "#8 answered call-1: rollout = {\"percent\":5}",
            "#9 submitted call-1",
            "#10 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn multi_select_ticks_survive_the_menu_and_ctrl_c_ends_the_turn_with_a_line() {
    let scratch = Scratch::new();
    let release = example("release.json");
    let tmux = Tmux::start(
        "ticks",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &release],
    );
    tmux.wait_for("? [1/5] Assistant asks: Ship release 2.4 today?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/5] Assistant asks: Which channel?");
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/5] Assistant asks: Which checks must pass first?");
    tmux.keys(&["1", "3"]);
    tmux.wait_for("[x] 3) smoke tests");
    tmux.keys(&["Escape"]);
    let menu = tmux.wait_for("k) Keep answering");
    insta::assert_snapshot!("escape_menu_screen", menu);
    tmux.keys(&["k", "Enter"]);
    let kept = tmux.wait_for("? [3/5] Assistant asks: Which checks must pass first?");
    assert_eq!(
        kept.lines().skip(3).collect::<Vec<_>>(),
        [
            "? [3/5] Assistant asks: Which checks must pass first?",
            "  [x] 1) lint",
            "  [ ] 2) unit tests",
            "> [x] 3) smoke tests",
            "  2 ticked",
            "[Space or 1-3 tick · Ctrl+A all · Ctrl+D none · type to filter · Enter sends · Alt+N note · Esc for",
            "Back / Reply / End Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [4/5] Assistant asks: One line for the release notes");
    tmux.text("half a th");
    // Ctrl+C with answers given asks first; a second Ctrl+C ends the turn.
    tmux.keys(&["C-c"]);
    tmux.wait_for("Ctrl+C again ends the turn");
    tmux.keys(&["C-c"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    insta::assert_snapshot!("ctrl_c_screen", scratch.redact(&tmux.screen()));
    assert_eq!(
        events(&scratch).iter().rev().nth(1).map(String::as_str),
        Some("#7 turn ended call-1 in the terminal")
    );
}

#[test]
fn esc_reply_sends_the_typed_message_with_the_answers_so_far() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let tmux = Tmux::start(
        "reply",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["Escape"]);
    tmux.wait_for("r) Reply to the assistant instead");
    tmux.keys(&["r", "Enter"]);
    tmux.wait_for("? Reply to the assistant instead of answering");
    tmux.text("run it on staging first");
    let reply = tmux.wait_for("> run it on staging first");
    insta::assert_snapshot!("reply_screen", reply);
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"cancelled\":true,\"answered\":{\"apply\":true,\"env\":\"production\"},\"message\":\"run it on staging first\"}\n"
        )
    );
}

#[test]
fn end_turn_asks_first_when_answers_would_be_lost() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let tmux = Tmux::start(
        "endturn",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("s) End the turn");
    tmux.keys(&["s", "Enter"]);
    let confirm = tmux.wait_for("y) Yes, end the turn");
    assert_eq!(
        confirm.lines().skip(3).collect::<Vec<_>>(),
        [
            "? End the turn? Your answers so far are lost and the assistant gets no reply.",
            "> n) No, keep answering",
            "  y) Yes, end the turn",
            "[y then Enter ends the turn · Enter or Esc keeps answering]",
        ]
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("s) End the turn");
    tmux.keys(&["s", "Enter"]);
    tmux.wait_for("y) Yes, end the turn");
    tmux.keys(&["y", "Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        tmux.screen().lines().nth(3),
        Some(
            "✗ [2/3] Assistant asks: Which environment?: the turn was ended; nothing is sent to the assistant."
        )
    );
}

#[test]
fn end_turn_with_nothing_to_lose_ends_at_once() {
    let scratch = Scratch::new();
    let claude = example("claude.json");
    let tmux = Tmux::start(
        "endnow",
        &scratch,
        &[
            "ask",
            "--dialect",
            "claude",
            "--db",
            &scratch.db(),
            "--stream",
            "s",
            &claude,
        ],
    );
    tmux.wait_for("Which auth method should we use?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("s) End the turn");
    tmux.keys(&["s", "Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (2 questions: q1, q2)",
            "#3 turn ended call-1 in the terminal",
            "#4 detached machine=laptop, directory=<tmp>",
        ]
    );
}
