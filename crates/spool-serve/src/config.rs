//! What the service serves and the limits it holds clients to.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The service's configuration: `spool pwned serve`'s options.
///
/// # Examples
///
/// ```
/// let config = spool_serve::Config {
///     sha1: Some("pwned.idx".into()),
///     ..spool_serve::Config::default()
/// };
/// assert_eq!(config.listen.to_string(), "127.0.0.1:8082");
/// assert!(!config.access_log, "the log would hold hash prefixes: opt in");
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on; port 0 picks a free one.
    pub listen: SocketAddr,
    /// The SHA-1 index (the main corpus), if served.
    pub sha1: Option<PathBuf>,
    /// The NTLM index, if served.
    pub ntlm: Option<PathBuf>,
    /// Reload when an index path is replaced (renamed over), as well as on
    /// SIGHUP.
    pub watch: bool,
    /// Check an index's checksums (reading the whole file) before serving
    /// it, at start and on every reload.
    pub verify: bool,
    /// Write one JSON line per request to standard error. Off by default:
    /// the lines hold hash prefixes and hashes, which narrow down the
    /// passwords being checked.
    pub access_log: bool,
    /// Print no status lines on standard error (what is served, reloads,
    /// watched folders, shutdown); errors and warnings are printed all
    /// the same.
    pub quiet: bool,
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
    /// Speak TLS (HTTPS, HTTP/2 by ALPN) with this certificate and key;
    /// plain HTTP (HTTP/1.1, and HTTP/2 with prior knowledge) if `None`.
    pub tls: Option<TlsFiles>,
    /// What a client may cost.
    pub limits: Limits,
}

/// The PEM files of a TLS server: `--tls-cert` and `--tls-key`.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate chain, the server's certificate first.
    pub cert: PathBuf,
    /// The private key of the server's certificate (PKCS#8, PKCS#1 or
    /// SEC1).
    pub key: PathBuf,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8082)),
            sha1: None,
            ntlm: None,
            watch: false,
            verify: false,
            access_log: false,
            quiet: false,
            threads: None,
            tls: None,
            limits: Limits::default(),
        }
    }
}

/// Limits against slow, large or numerous requests: every resource a
/// client can hold — a connection slot, time, memory — is bounded by one
/// of these.
///
/// Worst case, every slot taken by a hostile client: an HTTP/1.1
/// connection holds at most `max_header_bytes` of read buffer and one
/// response; an HTTP/2 connection at most `max_streams` requests (headers
/// of at most `max_header_bytes` each, 256 KiB of request body data in
/// all) and their responses (one range body each, about 45 bytes per hash
/// of the range: some 40 KiB for the full corpus). No slot is held longer
/// than it takes the client to be served within these times.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once. Each holds a task and its buffers;
    /// further connections wait in the kernel's accept backlog until one
    /// closes. 512 by default: below the usual 1,024 open-file limit, far
    /// above what a few application servers with connection pools need.
    pub max_connections: usize,
    /// Time a client has to send a request's headers, counted from the
    /// connection's start or the end of the previous response — so it also
    /// closes idle keep-alive connections, which would otherwise hold a
    /// connection slot forever (slowloris). The same for a TLS handshake,
    /// for the first bytes that tell HTTP/1.1 from HTTP/2, and for an
    /// HTTP/2 connection with no request open (closed with GOAWAY). 10 s
    /// by default.
    pub header_timeout: Duration,
    /// Time a client has to send a request body (`POST /check/plain`) once
    /// its headers are in; 408 after. 10 s by default.
    pub body_timeout: Duration,
    /// Time a client has to take what the server sends: once a write finds
    /// the socket full, the connection is cut if the server's pending
    /// output is not all accepted within it (a client that sends requests
    /// and never reads the responses). For HTTP/2, also the time a
    /// response may wait for the client's flow-control window, after the
    /// body timeout. 10 s by default: a response is a few kilobytes, which
    /// any client that reads at all takes in far less.
    pub write_timeout: Duration,
    /// HTTP/2 streams (requests) open at once on one connection; the
    /// client's further requests are refused until some end. 100 by
    /// default, the minimum RFC 9113 recommends: enough for a downloader
    /// to keep a long link busy over one connection.
    pub max_streams: u32,
    /// Largest request body: a password. 4 KiB by default — longer than
    /// any passphrase, short enough that buffering it costs nothing; 413
    /// beyond.
    pub max_body: usize,
    /// Largest request head (request line and headers; for HTTP/2, the
    /// header list). 8 KiB by default (what most servers accept); 431
    /// beyond.
    pub max_header_bytes: usize,
    /// On shutdown, how long in-flight requests may take before their
    /// connections are cut. 10 s by default.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_streams: 100,
            max_body: 4096,
            max_header_bytes: 8192,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}
