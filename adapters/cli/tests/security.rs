//! The attacks of issue 10 on the `askuser` program, each reproduced against the
//! real binary: hostile text in what it prints, inputs that never end, pending files
//! it cannot rewrite or that point elsewhere, and stream names that fail later.

mod common;

use common::Scratch;
use serde_json::json;

fn answer_lines(lines: &[serde_json::Value]) -> String {
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

#[test]
fn check_and_ask_show_a_hostile_call_without_obeying_it() {
    let scratch = Scratch::new();
    let call = json!({"questions": [
        {"id": "a", "text": "Deploy?\u{1b}]2;pwned\u{7}", "answer_type": "boolean"},
        {"id": "b", "text": "Which?", "answer_type": "select",
         "options": ["yes", "y\u{202e}se"], "context": "\u{1b}]52;c;cm0gLXJmIC8=\u{7}"}
    ]});
    std::fs::write(scratch.path("call.json"), call.to_string()).unwrap();
    let expected = "ask_user: the call was not run. Fix these 3 problems and call the tool again:\n\
        - /questions/0/text: has U+001B ESCAPE at character 8; write the question as plain text, without control, bidi-control or invisible characters\n\
        - /questions/1/context: has U+001B ESCAPE at character 1; remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate\n\
        - /questions/1/options/1: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`\n";
    for args in [
        &["check", "--dialect", "jp-form", "call.json"][..],
        &["ask", "--dialect", "jp-form", "call.json", "--db", "log.db"],
    ] {
        let run = scratch.run(args, "");
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (2, expected, ""),
            "{args:?}"
        );
    }
    // An unknown key is quoted back to the model, but shown escaped on a terminal.
    let run = scratch.run(
        &["check", "--dialect", "jp-form", "-"],
        "{\"questions\":[],\"\\u001b[2J\":1}",
    );
    assert_eq!(
        run.stdout,
        "ask_user: the call was not run. Fix these 2 problems and call the tool again:\n\
         - /\\u{1b}[2J: unknown field `\\u{1b}[2J`; remove it (known fields: questions)\n\
         - /questions: the form has no questions; add at least one\n"
    );
}

#[test]
fn the_log_is_printed_without_raw_escapes() {
    let scratch = Scratch::new();
    let hostile = "\u{1b}]2;pwned\u{7}\u{202e}evil\u{9b}2J";
    let input = answer_lines(&[
        json!({"type": "ask", "inquiry": "c1", "arguments": {"questions": [
            {"id": "n", "text": "Name?", "answer_type": "text"}]}}),
        json!({"type": "answer", "inquiry": "c1", "question": "n", "value": hostile}),
    ]);
    assert_eq!(scratch.run_db(&["serve", "--stream", "s"], &input).code, 0);
    let transcript = scratch.run_db(&["log", "transcript", "s"], "");
    let dir = scratch.dir_name();
    assert_eq!(
        transcript.stdout,
        format!(
            "{dir} · laptop started waiting.\n\nAsked \"Name?\"; the answer was \\u{{1b}}]2;pwned\\u{{7}}\\u{{202e}}evil\\u{{9b}}2J.\n{dir} · laptop stopped waiting.\n"
        )
    );
    let show = scratch.run_db(&["log", "show", "s"], "");
    assert_eq!(
        scratch.redact(&show.stdout),
        "stream \"s\": 5 events\n\
         #1 <time>  attached machine=laptop, directory=<tmp>\n\
         #2 <time>  requested c1 (1 question: n)\n\
         #3 <time>  answered c1: n = \"\\u001b]2;pwned\\u0007\\u{202e}evil\\u{9b}2J\"\n\
         #4 <time>  delivered c1\n\
         #5 <time>  detached machine=laptop, directory=<tmp>\n"
    );
    let export = scratch.run_db(&["log", "export", "s"], "");
    // The answer, before the lines saying it was handed over and the agent
    // stopped waiting.
    let last = export.stdout.lines().rev().nth(2).unwrap();
    assert_eq!(
        scratch.redact(last),
        r#"{"stream":"s","seq":3,"at":"<time>","event":{"answered":{"inquiry":"c1","question":"n","value":"\u001b]2;pwned\u0007\u202eevil\u009b2J","by":"user"}}}"#
    );
    for text in [&transcript.stdout, &show.stdout, &export.stdout] {
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}']),
            "{text}"
        );
    }
}

