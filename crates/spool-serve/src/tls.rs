//! `--tls-cert` / `--tls-key`: HTTPS with rustls, HTTP/2 chosen by ALPN.
//!
//! Clients may refuse plain HTTP (a downloader pointed at a mirror across
//! a network should), so the service can speak TLS itself instead of
//! needing a proxy in front. The certificate chain and the private key
//! are PEM files, read once at start; rustls (with the ring provider)
//! offers TLS 1.3 and 1.2 and ALPN `h2` then `http/1.1`, so a client that
//! speaks HTTP/2 gets it and any other gets HTTP/1.1.
//!
//! Every failure names the file it concerns: unreadable, no PEM item of
//! the kind expected, or a key that does not belong to the certificate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;

/// Why the certificate or key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file holds no PEM item of the kind needed, or a malformed one.
    #[error("{}: {what}", path.display())]
    Pem {
        /// The file.
        path: PathBuf,
        /// What was expected, and what went wrong.
        what: String,
    },
    /// rustls refused the pair (the key does not match the certificate,
    /// or is of a kind it cannot sign with).
    #[error("{} and {}: {source}", key.display(), cert.display())]
    Pair {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// rustls's reason.
        source: rustls::Error,
    },
}

/// The ALPN protocols offered, in order of preference.
pub(crate) const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// A rustls server configuration from a PEM certificate chain (the
/// server's certificate first) and a PEM private key (PKCS#8, PKCS#1 or
/// SEC1).
///
/// # Errors
///
/// A [`TlsError`] naming the file that could not be used.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, TlsError> {
    let cert_pem = read(cert)?;
    let chain = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_error(cert, "a PEM certificate", &e))?;
    if chain.is_empty() {
        return Err(TlsError::Pem {
            path: cert.to_path_buf(),
            what: "no PEM certificate (BEGIN CERTIFICATE) in it".into(),
        });
    }
    let key_pem = read(key)?;
    let private_key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => TlsError::Pem {
            path: key.to_path_buf(),
            what: "no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY) in it"
                .into(),
        },
        e => pem_error(key, "a PEM private key", &e),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_no_client_auth()
        .with_single_cert(chain, private_key)
        .map_err(|source| TlsError::Pair {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            source,
        })?;
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn pem_error(path: &Path, expected: &str, e: &rustls::pki_types::pem::Error) -> TlsError {
    TlsError::Pem {
        path: path.to_path_buf(),
        what: format!("not {expected}: {e}"),
    }
}
