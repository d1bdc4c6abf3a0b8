//! What a person does in sequence, in a real terminal (tmux; see
//! `common/tmux.rs`), where answers used to be lost or keys acted too soon:
//! Reply from the review, a real editor while stdout is the agent's pipe, Esc
//! then typing on, digits in a list of versions, a paste with CR line breaks, a
//! note that reaches the model. Results are asserted byte for byte.

mod common;

use common::tmux::{Tmux, events, finished};
use common::{Scratch, example};

/// Writes a jp-form call to `form.json` in the scratch directory.
fn form(scratch: &Scratch, json: &str) -> String {
    let path = scratch.path("form.json");
    std::fs::write(&path, json).unwrap();
    path.display().to_string()
}

fn ask(name: &str, scratch: &Scratch, form: &str) -> Tmux {
    Tmux::start(
        name,
        scratch,
        &["ask", "--db", &scratch.db(), "--stream", "s", form],
    )
}

#[test]
fn reply_from_the_review_sends_every_answer_it_showed() {
    let scratch = Scratch::new();
    let tmux = ask("reviewreply", &scratch, &example("migration.json"));
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.text("after the backup");
    tmux.keys(&["Enter"]);
    tmux.wait_for("3) Optional note for the migration log — after the backup");
    tmux.keys(&["Escape"]);
    tmux.wait_for("r) Reply to the assistant instead");
    tmux.keys(&["r", "Enter"]);
    tmux.wait_for("? Reply to the assistant instead of answering");
    tmux.text("wait for the backup");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"cancelled\":true,\"answered\":{\"apply\":true,\"env\":\"production\",\"note\":\"after the backup\"},\"message\":\"wait for the backup\"}\n"
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
            "#6 answered call-1: note = \"after the backup\"",
            "#7 reply call-1: wait for the backup",
            "#8 detached machine=laptop, directory=<tmp>",
        ]
    );
    let transcript = scratch.run_db(&["log", "transcript", "s"], "");
    let dir = scratch.dir_name();
    assert_eq!(
        transcript.stdout,
        format!("{dir} · laptop started waiting.\n\n")
            + "Asked \"Apply the proposed migration?\"; the answer was Yes.\n\
         Asked \"Which environment?\"; the answer was production.\n\
         Asked \"Optional note for the migration log\"; the answer was after the backup.\n\
         The user reviewed these answers and chose to reply instead of sending them.\n\
         The user replied: wait for the backup\n"
            + &format!("{dir} · laptop stopped waiting.\n")
    );
}

#[test]
fn a_real_editor_gets_the_terminal_and_the_result_stays_exact_json() {
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        r#"{"questions": [{"id": "note", "text": "A note for the log?", "answer_type": "text"}]}"#,
    );
    // stdout is a file here, as an agent's pipe would be: vim must still get the
    // terminal, and none of its output may reach the result.
    let tmux = Tmux::start_with(
        "vim",
        &scratch,
        &[("EDITOR", "vim.tiny -u NONE -N -n"), ("VISUAL", "")],
        &["ask", "--db", &scratch.db(), "--stream", "s", &form],
    );
    tmux.wait_for("? Assistant asks: A note for the log?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("e) Edit the answer in vim.tiny");
    tmux.keys(&["e", "Enter"]);
    tmux.wait_for("~");
    tmux.text("iwritten in vim");
    tmux.keys(&["Escape"]);
    tmux.text(":wq");
    tmux.keys(&["Enter"]);
    tmux.wait_for("> written in vim");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (0, "{\"note\":\"written in vim\"}\n"));
}

#[test]
fn esc_then_typing_on_goes_to_the_answer_and_never_ends_the_turn() {
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        r#"{"questions": [
            {"id": "ok", "text": "Continue?", "answer_type": "boolean"},
            {"id": "target", "text": "Which target?", "answer_type": "text"}]}"#,
    );
    let tmux = ask("esctyping", &scratch, &form);
    tmux.wait_for("? [1/2] Assistant asks: Continue?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/2] Assistant asks: Which target?");
    tmux.keys(&["Escape"]);
    tmux.wait_for("s) End the turn");
    tmux.text("system");
    let screen = tmux.wait_for("> system");
    assert_eq!(
        screen.lines().skip(2).collect::<Vec<_>>(),
        [
            "? [2/2] Assistant asks: Which target?",
            "> system",
            "[Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Back / Reply / End",
            "Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"ok\":true,\"target\":\"system\"}\n")
    );
}