#[test]
fn inputs_that_never_end_fail_at_once() {
    let scratch = Scratch::new();
    let device = "is a character device, not a regular file; give a file, or - for standard input";
    assert_eq!(
        scratch.run(&["answer", "/dev/zero"], "").stderr,
        format!("askuser: the pending file /dev/zero: {device}\n")
    );
    for command in ["ask", "check"] {
        let run = scratch.run(&[command, "/dev/zero"], "");
        assert_eq!(
            (run.code, run.stderr),
            (1, format!("askuser: /dev/zero: {device}\n"))
        );
    }
    let run = scratch.run(&["check", "-"], &" ".repeat((1 << 20) + 1));
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: standard input: is larger than 1048576 bytes (1 MiB), the most askuser reads; give a smaller file\n"
        )
    );
    let run = scratch.run(&["check", "."], "");
    assert_eq!(
        run.stderr,
        "askuser: .: is a directory, not a regular file; give a file, or - for standard input\n"
    );
}

#[test]
fn stream_names_are_checked_before_serving() {
    let scratch = Scratch::new();
    let long = "s".repeat(201);
    let cases = [
        ("", "is empty"),
        ("s\u{1b}[2J", "has U+001B ESCAPE at character 2"),
        (long.as_str(), "is 201 bytes long"),
    ];
    for ((name, problem), command) in cases
        .iter()
        .flat_map(|case| [(case, "serve"), (case, "mcp")])
    {
        let run = scratch.run_db(&[command, "--stream", name], "");
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr),
            (
                1,
                "",
                format!(
                    "askuser: --stream {problem}; a stream name is 1 to 200 bytes of plain text, such as \"session-1\"\n"
                )
            ),
            "{command}"
        );
    }
    assert!(!scratch.path("log.db").exists(), "no log was opened");
}

fn text_call(count: usize) -> String {
    let questions: Vec<_> = (0..count)
        .map(|i| json!({"id": format!("q{i}"), "text": "Notes?", "answer_type": "text"}))
        .collect();
    json!({ "questions": questions }).to_string()
}

#[test]
fn ask_pending_to_a_place_it_cannot_write_records_nothing() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path("call.json"), text_call(1)).unwrap();
    std::fs::write(scratch.path("blocker"), "").unwrap();
    let run = scratch.run_db(
        &[
            "ask",
            "--dialect",
            "jp-form",
            "--pending",
            "blocker/p.json",
            "call.json",
        ],
        "",
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with(
            "askuser: the pending file blocker/p.json: cannot be written: no new file can be made in blocker ("
        ),
        "{}",
        run.stderr
    );
    assert!(!scratch.path("log.db").exists(), "nothing was recorded");
}

#[test]
fn answer_prints_the_result_even_when_the_pending_file_cannot_be_rewritten() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path("call.json"), text_call(10)).unwrap();
    let run = scratch.run_db(
        &["ask", "--stream", "s", "--pending", "p.json", "call.json"],
        "",
    );
    assert_eq!(run.code, 5);
    // Ten answers of 60,000 bytes fit in the file; with the result beside them, the
    // file would pass the 1 MiB askuser reads back, so it is not rewritten.
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.path("p.json")).unwrap()).unwrap();
    let long = "x".repeat(60_000);
    for question in file["questions"].as_array_mut().unwrap() {
        question["answer"] = json!(long);
    }
    std::fs::write(scratch.path("p.json"), file.to_string()).unwrap();
    let expected: serde_json::Value = (0..10).map(|i| (format!("q{i}"), json!(long))).collect();
    let mut rewritten = file.clone();
    rewritten["status"] = json!("answered");
    rewritten["result"] = expected.clone();
    let warning = format!(
        "askuser: warning: the pending file p.json: would be {} bytes, more than askuser reads back (1048576); give shorter answers; the result is printed below all the same\n",
        rewritten.to_string().len() + 1
    );
    let run = scratch.run(&["answer", "p.json"], "");
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, format!("{expected}\n"));
    // Each question beside its answer, the answer cut at 200 characters.
    let line = format!("  Notes? — {}… (60000 characters)\n", "x".repeat(200));
    assert_eq!(
        run.stderr,
        format!(
            "askuser: recorded for inquiry \"call-1\" of stream \"s\":\n{}{warning}",
            line.repeat(10)
        )
    );
    // Run again: the file still says pending, the log says answered; the result again.
    let again = scratch.run(&["answer", "p.json"], "");
    assert_eq!(
        (again.code, again.stdout, again.stderr),
        (
            0,
            format!("{expected}\n"),
            format!(
                "askuser: inquiry \"call-1\" of stream \"s\" was already answered elsewhere (in the terminal, the browser or an earlier `askuser answer`), so the answers given here were not recorded; the result the assistant got follows\n{warning}"
            )
        )
    );
}

