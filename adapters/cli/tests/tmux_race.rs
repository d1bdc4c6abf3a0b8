//! The terminal and another surface on the same log (issue 27, item 9; issue 37,
//! item 6), in a real terminal (tmux; see `common/tmux.rs`): `askuser serve` on
//! the same sled log answers (or finishes) the inquiry while `askuser ask` or
//! `askuser resume` waits at a question or at the review. With no key pressed,
//! the terminal says in words what changed, keeps what the person typed (not
//! sent), goes on from the inquiry as it is now or says how it ended, and exits
//! as it would have had it finished the inquiry itself; no engine text is
//! shown. (An action taken in the instant before the terminal redraws is not
//! recorded either: `adapters/terminal/tests/elsewhere.rs` walks that race.)
//! Also: the countdown of a resumed question counts from when the question was
//! recorded.

mod common;

use common::tmux::{Tmux, events, finished};
use common::{Scratch, example};

/// The first lines of every screen of the migration form.
const HEAD: &str = "Assistant asks you 3 questions\n\
                    The migration adds a tenants table and backfills 12,000 rows.";

/// Another surface on the same log: `askuser serve --stream s` given `lines`
/// (then the end of its input). Returns what it wrote after its `ready` line
/// and the prompt it sends again for the open inquiry.
fn elsewhere(scratch: &Scratch, lines: &[&str]) -> Vec<String> {
    let mut input = lines.join("\n");
    input.push('\n');
    let run = scratch.run_db(&["serve", "--stream", "s"], &input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.lines().skip(2).map(str::to_owned).collect()
}

/// `askuser ask` of the migration form in stream `s`, answered `y` at the first
/// question; waits at the second.
fn at_the_second_question(name: &str, scratch: &Scratch) -> Tmux {
    let migration = example("migration.json");
    let tmux = Tmux::start(
        name,
        scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", &migration],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux
}

/// The last line of the screen: `askuser: recorded as stream "s" in <db>`.
fn recorded(scratch: &Scratch) -> String {
    format!("askuser: recorded as stream \"s\" in {}", scratch.db())
}

#[test]
fn a_question_answered_elsewhere_is_said_in_words_and_the_next_question_is_asked() {
    let scratch = Scratch::new();
    let tmux = at_the_second_question("answered", &scratch);
    let answered = elsewhere(
        &scratch,
        &[r#"{"type":"answer","inquiry":"call-1","question":"env","value":"staging"}"#],
    );
    assert_eq!(answered.len(), 1);
    assert!(
        answered[0].starts_with(r#"{"type":"prompt","inquiry":"call-1","question":{"id":"note""#)
    );
    // The person pressed no key: the terminal redraws by itself.
    let screen = tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    assert_eq!(
        screen,
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             ↻ Answered elsewhere: \"Which environment?\" → staging\n\
             ? [3/3] Assistant asks: Optional note for the migration log\n\
             >\n\
             [Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Back / Reply / End\n\
             Turn]"
        )
    );
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
            "#3 review wanted call-1",
            "#4 answered call-1: apply = true",
            "#5 attached machine=laptop, directory=<tmp>",
            "#6 answered call-1: env = \"staging\"",
            "#7 detached machine=laptop, directory=<tmp>",
            "#8 answered call-1: note = \"weekly run\"",
            "#9 submitted call-1",
            "#10 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn resumed_text_being_typed_for_a_question_answered_elsewhere_stays_in_the_next_field() {
    let scratch = Scratch::new();
    let form = scratch.path("form.json");
    std::fs::write(
        &form,
        r#"{"questions": [{"id": "why", "text": "Why ship today?", "answer_type": "text"},
            {"id": "risk", "text": "What could go wrong?", "answer_type": "text"}]}"#,
    )
    .unwrap();
    let pending = scratch.path("p.json").display().to_string();
    let form = form.display().to_string();
    let asked = scratch.run_db(&["ask", "--stream", "s", "--pending", &pending, &form], "");
    assert_eq!(asked.code, 5, "{}", asked.stderr);
    let tmux = Tmux::start("typed", &scratch, &["resume", "s", "--db", &scratch.db()]);
    tmux.wait_for("? [1/2] Assistant asks: Why ship today?");
    tmux.text("the fix is small");
    tmux.wait_for("> the fix is small");
    elsewhere(
        &scratch,
        &[r#"{"type":"answer","inquiry":"call-1","question":"why","value":"customers wait"}"#],
    );
    let screen = tmux.wait_for("? [2/2] Assistant asks: What could go wrong?");
    assert_eq!(
        screen,
        "askuser: resuming inquiry \"call-1\" of stream \"s\"; nothing is answered yet\n\
         Assistant asks you 2 questions\n\
         ↻ Answered elsewhere: \"Why ship today?\" → customers wait\n\
         ✗ Your answer was not sent; it is filled in below.\n\
         ? [2/2] Assistant asks: What could go wrong?\n\
         > the fix is small\n\
         [Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Back / Reply / End\n\
         Turn]"
    );
    tmux.keys(&["C-u"]);
    tmux.text("nothing");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"why\":\"customers wait\",\"risk\":\"nothing\"}\n")
    );
}

