//! `askuser answer` on a pending file that was edited after `askuser ask --pending`
//! wrote it, or whose inquiry another surface answered first (issue 27): refused in
//! words, nothing recorded; and what it records, each question beside its answer.

mod common;

use common::{Scratch, example};
use serde_json::{Value, json};

const DEPLOY: &str = r#"{"questions": [
    {"id": "deploy", "text": "Deploy to PRODUCTION now?", "answer_type": "boolean"},
    {"id": "db", "text": "Which database?", "answer_type": "select", "options": ["PostgreSQL", "SQLite"]}]}"#;

/// Asks `call` in stream `s` with its questions written to `p.json`; returns the
/// pending file's path.
fn ask_pending(scratch: &Scratch, call: &str) -> String {
    std::fs::write(scratch.path("call.json"), call).unwrap();
    let pending = scratch.path("p.json").display().to_string();
    let call = scratch.path("call.json").display().to_string();
    let run = scratch.run_db(&["ask", "--stream", "s", "--pending", &pending, &call], "");
    assert_eq!(run.code, 5, "{}", run.stderr);
    pending
}

fn read(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first line of `askuser log show s`: how many events the stream holds.
fn events_line(scratch: &Scratch) -> String {
    let show = scratch.run_db(&["log", "show", "s"], "");
    show.stdout.lines().next().unwrap_or_default().to_owned()
}

/// Runs `askuser serve --stream s` with these lines (another surface).
/// Each `serve` records where it runs when it starts, and that it stopped.
fn serve(scratch: &Scratch, lines: &[Value]) {
    let input = lines
        .iter()
        .map(|line| line.to_string() + "\n")
        .collect::<String>();
    let run = scratch.run_db(&["serve", "--stream", "s"], &input);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

const TO_DO: &str = "Nothing was recorded. Write the pending file again with `askuser ask --pending`, or answer in the terminal with `askuser resume s --inquiry call-1 --db <tmp>/log.db`.\n";

#[test]
fn an_edited_question_text_is_refused_and_nothing_is_recorded() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    let mut file = read(&pending);
    file["questions"][0]["question"] = "Do you like this colour?".into();
    std::fs::write(&pending, file.to_string()).unwrap();

    let run = scratch.run_db(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            2,
            "",
            format!(
                "askuser: <tmp>/p.json no longer matches the questions it was written for (inquiry \"call-1\" of stream \"s\" in the log): \
                 question \"deploy\" reads \"Do you like this colour?\" in the file but \"Deploy to PRODUCTION now?\" in the log.\n{TO_DO}"
            )
        )
    );
    assert_eq!(events_line(&scratch), "stream \"s\": 1 event");
    // The file is left as it was.
    assert_eq!(read(&pending), file);
}

#[test]
fn edited_options_are_refused() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    let mut file = read(&pending);
    file["questions"][1]["options"] = json!(["SQLite", "PostgreSQL"]);
    std::fs::write(&pending, file.to_string()).unwrap();

    let run = scratch.run_db(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            2,
            "",
            format!(
                "askuser: <tmp>/p.json no longer matches the questions it was written for (inquiry \"call-1\" of stream \"s\" in the log): \
                 the options of question \"db\" are \"SQLite\", \"PostgreSQL\" in the file but \"PostgreSQL\", \"SQLite\" in the log.\n{TO_DO}"
            )
        )
    );
    assert_eq!(events_line(&scratch), "stream \"s\": 1 event");
}

