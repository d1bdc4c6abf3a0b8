//! What the terminal says, in a real terminal (tmux; see `common/tmux.rs`), at
//! 80 and 40 columns: the first line says who asks; a changed answer replaces
//! the old one on the screen; a plain screen (`NO_COLOR`, `TERM=dumb`) writes
//! each question before its options; a yes/no without a default takes y or n,
//! not Enter alone; Markdown in a question (a fenced block, a list, bold) is
//! drawn as such, and as plain text under `NO_COLOR`. Screens are asserted whole.

mod common;

use common::Scratch;
use common::tmux::{Tmux, finished};

/// The two widths every screen here is checked at.
const WIDTHS: [u16; 2] = [80, 40];

/// Writes a jp-form call to `form.json` in the scratch directory.
fn form(scratch: &Scratch, json: &str) -> String {
    let path = scratch.path("form.json");
    std::fs::write(&path, json).unwrap();
    path.display().to_string()
}

/// `askuser ask` of `form` in stream `s`, in a pane `columns` wide.
fn ask(name: &str, scratch: &Scratch, env: &[(&str, &str)], form: &str, columns: u16) -> Tmux {
    Tmux::start_sized(
        name,
        scratch,
        env,
        &["ask", "--db", &scratch.db(), "--stream", "s", form],
        (columns, 30),
    )
}

const THREE: &str = r#"{"questions": [
    {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
    {"id": "env", "text": "Which environment?", "answer_type": "select",
     "options": ["staging", "production"]},
    {"id": "note", "text": "A note for the log", "answer_type": "text"}]}"#;

#[test]
fn the_first_line_says_who_asks_and_how_many_questions() {
    for columns in WIDTHS {
        let scratch = Scratch::new();
        // An agent that names itself (the policy's label), through the protocol;
        // the question then waits in the log for `askuser resume`.
        let ask = format!(
            r#"{{"type":"ask","inquiry":"call-1","dialect":"jp-form","arguments":{THREE},"policy":{{"label":"Claude (repo: billing-api)"}}}}"#
        )
        .replace('\n', " ");
        let run = scratch.run_db(&["serve", "--stream", "s"], &format!("{ask}\n"));
        assert_eq!(run.code, 0, "{}", run.stderr);
        let tmux = Tmux::start_sized(
            &format!("who{columns}"),
            &scratch,
            &[],
            &["resume", "s", "--db", &scratch.db()],
            (columns, 30),
        );
        let screen = tmux.wait_for("Apply the");
        insta::assert_snapshot!(format!("first_line_{columns}"), screen);
    }
}

#[test]
fn changing_answer_1_of_3_from_the_review_replaces_it_on_the_screen() {
    for columns in WIDTHS {
        let scratch = Scratch::new();
        let form = form(&scratch, THREE);
        let tmux = ask(&format!("change{columns}"), &scratch, &[], &form, columns);
        tmux.wait_for("Apply the");
        tmux.keys(&["y"]);
        tmux.wait_for("environment?");
        tmux.keys(&["2"]);
        tmux.wait_for("A note for");
        tmux.text("weekly run");
        tmux.keys(&["Enter"]);
        tmux.wait_for("? Review your answers");
        tmux.keys(&["1"]);
        // Answer 1 is asked again, prefilled; the lines of the first asking
        // are gone from the screen.
        let again = tmux.wait_for("? [1/3]");
        insta::assert_snapshot!(format!("change_asked_again_{columns}"), again);
        tmux.keys(&["n"]);
        let review = tmux.wait_for("? Review your answers");
        insta::assert_snapshot!(format!("change_review_{columns}"), review);
        tmux.keys(&["Enter"]);
        let (code, out) = finished(&tmux, &scratch);
        assert_eq!(
            (code, out.as_str()),
            (
                0,
                "{\"apply\":false,\"env\":\"production\",\"note\":\"weekly run\"}\n"
            )
        );
        // The screen down to the line that names the log (its path wraps at 40
        // columns).
        let screen = tmux.screen();
        let done: Vec<&str> = screen
            .lines()
            .take_while(|line| !line.starts_with("askuser: recorded"))
            .collect();
        insta::assert_snapshot!(format!("change_done_{columns}"), done.join("\n"));
    }
}

