//! The command line itself: `--help` on every command of the clap definitions,
//! typos and repeated flags, non-UTF-8 paths, and a closed standard output.

mod common;

use std::ffi::OsString;
use std::process::{Command, Stdio};

use common::{BIN, Scratch, example};

/// Every command path of the definitions: `["ask"]`, `["log", "fork"]`, ...
fn command_paths() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands() {
            let mut here = path.to_vec();
            here.push(sub.get_name().to_owned());
            out.push(here.clone());
            // clap's `help` mirrors its parent's commands: `askuser help log` is
            // checked against `askuser log --help` below.
            if sub.get_name() != "help" {
                walk(sub, &here, out);
            }
        }
    }
    let mut root = askuser_cli::command();
    root.build();
    let mut paths = vec![Vec::new()];
    walk(&root, &[], &mut paths);
    paths
}

#[test]
fn help_exits_0_on_every_command_and_subcommand() {
    let scratch = Scratch::new();
    let paths = command_paths();
    assert!(paths.len() > 15, "{paths:?}");
    for path in paths {
        let mut line: Vec<&str> = path.iter().map(String::as_str).collect();
        // `help` takes no --help: `askuser help` and `askuser log help` are their own help.
        if path.last().is_none_or(|name| name != "help") {
            line.push("--help");
        }
        let run = scratch.run(&line, "");
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{line:?}");
        assert!(run.stdout.contains("Usage: askuser"), "{line:?}");
        if path.last().is_some_and(|name| name != "help") {
            let mut line = vec!["help"];
            line.extend(path.iter().map(String::as_str));
            let help = scratch.run(&line, "");
            assert_eq!((help.code, help.stdout), (0, run.stdout), "{line:?}");
        }
    }
}

#[test]
fn askuser_help_prints_the_commands_and_the_exit_statuses() {
    let run = Scratch::new().run(&["help"], "");
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("help", run.stdout);
    let bare = Scratch::new().run(&[], "");
    assert_eq!(
        (bare.code, bare.stdout.as_str(), bare.stderr),
        (1, "", run.stdout)
    );
}

#[test]
fn a_typo_gets_a_suggestion() {
    let scratch = Scratch::new();
    let cases: [(&[&str], &str); 4] = [
        (
            &["aks", "call.json"],
            "askuser: unrecognized subcommand 'aks'\n\n  tip: a similar subcommand exists: 'ask'\n\nUsage: askuser <COMMAND>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["log", "shwo", "s"],
            "askuser: unrecognized subcommand 'shwo'\n\n  tip: a similar subcommand exists: 'show'\n\nUsage: askuser log <COMMAND>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["check", "--dialet", "jp", "-"],
            "askuser: unexpected argument '--dialet' found\n\n  tip: a similar argument exists: '--dialect'\n\nUsage: askuser check --dialect <DIALECT> <FILE>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["schema", "--dialect", "claud"],
            "askuser: invalid value 'claud' for '--dialect <DIALECT>'\n  [possible values: jp, jp-form, claude, pi, opencode, codex, gemini, mcp]\n\n  tip: a similar value exists: 'claude'\n\nFor more information, try '--help'.\n",
        ),
    ];
    for (line, stderr) in cases {
        let run = scratch.run(line, "");
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (1, "", stderr),
            "{line:?}"
        );
    }
}

#[test]
fn a_repeated_single_valued_flag_is_refused() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["check", "--dialect", "jp", "--dialect", "claude", "-"],
        "{}",
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            1,
            "",
            "askuser: the argument '--dialect <DIALECT>' cannot be used multiple times\n\nUsage: askuser check [OPTIONS] <FILE>\n\nFor more information, try '--help'.\n"
        )
    );
    let run = scratch.run(&["log", "list", "--db", "a", "--db", "b"], "");
    assert_eq!(
        run.stderr,
        "askuser: the argument '--db <PATH>' cannot be used multiple times\n\nUsage: askuser log list [OPTIONS]\n\nFor more information, try '--help'.\n"
    );
    assert!(!scratch.path("a").exists() && !scratch.path("b").exists());
}

#[test]
fn a_hostile_argument_is_shown_escaped_in_a_usage_error() {
    let run = Scratch::new().run(&["log", "s\u{1b}]2;x\u{7}"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: unrecognized subcommand 's\\u{1b}]2;x\\u{7}'\n\nUsage: askuser log <COMMAND>\n\nFor more information, try '--help'.\n"
        )
    );
}

