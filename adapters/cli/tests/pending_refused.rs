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
fn a_file_edited_to_another_inquiry_or_stream_is_refused_naming_what_changed() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    // Another agent's stream asking the very same, and a second inquiry in
    // this one: before the seal, an edited file answered either.
    let call = scratch.path("call.json").display().to_string();
    for (stream, file) in [("b", "b.json"), ("s", "q.json")] {
        let file = scratch.path(file).display().to_string();
        let run = scratch.run_db(&["ask", "--stream", stream, "--pending", &file, &call], "");
        assert_eq!(run.code, 5, "{}", run.stderr);
    }
    let written = read(&pending);
    let refused = |file: &Value| {
        std::fs::write(&pending, file.to_string()).unwrap();
        // The log is the file's `db`.
        let run = scratch.run(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
        (run.code, run.stdout, scratch.redact(&run.stderr))
    };
    let mut file = written.clone();
    file["stream"] = "b".into();
    assert_eq!(
        refused(&file),
        (
            1,
            String::new(),
            "askuser: the pending file <tmp>/p.json: /stream: was changed after askuser ask --pending wrote the file: \
             put back the stream it was written for, or answer the pending file written for this stream\n"
                .to_owned()
        )
    );
    let mut file = written.clone();
    file["inquiry"] = "call-2".into();
    assert_eq!(
        refused(&file),
        (
            1,
            String::new(),
            "askuser: the pending file <tmp>/p.json: /inquiry: was changed after askuser ask --pending wrote the file: \
             put back the inquiry it was written for, or answer the pending file written for this inquiry\n"
                .to_owned()
        )
    );
    let mut file = written.clone();
    file.as_object_mut().unwrap().remove("seal");
    assert_eq!(
        refused(&file),
        (
            1,
            String::new(),
            "askuser: the pending file <tmp>/p.json: /seal: is missing: askuser ask --pending seals every file it writes to its log, \
             stream and inquiry; write the file again with `askuser ask --pending`\n"
                .to_owned()
        )
    );
    // Nothing was recorded; the file as written is answered.
    assert_eq!(events_line(&scratch), "stream \"s\": 2 events");
    std::fs::write(&pending, written.to_string()).unwrap();
    let run = scratch.run_db(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_file_edited_to_another_log_is_refused_and_one_sealed_for_a_log_without_its_inquiry_says_so() {
    let scratch = Scratch::new();
    let pending = ask_pending(&scratch, DEPLOY);
    let call = scratch.path("call.json").display().to_string();
    let written = read(&pending);
    let refused = |file: &Value| {
        std::fs::write(&pending, file.to_string()).unwrap();
        // The log is the file's `db`.
        let run = scratch.run(&["answer", &pending, "--answers", r#"[true,"SQLite"]"#], "");
        (run.code, run.stdout, scratch.redact(&run.stderr))
    };
    // Another log holding the same stream and inquiry, asking the same.
    let elsewhere = scratch.path("elsewhere.db").display().to_string();
    let q2 = scratch.path("q2.json").display().to_string();
    let run = scratch.run(
        &[
            "ask",
            "--db",
            &elsewhere,
            "--stream",
            "s",
            "--pending",
            &q2,
            &call,
        ],
        "",
    );
    assert_eq!(run.code, 5, "{}", run.stderr);
    let mut file = written.clone();
    file["db"] = elsewhere.clone().into();
    assert_eq!(
        refused(&file),
        (
            1,
            String::new(),
            "askuser: the pending file <tmp>/p.json: /db: is not the log the file was sealed by (it was changed, \
             or that log's askuser.pending-key was replaced): answer the file in the log it was written for\n"
                .to_owned()
        )
    );
    // A log that took this log's key but never held the inquiry: the seal
    // opens, and the log says it holds no such inquiry.
    let third = scratch.path("third.db").display().to_string();
    let q3 = scratch.path("q3.json").display().to_string();
    let run = scratch.run(
        &[
            "ask",
            "--db",
            &third,
            "--stream",
            "t",
            "--pending",
            &q3,
            &call,
        ],
        "",
    );
    assert_eq!(run.code, 5, "{}", run.stderr);
    let key = |db: &str| std::path::Path::new(db).join("askuser.pending-key");
    std::fs::copy(key(&scratch.db()), key(&third)).unwrap();
    std::fs::write(&pending, written.to_string()).unwrap();
    let run = scratch.run(
        &[
            "answer",
            &pending,
            "--answers",
            "[true,\"SQLite\"]",
            "--db",
            &third,
        ],
        "",
    );
    assert_eq!(
        (run.code, scratch.redact(&run.stderr)),
        (
            1,
            "askuser: <tmp>/p.json names inquiry \"call-1\" of stream \"s\", which the log <tmp>/third.db does not hold; nothing was recorded. \
             Pass the --db the questions were asked with, or, if the file's \"stream\" or \"inquiry\" was edited, write the pending file again with `askuser ask --pending`\n"
                .to_owned()
        )
    );
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
