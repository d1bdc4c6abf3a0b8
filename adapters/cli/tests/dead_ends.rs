//! No dead ends (issue 14, item 5): with no terminal the person is told how to
//! answer through a pending file; `resume` says how a stream ended; every hint
//! carries the `--db` it needs, quoted for a shell; `log export` of a compacted
//! stream exports its snapshot and its tail.

mod common;

use common::{Scratch, example};
use serde_json::json;

const NO_TERMINAL: &str = "ask_user cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.\n";

fn lines(lines: &[serde_json::Value]) -> String {
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

fn jp_ask(inquiry: &str) -> serde_json::Value {
    json!({"type": "ask", "inquiry": inquiry, "dialect": "jp",
        "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})
}

#[test]
fn with_no_terminal_ask_tells_the_person_how_to_answer_with_a_pending_file() {
    let scratch = Scratch::new();
    // The default log: the hint needs no --db; a call from stdin is a FILE to give.
    let call = std::fs::read_to_string(example("jp.json")).unwrap();
    let run = scratch.run(&["ask", "--dialect", "jp", "--stream", "s"], &call);
    assert_eq!(run.stdout, NO_TERMINAL);
    assert_eq!(
        (run.code, scratch.redact(&run.stderr)),
        (
            3,
            "askuser: recorded as stream \"s\" in <tmp>/.local/share/askuser/log.db\n\
             askuser: no terminal to ask in, so the model was told that no person can answer.\n\
             To answer without a terminal, write the questions to a file, then answer them:\n  \
             askuser ask --pending questions.json --dialect jp FILE\n  \
             askuser answer questions.json --answers '[...]'\n"
                .to_owned()
        )
    );
}

#[test]
fn hints_quote_the_db_and_the_file_for_a_shell() {
    let scratch = Scratch::new();
    std::fs::create_dir(scratch.path("it's here")).unwrap();
    let db = scratch.path("it's here/log.db").display().to_string();
    let file = scratch.path("call $1.json");
    std::fs::copy(example("jp.json"), &file).unwrap();
    let file = file.display().to_string();
    let run = scratch.run(&["ask", "--stream", "s", "--db", &db, &file], "");
    assert_eq!(
        (run.code, scratch.redact(&run.stderr)),
        (
            3,
            "askuser: an agent's question form, read as JP's one-question ask_user (jp); --dialect picks another\n\
             askuser: recorded as stream \"s\" in <tmp>/it's here/log.db\n\
             askuser: no terminal to ask in, so the model was told that no person can answer.\n\
             To answer without a terminal, write the questions to a file, then answer them:\n  \
             askuser ask --pending questions.json --db '<tmp>/it'\\''s here/log.db' '<tmp>/call $1.json'\n  \
             askuser answer questions.json --answers '[...]'\n"
                .to_owned()
        )
    );
    let fork = scratch.run(&["log", "fork", "s", "--at", "1", "--db", &db], "");
    assert_eq!(
        (fork.code, scratch.redact(&fork.stdout)),
        (
            0,
            "forked \"s\" after #1 into \"s.fork-1\"; continue it with `askuser resume s.fork-1 --db '<tmp>/it'\\''s here/log.db'`\n"
                .to_owned()
        )
    );
    // A name that needs quoting pastes exactly.
    let fork = scratch.run(
        &[
            "log", "fork", "s", "--at", "1", "--into", "f x's", "--db", &db,
        ],
        "",
    );
    assert_eq!(
        scratch.redact(&fork.stdout),
        "forked \"s\" after #1 into \"f x's\"; continue it with `askuser resume 'f x'\\''s' --db '<tmp>/it'\\''s here/log.db'`\n"
    );
    // A name that could act on a terminal is never made: the log refuses it,
    // and says so escaped.
    let fork = scratch.run(
        &[
            "log",
            "fork",
            "s",
            "--at",
            "1",
            "--into",
            "f\u{202e}x",
            "--db",
            &db,
        ],
        "",
    );
    assert_eq!(
        (fork.code, scratch.redact(&fork.stderr)),
        (
            1,
            "askuser: the event log: invalid stream name \"f\\u{202e}x\": it has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; a stream name is 1 to 200 bytes of plain text, such as \"session-1\"\n"
                .to_owned()
        )
    );
}

#[test]
fn resume_says_how_a_stream_ended() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let streams = [
        (
            "answered",
            vec![
                jp_ask("c1"),
                json!({"type": "answer", "inquiry": "c1", "question": "answer", "value": true}),
            ],
            "every question was answered",
        ),
        (
            "replied",
            vec![jp_ask("c1"), json!({"type": "reply", "inquiry": "c1"})],
            "the person chose Reply",
        ),
        (
            "ended",
            vec![jp_ask("c1"), json!({"type": "end_turn", "inquiry": "c1"})],
            "the person ended the turn in the agent's own window",
        ),
        (
            "rejected",
            vec![json!({"type": "ask", "inquiry": "c1", "dialect": "jp", "arguments": {}})],
            "the call was rejected (the model got its problems)",
        ),
    ];
    for (stream, input, how) in streams {
        let run = scratch.run(&["serve", "--db", &db, "--stream", stream], &lines(&input));
        assert_eq!(run.code, 0, "{}", run.stderr);
        let run = scratch.run(&["resume", stream, "--db", &db], "");
        assert_eq!(
            (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
            (
                1,
                "",
                format!(
                    "askuser: stream \"{stream}\" has no open inquiry to resume: its last inquiry \"c1\" ended: {how} (see `askuser log show {stream} --db <tmp>/log.db`)\n"
                )
            )
        );
    }
    let run = scratch.run(
        &[
            "ask",
            "--stream",
            "nobody",
            "--db",
            &db,
            &example("jp.json"),
        ],
        "",
    );
    assert_eq!(run.code, 3);
    let run = scratch.run(&["resume", "nobody", "--db", &db], "");
    assert_eq!(
        scratch.redact(&run.stderr),
        "askuser: stream \"nobody\" has no open inquiry to resume: its last inquiry \"call-1\" ended: no person could be asked (the model was told so) (see `askuser log show nobody --db <tmp>/log.db`)\n"
    );
}

#[test]
fn resume_without_a_terminal_repeats_the_db() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let run = scratch.run(
        &["serve", "--db", &db, "--stream", "open"],
        &lines(&[jp_ask("c1")]),
    );
    assert_eq!(run.code, 0);
    let run = scratch.run(&["resume", "open", "--db", &db], "");
    assert_eq!(
        (run.code, scratch.redact(&run.stdout), run.stderr.as_str()),
        (
            3,
            "no interactive terminal is available; run `askuser resume open --db <tmp>/log.db` in a terminal\n"
                .to_owned(),
            ""
        )
    );
}

#[test]
fn export_of_a_compacted_stream_starts_with_its_snapshot() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let first = lines(&[
        jp_ask("c1"),
        json!({"type": "answer", "inquiry": "c1", "question": "answer", "value": true}),
    ]);
    assert_eq!(
        scratch
            .run(&["serve", "--db", &db, "--stream", "s"], &first)
            .code,
        0
    );
    let compact = scratch.run(&["log", "compact", "s", "--drop", "--db", &db], "");
    assert_eq!(
        compact.stdout,
        "stream \"s\": snapshot at #5; dropped 5 events\n"
    );
    let export = scratch.run(&["log", "export", "s", "--db", &db], "");
    assert_eq!((export.code, export.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("export_compacted", scratch.redact(&export.stdout));

    // Events after the snapshot follow it (the second `serve` records where it
    // runs when it starts and that it stopped, around its request).
    let more = lines(&[jp_ask("c2")]);
    assert_eq!(
        scratch
            .run(&["serve", "--db", &db, "--stream", "s"], &more)
            .code,
        0
    );
    let export = scratch.run(&["log", "export", "s", "--db", &db], "");
    let exported: Vec<serde_json::Value> = export
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported.len(), 4);
    assert_eq!(exported[0]["snapshot"]["seq"], 5);
    assert_eq!(exported[1]["seq"], 6);
    assert_eq!(
        exported[1]["event"]["attached"]["origin"]["machine"],
        json!("laptop")
    );
    assert_eq!(exported[2]["seq"], 7);
    assert_eq!(exported[2]["event"]["requested"]["inquiry"], json!("c2"));
    assert_eq!(
        exported[3]["event"]["detached"]["origin"]["machine"],
        json!("laptop")
    );
}

#[test]
fn askuser_db_in_the_environment_is_the_log_and_needs_no_db_in_hints() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let run = |args: &[&str], stdin: &str| {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(common::BIN)
            .args(args)
            .env("ASKUSER_DB", &db)
            .env("HOME", scratch.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    assert_eq!(
        run(&["serve", "--stream", "s"], &lines(&[jp_ask("c1")])).0,
        Some(0)
    );
    assert!(scratch.path("log.db").is_dir(), "the log is $ASKUSER_DB");
    assert_eq!(
        run(&["log", "fork", "s", "--at", "1"], ""),
        (
            Some(0),
            "forked \"s\" after #1 into \"s.fork-1\"; continue it with `askuser resume s.fork-1`\n"
                .to_owned()
        )
    );
}