#[test]
fn digits_filter_a_list_of_versions() {
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        r#"{"questions": [
            {"id": "rust", "text": "Which Rust version?", "answer_type": "select",
             "options": ["1.85", "1.7", "2.0"]},
            {"id": "ok", "text": "Pin it?", "answer_type": "boolean"}]}"#,
    );
    let tmux = ask("versions", &scratch, &form);
    tmux.wait_for("? [1/2] Assistant asks: Which Rust version?");
    tmux.text("1.7");
    let screen = tmux.wait_for("Which Rust version? 1.7");
    assert_eq!(
        screen.lines().skip(1).collect::<Vec<_>>(),
        [
            "? [1/2] Assistant asks: Which Rust version? 1.7",
            "> 2) 1.7",
            "[type to filter, Enter picks · Alt+N note · Esc for Reply / End Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    let next = tmux.wait_for("? [2/2] Assistant asks: Pin it?");
    // Nothing typed for the first question leaked into the second.
    assert_eq!(
        next.lines().skip(1).collect::<Vec<_>>(),
        [
            "> [1/2] Assistant asks: Which Rust version? 1.7",
            "? [2/2] Assistant asks: Pin it?",
            // A yes/no without a default: no answer is highlighted.
            "  y) Yes",
            "  n) No",
            "[y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for Back / Reply / End Turn]",
        ]
    );
    tmux.keys(&["n"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"rust\":\"1.7\",\"ok\":false}\n")
    );
}

#[test]
fn a_paste_with_cr_line_breaks_keeps_its_lines_and_sends_nothing() {
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        r#"{"questions": [{"id": "steps", "text": "Which steps?", "answer_type": "text"}]}"#,
    );
    let tmux = ask("crpaste", &scratch, &form);
    tmux.wait_for("? Assistant asks: Which steps?");
    tmux.paste("pasted line one\rpasted line two");
    let screen = tmux.wait_for("pasted line two");
    assert_eq!(
        screen.lines().skip(1).collect::<Vec<_>>(),
        [
            "? Assistant asks: Which steps?",
            "> pasted line one",
            "  pasted line two",
            "[Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Reply / End Turn]",
        ]
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"steps\":\"pasted line one\\npasted line two\"}\n")
    );
}

#[test]
fn a_paste_the_terminal_did_not_bracket_never_submits() {
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        r#"{"questions": [{"id": "steps", "text": "Which steps?", "answer_type": "text"}]}"#,
    );
    let tmux = ask("rawpaste", &scratch, &form);
    tmux.wait_for("? Assistant asks: Which steps?");
    tmux.unbracketed_paste("build\rtest\rdeploy");
    let screen = tmux.wait_for("  deploy");
    assert_eq!(
        screen.lines().skip(1).take(4).collect::<Vec<_>>(),
        [
            "? Assistant asks: Which steps?",
            "> build",
            "  test",
            "  deploy",
        ]
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"steps\":\"build\\ntest\\ndeploy\"}\n")
    );
}

/// Claude's example asked in the terminal: a note written beside the first
/// question ("only for the admin API"), "API keys" picked, the second question
/// showing.
fn api_keys_with_a_note(name: &str, scratch: &Scratch) -> Tmux {
    let claude = example("claude.json");
    let db = scratch.db();
    let args = [
        "ask",
        "--dialect",
        "claude",
        "--db",
        &db,
        "--stream",
        "s",
        &claude,
    ];
    let tmux = Tmux::start(name, scratch, &args);
    tmux.wait_for("Which auth method should we use?");
    tmux.keys(&["M-n"]);
    tmux.wait_for("[Enter keeps the note");
    tmux.text("only for the admin API");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Which auth method should we use?");
    tmux.keys(&["2"]);
    tmux.wait_for("Which features should we enable?");
    tmux
}

