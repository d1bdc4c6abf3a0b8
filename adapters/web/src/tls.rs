//! TLS for the inbox (rustls, `ring` provider): the certificate chain and key
//! from PEM files. The handshakes run in the accept loop ([`crate::serve`]),
//! side by side, each with a time limit and counted against the connection
//! caps, so a slow or silent client never holds up the others.

use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use askuser_app::files::{Links, kind_name, open_without_blocking};

use crate::WebError;

/// The largest PEM file read (a chain of a few certificates is a few KiB).
const MAX_PEM: u64 = 1024 * 1024;

/// A server configuration from a PEM certificate chain and a PEM private key.
pub(crate) fn config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, WebError> {
    let problem = |path: &Path, reason: String| WebError::Tls {
        path: path.display().to_string(),
        reason,
    };
    let chain = CertificateDer::pem_slice_iter(&read_pem(cert, "--tls-cert")?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| problem(cert, format!("not a PEM certificate chain ({e})")))?;
    if chain.is_empty() {
        return Err(problem(
            cert,
            "holds no certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    let private = PrivateKeyDer::from_pem_slice(&read_pem(key, "--tls-key")?)
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

/// The bytes of `path`, given as `option`, only when it is a regular file of at
/// most [`MAX_PEM`]: a FIFO, a device, a socket or a directory is refused before
/// it is opened (a FIFO would hang the start), the file is opened without
/// blocking and looked at again through the handle.
fn read_pem(path: &Path, option: &str) -> Result<Vec<u8>, WebError> {
    use std::io::Read as _;
    let problem = |reason: String| WebError::Tls {
        path: path.display().to_string(),
        reason,
    };
    let cannot = |error: io::Error| problem(format!("cannot be read ({error})"));
    let regular = |metadata: &std::fs::Metadata| {
        if !metadata.is_file() {
            return Err(problem(format!(
                "is {}, not a regular file; give {option} the path of a PEM file",
                kind_name(metadata.file_type())
            )));
        }
        if metadata.len() > MAX_PEM {
            return Err(problem(format!(
                "is larger than 1 MiB ({} bytes), more than a PEM certificate chain or key; give {option} the PEM file itself",
                metadata.len()
            )));
        }
        Ok(())
    };
    regular(&std::fs::metadata(path).map_err(cannot)?)?;
    let file = open_without_blocking(path, Links::Follow).map_err(cannot)?;
    regular(&file.metadata().map_err(cannot)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_PEM + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_PEM {
        return Err(problem(format!(
            "grew past 1 MiB while it was read; give {option} a PEM file that stays as it is"
        )));
    }
    Ok(bytes)
}

/// A TLS client stream to `host` over `tcp`, checked against the Mozilla roots
/// (`webpki-roots`), for `--notify https://…`.
pub(crate) fn client<S: io::Read + io::Write>(
    host: &str,
    tcp: S,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, S>, String> {
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
