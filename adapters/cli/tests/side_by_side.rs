//! Agents started side by side in one repository (sub-agents, two sessions of
//! one host): each `askuser ask --pending` started at once, beside a running
//! `askuser serve` that holds the log, gets a stream of its own, named after
//! the repository; none loses its question. `askuser mcp` servers started at
//! once claim their stream the same way (on a sled log at their first call,
//! after the client said where its project is). On sled and on PostgreSQL.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::place::Place;
use common::web::Serve;
use common::{Scratch, askuser_in, mcp};
use serde_json::Value;

const CALL: &str = r#"{"question": "Deploy now?", "answer_type": "boolean"}"#;

/// A git repository in `scratch` (`billing-api`, the default stream names'
/// base); the directory inside it the agents run in.
fn repository(scratch: &Scratch) -> std::path::PathBuf {
    let repo = scratch.path("billing-api");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let work = repo.join("src");
    std::fs::create_dir_all(&work).unwrap();
    work
}

fn eight_agents_started_at_once_each_get_their_own_stream(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let work = repository(&scratch);
    std::fs::write(scratch.path("call.json"), CALL).unwrap();
    let call = scratch.path("call.json").display().to_string();
    let serve = Serve::start_in(&work, scratch.dir.path(), &["serve", "--db", &db]);
    let ready: Value = serde_json::from_str(&serve.ready).unwrap();
    assert_eq!(ready["stream"], "billing-api-1");
    let pending = |n: usize| scratch.path(&format!("p{n}.json"));
    let children: Vec<_> = (0..8)
        .map(|n| {
            let file = pending(n).display().to_string();
            askuser_in(
                &work,
                None,
                &[
                    "ask",
                    "--db",
                    &db,
                    "--dialect",
                    "jp",
                    "--pending",
                    &file,
                    &call,
                ],
            )
            .spawn()
            .expect("askuser starts")
        })
        .collect();
    let mut codes = Vec::new();
    for child in children {
        let out = child.wait_with_output().expect("askuser ends");
        codes.push((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    assert!(
        codes.iter().all(|(code, _)| *code == Some(5)),
        "every agent's question is pending: {codes:?}"
    );
    let streams: BTreeSet<String> = (0..8).map(|n| stream_of(&pending(n))).collect();
    let expected: BTreeSet<String> = (2..=9).map(|n| format!("billing-api-{n}")).collect();
    assert_eq!(streams, expected);
    // Each stream holds its agent's origin and its one question, `call-1`.
    for stream in &streams {
        let show = common::run_in(
            scratch.dir.path(),
            &["log", "show", stream, "--db", &db],
            "",
        );
        assert_eq!(show.code, 0, "{}", show.stderr);
        let kinds: Vec<&str> = show
            .stdout
            .lines()
            .skip(1)
            .filter_map(|line| line.split_whitespace().nth(2))
            .collect();
        assert_eq!(kinds, ["attached", "requested"], "{}", show.stdout);
    }
    drop(serve);
}

/// The names `askuser log list` shows.
fn stream_names(dir: &Path, db: &str) -> BTreeSet<String> {
    let list = common::run_in(dir, &["log", "list", "--db", db], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    (list.stdout.lines())
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Eight `askuser mcp` started at once in one repository beside a running
/// `askuser serve`, their input closed before any client spoke: none claims a
/// stream (a stream is claimed at the first call, once the client has said
/// where its project is), and each ends with exit 1 and one line, never with a
/// panic (on PostgreSQL the log used to be dropped inside the server's runtime,
/// and that panicked: "Cannot start a runtime from within a runtime").
fn eight_mcp_servers_closed_before_a_client_spoke_claim_nothing_and_end(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let work = repository(&scratch);
    let serve = Serve::start_in(&work, scratch.dir.path(), &["serve", "--db", &db]);
    let mut servers: Vec<_> = (0..8)
        .map(|_| {
            askuser_in(&work, None, &["mcp", "--db", &db])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("askuser mcp starts")
        })
        .collect();
    // Time for a server that claimed at start to have done so.
    std::thread::sleep(std::time::Duration::from_secs(2));
    for server in &mut servers {
        drop(server.stdin.take());
    }
    for server in servers {
        let output = server.wait_with_output().expect("askuser mcp ends");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(
            (output.status.code(), stderr.as_str()),
            (
                Some(1),
                "askuser: the MCP session did not start: connection closed: initialize request\n"
            )
        );
    }
    // Only `askuser serve`'s stream.
    let expected: BTreeSet<String> = BTreeSet::from(["billing-api-1".to_owned()]);
    assert_eq!(stream_names(scratch.dir.path(), &db), expected);
    drop(serve);
}

/// Eight `askuser mcp` started at once in one repository beside a running
/// `askuser serve`, each called at once: each claims a stream of its own at its
/// first call (its first event records where it runs, after the client said
/// where its project is), so two never record into one.
fn eight_mcp_servers_called_at_once_each_claim_their_own_stream(place: &Place) {
    use std::io::BufReader;
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let work = repository(&scratch);
    let serve = Serve::start_in(&work, scratch.dir.path(), &["serve", "--db", &db]);
    let mut servers: Vec<_> = (0..8)
        .map(|_| {
            askuser_in(&work, None, &["mcp", "--db", &db, "--wait", "0"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("askuser mcp starts")
        })
        .collect();
    let call = serde_json::json!({"name": "ask_user", "arguments": mcp::deploy_now()});
    for server in &mut servers {
        let input = server.stdin.as_mut().expect("its standard input");
        mcp::hello_and_call(input, ("OpenCode", "1.18.33"), &call);
    }
    for server in &mut servers {
        let mut output = BufReader::new(server.stdout.take().expect("its standard output"));
        mcp::response_to_call(&mut output, |_| {});
        drop(server.stdin.take());
    }
    // Each ends cleanly, never with a panic: on PostgreSQL, the log used to be
    // dropped inside the server's runtime, and that panicked ("Cannot start a
    // runtime from within a runtime").
    for server in servers {
        let output = server.wait_with_output().expect("askuser mcp ends");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""));
    }
    let expected: BTreeSet<String> = (1..=9).map(|n| format!("billing-api-{n}")).collect();
    assert_eq!(stream_names(scratch.dir.path(), &db), expected);
    // Each server's stream holds where it runs, then its one call, and
    // nothing of another's.
    for stream in (2..=9).map(|n| format!("billing-api-{n}")) {
        let show = common::run_in(
            scratch.dir.path(),
            &["log", "show", &stream, "--db", &db],
            "",
        );
        assert_eq!(show.code, 0, "{}", show.stderr);
        let kinds: Vec<&str> = (show.stdout.lines().skip(1))
            .filter_map(|line| line.split_whitespace().nth(2))
            .collect();
        assert_eq!(kinds[..2], ["attached", "requested"], "{}", show.stdout);
        let calls = kinds.iter().filter(|kind| **kind == "requested").count();
        assert_eq!(calls, 1, "{}", show.stdout);
    }
    drop(serve);
}

#[test]
fn eight_mcp_servers_called_at_once_each_claim_their_own_stream_on_sled() {
    eight_mcp_servers_called_at_once_each_claim_their_own_stream(&Place::Sled);
}

#[test]
fn eight_mcp_servers_called_at_once_each_claim_their_own_stream_on_postgres() {
    eight_mcp_servers_called_at_once_each_claim_their_own_stream(&Place::postgres());
}

#[test]
fn eight_mcp_servers_closed_before_a_client_spoke_claim_nothing_and_end_on_postgres() {
    eight_mcp_servers_closed_before_a_client_spoke_claim_nothing_and_end(&Place::postgres());
}

/// The stream a pending file was written for.
fn stream_of(path: &Path) -> String {
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["stream"].as_str().unwrap().to_owned()
}

#[test]
fn eight_agents_started_at_once_each_get_their_own_stream_on_sled() {
    eight_agents_started_at_once_each_get_their_own_stream(&Place::Sled);
}

#[test]
fn eight_agents_started_at_once_each_get_their_own_stream_on_postgres() {
    eight_agents_started_at_once_each_get_their_own_stream(&Place::postgres());
}

/// A tool call to `askuser mcp` on a PostgreSQL log (stdio, a client without
/// forms, a pending directory, no wait): the call is answered with the pending
/// file's words, and the server ends cleanly, saying nothing on stderr. Its
/// first tool call used to panic ("Cannot start a runtime from within a
/// runtime": the blocking PostgreSQL client was called from the server's
/// runtime).
#[test]
fn an_mcp_call_on_postgres_is_answered_with_the_pending_file_s_words() {
    use std::os::unix::fs::PermissionsExt as _;
    let place = Place::postgres();
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    std::fs::create_dir(scratch.path("pending")).unwrap();
    std::fs::set_permissions(
        scratch.path("pending"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    let args = [
        "mcp",
        "--db",
        &db,
        "--stream",
        "pg-call",
        "--pending-dir",
        "pending",
        "--wait",
        "0",
    ];
    let mut child = askuser_in(scratch.dir.path(), None, &args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let call = serde_json::json!({"name": "ask_user", "arguments": {"questions": [
        {"id": "go", "text": "Deploy?", "answer_type": "boolean"}]}});
    mcp::hello_and_call(&mut input, ("t", "1"), &call);
    let mut output = std::io::BufReader::new(child.stdout.take().unwrap());
    let result = mcp::response_to_call(&mut output, |_| {});
    drop(input);
    let ended = child.wait_with_output().unwrap();
    assert_eq!(
        (
            ended.status.success(),
            String::from_utf8_lossy(&ended.stderr)
        ),
        (true, "".into())
    );
    let file = scratch.path("pending/askuser-pg-call-call-1.json");
    let file = file.display();
    let words = format!(
        "Questions pending. User input required.\n\nTo answer, run:\n  askuser answer {file} --answers '[...]'\n\
         (one answer per question, in order; null for a question that is skipped)\n\n\
         Or fill in each \"answer\" in the file and run:\n  askuser answer {file}\n\n\
         Questions saved to: {file}\n"
    );
    assert_eq!(
        result["result"],
        serde_json::json!({
            "content": [{"type": "text", "text": words}],
            "structuredContent": {"status": "pending", "file": file.to_string(), "instructions": words},
            "isError": false,
        })
    );
}