#[cfg(unix)]
#[test]
fn a_non_utf8_path_works_for_the_log_and_the_call() {
    use std::os::unix::ffi::OsStringExt;

    let scratch = Scratch::new();
    let mut db = scratch.dir.path().as_os_str().to_owned().into_vec();
    db.extend(b"/log-\xff.db");
    let db = OsString::from_vec(db);
    let mut call = scratch.dir.path().as_os_str().to_owned().into_vec();
    call.extend(b"/call-\xfe.json");
    let call = OsString::from_vec(call);
    std::fs::copy(example("jp.json"), &call).unwrap();

    let run_os = |line: &[&std::ffi::OsStr]| {
        let output = Command::new(BIN)
            .args(line)
            .env_remove("ASKUSER_DB")
            .env("HOME", scratch.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, stdout, _) = run_os(&[
        "ask".as_ref(),
        "--stream".as_ref(),
        "s".as_ref(),
        "--db".as_ref(),
        &db,
        &call,
    ]);
    assert_eq!(
        (code, stdout.lines().next()),
        (
            Some(3),
            Some(
                "ask_user cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing."
            )
        )
    );
    let (code, stdout, stderr) = run_os(&["log".as_ref(), "list".as_ref(), "--db".as_ref(), &db]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        scratch.redact(&stdout),
        "s  1 event, created just now; failed\n"
    );
    // A pending file cannot name that log, so answering it takes --db.
    let pending = scratch.path("p.json").into_os_string();
    let (code, _, stderr) = run_os(&[
        "ask".as_ref(),
        "--pending".as_ref(),
        &pending,
        "--db".as_ref(),
        &db,
        &call,
    ]);
    assert_eq!(
        (code, scratch.redact(&stderr)),
        (
            Some(5),
            "askuser: an agent's question form, read as JP's one-question ask_user (jp); --dialect picks another\n\
             askuser: the log's path is not UTF-8, so the pending file cannot name it: answer with `askuser answer <tmp>/p.json --db $'<tmp>/log-\\xff.db'`\n"
                .to_owned()
        )
    );
    let (code, stdout, _) = run_os(&[
        "answer".as_ref(),
        &pending,
        "--answers".as_ref(),
        r#"["abort"]"#.as_ref(),
        "--db".as_ref(),
        &db,
    ]);
    assert_eq!(
        (code, stdout.as_str()),
        (
            Some(0),
            "{\"answer_type\":\"select\",\"answer\":\"abort\"}\n"
        )
    );
    let (code, stdout, _) = run_os(&["check".as_ref(), &call]);
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "ok: a valid jp call of 1 question (answer)\n")
    );
}

/// Runs `askuser line...` with a standard output whose reader is already gone.
fn run_with_closed_stdout(scratch: &Scratch, line: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(BIN)
        .args(line)
        .current_dir(scratch.dir.path())
        .env_remove("ASKUSER_DB")
        .env("HOME", scratch.dir.path())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn a_closed_standard_output_ends_quietly() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let session = format!(
        "{}\n",
        serde_json::json!({"type": "ask", "inquiry": "c1", "dialect": "jp",
            "arguments": {"question": "Ok?", "answer_type": "boolean"}})
    );
    assert_eq!(
        scratch
            .run(&["serve", "--db", &db, "--stream", "s"], &session)
            .code,
        0
    );
    let jp = example("jp.json");
    let lines: [&[&str]; 8] = [
        &["schema", "--dialect", "jp"],
        &["--help"],
        &["log", "fork", "--help"],
        &["--version"],
        &["check", "--dialect", "jp", &jp],
        &["log", "list", "--db", &db],
        &["log", "show", "s", "--db", &db],
        &["log", "export", "s", "--db", &db],
    ];
    for line in lines {
        assert_eq!(
            run_with_closed_stdout(&scratch, line),
            (Some(0), String::new()),
            "{line:?}"
        );
    }
}

#[test]
fn a_time_limit_is_checked_before_anything_is_asked() {
    let scratch = Scratch::new();
    let run = scratch.run(&["ask", "--timeout", "0", "x.json"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: invalid value '0' for '--timeout <SECONDS>': 0 is not in 1..=86400\n\nFor more information, try '--help'.\n"
        )
    );
    let run = scratch.run(&["ask", "--on-timeout", "defaults", "x.json"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: the following required arguments were not provided:\n  --timeout <SECONDS>\n\nUsage: askuser ask --timeout <SECONDS> --on-timeout <ACTION> <FILE>\n\nFor more information, try '--help'.\n"
        )
    );
    let run = scratch.run(
        &["ask", "--timeout", "5", "--on-timeout", "later", "x.json"],
        "",
    );
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: invalid value 'later' for '--on-timeout <ACTION>'\n  [possible values: cancel, defaults, end_turn]\n\nFor more information, try '--help'.\n"
        )
    );
    assert!(!scratch.path("log.db").exists());
}
