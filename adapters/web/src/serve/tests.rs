//! The server on real sockets, over a memory log, with limits small enough to
//! reach: what a held, trickling, idle or slow connection gets, what the one
//! over the cap gets, and that the person is answered meanwhile. The clients
//! are plain TCP (and rustls) streams writing HTTP/1.1 by hand, so every byte
//! the server sends is seen.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use askuser_app::log::MemLog;

use super::Limits;
use crate::{Inbox, Listen};

/// More than any bound a test sets: how long a read waits before the test
/// fails (a connection the server should have closed, kept open).
const PATIENCE: Duration = Duration::from_secs(15);

/// The Content-Security-Policy every answer carries.
const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A running inbox: its port and its token.
struct Server {
    port: u16,
    token: String,
}

impl Server {
    /// An inbox over an empty memory log on a free loopback port, within
    /// `limits`, over TLS with `tls` (certificate, key).
    fn start(limits: Limits, tls: Option<(PathBuf, PathBuf)>) -> Self {
        let log: crate::SharedLog = Arc::new(MemLog::new());
        let mut listen = Listen::loopback("127.0.0.1:0".parse().unwrap());
        listen.tls = tls;
        let mut inbox = Inbox::bind(log, &listen).unwrap();
        inbox.limits = limits;
        let url = inbox.url().to_owned();
        let (address, token) = url.split_once("/?token=").unwrap();
        let port = address.rsplit(':').next().unwrap().parse().unwrap();
        std::thread::spawn(move || inbox.run());
        Self {
            port,
            token: token.to_owned(),
        }
    }

    /// A connection from `from` (any 127.0.0.0/8 address reaches the server).
    fn connect_from(&self, from: [u8; 4]) -> TcpStream {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let server = SocketAddr::from(([127, 0, 0, 1], self.port));
        let stream = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(SocketAddr::new(IpAddr::from(from), 0)).unwrap();
            socket.connect(server).await.unwrap()
        });
        let stream = stream.into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    fn connect(&self) -> TcpStream {
        self.connect_from([127, 0, 0, 1])
    }

    /// A GET of `/` with the cookie, kept alive.
    fn person(&self) -> String {
        format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: askuser_token={}\r\n\r\n",
            self.port, self.token
        )
    }
}

/// Limits that no test reaches but the one it sets.
fn roomy() -> Limits {
    Limits {
        header_timeout: Duration::from_secs(60),
        request_deadline: Duration::from_secs(60),
        handshake_timeout: Duration::from_secs(60),
        connections: 64,
        unproven: 64,
        unproven_per_peer: 64,
    }
}

/// One response read off `stream`: the status line, the headers but `date`,
/// a blank line and the body (as long as `content-length` says).
fn response(stream: &mut impl Read) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!(
                "the response ended early ({other:?}) after {:?}",
                String::from_utf8_lossy(&head)
            ),
        }
    }
    let head = String::from_utf8(head).unwrap();
    let length: usize = (head.lines())
        .find_map(|line| line.strip_prefix("content-length: "))
        .map_or(0, |n| n.parse().unwrap());
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    let kept: Vec<&str> = (head.lines())
        .filter(|line| !line.starts_with("date: "))
        .collect();
    format!("{}{}", kept.join("\r\n"), String::from_utf8(body).unwrap())
}

/// What `stream` sends until the server closes it; fails when it is still
/// open after [`PATIENCE`].
fn until_closed(stream: &mut impl Read) -> String {
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => String::from_utf8_lossy(&rest).into_owned(),
        // Reset, or over TLS closed without `close_notify`: closed all the same.
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::UnexpectedEof
            ) =>
        {
            String::from_utf8_lossy(&rest).into_owned()
        }
        Err(error) => panic!("the server kept the connection open: {error}"),
    }
}

/// A refusal page: its status line, the security headers, `Connection:
/// close`, and the page titled `title` saying `text`.
fn refusal(status: &str, title: &str, text: &str) -> String {
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"/style.css\">\
         <script src=\"/app.js\" defer></script></head><body><main>\
         <h1>{title}</h1><p role=\"alert\">{text}</p></main>\
         <div class=\"live\" id=\"live\" role=\"status\" aria-live=\"polite\"></div>\
         </body></html>"
    );
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n\
         content-security-policy: {CSP}\r\nx-content-type-options: nosniff\r\n\
         referrer-policy: same-origin\r\nx-frame-options: DENY\r\ncache-control: no-store\r\n\
         connection: close\r\ncontent-length: {}\r\n{body}",
        body.len()
    )
}

/// The status line of the person's answer, the inbox.
fn status_of(answer: &str) -> &str {
    answer.lines().next().unwrap_or_default()
}

