//! Request heads read before hyper sees them, so that every request hyper
//! could refuse on its own (with a bare page: no CSP, no `nosniff`) is refused
//! here first, with the security headers every page carries.
//!
//! A [`Gate`] sits between the connection and hyper. It follows the bytes of
//! the connection request by request: a head is held back until it is whole
//! (its blank line), checked, and only then handed on, followed by exactly the
//! body its `Content-Length` says. A head longer than [`MAX_HEAD`] bytes, with
//! more than [`MAX_HEADERS`] lines, that `httparse` (hyper's own parser) or
//! hyper's further checks would refuse, or whose body is framed by
//! `Transfer-Encoding` is never handed on: hyper is told the connection
//! ended, answers what it already has, and the gate then writes the refusal
//! page ([`Refused::response`]) and closes.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Response, StatusCode, Uri};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};

use crate::app::page;
use crate::pages;

/// The longest request head taken: its request line, its headers and the blank
/// line that ends it.
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// The most header lines one request may carry (hyper's own bound).
pub(crate) const MAX_HEADERS: usize = 100;
/// How much a connection may send after its refusal is written before it is
/// closed anyway: what is read (and dropped) so that closing does not reset
/// the connection before the client has read the refusal.
const DRAIN_BYTES: usize = 1024 * 1024;
/// How long a connection is read (and dropped) after its refusal.
const DRAIN_TIME: Duration = Duration::from_secs(2);
/// How much is read from the connection at a time.
const CHUNK: usize = 16 * 1024;

/// Why a request is answered by the gate, not by the router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The head is over [`MAX_HEAD`] bytes.
    TooLong,
    /// The head has more than [`MAX_HEADERS`] header lines.
    TooManyHeaders,
    /// The head is not one HTTP/1.1 can read; the reason in words.
    Malformed(String),
    /// The body is framed by `Transfer-Encoding` (not `Content-Length`).
    NoLength,
}

impl Refused {
    /// The page that answers the request: its status, the security headers
    /// every page carries, and `Connection: close`.
    pub(crate) fn response(&self) -> Response<Body> {
        let (status, title, text) = match self {
            Self::TooLong => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "Request head too long",
                format!(
                    "The request's line and headers are over {} KiB; send a shorter request (fewer or smaller cookies).",
                    MAX_HEAD / 1024
                ),
            ),
            Self::TooManyHeaders => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "Too many headers",
                format!(
                    "The request has more than {MAX_HEADERS} header lines; send fewer."
                ),
            ),
            Self::Malformed(why) => (
                StatusCode::BAD_REQUEST,
                "Bad request",
                format!("The request's head cannot be read ({why}); send a well-formed HTTP/1.1 request."),
            ),
            Self::NoLength => (
                StatusCode::LENGTH_REQUIRED,
                "Length required",
                "A request body is taken only with a Content-Length, not a Transfer-Encoding; send it with its length."
                    .to_owned(),
            ),
        };
        super::closing(page(status, pages::refused(title, &text)))
    }
}

/// Where the gate is in the connection's bytes.
#[derive(Debug)]
enum Reading {
    /// In a head, held back: the bytes of it so far.
    Head(Vec<u8>),
    /// In a body: how many of its bytes are still to come.
    Body(u64),
}

/// The request heads of one connection, followed byte by byte.
#[derive(Debug)]
pub(crate) struct Heads {
    reading: Reading,
}

impl Default for Heads {
    fn default() -> Self {
        Self {
            reading: Reading::Head(Vec::new()),
        }
    }
}

impl Heads {
    /// Takes the connection's next `bytes`, and appends to `out` those that
    /// may go on to hyper: whole heads that passed, and their bodies. A head
    /// still coming is kept; a head that fails is refused, and nothing of it
    /// or after it is handed on.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) -> Result<(), Refused> {
        while !bytes.is_empty() {
            match &mut self.reading {
                Reading::Body(left) => {
                    let n =
                        usize::try_from(*left).map_or(bytes.len(), |left| left.min(bytes.len()));
                    out.extend_from_slice(&bytes[..n]);
                    *left -= n as u64;
                    bytes = &bytes[n..];
                    if *left == 0 {
                        self.reading = Reading::Head(Vec::new());
                    }
                }
                Reading::Head(head) => {
                    if head.is_empty() {
                        // Empty lines before a request line are skipped, as
                        // hyper skips them.
                        let start = bytes.iter().position(|b| !matches!(b, b'\r' | b'\n'));
                        bytes = &bytes[start.unwrap_or(bytes.len())..];
                        if bytes.is_empty() {
                            break;
                        }
                    }
                    let before = head.len();
                    let taken = bytes.len().min(MAX_HEAD - before);
                    head.extend_from_slice(&bytes[..taken]);
                    let Some(end) = end_of_head(head, before) else {
                        if taken < bytes.len() {
                            return Err(Refused::TooLong);
                        }
                        break;
                    };
                    bytes = &bytes[end - before..];
                    head.truncate(end);
                    let body = body_length(head)?;
                    out.extend_from_slice(head);
                    self.reading = if body == 0 {
                        Reading::Head(Vec::new())
                    } else {
                        Reading::Body(body)
                    };
                }
            }
        }
        Ok(())
    }
}

