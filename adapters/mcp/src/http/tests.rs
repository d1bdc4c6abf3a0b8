//! The cap and the idle expiry of MCP sessions, over real HTTP against the
//! server on a free loopback port.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::*;
use crate::WithoutElicitation;

/// Serves on a free port with `limits`, recording into a log in `dir`.
fn server(dir: &tempfile::TempDir, limits: Limits) -> SocketAddr {
    let config = Config::sled(
        dir.path().join("log.db"),
        "s".parse().unwrap(),
        WithoutElicitation::Fail,
    );
    let (told, bound) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        serve_with(
            config,
            "127.0.0.1:0".parse().unwrap(),
            limits,
            TOKEN,
            |addr| {
                let _ = told.send(addr);
            },
        )
    });
    bound.recv_timeout(Duration::from_secs(30)).unwrap()
}

/// The token the test servers take.
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// Sends a POST of `body` to `/mcp` (in session `session`) and leaves the
/// connection open.
fn send(addr: SocketAddr, session: Option<&str>, body: &str) -> TcpStream {
    send_as(
        addr,
        session,
        &format!("Authorization: Bearer {TOKEN}\r\n"),
        body,
    )
}

/// [`send`] with `auth` (whole header lines) instead of the right token.
fn send_as(addr: SocketAddr, session: Option<&str>, auth: &str, body: &str) -> TcpStream {
    let session = session
        .map(|id| format!("Mcp-Session-Id: {id}\r\n"))
        .unwrap_or_default()
        + auth;
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{session}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .or_else(refused_midway)
    .unwrap();
    stream
}

/// A write cut off by a server that answered and closed before reading the
/// whole request (a 431 on a head too long) is no error: its answer is still
/// there to read, as a client reads it.
fn refused_midway(error: std::io::Error) -> std::io::Result<()> {
    match error.kind() {
        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset => Ok(()),
        _ => Err(error),
    }
}

/// A POST answered in full: its status, its session id and its body.
fn post(addr: SocketAddr, session: Option<&str>, body: &str) -> (u16, Option<String>, String) {
    let mut answer = String::new();
    let _ = send(addr, session, body).read_to_string(&mut answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    (status, session, body.to_owned())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A new session's id.
fn open(addr: SocketAddr) -> String {
    let (status, session, body) = post(addr, None, INITIALIZE);
    assert_eq!(status, 200, "{body}");
    session.unwrap()
}

/// 202 while `session` lives, 404 once it is closed.
fn probe(addr: SocketAddr, session: &str) -> u16 {
    post(addr, Some(session), INITIALIZED).0
}

/// A session whose tool call waits on the person: the connection that carries
/// the call, open until dropped, once the form was sent.
fn asking(addr: SocketAddr) -> (String, TcpStream) {
    let session = open(addr);
    assert_eq!(probe(addr, &session), 202);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"id":"ok","text":"Deploy now?","answer_type":"boolean"}]}}}"#;
    let mut stream = send(addr, Some(&session), call);
    let mut seen = Vec::new();
    let mut chunk = [0_u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("elicitation/create") {
        let n = stream.read(&mut chunk).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    (session, stream)
}

/// Past the cap, a new session closes the one idle the longest: the oldest,
/// unless it was used since.
#[test]
fn a_session_past_the_cap_closes_the_one_idle_the_longest() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        most: 3,
        idle: Duration::from_secs(3600),
        ..Limits::DEFAULT
    };
    let addr = server(&dir, limits);
    let first = [open(addr), open(addr), open(addr)];
    assert_eq!(probe(addr, &first[0]), 202);
    let fourth = open(addr);
    assert_eq!(
        [&first[0], &first[1], &first[2], &fourth].map(|s| probe(addr, s)),
        [202, 404, 202, 202]
    );
    // Now the first was probed first, so it is the one idle the longest.
    let fifth = open(addr);
    assert_eq!(
        [&first[0], &first[2], &fourth, &fifth].map(|s| probe(addr, s)),
        [404, 202, 202, 202]
    );
}

