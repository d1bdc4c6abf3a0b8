//! `--notify URL`: when a question starts waiting, a small JSON is posted to
//! `URL` (a webhook: ntfy, a chat bridge, a script), so the engine and the pages
//! never wait for it. The body holds the stream, the inquiry, who asks, the
//! question neutralised as the terminal shows it (at most 500 characters), and
//! the link to the question's page, never the secret token:
//!
//! ```json
//! {"stream":"agent-1","inquiry":"c1","label":"Assistant","question":"Deploy now?","link":"http://127.0.0.1:8765/q/agent-1/c1"}
//! ```
//!
//! One sender thread posts them, one at a time, in the order the questions
//! started waiting. Each try (connecting, sending the request and reading the
//! answer's status line) has [`TRY_DEADLINE`] (5 s) in all, after the host's
//! name is looked up; a notification gets up to three tries, 1 s then 2 s
//! apart, so at most 18 s. At most [`QUEUE`] (64) notifications wait to be
//! sent: a newer question of an inquiry whose notification still waits takes
//! its place, and when 64 wait the oldest is dropped; the sender says on
//! standard error how many were dropped. A hanging or trickling webhook thus
//! costs one thread and 64 small bodies, however many questions wait.

use std::collections::{HashSet, VecDeque};
use std::io::{self, Read, Write};
use std::net::{Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use askuser_core::text::for_display;

use crate::WebError;
use crate::pages::inquiry_path;
use crate::queue::Waiting;

/// How long one try may take in all: connecting, sending the request and
/// reading the answer's status line.
const TRY_DEADLINE: Duration = Duration::from_secs(5);
/// The pauses between tries.
const BACKOFF: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(2)];
/// The most characters of a question sent.
const MAX_QUESTION: usize = 500;
/// The most notifications waiting to be sent.
const QUEUE: usize = 64;

/// Where notifications go, parsed once.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    https: bool,
    /// The name or address to connect to (an IPv6 address without brackets).
    host: String,
    port: u16,
    /// `host[:port]` as given, for the `Host` header (`[::1]:9`).
    authority: String,
    path: String,
    /// `scheme://host`, for messages (the path may hold a secret).
    shown: String,
}

impl Target {
    /// Parses `url`: `http://` or `https://`, a host (a name, an IPv4 address or
    /// a bracketed IPv6 address), an optional port and path.
    pub(crate) fn parse(url: &str) -> Result<Self, WebError> {
        let problem = |reason: &str| WebError::Notify {
            url: url.chars().take(80).collect(),
            reason: reason.to_owned(),
        };
        let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(problem("give an http:// or https:// URL"));
        };
        if url.len() > 2048 || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(problem(
                "a URL has no spaces or control characters and at most 2,048 bytes",
            ));
        }
        let (authority, path) = rest.find('/').map_or((rest, "/"), |at| rest.split_at(at));
        if authority.contains('@') {
            return Err(problem(
                "user:password@ is not supported; put a secret in the path",
            ));
        }
        let (host, port) =
            host_and_port(authority, if https { 443 } else { 80 }).map_err(problem)?;
        Ok(Self {
            https,
            host: host.to_owned(),
            port,
            authority: authority.to_owned(),
            path: path.to_owned(),
            shown: format!("{}://{authority}", if https { "https" } else { "http" }),
        })
    }
}

/// The host (an IPv6 address without its brackets) and port of `authority`.
fn host_and_port(authority: &str, default: u16) -> Result<(&str, u16), &'static str> {
    let port = |text: &str| match text.parse::<u16>() {
        Ok(port) if port > 0 => Ok(port),
        _ => Err("the port is not a number from 1 to 65535"),
    };
    let (host, port) = if let Some(inside) = authority.strip_prefix('[') {
        let (address, after) = inside
            .split_once(']')
            .ok_or("an IPv6 address ends with ] (http://[::1]:8080/)")?;
        if address.parse::<Ipv6Addr>().is_err() {
            return Err("[…] holds no IPv6 address; give one such as http://[::1]:8080/");
        }
        match after {
            "" => (address, default),
            _ => (
                address,
                port(after.strip_prefix(':').ok_or(
                    "after an IPv6 address's ] comes :PORT or the path (http://[::1]:8080/)",
                )?)?,
            ),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, _)) if host.contains(':') => {
                return Err("put an IPv6 address in brackets (http://[::1]:8080/)");
            }
            Some((host, text)) => (host, port(text)?),
            None => (authority, default),
        }
    };
    if host.is_empty() {
        return Err("the URL names no host");
    }
    Ok((host, port))
}

