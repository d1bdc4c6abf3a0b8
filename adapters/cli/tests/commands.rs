//! The binary's commands without a terminal: `ask` (no person, rejected calls),
//! the pending-file workflow, `log`, `schema`, `check`, and usage errors. Exact
//! standard output, standard error and exit status.

mod common;

use common::{Scratch, example};

const NO_TERMINAL: &str = "ask_user cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.\n";

#[test]
fn ask_without_a_terminal_exits_3_with_the_exclusive_text_and_records_it() {
    let scratch = Scratch::new();
    let run = scratch.run_db(&["ask", "--stream", "s", &example("migration.json")], "");
    assert_eq!(run.stdout, NO_TERMINAL);
    assert_eq!(
        scratch.redact(&run.stderr),
        format!(
            "askuser: an agent's question form, read as askuser's own form (jp-form); --dialect picks another\n\
             askuser: recorded as stream \"s\" in <tmp>/log.db\n\
             askuser: no terminal to ask in, so the model was told that no person can answer.\n\
             To answer without a terminal, write the questions to a file, then answer them:\n  \
             askuser ask --pending questions.json --db <tmp>/log.db {}\n  \
             askuser answer questions.json --answers '[...]'\n",
            example("migration.json")
        )
    );
    assert_eq!(run.code, 3);
    let show = scratch.run_db(&["log", "show", "s"], "");
    assert_eq!(
        scratch.redact(&show.stdout),
        "stream \"s\": 1 event\n#1 <time>  requested call-1 (3 questions: apply, env, note), no person present\n"
    );
}

#[test]
fn a_rejected_call_exits_2_with_the_tool_error_text() {
    let scratch = Scratch::new();
    let call = r#"{"questions": [{"question": "Which?", "header": 7, "options": []}]}"#;
    let run = scratch.run_db(&["ask", "--dialect", "claude", "-"], call);
    assert_eq!(
        run.stdout,
        "AskUserQuestion: the call was not run. Fix these 2 problems and call the tool again:\n\
         - /questions/0/header: must be a string, not a number\n\
         - /questions/0/options: has 0 options; AskUserQuestion takes 1 to 4: add options\n"
    );
    assert_eq!((run.code, run.stderr.as_str()), (2, ""));

    let run = scratch.run_db(&["ask", "-"], "{not json");
    assert_eq!(
        run.stdout,
        "ask_user: the call was not run. Fix this problem and call the tool again:\n\
         - (arguments): are not JSON (key must be a string at line 1 column 2); send the arguments as a JSON object\n"
    );
    assert_eq!(run.code, 2);
}

#[test]
fn usage_and_file_errors_exit_1_with_a_message() {
    let scratch = Scratch::new();
    let cases: [(&[&str], &str); 5] = [
        (
            &["launch"],
            "askuser: unrecognized subcommand 'launch'\n\nUsage: askuser <COMMAND>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["ask", "--dialect", "gpt", "x.json"],
            "askuser: invalid value 'gpt' for '--dialect <DIALECT>'\n  [possible values: jp, jp-form, claude, pi, opencode, codex, gemini, mcp]\n\nFor more information, try '--help'.\n",
        ),
        (
            &["ask", "missing.json"],
            "askuser: missing.json: cannot be read (No such file or directory (os error 2))\n",
        ),
        (
            &["log", "show"],
            "askuser: the following required arguments were not provided:\n  <STREAM>\n\nUsage: askuser log show <STREAM>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["log", "show", "nope", "--db", "log.db"],
            "askuser: the event log: cannot use \"log.db\" as an askuser log: there is no askuser log here (nothing exists at this path)\n",
        ),
    ];
    for (args, stderr) in cases {
        let run = scratch.run(args, "");
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (1, "", stderr),
            "{args:?}"
        );
    }
}