/// A session with no request under way is closed once idle; one whose call
/// waits on the person lives on, however long the person takes.
#[test]
fn an_idle_session_is_closed_and_one_waiting_on_the_person_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        most: 8,
        idle: Duration::from_secs(1),
        ..Limits::DEFAULT
    };
    let addr = server(&dir, limits);
    let idle = open(addr);
    let (waiting, call) = asking(addr);
    // Idle for 1 s, looked for every 250 ms: gone well within 5 s.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(probe(addr, &idle), 404);
    assert_eq!(probe(addr, &waiting), 202);
    drop(call);
}

/// When every session has a call under way, a new one is refused, saying why;
/// once a call's connection is gone, its session is idle and makes room.
#[test]
fn with_every_session_waiting_on_the_person_a_new_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        most: 2,
        idle: Duration::from_secs(3600),
        ..Limits::DEFAULT
    };
    let addr = server(&dir, limits);
    let (first, call) = asking(addr);
    let (second, _call) = asking(addr);
    assert_eq!(
        post(addr, None, INITIALIZE),
        (
            500,
            None,
            "Encounter an error when create session: 2 MCP sessions and calls are open, each with a request under way or waiting for its agent; wait for one to end, or close a client, and connect again".to_owned()
        )
    );
    drop(call);
    let started = Instant::now();
    let third = loop {
        match post(addr, None, INITIALIZE) {
            (200, Some(session), _) => break session,
            refused => assert!(
                started.elapsed() < Duration::from_secs(60),
                "still refused: {refused:?}"
            ),
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        [&first, &second, &third].map(|s| probe(addr, s)),
        [404, 202, 202]
    );
}

#[test]
fn a_request_without_the_token_is_refused_before_anything_else() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(&dir, Limits::DEFAULT);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"Claude Code","version":"2.1.332"}}}"#;
    for auth in [
        String::new(),
        "Authorization: Bearer 0123456789abcdef0123456789abcdee\r\n".to_owned(),
        format!("Authorization: Basic {TOKEN}\r\n"),
        format!("Authorization: Bearer {TOKEN}0\r\n"),
    ] {
        let mut answer = String::new();
        let _ = send_as(addr, None, &auth, init).read_to_string(&mut answer);
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(
            head.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
            "{auth}: {head}"
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("\r\nwww-authenticate: bearer realm=\"askuser\"\r\n"),
            "{head}"
        );
        assert_eq!(
            body,
            "This askuser MCP server answers only requests that carry its token: send `Authorization: Bearer TOKEN`, TOKEN being the contents of the file `askuser mcp --http` named when it started (readable by its user only). `askuser setup` writes it into the host's configuration.\n"
        );
    }
    assert_eq!(post(addr, None, init).0, 200, "with the token");
}

/// A request head over 64 KiB, or with over 100 header lines, is refused with
/// 431 before the token is looked at; one just under is read (and, without the
/// token, refused with 401).
#[test]
fn a_head_over_64_kib_or_100_lines_is_refused_with_431() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(&dir, Limits::DEFAULT);
    let status = |extra: String| {
        let mut answer = String::new();
        let _ = send_as(addr, None, &extra, "{}").read_to_string(&mut answer);
        answer.lines().next().unwrap_or_default().to_owned()
    };
    let cookie = |bytes: usize| format!("Cookie: {}\r\n", "c".repeat(bytes));
    assert_eq!(status(cookie(60_000)), "HTTP/1.1 401 Unauthorized");
    for bytes in [70_000, 200_000] {
        assert_eq!(
            status(cookie(bytes)),
            "HTTP/1.1 431 Request Header Fields Too Large",
            "{bytes}"
        );
    }
    let many = (0..101)
        .map(|n| format!("X-{n}: y\r\n"))
        .collect::<Vec<_>>()
        .concat();
    assert_eq!(status(many), "HTTP/1.1 431 Request Header Fields Too Large");
}
