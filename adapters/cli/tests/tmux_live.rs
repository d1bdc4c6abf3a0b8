//! A waiting terminal is live (issue 37, item 6): while `askuser ask` waits
//! for a key in a real terminal (tmux; see `common/tmux.rs`), another surface
//! on the same log answers, replies to or ends its inquiry, and the terminal
//! redraws with no key pressed: it says in words what changed there, shows the
//! question as it is now with what the person was typing kept (not sent), or
//! prints the result and exits with its status. The other surface is `askuser
//! serve` (JSON lines) or the web inbox in Debian's chromium, on sled or
//! PostgreSQL. Each test prints how long the redraw took (run with
//! `--nocapture` to read it); none is timed.

mod common;

use std::time::Instant;

use common::browser::Browser;
use common::place::Place;
use common::tmux::{Tmux, events, finished};
use common::web::{Web, at};
use common::{Scratch, example};

/// The first lines of every screen of the migration form.
const HEAD: &str = "Assistant asks you 3 questions\n\
                    The migration adds a tenants table and backfills 12,000 rows.";

/// Another surface on the same log: `askuser serve --stream s` given `lines`
/// (then the end of its input). Returns when it has recorded them and exited.
fn elsewhere(scratch: &Scratch, lines: &[&str]) {
    elsewhere_in(scratch, &scratch.db(), lines);
}

/// [`elsewhere`] on the log at `db`.
fn elsewhere_in(scratch: &Scratch, db: &str, lines: &[&str]) {
    let mut input = lines.join("\n");
    input.push('\n');
    let run = scratch.run(&["serve", "--stream", "s", "--db", db], &input);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `askuser ask` of the migration form in stream `s` of the log at `db`, in a
/// 100x30 pane; waits at the first question.
fn migration_asked(name: &str, scratch: &Scratch, db: &str) -> Tmux {
    let migration = example("migration.json");
    let tmux = Tmux::start(
        name,
        scratch,
        &["ask", "--db", db, "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux
}

/// Waits, pressing no key, for a line of the screen holding `needle`; says on
/// standard error when it first showed: after `since` (taken before the other
/// surface started, so an upper bound) and after `done` (once the other surface
/// had recorded its input and returned).
fn redrawn(tmux: &Tmux, (since, done): (Instant, Instant), needle: &str) -> String {
    let first = std::cell::Cell::new(None);
    let screen = tmux.wait_until(needle, |screen| {
        let shown = screen.lines().any(|line| line.contains(needle));
        if shown && first.get().is_none() {
            first.set(Some(Instant::now()));
        }
        shown
    });
    let first = first.get().unwrap_or_else(Instant::now);
    eprintln!(
        "redrawn {} ms after the other surface started, {} ms after it returned",
        first.duration_since(since).as_millis(),
        first.saturating_duration_since(done).as_millis()
    );
    screen
}

/// The last line of the screen: `askuser: recorded as stream "s" in <db>`.
fn recorded(scratch: &Scratch) -> String {
    format!("askuser: recorded as stream \"s\" in {}", scratch.db())
}

/// Another process answers the first question (`apply`) on the log at `db`
/// while the terminal waits on it; the terminal redraws, with no key pressed,
/// into exactly this screen.
fn apply_answered_elsewhere(tmux: &Tmux, scratch: &Scratch, db: &str) {
    let since = Instant::now();
    elsewhere_in(
        scratch,
        db,
        &[r#"{"type":"answer","inquiry":"call-1","question":"apply","value":true}"#],
    );
    let screen = redrawn(
        tmux,
        (since, Instant::now()),
        "? [2/3] Assistant asks: Which environment?",
    );
    assert_eq!(
        screen,
        format!(
            "{HEAD}\n\
             ↻ Answered elsewhere: \"Apply the proposed migration?\" → Yes\n\
             ? [2/3] Assistant asks: Which environment?\n\
             > 1) staging\n  \
             2) production\n\
             [1-2 pick · type to filter, Enter picks · Alt+N note · Esc for Back / Reply / End Turn]"
        )
    );
}

#[test]
fn a_question_answered_elsewhere_redraws_the_waiting_terminal_with_the_next_question() {
    let scratch = Scratch::new();
    let tmux = migration_asked("answered", &scratch, &scratch.db());
    apply_answered_elsewhere(&tmux, &scratch, &scratch.db());
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("weekly run");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"weekly run\"}\n"
        )
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 attached machine=laptop, directory=<tmp>",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached machine=laptop, directory=<tmp>",
            "#4 answered call-1: apply = true",
            "#5 detached machine=laptop, directory=<tmp>",
            "#6 review wanted call-1",
            "#7 answered call-1: env = \"staging\"",
            "#8 answered call-1: note = \"weekly run\"",
            "#9 submitted call-1",
            "#10 detached machine=laptop, directory=<tmp>",
        ]
    );
}

/// The same through PostgreSQL: the terminal is woken by `NOTIFY` when
/// another process (here `serve`; it could be on another machine) answers.
#[test]
fn on_postgres_a_question_answered_elsewhere_redraws_the_waiting_terminal() {
    let scratch = Scratch::new();
    let place = Place::postgres();
    let db = place.db(&scratch);
    let tmux = migration_asked("postgres", &scratch, &db);
    apply_answered_elsewhere(&tmux, &scratch, &db);
    elsewhere_in(
        &scratch,
        &db,
        &[
            r#"{"type":"answer","inquiry":"call-1","question":"env","value":"production"}"#,
            r#"{"type":"answer","inquiry":"call-1","question":"note","value":"from afar"}"#,
            r#"{"type":"submit","inquiry":"call-1"}"#,
        ],
    );
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"from afar\"}\n"
        )
    );
}