#[test]
fn an_inquiry_finished_elsewhere_prints_how_it_ended_and_its_result() {
    let scratch = Scratch::new();
    let tmux = at_the_second_question("finished", &scratch);
    let lines = elsewhere(
        &scratch,
        &[
            r#"{"type":"answer","inquiry":"call-1","question":"env","value":"staging"}"#,
            r#"{"type":"answer","inquiry":"call-1","question":"note","value":"from the browser"}"#,
            r#"{"type":"submit","inquiry":"call-1"}"#,
        ],
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            r#"{"type":"result","inquiry":"call-1","result":{"apply":true,"env":"staging","note":"from the browser"},"cancelled":false}"#
        )
    );
    let (code, out) = finished(&tmux, &scratch);
    // The same status and standard output as had the terminal finished it.
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"from the browser\"}\n"
        )
    );
    assert_eq!(
        tmux.screen(),
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             ↻ Answered elsewhere: \"Which environment?\" → staging\n\
             ↻ Answered elsewhere: \"Optional note for the migration log\" → from the browser\n\
             ↻ Submitted elsewhere.\n\
             The assistant got the answers:\n  \
             Apply the proposed migration? — Yes\n  \
             Which environment? — staging\n  \
             Optional note for the migration log — from the browser\n\
             {}",
            recorded(&scratch)
        )
    );
}