#[test]
fn a_silent_a_trickling_and_an_idle_connection_are_closed_after_the_head_timeout() {
    let server = Server::start(
        Limits {
            header_timeout: Duration::from_secs(1),
            ..roomy()
        },
        None,
    );
    let mut silent = server.connect();
    let mut trickling = server.connect();
    let mut writer = trickling.try_clone().unwrap();
    std::thread::spawn(move || {
        let _ = writer.write_all(b"GET / HTTP/1.1\r\n");
        for n in 0.. {
            std::thread::sleep(Duration::from_millis(200));
            if write!(writer, "X-Trickle-{n}: 1\r\n").is_err() {
                return;
            }
        }
    });
    let mut idle = server.connect();
    idle.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut idle)), "HTTP/1.1 200 OK");
    // Nothing is answered to a head that never came whole: the server closes.
    assert_eq!(until_closed(&mut silent), "");
    assert_eq!(until_closed(&mut trickling), "");
    assert_eq!(until_closed(&mut idle), "");
}

#[test]
fn the_person_is_answered_while_others_hold_every_unproven_place() {
    let server = Server::start(
        Limits {
            unproven: 4,
            unproven_per_peer: 2,
            ..roomy()
        },
        None,
    );
    // From the person's own address: each connection over its cap of 2
    // closes its oldest, and so does the person's, which is answered.
    let mut held: Vec<TcpStream> = (0..10).map(|_| server.connect()).collect();
    let mut person = server.connect();
    person.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut person)), "HTTP/1.1 200 OK");
    for (n, stream) in held.iter_mut().enumerate().take(9) {
        assert_eq!(until_closed(stream), "", "connection {n}");
    }
    // The person's proven connection holds no unproven place: 127.0.0.1 holds
    // 1, then 127.0.0.2 takes 2 and 127.0.0.3 1, the 4 of the whole. A person
    // from another address closes the oldest of the peer that holds the most.
    let mut others: Vec<TcpStream> = (0..2)
        .map(|_| server.connect_from([127, 0, 0, 2]))
        .collect();
    others.push(server.connect_from([127, 0, 0, 3]));
    let mut elsewhere = server.connect_from([127, 0, 0, 9]);
    elsewhere.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut elsewhere)), "HTTP/1.1 200 OK");
    assert_eq!(until_closed(&mut others[0]), "");
    // The person's connection was kept alive through it all.
    person.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut person)), "HTTP/1.1 200 OK");
}

#[test]
fn a_connection_over_the_cap_gets_a_503_page_and_is_closed() {
    let server = Server::start(
        Limits {
            connections: 2,
            ..roomy()
        },
        None,
    );
    let mut proven: Vec<TcpStream> = (0..2).map(|_| server.connect()).collect();
    for stream in &mut proven {
        stream.write_all(server.person().as_bytes()).unwrap();
        assert_eq!(status_of(&response(stream)), "HTTP/1.1 200 OK");
    }
    let mut third = server.connect();
    third
        .write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", server.port).as_bytes())
        .unwrap();
    assert_eq!(
        response(&mut third),
        refusal(
            "503 Service Unavailable",
            "Too many connections",
            "This inbox has too many connections open; close some of its tabs, or try again in a moment."
        )
    );
    assert_eq!(until_closed(&mut third), "");
    // Once one closes, a new connection is served.
    drop(proven.pop());
    std::thread::sleep(Duration::from_millis(200));
    let mut next = server.connect();
    next.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut next)), "HTTP/1.1 200 OK");
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_answered_408_and_closed() {
    let server = Server::start(
        Limits {
            request_deadline: Duration::from_secs(1),
            ..roomy()
        },
        None,
    );
    let mut stream = server.connect();
    write!(
        stream,
        "POST /q/chat/call-1 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: askuser_token={}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncsrf=",
        server.port, server.token
    )
    .unwrap();
    assert_eq!(
        response(&mut stream),
        refusal(
            "408 Request Timeout",
            "Too slow",
            "The request was not read and answered within 1 s; try again."
        )
    );
    assert_eq!(until_closed(&mut stream), "");
}

#[test]
fn a_peer_is_an_ipv4_address_or_an_ipv6_64() {
    let peer = |ip: &str| super::peer_of(ip.parse().unwrap()).to_string();
    assert_eq!(peer("192.0.2.7"), "192.0.2.7");
    assert_eq!(peer("::ffff:192.0.2.7"), "192.0.2.7");
    assert_eq!(peer("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::");
    assert_eq!(peer("2001:db8:1:2::9"), "2001:db8:1:2::");
    assert_eq!(peer("::1"), "::");
}

/// A self-signed certificate for 127.0.0.1 made by openssl, as (cert, key).
fn self_signed(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
        .args(["ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(made.success(), "openssl made no certificate");
    (cert, key)
}

/// A TLS client for `cert`: makes a stream over a TCP connection, handshaken.
fn tls_client(
    cert: &std::path::Path,
) -> impl Fn(TcpStream) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(cert).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    move |mut tcp: TcpStream| {
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        let mut client = rustls::ClientConnection::new(Arc::new(config.clone()), name).unwrap();
        while client.is_handshaking() {
            client.complete_io(&mut tcp).unwrap();
        }
        rustls::StreamOwned::new(client, tcp)
    }
}

#[test]
fn a_connection_idle_after_its_tls_handshake_is_closed_after_the_head_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = self_signed(dir.path());
    let server = Server::start(
        Limits {
            header_timeout: Duration::from_secs(1),
            ..roomy()
        },
        Some((cert.clone(), key)),
    );
    let tls = tls_client(&cert);
    // Handshaken, then silent: closed by the head timeout.
    let mut silent = tls(server.connect());
    assert_eq!(until_closed(&mut silent), "");
    // The person over TLS is answered, then closed once idle.
    let mut person = tls(server.connect());
    person.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut person)), "HTTP/1.1 200 OK");
    assert_eq!(until_closed(&mut person), "");
}