/// Where the head in `head` ends (just after its blank line), looking only at
/// line ends from `from` on; `None` while it has not ended.
fn end_of_head(head: &[u8], from: usize) -> Option<usize> {
    (from..head.len()).find_map(|at| {
        let blank = head[at] == b'\n'
            && (at >= 1 && head[at - 1] == b'\n'
                || at >= 2 && head[at - 1] == b'\r' && head[at - 2] == b'\n');
        blank.then_some(at + 1)
    })
}

/// The length of the body that follows `head`, once the head is checked as
/// hyper checks it, and more strictly: one `Content-Length` of digits, no
/// `Transfer-Encoding`.
fn body_length(head: &[u8]) -> Result<u64, Refused> {
    let malformed = |why: &str| Refused::Malformed(why.to_owned());
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Complete(len)) if len == head.len() => {}
        Ok(_) => return Err(malformed("it ends before its headers do")),
        Err(httparse::Error::TooManyHeaders) => return Err(Refused::TooManyHeaders),
        Err(error) => return Err(Refused::Malformed(error.to_string())),
    }
    let (Some(method), Some(path)) = (request.method, request.path) else {
        return Err(malformed("it has no request line"));
    };
    if Method::from_bytes(method.as_bytes()).is_err() {
        return Err(malformed("invalid method"));
    }
    if Uri::try_from(path).is_err() {
        return Err(malformed("invalid request target"));
    }
    let mut length = None;
    for header in request.headers.iter() {
        if header.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Refused::NoLength);
        }
        if header.name.eq_ignore_ascii_case("content-length") {
            let digits = header.value;
            let parsed =
                (!digits.is_empty() && digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit))
                    .then(|| {
                        digits
                            .iter()
                            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'))
                    });
            match (parsed, length) {
                (None, _) => return Err(malformed("invalid Content-Length")),
                (Some(_), Some(_)) => return Err(malformed("more than one Content-Length")),
                (Some(n), None) => length = Some(n),
            }
        }
    }
    Ok(length.unwrap_or(0))
}

/// A connection as hyper reads it: only the heads that passed and their
/// bodies. After a refusal hyper reads the end of the connection, and its
/// shutdown waits for the refusal page ([`Gate::refuse`]).
pub(crate) struct Gate<I> {
    io: I,
    heads: Heads,
    /// Bytes that passed and that hyper has not read yet, from `at` on.
    passed: Vec<u8>,
    at: usize,
    chunk: Vec<u8>,
    refused: Option<Refused>,
    ended: bool,
}

impl<I: AsyncRead + AsyncWrite + Unpin> Gate<I> {
    /// A gate on `io`, before its first request.
    pub(crate) fn new(io: I) -> Self {
        Self {
            io,
            heads: Heads::default(),
            passed: Vec::new(),
            at: 0,
            chunk: vec![0; CHUNK],
            refused: None,
            ended: false,
        }
    }

    /// Once hyper is done with the connection: writes the refusal page, if a
    /// request was refused, and closes. What the client still sends is read
    /// and dropped for a while, so that the close does not reset the
    /// connection before the page is read.
    pub(crate) async fn refuse(&mut self) {
        let Some(refused) = self.refused.take() else {
            return;
        };
        let Ok(raw) = raw(refused.response()).await else {
            return;
        };
        if self.io.write_all(&raw).await.is_err() || self.io.shutdown().await.is_err() {
            return;
        }
        let mut drained = 0;
        let drain = async {
            while drained < DRAIN_BYTES {
                match self.io.read(&mut self.chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => drained += n,
                }
            }
        };
        let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
    }
}

/// `response` as HTTP/1.1 bytes, its headers in their order, then its
/// length.
async fn raw(response: Response<Body>) -> Result<Vec<u8>, axum::Error> {
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await?;
    let status = parts.status;
    let mut raw = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or_default()
    )
    .into_bytes();
    for (name, value) in &parts.headers {
        raw.extend_from_slice(name.as_str().as_bytes());
        raw.extend_from_slice(b": ");
        raw.extend_from_slice(value.as_bytes());
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    raw.extend_from_slice(&body);
    Ok(raw)
}

impl<I: AsyncRead + Unpin> AsyncRead for Gate<I> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.at < this.passed.len() {
                let n = buf.remaining().min(this.passed.len() - this.at);
                buf.put_slice(&this.passed[this.at..this.at + n]);
                this.at += n;
                if this.at == this.passed.len() {
                    this.passed.clear();
                    this.at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.refused.is_some() || this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = ReadBuf::new(&mut this.chunk);
            ready!(Pin::new(&mut this.io).poll_read(cx, &mut chunk))?;
            let read = chunk.filled();
            if read.is_empty() {
                this.ended = true;
            } else if let Err(refused) = this.heads.feed(read, &mut this.passed) {
                this.refused = Some(refused);
            }
        }
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Gate<I> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    /// Closes the connection, unless a refusal page is still to be written:
    /// then [`Gate::refuse`] closes it after the page.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refused.is_some() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}

// Heads split anywhere, too long, too many, malformed, framed by
// Transfer-Encoding; bodies passed by their length.
#[cfg(test)]
mod tests;
