//! The web inbox at team scale (issue 20, item 7), measured on the real program
//! (`target/release/askuser`, built first with `cargo build --release -p
//! askuser-cli`): a log of 1,000 streams and 1,001,000 events (each stream 500
//! answered questions and one that waits), on sled, and on PostgreSQL when
//! `ASKUSER_TEST_PG` names a server (a database `askuser_bench_web` is made
//! afresh on it and dropped at the end), then
//!
//! - `startup_to_inbox`: from starting `askuser web` to the inbox's whole first
//!   page (start-up, the first replay of every stream, the page);
//! - `inbox_page`: the inbox once started (a fresh connection each time);
//! - `answer_to_serve`: from a browser's POST (the review's Send) to the waiting
//!   `askuser serve` printing its result (two processes on one sled log, through
//!   its owner); its p50 and p99 are printed too.
//!
//! Run: `cargo build --release -p askuser-cli && cargo bench -p askuser-benches
//! --bench web` (with `--features postgres` and `ASKUSER_TEST_PG` exported for
//! PostgreSQL too). Figures:
//! `benches/README.md`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use askuser_core::{Form, parse_form};
use askuser_sled::SledLog;
use askuser_store::{Durability, Log};
use askuser_testkit::build::{answered, requested};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

const STREAMS: usize = 1_000;
const ANSWERED_PER_STREAM: usize = 500;

fn program() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/askuser");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --release -p askuser-cli` first",
        path.display()
    );
    path
}

fn form() -> Arc<Form> {
    parse_form(&json!({"questions": [
        {"id": "ok", "text": "Proceed?", "answer_type": "boolean"}]}))
    .expect("the benchmark form is valid")
    .form()
    .clone()
}

/// The log: every stream's events appended in one batch (stored as blocks).
fn build(log: &dyn Log, answered_per_stream: usize) {
    let form = form();
    let request = |id: &str| requested(id, Arc::clone(&form));
    for stream in 0..STREAMS {
        let mut events = Vec::with_capacity(2 * answered_per_stream + 1);
        for n in 0..answered_per_stream {
            let id = format!("q{n}");
            events.push(request(&id));
            events.push(answered(&id, "ok", json!(true)));
        }
        events.push(request("waiting"));
        askuser_testkit::record(log, &format!("agent-{stream:04}"), 0, &events).expect("append");
    }
    log.flush().expect("flush");
}

/// `askuser web` on `db`: the process, its port and token.
fn start_web(db: &str) -> (Child, u16, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut child = Command::new(program())
        .args(["web", "--listen", &format!("127.0.0.1:{port}"), "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("askuser web starts");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the URL");
    let token = url
        .trim()
        .split("token=")
        .nth(1)
        .expect("a token")
        .to_owned();
    (child, port, token)
}

/// One request; the status code and the body.
fn http(port: u16, token: &str, request_line: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let extra = if body.is_empty() {
        String::new()
    } else {
        format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        )
    };
    write!(
        stream,
        "{request_line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: askuser_token={token}\r\n{extra}Connection: close\r\n\r\n{body}"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, response)
}

/// The value of the hidden field `name` on `page` (ids, steps and tokens: no
/// character that HTML or a form body would escape).
fn hidden(page: &str, name: &str) -> Option<String> {
    let value = page
        .split(&format!("name=\"{name}\" value=\""))
        .nth(1)?
        .split('"')
        .next()?;
    assert!(
        value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
        "the hidden field {name} needs escaping: {value}"
    );
    Some(value.to_owned())
}

/// Waits until the inbox answers 200 (start-up done); the whole page.
fn first_inbox(port: u16, token: &str) -> String {
    loop {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            let (status, page) = http(port, token, "GET /", "");
            if status == 200 {
                return page;
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// `askuser serve` on `db`, stream `live`, with its `ready` line read.
fn start_serve(db: &str) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(program())
        .args(["serve", "--stream", "live", "--db"])
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("askuser serve starts");
    let stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    next_of(&mut stdout, "ready");
    (child, stdin, stdout)
}

fn next_of(stdout: &mut BufReader<ChildStdout>, kind: &str) -> String {
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).expect("read") > 0,
            "serve ended"
        );
        if line.contains(&format!("\"type\":\"{kind}\"")) {
            return line;
        }
    }
}

fn web(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("db");
    let built = Instant::now();
    build(
        &SledLog::open(&db)
            .expect("open sled")
            .with_durability(Durability::Buffered),
        ANSWERED_PER_STREAM,
    );
    eprintln!("web bench: built the sled log in {:.1?}", built.elapsed());
    memory(&dir, &db);
    measure(c, "web_sled", db.to_str().expect("a UTF-8 path"));
    on_postgres(c);
}