#[test]
fn a_pending_file_never_makes_askuser_create_a_log() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path("call.json"), text_call(1)).unwrap();
    let run = scratch.run_db(&["ask", "--pending", "p.json", "call.json"], "");
    assert_eq!(run.code, 5);
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.path("p.json")).unwrap()).unwrap();
    let elsewhere = scratch.path("planted/deep/log.db");
    file["db"] = json!(elsewhere.display().to_string());
    std::fs::write(scratch.path("p.json"), file.to_string()).unwrap();
    let run = scratch.run(&["answer", "p.json", "--answers", "[\"hi\"]"], "");
    assert_eq!(
        (run.code, scratch.redact(&run.stderr)),
        (
            1,
            "askuser: the pending file names the log <tmp>/planted/deep/log.db, which is not an askuser log; askuser creates no log for a pending file: pass --db with the log the questions were asked with\n".to_owned()
        )
    );
    assert!(!scratch.path("planted").exists());
}

#[cfg(unix)]
#[test]
fn a_pending_file_that_is_a_link_is_refused() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path("call.json"), text_call(1)).unwrap();
    assert_eq!(
        scratch
            .run_db(&["ask", "--pending", "real.json", "call.json"], "")
            .code,
        5
    );
    std::os::unix::fs::symlink("real.json", scratch.path("p.json")).unwrap();
    let run = scratch.run(&["answer", "p.json", "--answers", "[\"hi\"]"], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            1,
            "",
            "askuser: the pending file p.json: is a symbolic link (to real.json); askuser does not follow links here: give the path of the file itself\n"
        )
    );
}

/// `curl -s -i` posting an MCP `initialize` to `url` with `headers`, run as
/// `user` (`None`: this user); the status line and the body.
fn post_initialize(url: &str, user: Option<&str>, headers: &[&str]) -> (String, String) {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"Claude Code","version":"2.1.332"}}}"#;
    let mut command = match user {
        Some(uid) => {
            let mut command = std::process::Command::new("setpriv");
            command.args([
                &format!("--reuid={uid}"),
                &format!("--regid={uid}"),
                "--clear-groups",
                "curl",
            ]);
            command
        }
        None => std::process::Command::new("curl"),
    };
    command.args([
        "-s",
        "-i",
        "-X",
        "POST",
        url,
        "-H",
        "Content-Type: application/json",
        "-H",
        "Accept: application/json, text/event-stream",
        "-d",
        init,
    ]);
    for header in headers {
        command.args(["-H", header]);
    }
    let out = command.output().expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    (
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    )
}

/// Another local user cannot ask the person over `askuser mcp --http`: every
/// request must carry the token that askuser keeps beside the log, in a file
/// only the person may read; one without it gets 401 and words. (As root, user
/// 65534 makes the attempt, and cannot read the file either.)
#[cfg(unix)]
#[test]
fn another_user_on_the_mcp_port_is_refused() {
    use std::io::BufRead as _;
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::new();
    let db = scratch.db();
    let args = ["mcp", "--db", &db, "--stream", "s", "--http", "127.0.0.1:0"];
    let mut server = common::askuser_in(scratch.dir.path(), None, &args)
        .spawn()
        .expect("askuser mcp starts");
    let mut said = std::io::BufReader::new(server.stderr.take().expect("stderr"));
    let (mut first, mut second) = (String::new(), String::new());
    said.read_line(&mut first).unwrap();
    said.read_line(&mut second).unwrap();
    let url = first
        .trim()
        .strip_prefix("askuser: MCP over streamable HTTP at ")
        .unwrap_or_else(|| panic!("{first}"))
        .to_owned();
    let file = std::path::Path::new(&db).join("askuser.mcp-token");
    assert_eq!(
        second.trim_end(),
        format!(
            "askuser: every request must carry `Authorization: Bearer TOKEN`, TOKEN being the contents of {} (readable by you only)",
            file.display()
        )
    );
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let token = std::fs::read_to_string(&file).unwrap().trim().to_owned();
    let refused = (
        "HTTP/1.1 401 Unauthorized".to_owned(),
        "This askuser MCP server answers only requests that carry its token: send `Authorization: Bearer TOKEN`, TOKEN being the contents of the file `askuser mcp --http` named when it started (readable by its user only). `askuser setup` writes it into the host's configuration.\n".to_owned(),
    );
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt as _;
        m.uid() == 0
    });
    if root {
        assert_eq!(post_initialize(&url, Some("65534"), &[]), refused);
        let read = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "cat"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(!read.status.success(), "user 65534 read the token");
    }
    assert_eq!(post_initialize(&url, None, &[]), refused);
    let wrong = "Authorization: Bearer 00000000000000000000000000000000";
    assert_eq!(post_initialize(&url, None, &[wrong]), refused);
    let right = format!("Authorization: Bearer {token}");
    let (status, _) = post_initialize(&url, None, &[&right]);
    assert_eq!(status, "HTTP/1.1 200 OK");
    drop(server.kill());
    drop(server.wait());
}
