//! Who is asking, from where, and whether anyone still waits (issue 29, items 1
//! and 2), against the real binaries and a real browser: two agents started in two
//! repositories (`askuser serve --agent NAME`, no `--stream`) get streams named
//! after the repository, and the inbox shows each by name and place; an agent
//! killed while its question waits is shown gone within a few seconds, answering
//! its question says so, an open inbox and an open question page are told so
//! without a reload, and the agent started again on its stream is given the
//! answer, once. Every test runs on sled and on PostgreSQL.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::browser::Browser;
use common::place::Place;
use common::web::{Serve, Web, at, clock_masked, masked};
use common::{Scratch, mcp};
use serde_json::{Value, json};

/// A repository `name` in the scratch directory (a directory holding `.git`), and
/// a working directory inside it.
fn repository(scratch: &Scratch, name: &str) -> std::path::PathBuf {
    let repo = scratch.path(name);
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    repo.join("src")
}

/// `askuser serve --agent AGENT` in `dir`, with no `--stream`: the stream its
/// `ready` line names.
fn agent(scratch: &Scratch, dir: &Path, db: &str, name: &str) -> (Serve, String) {
    let serve = Serve::start_in(
        dir,
        scratch.dir.path(),
        &["serve", "--db", db, "--agent", name],
    );
    let ready: Value = serde_json::from_str(&serve.ready).unwrap();
    let stream = ready["stream"].as_str().unwrap().to_owned();
    (serve, stream)
}

/// An `ask` line of one yes/no question, with the agent's label.
fn ask(inquiry: &str, label: &str, question: &str) -> Value {
    json!({"type": "ask", "inquiry": inquiry, "dialect": "jp",
        "policy": {"label": label},
        "arguments": {"question": question, "answer_type": "boolean"}})
}

/// The inbox's text, its times masked (the machine is `laptop`: the tests set
/// `ASKUSER_MACHINE`).
fn inbox(browser: &Browser, web: &Web) -> String {
    browser.go(&format!("http://127.0.0.1:{}/", web.port));
    masked(&browser.text())
}

fn two_agents_in_two_repositories_are_shown_by_name_and_place(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let billing = repository(&scratch, "billing-api");
    let infra = repository(&scratch, "infra");
    let (mut claude, first) = agent(&scratch, &billing, &db, "Claude Code");
    let (mut codex, other) = agent(&scratch, &infra, &db, "Codex");
    let (again, second) = agent(&scratch, &billing, &db, "Claude Code");
    assert_eq!(
        [first.as_str(), other.as_str(), second.as_str()],
        ["billing-api-1", "infra-1", "billing-api-2"]
    );
    claude.send(&ask(
        "c1",
        "Claude (repo: billing-api)",
        "Run the billing migration?",
    ));
    claude.next_of("prompt");
    codex.send(&ask("c1", "Codex (repo: infra)", "Scale the cluster down?"));
    codex.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    at(&browser, "(2) askuser inbox");
    assert_eq!(
        inbox(&browser, &web),
        "Questions waiting for you\n\
         Codex (repo: infra)\nwaiting now\nCodex · infra · laptop\n\
         stream infra-1 · started N s ago · history\n\
         Scale the cluster down?\nwaiting N s · call c1\n\
         Claude (repo: billing-api)\nwaiting now\nClaude Code · billing-api · laptop\n\
         stream billing-api-1 · started N s ago · history\n\
         Run the billing migration?\nwaiting N s · call c1"
    );
    // The stream's name is one click away.
    browser.click("a[href='/s/billing-api-1']");
    at(&browser, "History of billing-api-1");
    drop((claude, codex, again));
}