#[test]
fn the_pending_file_workflow_by_list_and_by_editing_the_file() {
    let scratch = Scratch::new();
    let pending = scratch.path("pending.json").display().to_string();
    let run = scratch.run_db(
        &[
            "ask",
            "--stream",
            "s",
            "--pending",
            &pending,
            &example("migration.json"),
        ],
        "",
    );
    assert_eq!(run.code, 5);
    assert_eq!(
        scratch.redact(&run.stdout),
        "Questions pending. User input required.\n\
         \n\
         To answer, run:\n  askuser answer <tmp>/pending.json --answers '[...]'\n\
         (one answer per question, in order; null for a question that is skipped)\n\
         \n\
         Or fill in each \"answer\" in the file and run:\n  askuser answer <tmp>/pending.json\n\
         \n\
         Questions saved to: <tmp>/pending.json\n"
    );
    insta::assert_snapshot!(
        "pending_file",
        sealed(&scratch.redact(&std::fs::read_to_string(&pending).unwrap()))
    );

    // An answer that is not an option: nothing is recorded, the problem is named.
    let run = scratch.run(&["answer", &pending, "--answers", r#"["yes", "prod"]"#], "");
    assert_eq!(
        scratch.redact(&run.stderr),
        "askuser: answer 2 (question \"env\"): \"prod\" is not one of the options; did you mean \"production\"? The options: \"staging\", \"production\"\n\
         Nothing was recorded. Fix the answer and run `askuser answer <tmp>/pending.json` again.\n"
    );
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    let show = scratch.run_db(&["log", "show", "s"], "");
    assert_eq!(show.stdout.lines().next(), Some("stream \"s\": 1 event"));

    // The answers given were written into the file; fix the second and fill in
    // the third by editing it, as a person would.
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pending).unwrap()).unwrap();
    assert_eq!(file["questions"][0]["answer"], "yes");
    assert_eq!(file["questions"][1]["answer"], "prod");
    file["questions"][1]["answer"] = "staging".into();
    file["questions"][2]["answer"] = "from the file".into();
    std::fs::write(&pending, file.to_string()).unwrap();
    let run = scratch.run(&["answer", &pending], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"from the file\"}\n",
            "askuser: recorded for inquiry \"call-1\" of stream \"s\":\n  \
             Apply the proposed migration? — Yes\n  \
             Which environment? — staging\n  \
             Optional note for the migration log — from the file\n"
        )
    );
    let answered: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pending).unwrap()).unwrap();
    assert_eq!(answered["status"], "answered");
    assert_eq!(
        answered["result"],
        serde_json::json!({"apply": true, "env": "staging", "note": "from the file"})
    );
    let replay = scratch.run_db(&["log", "replay", "s"], "");
    assert_eq!(
        (replay.code, replay.stdout.lines().last()),
        (
            0,
            Some(
                "replayed: the 4 events re-derive their lines from the log alone (this log records events, not the lines sent)"
            )
        )
    );

    // Answered again, it prints the result recorded in the log.
    let run = scratch.run(&["answer", &pending], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"staging\",\"note\":\"from the file\"}\n",
            "askuser: these questions were already answered; the recorded result follows\n"
        )
    );
}

/// Records a finished jp-form session in stream `s` through `serve`.
fn recorded_session(scratch: &Scratch) {
    let migration = std::fs::read_to_string(example("migration.json")).unwrap();
    let migration: serde_json::Value = serde_json::from_str(&migration).unwrap();
    let lines = [
        serde_json::json!({"type": "ask", "inquiry": "m1", "arguments": migration}),
        serde_json::json!({"type": "answer", "inquiry": "m1", "question": "apply", "value": true}),
        serde_json::json!({"type": "answer", "inquiry": "m1", "question": "env", "value": "production"}),
        serde_json::json!({"type": "answer", "inquiry": "m1", "question": "note", "value": "ok"}),
    ];
    let input = lines.map(|l| l.to_string() + "\n").concat();
    let run = scratch.run_db(&["serve", "--stream", "s"], &input);
    assert_eq!(run.code, 0);
}