#[test]
fn a_changed_inquiry_id_is_refused() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    // A second inquiry in the same stream, asking something else.
    std::fs::write(
        scratch.path("other.json"),
        r#"{"questions": [{"id": "colour", "text": "Do you like this colour?", "answer_type": "boolean"}]}"#,
    )
    .unwrap();
    let other = scratch.path("other.json").display().to_string();
    let q = scratch.path("q.json").display().to_string();
    let run = scratch.run_db(&["ask", "--stream", "s", "--pending", &q, &other], "");
    assert_eq!(run.code, 5, "{}", run.stderr);

    let mut file = read(&pending);
    file["inquiry"] = "call-2".into();
    std::fs::write(&pending, file.to_string()).unwrap();
    let run = scratch.run_db(&["answer", &pending, "--answers", "[true]"], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            2,
            "",
            "askuser: <tmp>/p.json no longer matches the questions it was written for (inquiry \"call-2\" of stream \"s\" in the log): \
             the file has 2 questions but the log 1; \
             question 1 is \"deploy\" in the file but \"colour\" in the log; \
             question \"colour\" reads \"Deploy to PRODUCTION now?\" in the file but \"Do you like this colour?\" in the log.\n\
             Nothing was recorded. Write the pending file again with `askuser ask --pending`, or answer in the terminal with `askuser resume s --inquiry call-2 --db <tmp>/log.db`.\n"
                .to_owned()
        )
    );

    // An inquiry the stream does not hold.
    file["inquiry"] = "call-9".into();
    std::fs::write(&pending, file.to_string()).unwrap();
    let run = scratch.run_db(&["answer", &pending, "--answers", "[true]"], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            1,
            "",
            "askuser: <tmp>/p.json names inquiry \"call-9\" of stream \"s\", which the log <tmp>/log.db does not hold; nothing was recorded. \
             Pass the --db the questions were asked with, or, if the file's \"stream\" or \"inquiry\" was edited, write the pending file again with `askuser ask --pending`\n"
                .to_owned()
        )
    );
    assert_eq!(events_line(&scratch), "stream \"s\": 2 events");
}

#[test]
fn a_file_answered_from_another_surface_first_prints_what_the_assistant_got() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    let answer = |question: &str, value: Value| json!({"type": "answer", "inquiry": "call-1", "question": question, "value": value});
    // Begun elsewhere: one answer given in another surface.
    serve(&scratch, &[answer("deploy", json!(false))]);
    let run = scratch.run_db(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            2,
            "",
            "askuser: inquiry \"call-1\" of stream \"s\" was partly answered elsewhere first (in the terminal or the browser):\n  \
             Deploy to PRODUCTION now? — No\n\
             Nothing was recorded. Finish it where it was begun, or in the terminal with `askuser resume s --inquiry call-1 --db <tmp>/log.db`.\n"
                .to_owned()
        )
    );
    assert_eq!(events_line(&scratch), "stream \"s\": 4 events");

    // Finished elsewhere: the answers given here are not recorded; the result is
    // the one recorded there, with its exit status.
    serve(&scratch, &[answer("db", json!("PostgreSQL"))]);
    let run = scratch.run_db(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            0,
            "{\"deploy\":false,\"db\":\"PostgreSQL\"}\n",
            "askuser: inquiry \"call-1\" of stream \"s\" was already answered elsewhere (in the terminal, the browser or an earlier `askuser answer`), so the answers given here were not recorded; the result the assistant got follows\n"
                .to_owned()
        )
    );
    assert_eq!(events_line(&scratch), "stream \"s\": 7 events");
    let file = read(&pending);
    assert_eq!(
        (&file["status"], &file["result"]),
        (
            &json!("answered"),
            &json!({"deploy": false, "db": "PostgreSQL"})
        )
    );
}

#[test]
fn each_question_is_printed_beside_its_answer() {
    let scratch = Scratch::new();
    let migration = std::fs::read_to_string(example("migration.json")).unwrap();
    let pending = ask_pending(&scratch, &migration);
    let run = scratch.run_db(
        &["answer", &pending, "--answers", "[false, null, null]"],
        "",
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "{\"apply\":false,\"env\":null,\"note\":null}\n",
            "askuser: recorded for inquiry \"call-1\" of stream \"s\":\n  \
             Apply the proposed migration? — No\n  \
             Which environment? — not asked (its condition did not hold)\n  \
             Optional note for the migration log — not asked (its condition did not hold)\n"
        )
    );
    // Answered, with a line break in the text answer (its lines joined with ⏎,
    // as every surface tells an answer).
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, &migration);
    let run = scratch.run_db(
        &[
            "answer",
            &pending,
            "--answers",
            r#"["yes", "staging", "line one\nline two"]"#,
        ],
        "",
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"line one\\nline two\"}\n",
            "askuser: recorded for inquiry \"call-1\" of stream \"s\":\n  \
             Apply the proposed migration? — Yes\n  \
             Which environment? — staging\n  \
             Optional note for the migration log — line one ⏎ line two\n"
        )
    );
}
