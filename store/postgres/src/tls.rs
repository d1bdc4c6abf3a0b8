//! TLS to PostgreSQL, as libpq reads it from the connection URL: `sslmode`
//! (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`) and
//! `sslrootcert` (a PEM file of the certificates to trust, or `system`), on
//! rustls with the `ring` provider.
//!
//! | `sslmode`     | TLS                    | the server's certificate                          |
//! |---------------|------------------------|---------------------------------------------------|
//! | `disable`     | never                  |                                                   |
//! | `prefer`      | when the server offers | not checked (libpq's default)                     |
//! | `require`     | always                 | not checked; with `sslrootcert`, as `verify-ca`   |
//! | `verify-ca`   | always                 | signed by a trusted root                          |
//! | `verify-full` | always                 | signed by a trusted root, and names the host      |
//!
//! The trusted roots are `sslrootcert`'s, or the system's (its CA store, read
//! with rustls-native-certs) when it is absent or `system`. A Unix socket is
//! never encrypted (as libpq: the socket is local).

use std::io::Read as _;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// The largest `sslrootcert` file read.
const MAX_PEM: u64 = 1024 * 1024;

/// What `sslmode` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "disable" => Self::Disable,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            _ => return None,
        })
    }
}

/// The TLS settings of a connection URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Settings {
    pub(super) mode: Mode,
    /// `sslrootcert`: a file, or `system`.
    pub(super) root: Option<String>,
}

/// `url` without its `sslmode` and `sslrootcert` (which the client library does
/// not read as libpq does), and the settings they give. A wrong value is an
/// error in words.
pub(super) fn split(url: &str) -> Result<(String, Settings), String> {
    let mut mode = None;
    let mut root = None;
    let mut take = |key: &str, value: String| -> Result<bool, String> {
        match key {
            "sslmode" => {
                mode = Some(Mode::parse(&value).ok_or_else(|| {
                    format!("sslmode={value} is not a mode: write disable, prefer, require, verify-ca or verify-full (verify-full is recommended)")
                })?);
                Ok(true)
            }
            "sslrootcert" => {
                root = Some(value);
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let rest = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        match url.split_once('?') {
            Some((base, query)) => {
                let mut kept = Vec::new();
                for param in query.split('&') {
                    let (key, value) = param.split_once('=').unwrap_or((param, ""));
                    if !take(key, percent_decode(value))? {
                        kept.push(param);
                    }
                }
                if kept.is_empty() {
                    base.to_owned()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
            None => url.to_owned(),
        }
    } else {
        let mut kept = Vec::new();
        for (key, value, raw) in pairs(url) {
            if !take(&key, value)? {
                kept.push(raw);
            }
        }
        kept.join(" ")
    };
    Ok((
        rest,
        Settings {
            mode: mode.unwrap_or(Mode::Prefer),
            root,
        },
    ))
}

/// `%XX` sequences decoded (a path in a URL's query is percent-encoded).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `key=value` pairs of a libpq connection string: each key, its value
/// (unquoted), and the pair as written.
fn pairs(text: &str) -> Vec<(String, String, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_space(&mut i);
        if i >= chars.len() {
            return out;
        }
        let start = i;
        while i < chars.len() && chars[i] != '=' && !chars[i].is_whitespace() {
            i += 1;
        }
        let key: String = chars[start..i].iter().collect();
        skip_space(&mut i);
        if chars.get(i) == Some(&'=') {
            i += 1;
        }
        skip_space(&mut i);
        let mut value = String::new();
        if chars.get(i) == Some(&'\'') {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
            i += 1;
        } else {
            while i < chars.len() && !chars[i].is_whitespace() {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
        }
        let raw: String = chars[start..i.min(chars.len())].iter().collect();
        out.push((key, value, raw));
    }
}

/// The rustls configuration for `settings`, or `None` for `sslmode=disable`.
pub(super) fn client_config(settings: &Settings) -> Result<Option<rustls::ClientConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match (settings.mode, &settings.root) {
        (Mode::Disable, _) => return Ok(None),
        (Mode::Prefer, _) | (Mode::Require, None) => Arc::new(Unchecked(Arc::clone(&provider))),
        (Mode::Require | Mode::VerifyCa, Some(_)) | (Mode::VerifyCa, None) => {
            Arc::new(ChainOnly(webpki(settings, &provider)?))
        }
        (Mode::VerifyFull, _) => webpki(settings, &provider)?,
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(config))
}

/// The standard verifier (chain and name) over the trusted roots.
fn webpki(
    settings: &Settings,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    let roots = roots(settings.root.as_deref())?;
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider))
        .build()
        .map_err(|e| format!("the trusted roots cannot be used ({e})"))
}

/// The roots of `sslrootcert` (a PEM file), or the system's.
fn roots(root: Option<&str>) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match root {
        None | Some("system") => {
            let found = rustls_native_certs::load_native_certs();
            for cert in found.certs {
                let _ = store.add(cert);
            }
            if store.is_empty() {
                return Err("the system has no trusted root certificates to check the server's with: give sslrootcert=FILE (a PEM file of the CA that signed the server's certificate)".into());
            }
        }
        Some(path) => {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("sslrootcert={path} cannot be read ({e})"))?;
            let mut bytes = Vec::new();
            file.take(MAX_PEM + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| format!("sslrootcert={path} cannot be read ({e})"))?;
            if bytes.len() as u64 > MAX_PEM {
                return Err(format!(
                    "sslrootcert={path} is larger than 1 MiB: not a PEM file of certificates"
                ));
            }
            for cert in CertificateDer::pem_slice_iter(&bytes) {
                let cert = cert.map_err(|e| {
                    format!("sslrootcert={path} is not a PEM file of certificates ({e})")
                })?;
                store.add(cert).map_err(|e| {
                    format!("sslrootcert={path} holds a certificate that cannot be a root ({e})")
                })?;
            }
            if store.is_empty() {
                return Err(format!(
                    "sslrootcert={path} holds no certificate (-----BEGIN CERTIFICATE-----)"
                ));
            }
        }
    }
    Ok(store)
}