#[test]
fn log_list_show_transcript_and_export() {
    let scratch = Scratch::new();
    recorded_session(&scratch);
    let list = scratch.run_db(&["log", "list"], "");
    assert_eq!(list.stdout, "s  7 events, created just now; answered\n");
    let json = scratch.run_db(&["log", "list", "--json"], "");
    let line: serde_json::Value =
        serde_json::from_str(json.stdout.trim_end()).expect("a JSON line");
    let created = line["created_at_ms"].as_u64().expect("milliseconds");
    // Exact in UTC, to the second (the JSON keeps the milliseconds).
    let iso = line["created_at"].as_str().expect("a time");
    let exact = scratch.run_db(&["log", "list", "--utc"], "");
    assert_eq!(
        exact.stdout,
        format!(
            "s  7 events, created {} {} UTC; answered\n",
            &iso[..10],
            &iso[11..19]
        )
    );
    assert_eq!(
        scratch.redact(&json.stdout),
        format!(
            "{{\"stream\":\"s\",\"events\":7,\"created_at\":\"<time>\",\"created_at_ms\":{created},\"forked_from\":null,\"compacted_through\":0,\"status\":\"answered\"}}\n"
        )
    );
    let show = scratch.run_db(&["log", "show", "s"], "");
    assert_eq!(
        scratch.redact(&show.stdout),
        "stream \"s\": 7 events\n\
         #1 <time>  attached machine=laptop, directory=<tmp>\n\
         #2 <time>  requested m1 (3 questions: apply, env, note)\n\
         #3 <time>  answered m1: apply = true\n\
         #4 <time>  answered m1: env = \"production\"\n\
         #5 <time>  answered m1: note = \"ok\"\n\
         #6 <time>  delivered m1\n\
         #7 <time>  detached machine=laptop, directory=<tmp>\n"
    );
    let transcript = scratch.run_db(&["log", "transcript", "s"], "");
    assert_eq!(transcript.code, 0);
    // The scratch directory's own name is random: the agent's place.
    let place = scratch.dir_name();
    insta::assert_snapshot!("transcript", transcript.stdout.replace(&place, "<dir>"));
    let export = scratch.run_db(&["log", "export", "s"], "");
    assert_eq!(export.code, 0);
    insta::assert_snapshot!("export", scratch.redact(&export.stdout));
}

#[test]
fn a_fork_replays_its_parents_events_and_compaction_keeps_replay_working() {
    let scratch = Scratch::new();
    recorded_session(&scratch);
    let fork = scratch.run_db(&["log", "fork", "s", "--at", "2", "--into", "what-if"], "");
    assert_eq!(
        (fork.code, scratch.redact(&fork.stdout)),
        (
            0,
            "forked \"s\" after #2 into \"what-if\"; continue it with `askuser resume what-if --db <tmp>/log.db`\n".to_owned()
        )
    );
    let list = scratch.run_db(&["log", "list"], "");
    assert_eq!(
        scratch.redact(&list.stdout),
        "s  7 events, created just now; answered\nwhat-if  2 events, created just now, forked from \"s\" at #2; open: 1 inquiry waits for an answer\n"
    );
    let replay = scratch.run_db(&["log", "replay", "what-if"], "");
    assert_eq!(replay.code, 0);
    assert_eq!(
        replay.stdout.lines().last(),
        Some(
            "replayed: the 2 events re-derive their lines from the log alone (this log records events, not the lines sent)"
        )
    );

    // Dropping events a fork still reads is refused; a snapshot alone is fine.
    let refused = scratch.run_db(&["log", "compact", "s", "--drop"], "");
    assert_eq!(
        (refused.code, refused.stderr.as_str()),
        (
            1,
            "askuser: the event log: cannot drop the events of stream \"s\" up to 7: the fork \"what-if\" branches from it at 2\n"
        )
    );
    let compact = scratch.run_db(&["log", "compact", "s"], "");
    assert_eq!(
        (compact.code, compact.stdout.as_str()),
        (0, "stream \"s\": snapshot at #7\n")
    );
    let replay = scratch.run_db(&["log", "replay", "s"], "");
    assert_eq!(replay.code, 0);
    let tail: Vec<&str> = replay.stdout.lines().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "replayed: the 7 events re-derive their lines from the log alone (this log records events, not the lines sent)",
            "the state loaded from the snapshot at #7 equals the state replayed from the first event",
            "result of m1: {\"apply\":true,\"env\":\"production\",\"note\":\"ok\"}",
        ]
    );
}

