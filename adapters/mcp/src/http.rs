//! Streamable HTTP, on a loopback address only: each MCP session is recorded as its
//! own stream (`<stream>-<n>`, numbered when it first records, so sessions that
//! record nothing leave no gap); a 2026-07-28 client's stateless calls each start
//! one, and their retries find it through the sealed `requestState`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mrtr::Sealer;
use crate::server::{Kept, let_go_of_stale};
use crate::{AskServer, Config, ServeError};

mod sessions;

use sessions::{Limits, Sessions};

/// Serves MCP over streamable HTTP at `addr`, which must be a loopback address
/// (`127.0.0.1`, `::1`; port 0 picks a free one), until the process ends.
/// `ready` is told the address bound. Only `localhost`, `127.0.0.1` and `::1`
/// are accepted as the `Host` of a request (no DNS rebinding), and a request
/// that carries an `Origin` must come from the server's own loopback origin
/// (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`): any
/// other, `null` included, gets 403, as the MCP transport spec asks.
///
/// At most 64 MCP sessions live at once: a new one closes the session idle the
/// longest (with no request under way) first, or is refused (HTTP 500, saying
/// so) when every session has a request under way; a session with no request
/// under way for 2 minutes is closed (looked for every 30 s). A client whose
/// session was closed gets 404 and starts a new one.
///
/// # Errors
/// [`ServeError::NotLoopback`] for another address; [`ServeError::Runtime`] when
/// the runtime cannot start or the address cannot be bound.
pub fn serve_http(
    config: Config,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    serve_with(config, addr, Limits::DEFAULT, ready)
}

/// [`serve_http`] with `limits` on its sessions.
fn serve_with(
    config: Config,
    addr: SocketAddr,
    limits: Limits,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
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
        let kept = Kept::default();
        let keeping = Arc::clone(&kept);
        let handler = move || {
            Ok(AskServer::numbered(
                config.clone(),
                Arc::clone(&sealer),
                Arc::clone(&sessions),
                Arc::clone(&kept),
            ))
        };
        let manager = Arc::new(Sessions::new(limits));
        let sweeping = Arc::clone(&manager);
        tokio::spawn(async move {
            let mut sweep = tokio::time::interval(limits.sweep());
            loop {
                sweep.tick().await;
                sweeping.expire().await;
                let_go_of_stale(&keeping);
            }
        });
        let service = TowerToHyperService::new(StreamableHttpService::new(
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
            let service = service.clone();
            tokio::spawn(async move {
                let _closed = Builder::new(TokioExecutor::default())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests;
