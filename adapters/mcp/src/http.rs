//! Streamable HTTP, on a loopback address only: each MCP session is recorded as its
//! own stream (`<stream>-<n>`, numbered when it first records, so sessions that
//! record nothing leave no gap); a 2026-07-28 client's stateless calls each start
//! one, and their retries find it through the sealed `requestState`. Those
//! calls count against the sessions' cap and end when their agent never comes
//! back (see `unanswered.rs`).
//!
//! Every request must carry the server's token as a bearer credential
//! (`Authorization: Bearer TOKEN`): a loopback port is open to every user of the
//! machine, and without it another user could ask the person in the name of
//! the person's own agent.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mrtr::Sealer;
use crate::unanswered::Unanswered;
use crate::{AskServer, Config, ServeError};

mod sessions;

pub use sessions::HttpLimits;
use sessions::{Limits, Sessions};

/// Serves MCP over streamable HTTP at `addr`, which must be a loopback address
/// (`127.0.0.1`, `::1`; port 0 picks a free one), until the process ends.
/// `ready` is told the address bound. Only `localhost`, `127.0.0.1` and `::1`
/// are accepted as the `Host` of a request (no DNS rebinding), and a request
/// that carries an `Origin` must come from the server's own loopback origin
/// (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`): any
/// other, `null` included, gets 403, as the MCP transport spec asks.
///
/// Every request must carry `Authorization: Bearer TOKEN`, `token` being the
/// secret the host was given (`askuser mcp --http` keeps it in a file only its
/// user may read, see [`askuser_app::secret::kept_in`]); any other gets 401
/// with `WWW-Authenticate: Bearer` and words saying what is missing, before
/// anything else is looked at.
///
/// At most 64 MCP sessions and stateless calls (protocol 2026-07-28) waiting for
/// their retry are open at once ([`HttpLimits::DEFAULT`]). A new session closes
/// the session idle the longest (with no request under way) first, or is refused
/// (HTTP 500, saying so) when every session has a request under way; a session
/// with no request under way for 2 minutes is closed (looked for every 30 s). A
/// client whose session was closed gets 404 and starts a new one. A stateless
/// first round past the cap gets a tool error saying so, and asks nothing; a
/// stateless call whose agent does not call again within 30 minutes is ended,
/// its question cancelled as one the agent never came back for. Their presence
/// leases are renewed by one task, not a thread each.
///
/// # Errors
/// [`ServeError::NotLoopback`] for another address; [`ServeError::Runtime`] when
/// the runtime cannot start or the address cannot be bound.
pub fn serve_http(
    config: Config,
    addr: SocketAddr,
    token: &str,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    serve_with(config, addr, Limits::DEFAULT, token, ready)
}

/// [`serve_http`] with `limits` on its sessions and stateless calls in place of
/// [`HttpLimits::DEFAULT`].
///
/// # Errors
/// As [`serve_http`].
pub fn serve_http_with(
    config: Config,
    addr: SocketAddr,
    limits: HttpLimits,
    token: &str,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    serve_with(config, addr, limits, token, ready)
}

/// [`serve_http`] with `limits` on its sessions.
fn serve_with(
    config: Config,
    addr: SocketAddr,
    limits: Limits,
    token: &str,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let token: Arc<str> = Arc::from(token);
    if !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(ServeError::Runtime)?;
        let bound = listener.local_addr().map_err(ServeError::Runtime)?;
        ready(bound);
        let port = bound.port();
        let sealer = Arc::new(Sealer::new());
        let sessions = Arc::new(AtomicUsize::new(0));
        let kept = Arc::new(Unanswered::new(limits.most, limits.unanswered));
        let keeping = Arc::clone(&kept);
        let handler = move || {
            Ok(AskServer::numbered(
                config.clone(),
                Arc::clone(&sealer),
                Arc::clone(&sessions),
                Arc::clone(&kept),
            ))
        };
        let manager = Arc::new(Sessions::new(limits, Arc::clone(&keeping)));
        let sweeping = Arc::clone(&manager);
        // One task renews the presence of every stateless call, and ends idle
        // sessions and calls whose agent never came back: no thread per call.
        tokio::spawn(async move {
            let mut sweep = tokio::time::interval(limits.sweep());
            let mut renew = tokio::time::interval(askuser_app::log::presence::RENEW_EVERY);
            loop {
                tokio::select! {
                    _ = sweep.tick() => {
                        sweeping.expire().await;
                        keeping.expire();
                    }
                    _ = renew.tick() => keeping.renew(),
                }
            }
        });
        let mcp = Arc::new(StreamableHttpService::new(
            handler,
            manager,
            StreamableHttpServerConfig::default()
                .with_allowed_origins([
                    format!("http://127.0.0.1:{port}"),
                    format!("http://localhost:{port}"),
                    format!("http://[::1]:{port}"),
                ])
                .enforce_origin_validation(),
        ));
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            // Each response goes out whole at once: without this, a client that
            // waits for its delayed acknowledgement stalls 40 ms a request.
            let _ = stream.set_nodelay(true);
            let (mcp, token) = (Arc::clone(&mcp), Arc::clone(&token));
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (mcp, token) = (Arc::clone(&mcp), Arc::clone(&token));
                async move {
                    if !bearer_is(request.headers(), &token) {
                        return Ok::<_, Infallible>(unauthorized());
                    }
                    Ok(mcp.handle(request).await)
                }
            });
            tokio::spawn(async move {
                let _closed = bounded_heads(Builder::new(TokioExecutor::default()))
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// The longest request head taken, its request line and headers: 64 KiB, as
/// the web inbox takes.
const MAX_HEAD: usize = 64 * 1024;

/// The most header lines one request may carry.
const MAX_HEADERS: usize = 100;

/// `builder` refusing, with hyper's own 431, a request head over [`MAX_HEAD`]
/// bytes or [`MAX_HEADERS`] lines (HTTP/1.1), or a header list over
/// [`MAX_HEAD`] (HTTP/2); hyper's defaults let about 400 KiB through.
fn bounded_heads(mut builder: Builder<TokioExecutor>) -> Builder<TokioExecutor> {
    builder
        .http1()
        .max_buf_size(MAX_HEAD)
        .max_headers(MAX_HEADERS);
    builder
        .http2()
        .max_header_list_size(u32::try_from(MAX_HEAD).unwrap_or(u32::MAX));
    builder
}

/// Whether `headers` carry `Authorization: Bearer TOKEN` with `token`
/// (compared without an early exit).
fn bearer_is(headers: &hyper::HeaderMap, token: &str) -> bool {
    headers
        .get(hyper::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, credential) = value.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| credential.trim())
        })
        .is_some_and(|given| askuser_app::secret::same(given, token))
}

/// The 401 of a request without the token: what is missing and where the
/// person finds it.
fn unauthorized() -> Response<BoxBody<Bytes, Infallible>> {
    const WORDS: &str = "This askuser MCP server answers only requests that carry its token: \
        send `Authorization: Bearer TOKEN`, TOKEN being the contents of the file \
        `askuser mcp --http` named when it started (readable by its user only). \
        `askuser setup` writes it into the host's configuration.\n";
    let mut response = Response::new(Full::new(Bytes::from_static(WORDS.as_bytes())).boxed());
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"askuser\""),
    );
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests;