#[test]
fn compaction_with_drop_replays_from_the_snapshot() {
    let scratch = Scratch::new();
    recorded_session(&scratch);
    let compact = scratch.run_db(&["log", "compact", "s", "--drop"], "");
    assert_eq!(
        (compact.code, compact.stdout.as_str()),
        (0, "stream \"s\": snapshot at #7; dropped 7 events\n")
    );
    let replay = scratch.run_db(&["log", "replay", "s"], "");
    assert_eq!(
        (replay.code, replay.stdout.as_str()),
        (
            0,
            "replaying stream \"s\": 0 events after the snapshot at #7 (the events before it were compacted away)\n\
             replayed: the 0 events re-derive their lines from the log alone (this log records events, not the lines sent)\n"
        )
    );
}

#[test]
fn schema_prints_each_definition_and_check_lists_every_problem() {
    let scratch = Scratch::new();
    let schema = scratch.run(&["schema", "--dialect", "claude", "--format", "openai"], "");
    assert_eq!(schema.code, 0);
    let printed: serde_json::Value = serde_json::from_str(&schema.stdout).unwrap();
    assert_eq!(
        printed,
        askuser_dialects::definition(
            askuser_dialects::Dialect::Claude,
            askuser_dialects::Provider::OpenAi
        )
    );
    let bad_format = scratch.run(&["schema", "--format", "gemini"], "");
    assert_eq!(
        (bad_format.code, bad_format.stderr.as_str()),
        (
            1,
            "askuser: invalid value 'gemini' for '--format <FORMAT>'\n  [possible values: anthropic, openai, mcp]\n\nFor more information, try '--help'.\n"
        )
    );

    for (dialect, file, ok) in [
        (
            "jp",
            "jp.json",
            "ok: a valid jp call of 1 question (answer)\n",
        ),
        (
            "jp-form",
            "migration.json",
            "ok: a valid jp-form call of 3 questions (apply, env, note)\n",
        ),
        (
            "jp-form",
            "release.json",
            "ok: a valid jp-form call of 5 questions (ship, channel, checks, notes, rollout)\n",
        ),
        (
            "claude",
            "claude.json",
            "ok: a valid claude call of 2 questions (q1, q2)\n",
        ),
        (
            "pi",
            "pi.json",
            "ok: a valid pi call of 2 questions (q1, q2)\n",
        ),
    ] {
        let run = scratch.run(&["check", "--dialect", dialect, &example(file)], "");
        assert_eq!((run.code, run.stdout.as_str()), (0, ok), "{file}");
    }
    let bad = r#"{"questions": [
        {"id": "a", "text": "A?", "answer_type": "select"},
        {"id": "b", "text": "B?", "answer_type": "boolean", "when": {"question_id": "c", "equals": 1}}]}"#;
    let run = scratch.run(&["check", "-"], bad);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("check_problems", run.stdout);
}