/// One notification waiting to be sent.
#[derive(Debug, PartialEq, Eq)]
struct Note {
    /// The stream and the inquiry: a newer note of the same inquiry replaces it.
    inquiry: (String, String),
    body: String,
}

/// The notifications waiting for the sender, at most [`QUEUE`].
#[derive(Debug, Default)]
struct Outbox {
    notes: VecDeque<Note>,
    /// How many were dropped since the sender last said so.
    dropped: u64,
    /// The notifier is gone: the sender ends.
    closed: bool,
}

impl Outbox {
    /// Queues `note`: in place of a waiting note of the same inquiry, else at
    /// the end, the oldest dropped (and counted) when [`QUEUE`] wait.
    fn push(&mut self, note: Note) {
        if let Some(waiting) = self.notes.iter_mut().find(|n| n.inquiry == note.inquiry) {
            waiting.body = note.body;
            return;
        }
        if self.notes.len() >= QUEUE {
            self.notes.pop_front();
            self.dropped += 1;
        }
        self.notes.push_back(note);
    }
}

/// The outbox and the sender's wake-up.
#[derive(Default)]
struct Shared {
    outbox: Mutex<Outbox>,
    wake: Condvar,
}

impl Shared {
    fn outbox(&self) -> std::sync::MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Tells `target` of each question that starts waiting, through one sender
/// thread.
pub(crate) struct Notifier {
    shared: Arc<Shared>,
    /// The inbox's origin (`http://127.0.0.1:8765`), for links.
    origin: String,
    /// The questions already told of (or waiting when the server started).
    told: HashSet<(String, String, Option<String>)>,
}

impl Notifier {
    /// A notifier whose links start with `origin`; `waiting` is what waits now
    /// (not told: the person who starts the inbox sees it). Starts the sender.
    pub(crate) fn new(target: Target, origin: String, waiting: &[Waiting]) -> Self {
        let shared = Arc::new(Shared::default());
        let sender = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name("askuser-web-notify".to_owned())
            .spawn(move || send_all(&target, &sender));
        if let Err(error) = started {
            eprintln!("askuser web: --notify is off: its sender cannot start ({error})");
        }
        Self {
            shared,
            origin,
            told: waiting.iter().map(key).collect(),
        }
    }

    /// Queues, for the sender, what started waiting since the last call.
    pub(crate) fn tell(&mut self, waiting: &[Waiting]) {
        let now: HashSet<_> = waiting.iter().map(key).collect();
        for item in waiting {
            if item.question.is_none() || self.told.contains(&key(item)) {
                continue;
            }
            let note = Note {
                inquiry: (item.stream.clone(), item.inquiry.clone()),
                body: self.body(item),
            };
            self.shared.outbox().push(note);
            self.shared.wake.notify_one();
        }
        self.told = now;
    }

