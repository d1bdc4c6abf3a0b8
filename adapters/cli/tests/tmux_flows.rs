//! The terminal's longer flows in a real terminal (tmux; see `common/tmux.rs`):
//! Back then forward with the earlier answers prefilled, the review changing an
//! earlier answer, schema answers (bare text, `$EDITOR`, the schema in words), a
//! resumed fork, and what reaches the terminal (no OSC, the bell).

mod common;

use common::tmux::{Tmux, events, finished};
use common::{Scratch, example, run_in};

#[test]
fn back_then_forward_shows_the_earlier_answers_prefilled() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let tmux = Tmux::start(
        "prefill",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["Escape"]);
    tmux.wait_for("b) Back to the previous question");
    tmux.keys(&["b", "Enter"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("b) Back to the previous question");
    tmux.keys(&["b", "Enter"]);
    let first = tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    insta::assert_snapshot!("back_twice_screen", first);
    tmux.keys(&["Enter"]);
    // The answer Back discarded comes back: the cursor is on production.
    let env = tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    assert_eq!(
        env.lines().rev().take(4).collect::<Vec<_>>(),
        [
            "[1-2 pick · type to filter, Enter picks · Alt+N note · Esc for Back / Reply / End Turn]",
            "> 2) production",
            "  1) staging",
            "? [2/3] Assistant asks: Which environment?",
        ]
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("second try");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"second try\"}\n"
        )
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 review wanted call-1",
            "#4 answered call-1: apply = true",
            "#5 answered call-1: env = \"production\"",
            "#6 back call-1",
            "#7 back call-1",
            "#8 answered call-1: apply = true",
            "#9 answered call-1: env = \"production\"",
            "#10 answered call-1: note = \"second try\"",
            "#11 submitted call-1",
            "#12 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn the_review_changes_an_earlier_answer_and_keeps_the_later_ones() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let tmux = Tmux::start(
        "review",
        &scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("weekly run");
    tmux.keys(&["Enter"]);
    let review = tmux.wait_for("? Review your answers");
    assert_eq!(
        review.lines().skip(5).collect::<Vec<_>>(),
        [
            "? Review your answers",
            "> Submit these answers",
            "  1) Apply the proposed migration? — Yes",
            "  2) Which environment? — staging",
            "  3) Optional note for the migration log — weekly run",
            "[Enter submits · 1-3 change that answer · Esc for Reply / End Turn]",
        ]
    );
    tmux.keys(&["2"]);
    tmux.wait_for("> 1) staging");
    tmux.keys(&["2"]);
    // The note still applies: it keeps its answer and is not asked again.
    let review = tmux.wait_for("2) Which environment? — production");
    assert_eq!(
        review.lines().rev().take(5).collect::<Vec<_>>(),
        [
            "[Enter submits · 1-3 change that answer · Esc for Reply / End Turn]",
            "  3) Optional note for the migration log — weekly run",
            "  2) Which environment? — production",
            "  1) Apply the proposed migration? — Yes",
            "> Submit these answers",
        ]
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"weekly run\"}\n"
        )
    );
    insta::assert_snapshot!("review_changed_screen", scratch.redact(&tmux.screen()));
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 review wanted call-1",
            "#4 answered call-1: apply = true",
            "#5 answered call-1: env = \"staging\"",
            "#6 answered call-1: note = \"weekly run\"",
            "#7 change call-1: env",
            "#8 answered call-1: env = \"production\"",
            "#9 submitted call-1",
            "#10 detached machine=laptop, directory=<tmp>",
        ]
    );
}

const DEPLOY: &str = r#"{"questions": [
    {"id": "branch", "text": "Which branch?", "answer_type": "schema",
     "schema": {"type": "string", "pattern": "^[a-z0-9-]+$", "maxLength": 40}},
    {"id": "rollout", "text": "Rollout settings?", "answer_type": "schema",
     "schema": {"type": "object", "properties": {
         "percent": {"type": "integer", "minimum": 1, "maximum": 100},
         "regions": {"type": "array", "items": {"enum": ["eu", "us"]}, "minItems": 1}},
       "required": ["percent"], "additionalProperties": false}}]}"#;

