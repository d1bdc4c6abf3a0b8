//! Floods of stateless first rounds (protocol 2026-07-28) over `askuser mcp
//! --http`: sent by a real HTTP client (Python's `http.client`,
//! `tests/clients/flood.py`) to the server as it runs for a person
//! (`examples/http_shared.rs`: the log shared through its owner, presence held).

#[allow(dead_code)]
mod common;

use std::io::BufRead as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use askuser_app::log::Log;
use common::{Scratch, TOKEN};
use serde_json::{Value, json};

/// A server, stopped when dropped (a failed assertion too).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `examples/http_shared.rs` serving `scratch`'s log as streams `s-<n>` with
/// `most` and `unanswered_secs`; its URL.
fn serve(scratch: &Scratch, most: usize, unanswered_secs: u64) -> (Server, String) {
    let mut child = Command::new(common::example("http_shared"))
        .arg(scratch.db())
        .arg("s")
        .arg(TOKEN)
        .arg(most.to_string())
        .arg(unanswered_secs.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the HTTP server starts");
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .expect("it prints its URL");
    (Server(child), url.trim().to_owned())
}

/// `count` first rounds from `flood.py`: how many got each result.
fn flood(url: &str, count: usize) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/flood.py");
    let out = Command::new(common::python())
        .arg(script)
        .args([url, TOKEN, &count.to_string()])
        .output()
        .expect("the flood runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the flood prints JSON")
}

/// A field of `/proc/PID/status` (`Threads`, `VmRSS`), as its number.
fn status(server: &Server, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{}/status", server.0.id())).unwrap();
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .unwrap();
    line.split_whitespace().next().unwrap().parse().unwrap()
}

/// The server's threads but sled's IO pool (`sled-io-N`): sled starts 7 of them
/// the first time it writes a buffer off the writer's thread, whenever in a
/// run that comes, and adds one only while IO work waits (each gone after a
/// second idle, 128 at most): sled's own bound, not a thread per call.
fn threads_but_sleds(server: &Server) -> usize {
    let tasks = std::fs::read_dir(format!("/proc/{}/task", server.0.id())).unwrap();
    tasks
        .filter_map(|task| std::fs::read_to_string(task.unwrap().path().join("comm")).ok())
        .filter(|name| !name.starts_with("sled-io-"))
        .count()
}

/// Each stream of the log (through its owner, while the server runs) with its
/// events in words, timestamps left out.
fn streams(log: &dyn Log) -> Vec<(String, Vec<String>)> {
    let mut names: Vec<String> = log.streams().unwrap().into_iter().map(|i| i.name).collect();
    names.sort_by_key(|name| (name.len(), name.clone()));
    names
        .into_iter()
        .map(|name| {
            let report = askuser_rpc::replay(log, &name).unwrap();
            let events = (report.events.iter())
                .filter(|e| !matches!(e.event, askuser_core::Event::Delivered { .. }))
                .map(|e| askuser_rpc::describe_event(&e.event))
                .collect();
            (name, events)
        })
        .collect()
}

/// How many live presence leases the log keeps.
fn live_leases(log: &dyn Log) -> usize {
    let leases = log.leases().unwrap().expect("the owner keeps presence");
    (leases.leases.iter())
        .filter(|lease| lease.live_at(leases.now))
        .count()
}

/// What a first round past the cap gets, with `most` and the time a call waits
/// for its agent in words.
fn refused(most: usize, after: &str) -> String {
    format!(
        "ask_user: {most} MCP calls and sessions are open on this server (calls waiting for the person's answer or for their agent to come back); askuser asked nothing. Call again once one has ended: a call its agent never comes back for ends after {after}."
    )
}

/// An open question's events, in words.
fn asked() -> Vec<String> {
    // The server runs where the test does.
    let here = askuser_app::origin::here(None, None);
    let field = |value: Option<String>| value.unwrap_or_default();
    let origin = format!(
        "host=flood 1, machine={}, directory={}, repository={}",
        field(here.machine),
        field(here.directory),
        field(here.repository)
    );
    vec![
        "requested call-1 (1 question: ok)".to_owned(),
        format!("attached {origin}"),
        "shown call-1: ok".to_owned(),
    ]
}

/// 4,200 first rounds from one client, never retried: 64 are asked (the cap
/// sessions have), the other 4,136 refused asking nothing; the server keeps
/// no thread per call and stays small, and the log holds 64 open questions
/// and 64 leases.
#[test]
fn a_flood_of_stateless_first_rounds_leaves_threads_memory_and_questions_bounded() {
    let scratch = Scratch::new();
    let (server, url) = serve(&scratch, 64, 1800);
    let threads_before = threads_but_sleds(&server);
    let counts = flood(&url, 4200);
    let (threads, rss_kib) = (threads_but_sleds(&server), status(&server, "VmRSS"));
    let log = askuser_app::location::open_log(scratch.db()).unwrap();
    let streams = streams(&*log);
    let leases = live_leases(&*log);
    drop(server);
    eprintln!("threads {threads_before} -> {threads}, VmRSS {rss_kib} KiB");
    assert_eq!(
        counts,
        json!({"input_required": 64, refused(64, "30 minutes"): 4136})
    );
    let expected: Vec<(String, Vec<String>)> =
        (1..=64).map(|n| (format!("s-{n}"), asked())).collect();
    assert_eq!(streams, expected);
    assert_eq!(leases, 64);
    assert!(
        threads <= threads_before + 2,
        "{threads_before} -> {threads}"
    );
    assert!(rss_kib < 64 * 1024, "{rss_kib} KiB");
}

/// A stateless call whose agent never comes back is ended after its time: the
/// question closed in words, the presence ended, and its room taken by a new
/// call.
#[test]
fn a_first_round_never_retried_is_closed_with_words_and_makes_room() {
    let scratch = Scratch::new();
    let (server, url) = serve(&scratch, 3, 1);
    let first = flood(&url, 4);
    let log = askuser_app::location::open_log(scratch.db()).unwrap();
    let started = Instant::now();
    while live_leases(&*log) > 0 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = flood(&url, 4);
    let streams = streams(&*log);
    drop(server);
    let expected = json!({"input_required": 3, refused(3, "1 second"): 1});
    assert_eq!((first, after), (expected.clone(), expected));
    let mut closed = asked();
    let origin = closed[1].replacen("attached", "detached", 1);
    closed.extend([
        "cancelled call-1 (the_agent_never_came_back_for_it)".to_owned(),
        origin,
    ]);
    let expected: Vec<(String, Vec<String>)> = (1..=6)
        .map(|n| {
            (
                format!("s-{n}"),
                if n <= 3 { closed.clone() } else { asked() },
            )
        })
        .collect();
    assert_eq!(streams, expected);
}