fn a_killed_agent_is_shown_gone_and_answering_it_says_so(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let billing = repository(&scratch, "billing-api");
    let (mut serve, _) = agent(&scratch, &billing, &db, "Claude Code");
    serve.send(&ask(
        "c1",
        "Claude (repo: billing-api)",
        "Run the billing migration?",
    ));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    at(&browser, "(1) askuser inbox");
    assert_eq!(
        inbox(&browser, &web),
        "Questions waiting for you\n\
         Claude (repo: billing-api)\nwaiting now\nClaude Code · billing-api · laptop\n\
         stream billing-api-1 · started N s ago · history\n\
         Run the billing migration?\nwaiting N s · call c1"
    );

    // SIGKILL: nothing is recorded; the lease is not renewed and expires.
    serve.child.kill().unwrap();
    serve.child.wait().unwrap();
    let started = Instant::now();
    let gone = loop {
        let text = inbox(&browser, &web);
        if !text.contains("waiting now") {
            break text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "still waiting: {text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(
        gone,
        "Questions waiting for you\n\
         Claude (repo: billing-api)\nthe agent stopped less than a minute ago\nClaude Code · billing-api · laptop\n\
         stream billing-api-1 · started N s ago · history\n\
         Run the billing migration?\nwaiting N s · call c1"
    );

    // Answering it never claims the agent got it.
    browser.click("a[href='/q/billing-api-1/c1']");
    at(&browser, "Run the billing migration?");
    browser.click("#c0");
    // One question: sent with its answer, no review.
    browser.click("button[value=answer]");
    at(&browser, "Done");
    assert_eq!(
        clock_masked(&browser.text(), "<none>"),
        "Done for Claude Code in billing-api on laptop\nAnswered. The agent stopped less than a minute ago; your answers are kept and given to it when it comes back on this stream (askuser serve started again, or the same tool call made again).\nRun the billing migration?\nYes\nIt finished at HH:MM UTC.\nAll questions"
    );

    // The agent comes back on its stream: its first lines hand the answer over.
    let back = Serve::start(&scratch, &db, "billing-api-1");
    let next = |serve: &Serve| serve.lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(
        [back.ready.clone(), next(&back)],
        [
            r#"{"type":"ready","stream":"billing-api-1","protocol":1,"open":[],"finished_while_away":["c1"]}"#,
            r#"{"type":"result","inquiry":"c1","result":{"answer_type":"boolean","answer":true},"cancelled":false}"#,
        ]
    );
    // Given once: killed and started again, it is given nothing more.
    drop(back);
    let again = Serve::start(&scratch, &db, "billing-api-1");
    assert_eq!(
        again.ready,
        r#"{"type":"ready","stream":"billing-api-1","protocol":1,"open":[]}"#
    );
    assert!(
        again
            .lines
            .recv_timeout(Duration::from_millis(500))
            .is_err(),
        "nothing follows the ready line"
    );
}

/// How long after its last renewal a lease lapses (askuser-store's
/// `LEASE_TTL`): a killed agent's lease lapses at most this long after the kill.
const LEASE_TTL: Duration = Duration::from_secs(6);

/// How soon after a lease lapses an open page says the agent stopped.
const TOLD_WITHIN: Duration = Duration::from_secs(3);

/// Waits until `css` on the page shown reads `expected`, at most until
/// `deadline`; the text last seen.
fn wait_until(browser: &Browser, css: &str, expected: &str, deadline: Instant) -> String {
    loop {
        let text = browser.text_of(css);
        if text == expected || Instant::now() >= deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn open_pages_are_told_a_killed_agent_stopped(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let billing = repository(&scratch, "billing-api");
    let (mut serve, _) = agent(&scratch, &billing, &db, "Claude Code");
    serve.send(&ask(
        "c1",
        "Claude (repo: billing-api)",
        "Run the billing migration?",
    ));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    assert_eq!(browser.wait_title("(1) askuser inbox"), "(1) askuser inbox");
    let inbox_tab = browser.tab();
    assert_eq!(browser.text_of(".badge"), "waiting now");
    let question_tab = browser.new_tab();
    browser.switch_to(&question_tab);
    browser.go(&format!("http://127.0.0.1:{}/q/billing-api-1/c1", web.port));
    at(&browser, "Run the billing migration?");
    // While the agent waits, the question's page says nothing of it.
    assert_eq!(browser.text_of("#presence"), "");
    browser.type_into("#note", "half a thought");

    // SIGKILL: nothing is recorded, and the lease lapses unrenewed at most
    // LEASE_TTL later. Neither page is reloaded: they are told.
    serve.child.kill().unwrap();
    serve.child.wait().unwrap();
    let deadline = Instant::now() + LEASE_TTL + TOLD_WITHIN;
    let stopped = "the agent stopped less than a minute ago";
    assert_eq!(
        wait_until(&browser, "#presence", stopped, deadline),
        stopped
    );
    assert_eq!(
        masked(&browser.text()),
        "← All questions\nClaude Code in billing-api on laptop asks\n\
         the agent stopped less than a minute ago\nwaiting N s\n\
         Run the billing migration?\nYes\n1\nNo\n2\n\
         A note for the assistant (optional)\nAnswer\nCtrl\n+\nEnter\n\
         Reply to the assistant instead\nEnd the turn"
    );
    // What the person typed stays.
    assert_eq!(browser.value_of("#note"), "half a thought");
    browser.switch_to(&inbox_tab);
    assert_eq!(wait_until(&browser, ".badge", stopped, deadline), stopped);
    assert_eq!(
        masked(&browser.text()),
        "Questions waiting for you\nNotify me of new questions\n\
         Claude (repo: billing-api)\nthe agent stopped less than a minute ago\nClaude Code · billing-api · laptop\n\
         stream billing-api-1 · started N s ago · history\n\
         1\nRun the billing migration?\nwaiting N s · call c1"
    );
}

#[test]
fn open_pages_are_told_a_killed_agent_stopped_on_sled() {
    open_pages_are_told_a_killed_agent_stopped(&Place::Sled);
}

#[test]
fn open_pages_are_told_a_killed_agent_stopped_on_postgres() {
    open_pages_are_told_a_killed_agent_stopped(&Place::postgres());
}

#[test]
fn two_agents_in_two_repositories_are_shown_by_name_and_place_on_sled() {
    two_agents_in_two_repositories_are_shown_by_name_and_place(&Place::Sled);
}

#[test]
fn two_agents_in_two_repositories_are_shown_by_name_and_place_on_postgres() {
    two_agents_in_two_repositories_are_shown_by_name_and_place(&Place::postgres());
}

#[test]
fn a_killed_agent_is_shown_gone_and_answering_it_says_so_on_sled() {
    a_killed_agent_is_shown_gone_and_answering_it_says_so(&Place::Sled);
}

#[test]
fn a_killed_agent_is_shown_gone_and_answering_it_says_so_on_postgres() {
    a_killed_agent_is_shown_gone_and_answering_it_says_so(&Place::postgres());
}

/// `askuser mcp` records who asks from the client's `clientInfo` (its name and
/// version) once its first call is recorded, and that it stopped when its client
/// closes the connection.
#[test]
fn mcp_names_the_agent_from_the_clients_info() {
    use std::io::BufReader;
    let scratch = Scratch::new();
    let db = scratch.db();
    let pending = scratch.path("pending").display().to_string();
    let mut child = common::askuser_in(
        scratch.dir.path(),
        None,
        &[
            "mcp",
            "--db",
            &db,
            "--stream",
            "s",
            "--pending-dir",
            &pending,
            // No wait for another window: the pending file is the call's
            // answer at once.
            "--wait",
            "0",
        ],
    )
    .spawn()
    .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let call = json!({"name": "ask_user", "arguments": mcp::deploy_now()});
    mcp::hello_and_call(&mut input, ("Claude Code", "2.1.3"), &call);
    mcp::response_to_call(&mut output, |_| {});
    drop(input);
    assert!(child.wait().unwrap().success());
    let show = scratch.run_db(&["log", "show", "s"], "");
    assert_eq!(
        scratch.redact(&show.stdout),
        "stream \"s\": 4 events\n\
         #1 <time>  requested call-1 (1 question: answer)\n\
         #2 <time>  attached host=Claude Code 2.1.3, machine=laptop, directory=<tmp>\n\
         #3 <time>  client noted call-1: no forms\n\
         #4 <time>  detached host=Claude Code 2.1.3, machine=laptop, directory=<tmp>\n"
    );
}

/// `askuser mcp --wait` holds its log for its life: a call from a client
/// without forms waits on the log's watcher, and an answer another process
/// records (`askuser answer` on its pending file) wakes it; its result is that
/// answer, in the same turn.
#[test]
fn a_waiting_mcp_call_is_woken_by_an_answer_from_another_process() {
    use std::io::BufReader;
    let scratch = Scratch::new();
    let db = scratch.db();
    let pending = scratch.path("pending");
    std::fs::create_dir_all(&pending).unwrap();
    let pending_dir = pending.display().to_string();
    let mut child = common::askuser_in(
        scratch.dir.path(),
        None,
        &[
            "mcp",
            "--db",
            &db,
            "--stream",
            "s",
            "--pending-dir",
            &pending_dir,
            "--wait",
            "300",
        ],
    )
    .spawn()
    .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let call = json!({"name": "ask_user", "arguments": mcp::deploy_now()});
    mcp::hello_and_call(&mut input, ("Claude Code", "2.1.3"), &call);
    let started = Instant::now();
    let file = loop {
        let found = std::fs::read_dir(&pending)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .find(|path| path.extension().is_some_and(|ext| ext == "json"));
        if let Some(file) = found {
            break file;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no pending file"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let answered = scratch.run(
        &["answer", file.to_str().unwrap(), "--answers", r#"["yes"]"#],
        "",
    );
    assert_eq!(answered.code, 0, "{}", answered.stderr);
    let result = mcp::response_to_call(&mut output, |_| {})["result"].clone();
    assert_eq!(result["isError"], json!(false));
    assert_eq!(result["content"][0]["text"], json!("{\"answer\":true}"));
    drop(input);
    assert!(child.wait().unwrap().success());
}

/// With `askuser web` running on the log, a waiting `askuser mcp` call from a
/// client without forms says where to answer first: the inbox's link (never
/// its token), in its progress line and in its final words.
#[test]
fn a_waiting_mcp_call_gives_the_link_of_the_inbox_running_on_the_log() {
    use std::io::BufReader;
    let scratch = Scratch::new();
    let db = scratch.db();
    let web = Web::start(&scratch, &db);
    let inbox = format!("http://127.0.0.1:{}/", web.port);
    let mut child = common::askuser_in(
        scratch.dir.path(),
        None,
        &["mcp", "--db", &db, "--stream", "s", "--wait", "1"],
    )
    .spawn()
    .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let call = json!({"name": "ask_user", "_meta": {"progressToken": "p"},
        "arguments": mcp::deploy_now()});
    mcp::hello_and_call(&mut input, ("Gemini CLI", "0.61.0"), &call);
    let mut progress = Vec::new();
    let result = mcp::response_to_call(&mut output, |message| {
        if message["method"] == "notifications/progress" {
            progress.push(message["params"]["message"].clone());
        }
    })["result"]
        .clone();
    drop(input);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        progress,
        [json!(format!("Answer at {inbox} (waiting up to 1 s)"))]
    );
    assert_eq!(
        result["content"][0]["text"],
        json!(format!(
            "ask_user: this MCP client cannot show forms (it does not support elicitation), and nobody answered in another window (the askuser web inbox, `askuser web`, or a terminal, `askuser resume`) within 1 s, so the questions were closed. Do not retry this tool call in this turn; ask the user in plain words instead.\nThe askuser web inbox: {inbox}"
        ))
    );
    drop(web);
}