/// `sslmode=prefer` and `require` without roots: encrypted, the certificate
/// not checked (the handshake's signatures still are).
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `sslmode=verify-ca`: the chain must lead to a trusted root; the name is not
/// checked.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(mode: Mode, root: Option<&str>) -> Settings {
        Settings {
            mode,
            root: root.map(str::to_owned),
        }
    }

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_of_urls_and_connection_strings() {
        assert_eq!(
            split(
                "postgres://u@h:5432/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.crt&application_name=x"
            ),
            Ok((
                "postgres://u@h:5432/db?application_name=x".into(),
                settings(Mode::VerifyFull, Some("/tmp/ca.crt"))
            ))
        );
        assert_eq!(
            split("postgres://u@h/db?sslmode=disable"),
            Ok(("postgres://u@h/db".into(), settings(Mode::Disable, None)))
        );
        assert_eq!(
            split("postgres://u@h/db"),
            Ok(("postgres://u@h/db".into(), settings(Mode::Prefer, None)))
        );
        assert_eq!(
            split("host=h user=u sslmode = verify-ca sslrootcert='/a b/ca.pem' dbname=d"),
            Ok((
                "host=h user=u dbname=d".into(),
                settings(Mode::VerifyCa, Some("/a b/ca.pem"))
            ))
        );
        assert_eq!(
            split("postgres://u@h/db?sslmode=verify"),
            Err("sslmode=verify is not a mode: write disable, prefer, require, verify-ca or verify-full (verify-full is recommended)".into())
        );
    }

    #[test]
    fn a_root_file_that_is_missing_empty_or_not_pem_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let missing = dir.path().join("missing.pem");
        for (path, says) in [
            (&empty, "holds no certificate (-----BEGIN CERTIFICATE-----)"),
            (
                &missing,
                "cannot be read (No such file or directory (os error 2))",
            ),
        ] {
            let path = path.to_str().unwrap();
            let error = client_config(&settings(Mode::VerifyFull, Some(path))).unwrap_err();
            assert_eq!(error, format!("sslrootcert={path} {says}"));
        }
        assert!(
            client_config(&settings(Mode::Disable, None))
                .unwrap()
                .is_none()
        );
        assert!(
            client_config(&settings(Mode::Require, None))
                .unwrap()
                .is_some()
        );
    }
}
