//! What a person can see, in a real terminal (tmux; see `common/tmux.rs`): every
//! answer on the review at 40 columns, long options wrapped rather than cut,
//! `NO_COLOR` and `TERM=dumb` with no escape byte at all, the highlighted row in
//! reverse video otherwise, a shrink that leaves no stale row, and a
//! multi-select's tick count with select all / none.

mod common;

use common::tmux::{Tmux, finished};
use common::{Scratch, example};

/// Writes a jp-form call to `form.json` in the scratch directory.
fn form(scratch: &Scratch, json: &str) -> String {
    let path = scratch.path("form.json");
    std::fs::write(&path, json).unwrap();
    path.display().to_string()
}

fn ask_sized(
    name: &str,
    scratch: &Scratch,
    env: &[(&str, &str)],
    form: &str,
    size: (u16, u16),
) -> Tmux {
    Tmux::start_sized(
        name,
        scratch,
        env,
        &["ask", "--db", &scratch.db(), "--stream", "s", form],
        size,
    )
}

#[test]
fn the_review_at_40_columns_shows_every_question_and_answer() {
    let scratch = Scratch::new();
    let tmux = ask_sized(
        "narrow",
        &scratch,
        &[],
        &example("migration.json"),
        (40, 30),
    );
    tmux.wait_for("proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("environment?");
    tmux.keys(&["2"]);
    tmux.wait_for("migration log");
    tmux.text("run it after the nightly backup");
    tmux.keys(&["Enter"]);
    let review = tmux.wait_for("? Review your answers");
    let after: Vec<&str> = review
        .lines()
        .skip_while(|l| !l.starts_with("? Review your answers"))
        .collect();
    assert_eq!(
        after,
        [
            "? Review your answers",
            "> Submit these answers",
            "  1) Apply the proposed migration? —",
            "  Yes",
            "  2) Which environment? — production",
            "  3) Optional note for the migration",
            "  log — run it after the nightly backup",
            "[Enter submits · 1-3 change that answer",
            "· Esc for Reply / End Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"run it after the nightly backup\"}\n"
        )
    );
}

const DATABASES: &str = r#"{"questions": [{"id": "db", "text": "Which database?",
    "answer_type": "select", "options": [
        {"label": "PostgreSQL with logical replication (Recommended)",
         "description": "Runs in every region we have, and the team knows it well"},
        {"label": "SQLite", "description": "One file, no server to run at all"}]}]}"#;

#[test]
fn long_options_and_their_descriptions_wrap_at_40_columns_never_cut() {
    let scratch = Scratch::new();
    let form = form(&scratch, DATABASES);
    let tmux = ask_sized("wrap", &scratch, &[], &form, (40, 30));
    let screen = tmux.wait_for("(Recommended)");
    assert_eq!(
        screen
            .lines()
            .skip_while(|l| !l.starts_with("? "))
            .collect::<Vec<_>>(),
        [
            "? Assistant asks: Which database?",
            "> 1) PostgreSQL with logical",
            "  replication (Recommended) — Runs in",
            "  every region we have, and the team",
            "  knows it well",
            "  2) SQLite — One file, no server to",
            "  run at all",
            "[1-2 pick · type to filter, Enter picks",
            "· Alt+N note · Esc for Reply / End",
            "Turn]",
        ]
    );
    tmux.keys(&["Down"]);
    let screen = tmux.wait_for("> 2) SQLite");
    assert_eq!(
        screen
            .lines()
            .skip_while(|l| !l.starts_with("? "))
            .take(7)
            .collect::<Vec<_>>(),
        [
            "? Assistant asks: Which database?",
            "  1) PostgreSQL with logical",
            "  replication (Recommended) — Runs in",
            "  every region we have, and the team",
            "  knows it well",
            "> 2) SQLite — One file, no server to",
            "  run at all",
        ]
    );
    // The highlighted row is drawn in reverse video.
    let raw = String::from_utf8_lossy(&tmux.raw_output()).into_owned();
    assert!(raw.contains("\u{1b}[7m> 2) SQLite — One file, no server to\u{1b}[27m"));
}