/// A pending file's text with each tag of its seal (32 hex digits, made with
/// the log's random key) shown as `<tag>`.
fn sealed(text: &str) -> String {
    let tag =
        |value: &str| value.len() == 34 && value[1..33].bytes().all(|b| b.is_ascii_hexdigit());
    text.lines()
        .map(|line| match line.split_once(": ") {
            Some((key, value)) if tag(value.trim_end_matches(',')) => {
                let comma = if value.ends_with(',') { "," } else { "" };
                format!("{key}: \"<tag>\"{comma}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn broken_pending_files_and_answers_are_explained() {
    let scratch = Scratch::new();
    let file = scratch.path("p.json");
    let path = file.display().to_string();
    let answer = |args: &[&str]| {
        let mut all = vec!["answer", path.as_str()];
        all.extend(args);
        let run = scratch.run(&all, "");
        (run.code, scratch.redact(&run.stderr))
    };

    std::fs::write(&file, "{\"format\": ").unwrap();
    assert_eq!(
        answer(&[]),
        (1, "askuser: the pending file <tmp>/p.json: is not a pending-questions file (EOF while parsing a value at line 1 column 11); write it with `askuser ask --pending`\n".to_owned())
    );

    let mut pending = serde_json::json!({
        "format": "askuser-pending/9", "status": "pending", "stream": "s",
        "inquiry": "call-1", "dialect": "jp", "timestamp": "t",
        "questions": [{"id": "answer", "question": "Ok?", "answer_type": "boolean", "answer": null}]
    });
    std::fs::write(&file, pending.to_string()).unwrap();
    assert_eq!(
        answer(&[]),
        (1, "askuser: the pending file <tmp>/p.json: /format: is \"askuser-pending/9\"; this askuser reads \"askuser-pending/1\"\n".to_owned())
    );

    pending["format"] = "askuser-pending/1".into();
    std::fs::write(&file, pending.to_string()).unwrap();
    assert_eq!(
        answer(&["--answers", "true"]),
        (1, "askuser: --answers is not a list: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'\n".to_owned())
    );
    assert_eq!(
        answer(&["--answers", "[true, false]"]),
        (1, "askuser: --answers has 2 answers for 1 question: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'\n".to_owned())
    );
    let db = scratch.db();
    assert_eq!(
        answer(&["--answers", "[true]", "--db", &db]),
        (1, "askuser: the pending file <tmp>/p.json: /seal: is missing: askuser ask --pending seals every file it writes to its log, stream and inquiry; write the file again with `askuser ask --pending`\n".to_owned())
    );
}

#[test]
fn the_readme_command_runs_the_binary_on_an_example() {
    let readme = include_str!("../../../README.md");
    let command = readme
        .lines()
        .find_map(|l| {
            l.strip_prefix("askuser ")
                .filter(|rest| rest.starts_with("ask "))
        })
        .expect("the README runs askuser");
    let scratch = Scratch::new();
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = command
        .split_whitespace()
        .map(|arg| match arg {
            "/tmp/askuser-demo.db" => scratch.db(),
            file if file.starts_with("examples/") => format!("{root}/{file}"),
            other => other.to_owned(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(args[0], "ask");
    // Without a terminal no one can answer, so the call fails the way a model
    // would see it; in a terminal the form is shown (see tests/tmux.rs).
    let run = scratch.run(&args, "");
    assert_eq!((run.code, run.stdout.as_str()), (3, NO_TERMINAL));
}

#[test]
fn schema_works_for_every_dialect_and_format_and_check_reads_the_dialect() {
    let scratch = Scratch::new();
    for dialect in [
        "jp", "jp-form", "claude", "pi", "opencode", "codex", "gemini",
    ] {
        for format in ["anthropic", "openai", "mcp"] {
            let run = scratch.run(&["schema", "--dialect", dialect, "--format", format], "");
            assert_eq!(
                (run.code, run.stderr.as_str()),
                (0, ""),
                "{dialect} {format}"
            );
            assert!(serde_json::from_str::<serde_json::Value>(&run.stdout).is_ok());
        }
    }
    let claude = r#"{"questions": [{"question": "Re-pair?", "header": "Re-pair YubiKey", "multiSelect": false, "options": [{"label": "Yes"}]}]}"#;
    let run = scratch.run(&["check", "-"], claude);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "ok: a valid claude call of 1 question (q1)\n",
            "askuser: an agent's question form, read as Claude Code's AskUserQuestion (claude); --dialect picks another\n"
        )
    );
    let run = scratch.run(&["check", "--dialect", "codex", "-"], claude);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "askuser: this looks like a claude call: pass --dialect claude\n"
        )
    );
    let either = r#"{"questions": [{"question": "Which?", "header": "H", "options": [{"label": "a", "description": "d"}]}]}"#;
    let run = scratch.run(&["check", "-"], either);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: the call fits several dialects (claude, opencode): pass --dialect with one of them\n"
        )
    );
}

#[test]
fn a_pending_file_carries_descriptions_refuses_near_misses_and_tells_every_problem_at_once() {
    let scratch = Scratch::new();
    let call = scratch.path("call.json");
    std::fs::write(
        &call,
        r#"{"questions": [
            {"id": "db", "text": "Which database?", "header": "Database", "answer_type": "select",
             "options": [{"label": "PostgreSQL", "description": "The shared server"}, "SQLite"],
             "allow_other": true},
            {"id": "replicas", "text": "How many replicas?", "answer_type": "schema",
             "schema": {"type": "integer", "minimum": 1}},
            {"id": "go", "text": "Deploy now?", "answer_type": "boolean"}]}"#,
    )
    .unwrap();
    let pending = scratch.path("pending.json").display().to_string();
    let call = call.display().to_string();
    let run = scratch.run_db(&["ask", "--stream", "s", "--pending", &pending, &call], "");
    assert_eq!(run.code, 5, "{}", run.stderr);
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pending).unwrap()).unwrap();
    assert_eq!(
        file["questions"][0],
        serde_json::json!({"id": "db", "question": "Which database?", "header": "Database",
            "answer_type": "select", "options": ["PostgreSQL", "SQLite"],
            "option_descriptions": {"PostgreSQL": "The shared server"},
            "allow_other": true, "answer": null})
    );

    // Three problems, all told in one run; nothing recorded.
    let run = scratch.run_db(
        &["answer", &pending, "--answers", r#"["Postgres", 0, null]"#],
        "",
    );
    assert_eq!(
        (run.code, scratch.redact(&run.stderr)),
        (
            2,
            "askuser: answer 1 (question \"db\"): \"Postgres\" is not one of the options; did you mean \"PostgreSQL\"? Write the label exactly, or {\"other\": \"Postgres\"} to give it as free text\n\
             askuser: answer 2 (question \"replicas\"): does not match the schema: 0 is less than the minimum of 1\n\
             askuser: answer 3 (question \"go\"): has no answer; fill in an answer to \"Deploy now?\"\n\
             Nothing was recorded. Fix the answers and run `askuser answer <tmp>/pending.json --db <tmp>/log.db` again.\n"
                .to_owned()
        )
    );
    // Marked as free text, the same word is taken.
    let run = scratch.run_db(
        &[
            "answer",
            &pending,
            "--answers",
            r#"[{"other": "Postgres"}, 2, true]"#,
        ],
        "",
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "{\"db\":\"Postgres\",\"replicas\":2,\"go\":true}\n")
    );
}