#[test]
fn schema_answers_take_bare_text_and_the_editor_and_show_the_schema_in_words() {
    let scratch = Scratch::new();
    let form = scratch.path("deploy.json");
    std::fs::write(&form, DEPLOY).unwrap();
    let editor = scratch.path("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '%s\\n' '{\"percent\": 25,' '\"regions\": [\"eu\"]}' > \"$1\"\n",
    )
    .unwrap();
    let run = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .unwrap();
    assert!(run.success());
    let editor = editor.display().to_string();
    let form = form.display().to_string();
    let tmux = Tmux::start_with(
        "editor",
        &scratch,
        &[("EDITOR", &editor), ("VISUAL", "")],
        &["ask", "--db", &scratch.db(), "--stream", "s", &form],
    );
    tmux.wait_for("? [1/2] Assistant asks: Which branch?");
    tmux.text("my-brunch");
    tmux.keys(&["C-w"]);
    tmux.text("my-branch");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [2/2] Assistant asks: Rollout settings?");
    tmux.keys(&["Escape"]);
    let menu = tmux.wait_for("e) Edit the answer in");
    insta::assert_snapshot!("schema_menu_screen", scratch.redact(&menu));
    tmux.keys(&["e", "Enter"]);
    let edited = tmux.wait_for("\"regions\": [\"eu\"]}");
    insta::assert_snapshot!("schema_edited_screen", scratch.redact(&edited));
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"branch\":\"my-branch\",\"rollout\":{\"percent\":25,\"regions\":[\"eu\"]}}\n"
        )
    );
}

#[test]
fn no_osc_reaches_the_terminal_and_the_bell_rings_once_per_question() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let tmux = Tmux::start_with(
        "osc",
        &scratch,
        &[("ASKUSER_BELL", "1")],
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    let before = tmux.title_and_buffers();
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    // A paste that tries to set the title (OSC 2), the clipboard (OSC 52), to
    // hide text (CSI 8m) and to reverse it (RLO).
    tmux.paste("ok\u{1b}]2;pwned\u{7}\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[8m\u{202e}done");
    let pasted = tmux.wait_for("> ok");
    assert_eq!(
        pasted.lines().nth(5),
        Some("> ok]2;pwned]52;c;cHduZWQ=[8m\\u{202e}done")
    );
    // The paste itself is the one buffer tmux holds.
    let pasted_buffer = tmux.title_and_buffers().1;
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"ok]2;pwned]52;c;cHduZWQ=[8m\\u202edone\"}\n"
        )
    );
    assert_eq!(tmux.title_and_buffers(), (before.0, pasted_buffer));
    let raw = String::from_utf8_lossy(&tmux.raw_output()).into_owned();
    let osc = raw.matches("\u{1b}]").count();
    let bells = raw.matches('\u{7}').count();
    let bidi = raw.matches('\u{202e}').count();
    assert_eq!((osc, bells, bidi), (0, 3, 0));
}

#[test]
fn a_fork_is_resumed_in_the_terminal_from_its_open_question() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let migration = std::fs::read_to_string(example("migration.json")).unwrap();
    let input = format!(
        "{{\"type\":\"ask\",\"inquiry\":\"m1\",\"arguments\":{}}}\n\
         {{\"type\":\"answer\",\"inquiry\":\"m1\",\"question\":\"apply\",\"value\":true}}\n\
         {{\"type\":\"answer\",\"inquiry\":\"m1\",\"question\":\"env\",\"value\":\"staging\"}}\n",
        migration.replace('\n', "")
    );
    let serve = run_in(
        scratch.dir.path(),
        &["serve", "--stream", "first", "--db", &db],
        &input,
    );
    assert_eq!(serve.code, 0);
    let fork = run_in(
        scratch.dir.path(),
        &[
            "log", "fork", "first", "--at", "3", "--into", "s", "--db", &db,
        ],
        "",
    );
    assert_eq!(fork.code, 0, "{}", fork.stderr);

    let tmux = Tmux::start("resume", &scratch, &["resume", "s", "--db", &db]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("in production this time");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"in production this time\"}\n"
        )
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested m1 (3 questions: apply, env, note)",
            "#3 answered m1: apply = true",
            "#4 review wanted m1",
            "#5 answered m1: env = \"production\"",
            "#6 answered m1: note = \"in production this time\"",
            "#7 submitted m1",
        ]
    );
}