/// The resident memory of `askuser web` once its inbox is served, on the log
/// `db` and on logs with the same 1,000 waiting questions and fewer finished
/// inquiries (5 and 50 per stream): flat when the projection keeps only what
/// is open.
fn memory(dir: &tempfile::TempDir, db: &Path) {
    let mut logs = Vec::new();
    for answered in [5, 50] {
        let small = dir.path().join(format!("db-{answered}"));
        build(
            &SledLog::open(&small)
                .expect("open sled")
                .with_durability(Durability::Buffered),
            answered,
        );
        logs.push((answered, small));
    }
    logs.push((ANSWERED_PER_STREAM, db.to_path_buf()));
    for (answered, path) in logs {
        let (child, port, token) = start_web(path.to_str().expect("a UTF-8 path"));
        first_inbox(port, &token);
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map_or_else(|| "?".to_owned(), |v| v.trim().to_owned())
        };
        eprintln!(
            "web bench: memory with {} finished inquiries ({answered} per stream): VmRSS {}, VmHWM {}",
            STREAMS * answered,
            field("VmRSS:"),
            field("VmHWM:")
        );
        stop(child);
    }
}

#[cfg(not(feature = "postgres"))]
fn on_postgres(_: &mut Criterion) {
    eprintln!("web bench: built without the feature `postgres`, so PostgreSQL is not measured");
}

/// The same on a fresh PostgreSQL database of the server of `ASKUSER_TEST_PG`.
#[cfg(feature = "postgres")]
fn on_postgres(c: &mut Criterion) {
    use askuser_postgres::PgLog;
    let Ok(admin) = std::env::var("ASKUSER_TEST_PG") else {
        eprintln!("web bench: ASKUSER_TEST_PG is not set, so PostgreSQL is not measured");
        return;
    };
    let mut client = postgres::Client::connect(&admin, postgres::NoTls).expect("connect");
    let name = "askuser_bench_web";
    // One statement each: neither may run inside a transaction block.
    for statement in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        client.batch_execute(&statement).expect("a fresh database");
    }
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    let url = format!("{base}/{name}");
    let built = Instant::now();
    build(
        &PgLog::connect(&url)
            .expect("open PostgreSQL")
            .with_durability(Durability::Buffered),
        ANSWERED_PER_STREAM,
    );
    eprintln!(
        "web bench: built the PostgreSQL log in {:.1?}",
        built.elapsed()
    );
    measure(c, "web_postgres", &url);
    let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}

/// The three measurements on the log at `db` (a path or a URL).
fn measure(c: &mut Criterion, name: &str, db: &str) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("startup_to_inbox", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let (child, port, token) = start_web(db);
                let page = first_inbox(port, &token);
                total += start.elapsed();
                assert!(page.contains("<title>(1000) askuser inbox</title>"));
                stop(child);
            }
            total
        });
    });
    let (child, port, token) = start_web(db);
    first_inbox(port, &token);
    group.sample_size(30);
    group.bench_function("inbox_page", |b| {
        b.iter(|| http(port, &token, "GET /", ""));
    });

    // A person answers through the inbox while `serve` waits.
    let (serve, mut stdin, mut stdout) = start_serve(db);
    let mut samples = Vec::new();
    let mut next = 0_u64;
    group.bench_function("answer_to_serve", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                next += 1;
                let id = format!("a{next}");
                writeln!(
                    stdin,
                    "{}",
                    json!({"type": "ask", "inquiry": id, "dialect": "jp",
                    "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})
                )
                .expect("ask");
                next_of(&mut stdout, "prompt");
                let page = || http(port, &token, &format!("GET /q/live/{id}"), "").1;
                let form = page();
                let csrf = hidden(&form, "csrf").expect("the form token");
                // Each POST names what its page showed (the hidden at_step and
                // at_question fields), as a browser's does.
                let send = |action: &str, page: &str| {
                    let mut body = format!("csrf={csrf}&action={action}&answer=true");
                    for name in ["at_step", "at_question"] {
                        if let Some(value) = hidden(page, name) {
                            body.extend(["&", name, "=", &value]);
                        }
                    }
                    http(port, &token, &format!("POST /q/live/{id}"), &body).0
                };
                // The answer, then (on the review page the browser is sent to)
                // the review's Send: from that POST to serve's result.
                assert_eq!(send("answer", &form), 303);
                let review = page();
                let start = Instant::now();
                assert_eq!(send("submit", &review), 303);
                next_of(&mut stdout, "result");
                let took = start.elapsed();
                samples.push(took);
                total += took;
            }
            total
        });
    });
    group.finish();
    samples.sort();
    if !samples.is_empty() {
        let at = |percent: usize| samples[(samples.len() - 1) * percent / 100];
        eprintln!(
            "web bench: {name}/answer_to_serve over {} answers: p50 {:.1?}, p99 {:.1?}",
            samples.len(),
            at(50),
            at(99)
        );
    }
    stop(serve);
    stop(child);
}

criterion_group!(benches, web);
criterion_main!(benches);
