use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::sync::mpsc;

use super::*;

#[test]
fn urls_are_parsed_or_refused_with_the_reason() {
    let target = Target::parse("https://ntfy.example/askuser-secret").unwrap();
    assert_eq!(
        (
            target.https,
            target.host.as_str(),
            target.port,
            target.authority.as_str(),
            target.path.as_str(),
            target.shown.as_str()
        ),
        (
            true,
            "ntfy.example",
            443,
            "ntfy.example",
            "/askuser-secret",
            "https://ntfy.example"
        )
    );
    let target = Target::parse("http://127.0.0.1:9000").unwrap();
    assert_eq!((target.port, target.path.as_str()), (9000, "/"));
    // An IPv6 address in brackets: connected to without them, sent with them.
    let target = Target::parse("http://[::1]:9/x").unwrap();
    assert_eq!(
        (
            target.host.as_str(),
            target.port,
            target.authority.as_str(),
            target.path.as_str()
        ),
        ("::1", 9, "[::1]:9", "/x")
    );
    let target = Target::parse("https://[2001:db8::1]/").unwrap();
    assert_eq!((target.host.as_str(), target.port), ("2001:db8::1", 443));
    let refused = |url: &str| Target::parse(url).unwrap_err().to_string();
    assert_eq!(
        refused("ftp://x"),
        "--notify ftp://x: give an http:// or https:// URL"
    );
    assert_eq!(
        refused("http://a:b@x/"),
        "--notify http://a:b@x/: user:password@ is not supported; put a secret in the path"
    );
    assert_eq!(
        refused("http://x:99999/"),
        "--notify http://x:99999/: the port is not a number from 1 to 65535"
    );
    assert_eq!(
        refused("http://x:0/"),
        "--notify http://x:0/: the port is not a number from 1 to 65535"
    );
    assert_eq!(
        refused("http:///p"),
        "--notify http:///p: the URL names no host"
    );
    assert_eq!(
        refused("http://::1/x"),
        "--notify http://::1/x: put an IPv6 address in brackets (http://[::1]:8080/)"
    );
    assert_eq!(
        refused("http://[::1/x"),
        "--notify http://[::1/x: an IPv6 address ends with ] (http://[::1]:8080/)"
    );
    assert_eq!(
        refused("http://[nope]:9/x"),
        "--notify http://[nope]:9/x: […] holds no IPv6 address; give one such as http://[::1]:8080/"
    );
    assert_eq!(
        refused("http://[::1]9/x"),
        "--notify http://[::1]9/x: after an IPv6 address's ] comes :PORT or the path (http://[::1]:8080/)"
    );
}

/// Reads one request's head (up to the empty line) from `stream`.
fn request_head(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            return head;
        }
        head.push_str(&line);
    }
}

/// `http://[::1]:PORT/x` reaches a listener on the IPv6 loopback, with the
/// bracketed address in the `Host` header.
#[test]
fn an_ipv6_literal_delivers_to_an_ipv6_listener() {
    let listener = TcpListener::bind("[::1]:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (told, received) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let request = request_head(&stream);
        let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
        let _ = told.send(request);
    });
    let target = Target::parse(&format!("http://[::1]:{port}/x")).unwrap();
    assert_eq!(post(&target, "{}", TRY_DEADLINE), Ok(()));
    assert_eq!(
        received.recv_timeout(Duration::from_secs(10)).unwrap(),
        format!(
            "POST /x HTTP/1.1\r\nHost: [::1]:{port}\r\nUser-Agent: askuser-web\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n"
        )
    );
}

/// A webhook that sends its status line a byte a second is given up when the
/// try's 5 s are over, not after 5 s per byte read.
#[test]
fn a_trickling_webhook_is_given_up_at_the_deadline_of_the_try() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let _ = request_head(&stream);
        for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" {
            if stream.write_all(&[*byte]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    });
    let target = Target::parse(&format!("http://127.0.0.1:{port}/hook")).unwrap();
    let started = Instant::now();
    assert_eq!(
        post(&target, "{}", TRY_DEADLINE),
        Err("no answer within 5 s".to_owned())
    );
    // 5 s, with a generous margin: a byte a second would take 12 s to give
    // the 12 bytes of a status line.
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
}

fn note(stream: &str, inquiry: &str, body: &str) -> Note {
    Note {
        inquiry: (stream.to_owned(), inquiry.to_owned()),
        body: body.to_owned(),
    }
}

/// At most 64 wait: a newer question of a waiting inquiry takes its
/// notification's place, and the 65th distinct one drops the oldest, counted.
#[test]
fn the_queue_keeps_the_newest_64_and_counts_what_it_dropped() {
    let mut outbox = Outbox::default();
    for n in 0..QUEUE {
        outbox.push(note("s", &format!("c{n}"), "first"));
    }
    outbox.push(note("s", "c3", "next question"));
    assert_eq!((outbox.notes.len(), outbox.dropped), (QUEUE, 0));
    assert_eq!(outbox.notes[3], note("s", "c3", "next question"));
    outbox.push(note("s", "c64", "first"));
    outbox.push(note("t", "c0", "first"));
    assert_eq!((outbox.notes.len(), outbox.dropped), (QUEUE, 2));
    assert_eq!(outbox.notes.front(), Some(&note("s", "c2", "first")));
    assert_eq!(outbox.notes.back(), Some(&note("t", "c0", "first")));
}