#[test]
fn the_turn_ended_elsewhere_exits_as_end_turn_does() {
    let scratch = Scratch::new();
    let tmux = at_the_second_question("ended", &scratch);
    let lines = elsewhere(&scratch, &[r#"{"type":"end_turn","inquiry":"call-1"}"#]);
    assert_eq!(lines, [r#"{"type":"turn_ended","inquiry":"call-1"}"#]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        tmux.screen(),
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             ↻ The turn was ended in the agent's own window.\n\
             The turn ended: the assistant gets no result.\n\
             {}",
            recorded(&scratch)
        )
    );
}

#[test]
fn a_review_changed_elsewhere_is_shown_again_as_it_is_now() {
    let scratch = Scratch::new();
    let tmux = at_the_second_question("review", &scratch);
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("weekly run");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    // The browser goes back from the review to the note and answers it again.
    let lines = elsewhere(
        &scratch,
        &[
            r#"{"type":"back","inquiry":"call-1"}"#,
            r#"{"type":"answer","inquiry":"call-1","question":"note","value":"monthly run"}"#,
        ],
    );
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with(r#"{"type":"review","inquiry":"call-1""#));
    let screen = tmux.wait_for("↻ Answered elsewhere");
    assert_eq!(
        screen,
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             > [2/3] Assistant asks: Which environment? staging\n\
             > [3/3] Assistant asks: Optional note for the migration log weekly run\n\
             ↻ Went back elsewhere, to an earlier question.\n\
             ↻ Answered elsewhere: \"Optional note for the migration log\" → monthly run\n\
             ? Review your answers\n\
             > Submit these answers\n  \
             1) Apply the proposed migration? — Yes\n  \
             2) Which environment? — staging\n  \
             3) Optional note for the migration log — monthly run\n\
             [Enter submits · 1-3 change that answer · Esc for Reply / End Turn]"
        )
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"monthly run\"}\n"
        )
    );
    assert_eq!(
        events(&scratch)[4..],
        [
            "#5 answered call-1: env = \"staging\"",
            "#6 answered call-1: note = \"weekly run\"",
            "#7 attached machine=laptop, directory=<tmp>",
            "#8 back call-1",
            "#9 answered call-1: note = \"monthly run\"",
            "#10 detached machine=laptop, directory=<tmp>",
            "#11 submitted call-1",
            "#12 detached machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn a_review_submitted_elsewhere_ends_with_its_result() {
    let scratch = Scratch::new();
    let tmux = at_the_second_question("submitted", &scratch);
    tmux.keys(&["2"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    elsewhere(&scratch, &[r#"{"type":"submit","inquiry":"call-1"}"#]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"apply\":true,\"env\":\"production\",\"note\":\"\"}\n")
    );
    assert_eq!(
        tmux.screen(),
        format!(
            "{HEAD}\n\
             > [1/3] Assistant asks: Apply the proposed migration? Yes\n\
             > [2/3] Assistant asks: Which environment? production\n\
             > [3/3] Assistant asks: Optional note for the migration log \"\"\n\
             ↻ Submitted elsewhere.\n\
             The assistant got the answers:\n  \
             Apply the proposed migration? — Yes\n  \
             Which environment? — production\n  \
             Optional note for the migration log — \"\"\n\
             {}",
            recorded(&scratch)
        )
    );
}

#[test]
fn a_resumed_question_counts_down_from_when_it_was_recorded() {
    let scratch = Scratch::new();
    let migration = example("migration.json");
    let pending = scratch.path("p.json").display().to_string();
    let asked = scratch.run_db(
        &[
            "ask",
            "--stream",
            "s",
            "--timeout",
            "40",
            "--pending",
            &pending,
            &migration,
        ],
        "",
    );
    assert_eq!(asked.code, 5, "{}", asked.stderr);
    let recorded_at = std::time::Instant::now();
    std::thread::sleep(std::time::Duration::from_secs(4));
    let tmux = Tmux::start(
        "deadline",
        &scratch,
        &["resume", "s", "--db", &scratch.db()],
    );
    let screen = tmux.wait_for("s left to answer");
    let seconds: u64 = screen
        .lines()
        .find_map(|line| line.strip_prefix("⏳ "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a countdown line");
    // 40 s from when the question was recorded, not from when it was shown.
    let waited = recorded_at.elapsed().as_secs();
    assert!(
        seconds <= 36 && seconds + waited >= 39,
        "{seconds} s left after {waited} s:\n{screen}"
    );
    assert_eq!(
        screen.replace(&format!("⏳ {seconds} s"), "⏳ N s"),
        format!(
            "askuser: resuming inquiry \"call-1\" of stream \"s\"; nothing is answered yet\n\
             Assistant asks you 3 questions\n\
             The migration adds a tenants table and backfills 12,000 rows.\n\
             ? [1/3] Assistant asks: Apply the proposed migration?\n  \
             y) Yes\n  \
             n) No\n\
             [y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for Reply / End Turn]\n\
             ⏳ N s left to answer; then the answers so far are sent, marked as not answered in time."
        )
    );
    // Keys do not move the deadline (Up, on a yes/no with nothing chosen,
    // chooses No).
    tmux.keys(&["Up"]);
    let after = tmux.wait_for("> n) No");
    let later: u64 = after
        .lines()
        .find_map(|line| line.strip_prefix("⏳ "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a countdown line");
    assert!(
        later <= seconds,
        "{later} s after a key, {seconds} s before"
    );
}
