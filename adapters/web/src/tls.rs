//! TLS for the inbox (rustls, `ring` provider): the certificate chain and key
//! from PEM files. The handshakes run in the accept loop ([`crate::serve`]),
//! side by side, each with a time limit and counted against the connection
//! caps, so a slow or silent client never holds up the others.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::WebError;

/// The largest PEM file read (a chain of a few certificates is a few KiB).
const MAX_PEM: u64 = 1024 * 1024;

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