#[test]
fn a_plain_screen_writes_each_question_before_its_options() {
    for (name, env) in [("nocolor", ("NO_COLOR", "1")), ("dumb", ("TERM", "dumb"))] {
        for columns in WIDTHS {
            let scratch = Scratch::new();
            let form = form(&scratch, THREE);
            let tmux = ask(
                &format!("{name}{columns}"),
                &scratch,
                &[env],
                &form,
                columns,
            );
            tmux.wait_for("Apply the");
            tmux.keys(&["y"]);
            tmux.wait_for("environment?");
            tmux.keys(&["2"]);
            let screen = tmux.wait_for("A note for");
            insta::assert_snapshot!(format!("plain_order_{name}_{columns}"), screen);
            tmux.keys(&["Enter"]);
            tmux.wait_for("Review your answers");
            tmux.keys(&["Enter"]);
            let (code, _) = finished(&tmux, &scratch);
            assert_eq!(code, 0);
            let raw = tmux.raw_output();
            assert_eq!(raw.iter().position(|&b| b == 0x1b), None, "{name}");
        }
    }
}

#[test]
fn a_yes_no_without_a_default_refuses_enter_and_takes_y() {
    for columns in WIDTHS {
        let scratch = Scratch::new();
        let form = form(&scratch, THREE);
        let tmux = ask(&format!("yesno{columns}"), &scratch, &[], &form, columns);
        tmux.wait_for("Apply the");
        tmux.keys(&["Enter"]);
        let refused = tmux.wait_for("no default");
        insta::assert_snapshot!(format!("yes_no_refused_{columns}"), refused);
        tmux.keys(&["y"]);
        let next = tmux.wait_for("environment?");
        insta::assert_snapshot!(format!("yes_no_taken_{columns}"), next);
    }
    // With a default, Enter takes it.
    let scratch = Scratch::new();
    let form = form(
        &scratch,
        &THREE.replace(r#""boolean"}"#, r#""boolean", "default": false}"#),
    );
    let tmux = ask("yesnodefault", &scratch, &[], &form, 80);
    tmux.wait_for("Apply the");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("? [2/3]");
    assert!(
        screen.contains("> [1/3] Assistant asks: Apply the migration? No"),
        "{screen}"
    );
}

/// A question written in Markdown, as models write them.
const MARKDOWN: &str = r#"{"questions": [
    {"id": "write", "text": "Write **`config.json`** now?", "answer_type": "select",
     "context": "I will write this file:\n\n```json\n{\"mode\": \"fast\", \"retries\": 3}\n```\n\nIt **replaces** the old one, which:\n\n- sets *slow* mode for every service that reads it at start-up\n- has no `retries` key\n\nSee [the docs](https://example.com/config). <script>alert(1)</script>",
     "options": [{"label": "yes", "description": "write it **now**"},
                 {"label": "no", "description": "keep the `old` file"}]}]}"#;

#[test]
fn markdown_is_drawn_and_plain_under_no_color() {
    for columns in WIDTHS {
        let scratch = Scratch::new();
        let call = form(&scratch, MARKDOWN);
        let tmux = ask(&format!("md{columns}"), &scratch, &[], &call, columns);
        let screen = tmux.wait_for("config.json");
        insta::assert_snapshot!(format!("markdown_{columns}"), screen);
        let raw = String::from_utf8_lossy(&tmux.raw_output()).into_owned();
        // Bold and code are drawn with their attributes (escape and bidi
        // characters never get this far: the engine refuses them in a context,
        // and the renderer shows any as text, see the terminal's markdown tests).
        assert!(raw.contains("\u{1b}[1mreplaces\u{1b}[22m"), "{raw:?}");
        assert!(raw.contains("\u{1b}[36mretries\u{1b}[39m"), "{raw:?}");
        // The question's own marks too, in its title.
        assert!(
            raw.contains("Write \u{1b}[1m\u{1b}[36mconfig.json\u{1b}[39m\u{1b}[22m"),
            "{raw:?}"
        );
        let plain_scratch = Scratch::new();
        let call = form(&plain_scratch, MARKDOWN);
        let plain = ask(
            &format!("mdplain{columns}"),
            &plain_scratch,
            &[("NO_COLOR", "1")],
            &call,
            columns,
        );
        let plain_screen = plain.wait_for("config.json");
        insta::assert_snapshot!(format!("markdown_plain_{columns}"), plain_screen);
        let raw = plain.raw_output();
        assert_eq!(raw.iter().position(|&b| b == 0x1b), None);
    }
}