#[test]
fn half_an_answer_typed_is_kept_in_the_field_and_said_not_sent_at_40_columns() {
    let scratch = Scratch::new();
    let form = scratch.path("form.json");
    std::fs::write(
        &form,
        r#"{"questions": [{"id": "why", "text": "Why ship today?", "answer_type": "text"},
            {"id": "risk", "text": "What could go wrong?", "answer_type": "text"}]}"#,
    )
    .unwrap();
    let form = form.display().to_string();
    let tmux = Tmux::start_sized(
        "typed",
        &scratch,
        &[],
        &["ask", "--db", &scratch.db(), "--stream", "s", &form],
        (40, 30),
    );
    tmux.wait_for("? [1/2] Assistant asks: Why ship");
    tmux.text("the fix is sm");
    tmux.wait_for("> the fix is sm");
    let since = Instant::now();
    elsewhere(
        &scratch,
        &[r#"{"type":"answer","inquiry":"call-1","question":"why","value":"customers wait"}"#],
    );
    let screen = redrawn(
        &tmux,
        (since, Instant::now()),
        "? [2/2] Assistant asks: What could",
    );
    assert_eq!(
        screen,
        "Assistant asks you 2 questions\n\
         ↻ Answered elsewhere: \"Why ship today?\"\n\
         → customers wait\n\
         ✗ Your answer was not sent; it is\n\
         filled in below.\n\
         ? [2/2] Assistant asks: What could go\n\
         wrong?\n\
         > the fix is sm\n\
         [Enter sends · Alt+Enter new line ·\n\
         Ctrl+U/W/A/E edit · Alt+N note · Esc\n\
         for Back / Reply / End Turn]"
    );
    tmux.text("all");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"why\":\"customers wait\",\"risk\":\"the fix is small\"}\n"
        )
    );
}

#[test]
fn a_reply_elsewhere_prints_its_result_and_exits_with_its_status() {
    let scratch = Scratch::new();
    let tmux = migration_asked("replied", &scratch, &scratch.db());
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    elsewhere(
        &scratch,
        &[r#"{"type":"reply","inquiry":"call-1","message":"use the replica"}"#],
    );
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"cancelled\":true,\"answered\":{\"apply\":true},\"message\":\"use the replica\"}\n"
        )
    );
    assert_eq!(
        tmux.screen(),
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             ↻ Replied elsewhere instead of answering: use the replica\n\
             The assistant got a reply instead, with the answers so far:\n  \
             Apply the proposed migration? — Yes\n  \
             Which environment? — (not answered)\n  \
             Optional note for the migration log — (not answered)\n  \
             and the message: use the replica\n\
             {}",
            recorded(&scratch)
        )
    );
}

#[test]
fn the_turn_ended_elsewhere_while_a_reply_is_typed_exits_as_end_turn_does() {
    let scratch = Scratch::new();
    let tmux = migration_asked("ended", &scratch, &scratch.db());
    tmux.keys(&["Escape"]);
    tmux.wait_for("r) Reply to the assistant instead");
    tmux.keys(&["r", "Enter"]);
    tmux.wait_for("? Reply to the assistant instead of answering");
    tmux.text("use stag");
    tmux.wait_for("> use stag");
    elsewhere(&scratch, &[r#"{"type":"end_turn","inquiry":"call-1"}"#]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        tmux.screen(),
        format!(
            "{HEAD}\n\
             ↻ The turn was ended in the agent's own window.\n\
             ✗ Your reply was not sent: use stag\n\
             The turn ended: the assistant gets no result.\n\
             {}",
            recorded(&scratch)
        )
    );
}

/// The cross-surface test of issue 37: a terminal and a browser on one inquiry,
/// the browser answering while the terminal waits.
#[test]
fn the_browser_answers_while_the_terminal_waits_and_the_terminal_redraws() {
    let scratch = Scratch::new();
    let tmux = migration_asked("browser", &scratch, &scratch.db());
    let web = Web::start(&scratch, &scratch.db());
    let browser = Browser::start();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/s/call-1", web.port));
    at(&browser, "[1/3] Apply the proposed migration?");
    let since = Instant::now();
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    let screen = redrawn(
        &tmux,
        (since, Instant::now()),
        "? [2/3] Assistant asks: Which environment?",
    );
    assert_eq!(
        screen,
        format!(
            "{HEAD}\n\
             ↻ Answered elsewhere: \"Apply the proposed migration?\" → Yes\n\
             ? [2/3] Assistant asks: Which environment?\n\
             > 1) staging\n  \
             2) production\n\
             [1-2 pick · type to filter, Enter picks · Alt+N note · Esc for Back / Reply / End Turn]"
        )
    );
    // The browser answers on; the terminal follows without a key.
    let since = Instant::now();
    browser.click("#c1");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Optional note for the migration log");
    let screen = redrawn(
        &tmux,
        (since, Instant::now()),
        "? [3/3] Assistant asks: Optional note for the migration log",
    );
    assert_eq!(
        screen,
        format!(
            "{HEAD}\n\
             ↻ Answered elsewhere: \"Apply the proposed migration?\" → Yes\n\
             ↻ Answered elsewhere: \"Which environment?\" → production\n\
             ? [3/3] Assistant asks: Optional note for the migration log\n\
             >\n\
             [Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Back / Reply / End\n\
             Turn]"
        )
    );
    // The person finishes in the terminal.
    tmux.text("from the terminal");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"from the terminal\"}\n"
        )
    );
}
