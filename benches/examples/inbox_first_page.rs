//! The web inbox's first page at many open questions (issue 38, item 5): an
//! `askuser web` inbox (in this process, on a memory log) over OPEN streams,
//! each with one question waiting, then `GET /` timed RUNS times (a fresh
//! connection each time) after the first one (which reads every stream once).
//! Prints the first request's time, the p50 and the slowest of the rest, the
//! page's size and how many questions it lists.
//!
//! Run: `cargo run --release -p askuser-benches --example inbox_first_page --
//! 5000 20`. Figures: `benches/README.md`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use askuser_core::parse_form;
use askuser_store::{Log, MemLog};
use askuser_testkit::build::requested;
use askuser_web::{Inbox, Listen};
use serde_json::json;

/// One GET of `path`; the status code, the body and how long it took.
fn get(port: u16, token: &str, path: &str) -> (u16, String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: askuser_token={token}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let took = started.elapsed();
    let status = (response.get(9..12))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, response, took)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let open: usize = args.next().map_or(5_000, |n| n.parse().expect("OPEN"));
    let runs: usize = args.next().map_or(20, |n| n.parse().expect("RUNS"));
    let form = parse_form(&json!({"questions": [
        {"id": "ok", "text": "Deploy the **release** now?", "answer_type": "boolean"}]}))
    .expect("the form is valid")
    .form()
    .clone();
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    for stream in 0..open {
        let events = [requested("call-1", Arc::clone(&form))];
        askuser_testkit::record(&*log, &format!("agent-{stream:05}"), 0, &events).expect("append");
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let inbox = Inbox::bind(
        log,
        &Listen::loopback(SocketAddr::from(([127, 0, 0, 1], port))),
    )
    .expect("bind");
    let token = inbox
        .url()
        .split("token=")
        .nth(1)
        .expect("a token")
        .to_owned();
    std::thread::spawn(move || inbox.run());
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        std::thread::sleep(Duration::from_millis(5));
    }
    let (status, page, first) = get(port, &token, "/");
    assert_eq!(status, 200, "{page}");
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (status, _, took) = get(port, &token, "/");
        assert_eq!(status, 200);
        times.push(took);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{open} open questions: first GET / {:.1} ms; then p50 {:.1} ms, slowest {:.1} ms over {runs}; page {} bytes, {} questions listed",
        ms(first),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
        page.len(),
        page.matches("class=\"question\"").count()
    );
}