#[test]
fn a_note_reaches_the_claude_result() {
    let scratch = Scratch::new();
    let tmux = api_keys_with_a_note("note", &scratch);
    tmux.keys(&["1", "3", "Enter"]);
    let review = tmux.wait_for("? Review your answers");
    assert!(
        review.contains("— API keys (note: only for the admin API)"),
        "the review shows the note:\n{review}"
    );
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"answers\":{\"Which auth method should we use?\":\"API keys\",\"Which features should we enable?\":\"Auth, Admin\"},\"annotations\":{\"Which auth method should we use?\":{\"notes\":\"only for the admin API\"}}}\n"
        )
    );
}

/// A note written beside an answer, that answer then changed from the review:
/// the person is asked whether the note still applies to the new answer, and
/// the note dropped there does not reach the model.
#[test]
fn a_changed_answer_asks_whether_its_note_still_applies_and_a_dropped_note_is_not_sent() {
    let scratch = Scratch::new();
    let tmux = api_keys_with_a_note("notechanged", &scratch);
    tmux.keys(&["1", "Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("> 2) API keys");
    tmux.keys(&["1"]);
    let asked = tmux.wait_for("Does it still apply");
    assert_eq!(
        asked
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>(),
        [
            "? [1/2] Auth method · Assistant asks: Which auth method should we use? — your note was written for",
            "your earlier answer",
            "  only for the admin API",
            "Does it still apply to your new answer, OAuth2 (Recommended)?",
            "> k) Keep the note",
            "  e) Edit the note",
            "  d) Drop the note",
            "[a letter or ↑↓ chooses, Enter does it · Esc returns to the question]",
        ]
    );
    tmux.keys(&["d", "Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"answers\":{\"Which auth method should we use?\":\"OAuth2 (Recommended)\",\"Which features should we enable?\":\"Auth\"}}\n"
        )
    );
}

/// `askuser ask` run by an agent host is named after the host (the variable
/// the host sets in its tools' environment), never after the dialect.
#[test]
fn an_ask_run_by_claude_code_is_named_after_it() {
    let scratch = Scratch::new();
    let call = form(
        &scratch,
        r#"{"questions":[{"id":"go","text":"Go?","answer_type":"boolean"}]}"#,
    );
    let tmux = Tmux::start_with(
        "hostname",
        &scratch,
        &[("CLAUDECODE", "1")],
        &["ask", "--db", &scratch.db(), "--stream", "s", &call],
    );
    tmux.wait_for("Go?");
    tmux.keys(&["y"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (0, "{\"go\":true}\n"));
    let transcript = scratch.run_db(&["log", "transcript", "s"], "");
    let dir = scratch.dir_name();
    assert_eq!(
        transcript.stdout,
        format!("Claude Code · {dir} · laptop started waiting.\n\n")
            + "Asked \"Go?\"; the answer was Yes.\n"
            + &format!("Claude Code · {dir} · laptop stopped waiting.\n")
    );
}

#[test]
fn ctrl_c_on_the_review_asks_first_and_the_transcript_keeps_the_answers() {
    let scratch = Scratch::new();
    let tmux = ask("ctrlc", &scratch, &example("migration.json"));
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["1"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? Review your answers");
    tmux.keys(&["C-c"]);
    let confirm = tmux.wait_for("Ctrl+C again ends the turn");
    assert_eq!(
        confirm.lines().rev().take(4).collect::<Vec<_>>(),
        [
            "[Ctrl+C again ends the turn · y then Enter ends it · Enter or Esc keeps answering]",
            "  y) Yes, end the turn",
            "> n) No, keep answering",
            "? End the turn? Your answers so far are lost and the assistant gets no reply.",
        ]
    );
    tmux.keys(&["Escape"]);
    tmux.wait_for("> Submit these answers");
    tmux.keys(&["C-c"]);
    tmux.wait_for("Ctrl+C again ends the turn");
    tmux.keys(&["C-c"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    let transcript = scratch.run_db(&["log", "transcript", "s"], "");
    let dir = scratch.dir_name();
    assert_eq!(
        transcript.stdout,
        format!("{dir} · laptop started waiting.\n\n")
            + "Asked \"Apply the proposed migration?\"; the answer was Yes (not sent: the turn ended).\n\
         Asked \"Which environment?\"; the answer was staging (not sent: the turn ended).\n\
         Asked \"Optional note for the migration log\"; the answer was \"\" (not sent: the turn ended).\n\
         The user ended the turn on the review of these answers; none was sent.\n"
            + &format!("{dir} · laptop stopped waiting.\n")
    );
}