#[test]
fn over_tls_a_connection_over_the_cap_gets_the_503_page_after_its_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = self_signed(dir.path());
    let server = Server::start(
        Limits {
            connections: 1,
            ..roomy()
        },
        Some((cert.clone(), key)),
    );
    let tls = tls_client(&cert);
    let mut person = tls(server.connect());
    person.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut person)), "HTTP/1.1 200 OK");
    let mut second = tls(server.connect());
    second.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(
        response(&mut second),
        refusal(
            "503 Service Unavailable",
            "Too many connections",
            "This inbox has too many connections open; close some of its tabs, or try again in a moment."
        )
    );
    assert_eq!(until_closed(&mut second), "");
}

/// The person's GET of `/` padded with an `X-Pad` header to exactly `len`
/// bytes of head.
fn padded_head(server: &Server, len: usize) -> Vec<u8> {
    let mut head = server.person().into_bytes();
    head.truncate(head.len() - 2);
    head.extend_from_slice(b"X-Pad: ");
    head.resize(len - 2 - 2, b'a');
    head.extend_from_slice(b"\r\n\r\n");
    assert_eq!(head.len(), len);
    head
}

#[test]
fn a_head_over_64_kib_gets_a_431_page_with_the_security_headers() {
    let server = Server::start(roomy(), None);
    // 64 KiB exactly is served, and the connection kept.
    let mut stream = server.connect();
    stream.write_all(&padded_head(&server, 65_536)).unwrap();
    assert_eq!(status_of(&response(&mut stream)), "HTTP/1.1 200 OK");
    stream.write_all(server.person().as_bytes()).unwrap();
    assert_eq!(status_of(&response(&mut stream)), "HTTP/1.1 200 OK");
    let too_long = refusal(
        "431 Request Header Fields Too Large",
        "Request head too long",
        "The request's line and headers are over 64 KiB; send a shorter request (fewer or smaller cookies).",
    );
    // One byte more, 70,000 and 200,000 bytes (hyper's own bare 431 started
    // near 114,500).
    for len in [65_537, 70_000, 200_000] {
        let mut stream = server.connect();
        stream.write_all(&padded_head(&server, len)).unwrap();
        assert_eq!(response(&mut stream), too_long, "a head of {len} bytes");
        assert_eq!(until_closed(&mut stream), "", "a head of {len} bytes");
    }
    // A kept-alive connection is answered its first request, then refused.
    let mut stream = server.connect();
    let mut both = server.person().into_bytes();
    both.extend_from_slice(&padded_head(&server, 70_000));
    stream.write_all(&both).unwrap();
    assert_eq!(status_of(&response(&mut stream)), "HTTP/1.1 200 OK");
    assert_eq!(response(&mut stream), too_long);
    assert_eq!(until_closed(&mut stream), "");
}

#[test]
fn heads_hyper_would_refuse_get_the_refusal_page_with_the_security_headers() {
    let server = Server::start(roomy(), None);
    let host = format!("Host: 127.0.0.1:{}\r\n", server.port);
    let many = "X-Many: 1\r\n".repeat(101);
    let cases = [
        (
            format!("GET / HTTP/1.1\r\n{host}Bad Name: 1\r\n\r\n"),
            refusal(
                "400 Bad Request",
                "Bad request",
                "The request's head cannot be read (invalid header name); send a well-formed HTTP/1.1 request.",
            ),
        ),
        (
            format!("GET / HTTP/1.1\r\n{host}{many}\r\n"),
            refusal(
                "431 Request Header Fields Too Large",
                "Too many headers",
                "The request has more than 100 header lines; send fewer.",
            ),
        ),
        (
            format!(
                "POST / HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"
            ),
            refusal(
                "411 Length Required",
                "Length required",
                "A request body is taken only with a Content-Length, not a Transfer-Encoding; send it with its length.",
            ),
        ),
    ];
    for (request, page) in cases {
        let mut stream = server.connect();
        stream.write_all(request.as_bytes()).unwrap();
        assert_eq!(response(&mut stream), page, "{request:?}");
        assert_eq!(until_closed(&mut stream), "", "{request:?}");
    }
}