    fn body(&self, item: &Waiting) -> String {
        let question: String = for_display(item.question.as_deref().unwrap_or_default())
            .chars()
            .take(MAX_QUESTION)
            .collect();
        serde_json::json!({
            "stream": for_display(&item.stream),
            "inquiry": for_display(&item.inquiry),
            "label": for_display(&item.label),
            "question": question,
            "link": format!("{}{}", self.origin, inquiry_path(&item.stream, &item.inquiry)),
        })
        .to_string()
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        self.shared.outbox().closed = true;
        self.shared.wake.notify_one();
    }
}

/// A question is told of again when the one on show changes (the next
/// question of the same form).
fn key(item: &Waiting) -> (String, String, Option<String>) {
    (
        item.stream.clone(),
        item.inquiry.clone(),
        item.question.clone(),
    )
}

/// The sender: posts each queued note in turn until the notifier is gone.
fn send_all(target: &Target, shared: &Shared) {
    loop {
        let (note, dropped) = {
            let mut outbox = shared.outbox();
            while outbox.notes.is_empty() && !outbox.closed {
                outbox = shared
                    .wake
                    .wait(outbox)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            let Some(note) = outbox.notes.pop_front() else {
                return;
            };
            (note, std::mem::take(&mut outbox.dropped))
        };
        if dropped > 0 {
            eprintln!(
                "askuser web: {dropped} notification(s) to {} dropped: more than {QUEUE} waited to be sent; the inbox lists every waiting question",
                target.shown
            );
        }
        deliver(target, &note.body);
    }
}

/// Up to three tries; a failure after the last is said on standard error.
fn deliver(target: &Target, body: &str) {
    let mut last = String::new();
    for attempt in 0..=BACKOFF.len() {
        match post(target, body, TRY_DEADLINE) {
            Ok(()) => return,
            Err(reason) => last = reason,
        }
        if let Some(pause) = BACKOFF.get(attempt) {
            std::thread::sleep(*pause);
        }
    }
    eprintln!(
        "askuser web: could not notify {} after {} tries: {last}",
        target.shown,
        BACKOFF.len() + 1
    );
}

/// One POST, connected, sent and answered within `limit` of its start (after
/// the name is looked up); `Err` with the reason unless the answer is 2xx.
fn post(target: &Target, body: &str, limit: Duration) -> Result<(), String> {
    let addresses: Vec<SocketAddr> = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", target.host))?
        .collect();
    let deadline = Instant::now() + limit;
    let late = |error: io::Error| {
        if Instant::now() >= deadline {
            format!("no answer within {} s", limit.as_secs())
        } else {
            error.to_string()
        }
    };
    let tcp = connect(&addresses, deadline).map_err(|e| match e {
        Some(error) => late(error),
        None => format!("{} has no address", target.host),
    })?;
    let stream = Deadlined { tcp, deadline };
    let request = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: askuser-web\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        target.path,
        target.authority,
        body.len()
    );
    let status = if target.https {
        let mut tls = crate::tls::client(&target.host, stream)?;
        exchange(&mut tls, &request).map_err(late)?
    } else {
        let mut stream = stream;
        exchange(&mut stream, &request).map_err(late)?
    };
    match status {
        Some(status) if (200..300).contains(&status) => Ok(()),
        Some(status) => Err(format!("the server answered {status}")),
        None => Err("the answer is not HTTP".to_owned()),
    }
}

/// A connection to the first of `addresses` that answers before `deadline`;
/// `Err(None)` when there is none to try.
fn connect(addresses: &[SocketAddr], deadline: Instant) -> Result<TcpStream, Option<io::Error>> {
    let mut last = None;
    for address in addresses {
        let left = match left(deadline) {
            Ok(left) => left,
            Err(error) => return Err(Some(error)),
        };
        match TcpStream::connect_timeout(address, left) {
            Ok(tcp) => return Ok(tcp),
            Err(error) => last = Some(error),
        }
    }
    Err(last)
}

/// The time left before `deadline`, or a timeout error.
fn left(deadline: Instant) -> io::Result<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|left| !left.is_zero())
        .ok_or_else(|| io::Error::from(io::ErrorKind::TimedOut))
}

/// A connection whose every read and write ends by one deadline.
struct Deadlined {
    tcp: TcpStream,
    deadline: Instant,
}

impl Read for Deadlined {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.tcp.set_read_timeout(Some(left(self.deadline)?))?;
        self.tcp.read(buf)
    }
}

impl Write for Deadlined {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.set_write_timeout(Some(left(self.deadline)?))?;
        self.tcp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// Writes `request` and reads the status code of the answer (`None` when the
/// answer is not HTTP).
fn exchange(stream: &mut (impl Read + Write), request: &str) -> io::Result<Option<u16>> {
    stream.write_all(request.as_bytes())?;
    stream.flush()?;
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head)?;
    let text = String::from_utf8_lossy(&head);
    Ok(text
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok()))
}

#[cfg(test)]
mod tests;