/// Answers the migration form with `env` set; the raw bytes the program wrote.
fn plain_run(name: &str, env: &[(&str, &str)]) -> (Vec<u8>, String) {
    let scratch = Scratch::new();
    let tmux = ask_sized(name, &scratch, env, &example("migration.json"), (60, 30));
    tmux.wait_for("Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("Which environment?");
    tmux.text("prod");
    tmux.wait_for("> 2) production");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Optional note for the migration log");
    tmux.text("ok");
    tmux.keys(&["BSpace"]);
    tmux.text("k!");
    tmux.wait_for("> ok!");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(code, 0);
    (tmux.raw_output(), out)
}

#[test]
fn no_color_and_a_dumb_terminal_get_no_escape_byte() {
    for (name, env) in [
        ("nocolor", [("NO_COLOR", "1")]),
        ("dumb", [("TERM", "dumb")]),
    ] {
        let (raw, out) = plain_run(name, &env);
        assert_eq!(
            out,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"ok!\"}\n"
        );
        assert!(!raw.is_empty());
        assert_eq!(
            raw.iter().position(|&b| b == 0x1b),
            None,
            "{name}: an escape byte in {:?}",
            String::from_utf8_lossy(&raw)
        );
    }
}

#[test]
fn a_shrink_redraws_without_a_stale_row() {
    let scratch = Scratch::new();
    let form = form(&scratch, DATABASES);
    let tmux = ask_sized("shrink", &scratch, &[], &form, (90, 30));
    tmux.wait_for("(Recommended)");
    tmux.resize((40, 30));
    tmux.keys(&["Down"]);
    let screen = tmux.wait_for("  run at all");
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(
        rows.iter()
            .filter(|l| l.starts_with("? Assistant asks"))
            .count(),
        1,
        "one question row after the shrink:\n{screen}"
    );
    assert_eq!(
        rows.iter().filter(|l| l.contains("SQLite")).count(),
        1,
        "one SQLite row after the shrink:\n{screen}"
    );
}

#[test]
fn a_multi_select_counts_its_ticks_and_ticks_all_or_none() {
    let scratch = Scratch::new();
    let tmux = ask_sized("ticks", &scratch, &[], &example("release.json"), (100, 30));
    tmux.wait_for("Ship release 2.4 today?");
    tmux.keys(&["y"]);
    tmux.wait_for("Which channel?");
    tmux.keys(&["1"]);
    tmux.wait_for("Which checks must pass first?");
    tmux.keys(&["C-a"]);
    tmux.wait_for("  3 ticked");
    tmux.text("smo");
    let filtered = tmux.wait_for("hidden by the filter");
    assert_eq!(
        filtered
            .lines()
            .skip_while(|l| !l.starts_with("? [3/5]"))
            .collect::<Vec<_>>(),
        [
            "? [3/5] Assistant asks: Which checks must pass first? smo",
            "> [x] 3) smoke tests",
            "  3 ticked (2 hidden by the filter)",
            "[Space or 1-3 tick · Ctrl+A all · Ctrl+D none · type to filter · Enter sends · Alt+N note · Esc for",
            "Back / Reply / End Turn]",
        ]
    );
    tmux.keys(&["C-u", "C-d"]);
    tmux.wait_for("  0 ticked");
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("One line for the release notes");
}

const RUNBOOK: &str = r#"{"questions": [{"id": "go", "text": "Roll back as the runbook says?",
    "answer_type": "select", "options": [
        {"label": "Roll back", "description": "https://runbooks.example.com/billing/deploys#rollback"},
        {"label": "Wait"}]}]}"#;

#[test]
fn a_link_longer_than_the_screen_is_never_split_and_redraws_clean_at_40_columns() {
    let scratch = Scratch::new();
    let form = form(&scratch, RUNBOOK);
    let tmux = ask_sized("link", &scratch, &[], &form, (40, 30));
    tmux.wait_for("Wait");
    tmux.keys(&["Down"]);
    tmux.wait_for("> 2) Wait");
    tmux.keys(&["Up"]);
    let screen = tmux.wait_for("> 1) Roll back");
    // The link has a row of its own, whole; the terminal wraps it (39 columns
    // are the frame's, the 40th is never written), and the redraws leave
    // nothing behind.
    assert_eq!(
        screen
            .lines()
            .skip_while(|l| !l.starts_with("? "))
            .collect::<Vec<_>>(),
        [
            "? Assistant asks: Roll back as the",
            "runbook says?",
            "> 1) Roll back —",
            "  https://runbooks.example.com/billing/d",
            "eploys#rollback",
            "  2) Wait",
            "[1-2 pick · type to filter, Enter picks",
            "· Alt+N note · Esc for Reply / End",
            "Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (0, "{\"go\":\"Roll back\"}\n"));
}
