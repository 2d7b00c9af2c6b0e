//! Why the service could not start.

use std::net::SocketAddr;

use crate::LoadError;

/// Why the service could not start (once it serves, nothing stops it but
/// a shutdown: a failed reload keeps the previous index).
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Neither a SHA-1 nor an NTLM index was given.
    #[error("no index to serve: give a SHA-1 index, an NTLM index, or both")]
    NoIndex,
    /// The TLS certificate or key could not be used.
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    /// An index could not be opened.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// The error.
        source: std::io::Error,
    },
    /// The runtime or its signal handlers could not be set up.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// An index's folder could not be watched.
    #[error("cannot watch {path}: {source}")]
    Watch {
        /// The folder.
        path: String,
        /// The error.
        source: notify::Error,
    },
}