#[test]
fn check_reads_an_almost_claude_call_as_claude_and_says_what_it_tried() {
    let scratch = Scratch::new();
    let call = r#"{"questions": [{"question": "Which auth method?", "header": "Auth",
        "options": [{"label": "OAuth2"}, {"label": "API keys"}], "multiSelect": "no"}]}"#;
    let run = scratch.run(&["check", "-"], call);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "AskUserQuestion: the call was not run. Fix this problem and call the tool again:\n\
             - /questions/0/multiSelect: must be true or false, not a string\n",
            "askuser: no dialect accepts the call; read as a claude call, the one with the fewest problems (tried claude: 1 problem, pi: 1 problem, jp: 2 problems, opencode: 2 problems, gemini: 3 problems, codex: 3 problems, jp-form: 5 problems, mcp: 1 problem)\n"
        )
    );
}

/// `ask --pending` and `answer` append a step at a time; `log compact` stores what
/// they wrote as one block, and the stream reads the same. (`serve` repacks its
/// stream itself when its input ends.)
#[test]
fn log_compact_repacks_a_stream_written_a_step_at_a_time() {
    let scratch = Scratch::new();
    std::fs::write(
        scratch.path("call.json"),
        r#"{"questions": [{"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]}"#,
    )
    .unwrap();
    let asked = scratch.run_db(
        &[
            "ask",
            "--dialect",
            "jp-form",
            "--pending",
            "p.json",
            "--stream",
            "s",
            "call.json",
        ],
        "",
    );
    assert_eq!(asked.code, 5, "{}", asked.stderr);
    let answered = scratch.run_db(&["answer", "p.json", "--answers", "[true]"], "");
    assert_eq!(answered.stdout, "{\"ok\":true}\n");
    let before = scratch.run_db(&["log", "export", "s"], "");
    let compact = scratch.run_db(&["log", "compact", "s"], "");
    assert_eq!(
        (compact.code, compact.stdout.as_str()),
        (
            0,
            "stream \"s\": snapshot at #2; repacked 2 events from 2 values into 1 block\n"
        )
    );
    assert_eq!(
        scratch.run_db(&["log", "export", "s"], "").stdout,
        before.stdout
    );
    let again = scratch.run_db(&["log", "compact", "s"], "");
    assert_eq!(again.stdout, "stream \"s\": snapshot at #2\n");
}
