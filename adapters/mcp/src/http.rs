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
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mrtr::Sealer;
use crate::{AskServer, Config, ServeError};

/// Serves MCP over streamable HTTP at `addr`, which must be a loopback address
/// (`127.0.0.1`, `::1`; port 0 picks a free one), until the process ends.
/// `ready` is told the address bound. Only `localhost`, `127.0.0.1` and `::1`
/// are accepted as the `Host` of a request (no DNS rebinding), and a request
/// that carries an `Origin` must come from the server's own loopback origin
/// (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`): any
/// other, `null` included, gets 403, as the MCP transport spec asks.
///
/// # Errors
/// [`ServeError::NotLoopback`] for another address; [`ServeError::Runtime`] when
/// the runtime cannot start or the address cannot be bound.
pub fn serve_http(
    config: Config,
    addr: SocketAddr,
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
        let handler = move || {
            Ok(AskServer::numbered(
                config.clone(),
                Arc::clone(&sealer),
                Arc::clone(&sessions),
            ))
        };
        let service = TowerToHyperService::new(StreamableHttpService::new(
            handler,
            LocalSessionManager::default().into(),
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
