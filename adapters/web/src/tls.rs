//! TLS for the inbox (rustls, `ring` provider): the certificate chain and key
//! from PEM files, and a listener that hands axum connections whose handshake
//! finished. Handshakes run side by side, each with a time limit, so a slow or
//! silent client never holds up the others.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::WebError;

/// The largest PEM file read (a chain of a few certificates is a few KiB).
const MAX_PEM: u64 = 1024 * 1024;

/// How long a client has to finish its handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A server configuration from a PEM certificate chain and a PEM private key.
pub(crate) fn config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, WebError> {
    let problem = |path: &Path, reason: String| WebError::Tls {
        path: path.display().to_string(),
        reason,
    };
    let chain = CertificateDer::pem_slice_iter(&read_pem(cert)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| problem(cert, format!("not a PEM certificate chain ({e})")))?;
    if chain.is_empty() {
        return Err(problem(
            cert,
            "holds no certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    let private = PrivateKeyDer::from_pem_slice(&read_pem(key)?)
        .map_err(|e| problem(key, format!("holds no PEM private key ({e})")))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| problem(cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| problem(key, format!("does not fit the certificate ({e})")))?;
    Ok(Arc::new(config))
}

/// A file's bytes, at most [`MAX_PEM`].
fn read_pem(path: &Path) -> Result<Vec<u8>, WebError> {
    use std::io::Read as _;
    let problem = |reason: String| WebError::Tls {
        path: path.display().to_string(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| problem(format!("cannot be read ({e})")))?;
    let mut bytes = Vec::new();
    file.take(MAX_PEM + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| problem(format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > MAX_PEM {
        return Err(problem("is larger than 1 MiB: not a PEM file".into()));
    }
    Ok(bytes)
}

/// Connections whose TLS handshake finished.
pub(crate) struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    addr: SocketAddr,
}

impl TlsListener {
    /// Accepts on `tcp` (on the current runtime) with `config`.
    pub(crate) fn new(tcp: TcpListener, config: Arc<rustls::ServerConfig>) -> io::Result<Self> {
        let addr = tcp.local_addr()?;
        let acceptor = TlsAcceptor::from(config);
        let (send, ready) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let Ok((stream, peer)) = tcp.accept().await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                if send.is_closed() {
                    return;
                }
                let (acceptor, send) = (acceptor.clone(), send.clone());
                tokio::spawn(async move {
                    let handshake = tokio::time::timeout(HANDSHAKE, acceptor.accept(stream));
                    if let Ok(Ok(tls)) = handshake.await {
                        let _ = send.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(Self { ready, addr })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accepting task never ends while this listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

/// A TLS client stream to `host` over `tcp`, checked against the Mozilla roots
/// (`webpki-roots`), for `--notify https://…`.
pub(crate) fn client(
    host: &str,
    tcp: std::net::TcpStream,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, std::net::TcpStream>, String> {
    let roots: rustls::RootCertStore = webpki_roots::TLS_SERVER_ROOTS.iter().cloned().collect();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(host.to_owned())
        .map_err(|_| format!("{host} is not a host name TLS can check"))?;
    let connection =
        rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    Ok(rustls::StreamOwned::new(connection, tcp))
}
