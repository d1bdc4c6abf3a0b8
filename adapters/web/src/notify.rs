//! `--notify URL`: when a question starts waiting, a small JSON is posted to
//! `URL` (a webhook: ntfy, a chat bridge, a script), on a thread of its own so
//! the engine and the pages never wait for it: up to three tries, 5 s each, 1 s
//! then 2 s apart. The body holds the stream, the inquiry, who asks, the
//! question neutralised as the terminal shows it (at most 500 characters), and
//! the link to the question's page, never the secret token:
//!
//! ```json
//! {"stream":"agent-1","inquiry":"c1","label":"Assistant","question":"Deploy now?","link":"http://127.0.0.1:8765/q/agent-1/c1"}
//! ```

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use askuser_core::text::for_display;

use crate::WebError;
use crate::pages::inquiry_path;
use crate::queue::Waiting;

/// How long one try may take (connect, then each read or write).
const TRY_TIMEOUT: Duration = Duration::from_secs(5);
/// The pauses between tries.
const BACKOFF: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(2)];
/// The most characters of a question sent.
const MAX_QUESTION: usize = 500;

/// Where notifications go, parsed once.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    https: bool,
    host: String,
    port: u16,
    path: String,
    /// `scheme://host`, for messages (the path may hold a secret).
    shown: String,
}

impl Target {
    /// Parses `url`: `http://` or `https://`, a host, an optional port and path.
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
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') => (
                host,
                port.parse::<u16>()
                    .map_err(|_| problem("the port is not a number from 1 to 65535"))?,
            ),
            _ => (authority, if https { 443 } else { 80 }),
        };
        if host.is_empty() {
            return Err(problem("the URL names no host"));
        }
        Ok(Self {
            https,
            host: host.to_owned(),
            port,
            path: path.to_owned(),
            shown: format!("{}://{authority}", if https { "https" } else { "http" }),
        })
    }
}

/// Tells `target` of each question that starts waiting.
pub(crate) struct Notifier {
    target: Arc<Target>,
    /// The inbox's origin (`http://127.0.0.1:8765`), for links.
    origin: String,
    /// The questions already told of (or waiting when the server started).
    told: HashSet<(String, String, Option<String>)>,
}

impl Notifier {
    /// A notifier whose links start with `origin`; `waiting` is what waits now
    /// (not told: the person who starts the inbox sees it).
    pub(crate) fn new(target: Target, origin: String, waiting: &[Waiting]) -> Self {
        Self {
            target: Arc::new(target),
            origin,
            told: waiting.iter().map(key).collect(),
        }
    }

    /// Posts, each on a thread of its own, what started waiting since the last
    /// call.
    pub(crate) fn tell(&mut self, waiting: &[Waiting]) {
        let now: HashSet<_> = waiting.iter().map(key).collect();
        for item in waiting {
            if item.question.is_none() || self.told.contains(&key(item)) {
                continue;
            }
            let body = self.body(item);
            let target = Arc::clone(&self.target);
            std::thread::spawn(move || deliver(&target, &body));
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

/// A question is told of again when the one on show changes (the next
/// question of the same form).
fn key(item: &Waiting) -> (String, String, Option<String>) {
    (
        item.stream.clone(),
        item.inquiry.clone(),
        item.question.clone(),
    )
}

/// Up to three tries; a failure after the last is said on standard error.
fn deliver(target: &Target, body: &str) {
    let mut last = String::new();
    for attempt in 0..=BACKOFF.len() {
        match post(target, body) {
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

/// One POST; `Err` with the reason unless the answer is 2xx.
fn post(target: &Target, body: &str) -> Result<(), String> {
    let addr = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", target.host))?
        .next()
        .ok_or_else(|| format!("{} has no address", target.host))?;
    let tcp = TcpStream::connect_timeout(&addr, TRY_TIMEOUT).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(TRY_TIMEOUT))
        .map_err(|e| e.to_string())?;
    tcp.set_write_timeout(Some(TRY_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: askuser-web\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        target.path,
        target.host,
        body.len()
    );
    let status = if target.https {
        let mut tls = crate::tls::client(&target.host, tcp)?;
        exchange(&mut tls, &request)?
    } else {
        let mut tcp = tcp;
        exchange(&mut tcp, &request)?
    };
    if (200..300).contains(&status) {
        Ok(())
    } else {
        Err(format!("the server answered {status}"))
    }
}

/// Writes `request` and reads the status code of the answer.
fn exchange(stream: &mut (impl Read + Write), request: &str) -> Result<u16, String> {
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    stream.flush().map_err(|e| e.to_string())?;
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&head);
    text.strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| "the answer is not HTTP".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_parsed_or_refused_with_the_reason() {
        let target = Target::parse("https://ntfy.example/askuser-secret").unwrap();
        assert_eq!(
            (
                target.https,
                target.host.as_str(),
                target.port,
                target.path.as_str(),
                target.shown.as_str()
            ),
            (
                true,
                "ntfy.example",
                443,
                "/askuser-secret",
                "https://ntfy.example"
            )
        );
        let target = Target::parse("http://127.0.0.1:9000").unwrap();
        assert_eq!((target.port, target.path.as_str()), (9000, "/"));
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
            refused("http:///p"),
            "--notify http:///p: the URL names no host"
        );
    }
}
