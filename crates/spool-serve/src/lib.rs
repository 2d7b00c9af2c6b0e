//! A self-hosted Pwned Passwords service over spool pwned indexes: the
//! official k-anonymity range API (`GET /range/{prefix}`, byte for byte
//! what api.pwnedpasswords.com answers, padding included), direct counts
//! (`GET /check/sha1/{hash}`, `GET /check/ntlm/{hash}`,
//! `POST /check/plain`), `/healthz` and `/metrics`.
//!
//! Sign-up and login code wants "was this password pwned?" from a local
//! copy of the data, existing clients already speak the official range
//! API, and mirrors revalidate ranges by their ETags, so the service
//! speaks all of it; the index answers from a memory map in microseconds,
//! which leaves HTTP as the whole cost.
//!
//! ```text
//!  TcpListener ── accept: at most `max_connections` at once (the rest wait
//!      │          in the kernel's backlog)
//!      ▼
//!  WriteDeadline ── a client that does not take what is sent within
//!      │            `write_timeout` is cut (write_deadline.rs)
//!  [TLS: rustls, ALPN h2 / http/1.1, handshake within header_timeout]
//!      ▼
//!  hyper HTTP/1.1 ── header read timeout (also bounds idle keep-alive),
//!   or HTTP/2        head size cap → 431; HTTP/2: streams, header list
//!      │             and windows capped, idle and stalled connections
//!      │             closed by the watchdog (watchdog.rs)
//!      ▼
//!  axum Router ── observe: metrics, access log; Host required (HTTP/1.1)
//!      │   ├── /range/{prefix} ─── range::encode, etag / 304, padding::pad
//!      │   ├── /check/...      ─── Index::lookup
//!      │   └── 404 / 405 with a one-line reason
//!      ▼
//!  Indexes (one ArcSwap per hash kind) ◄── reload: SIGHUP, --watch
//! ```
//!
//! - [`range`], [`etag`] and [`padding`] are sans-IO: records in, bytes
//!   and headers out.
//! - [`Indexes`] holds the open indexes; a reload opens the new files
//!   first and swaps each in with one atomic store, so a request sees the
//!   old index or the new one, never a failure; the old map is unmapped
//!   when its last request ends.
//! - [`Server`] accepts connections and serves them until its shutdown
//!   future completes, then lets in-flight requests finish.
//! - [`run`] is the whole service as `spool pwned serve` runs it: a
//!   runtime, signals (SIGTERM and Ctrl-C stop, SIGHUP reloads) and the
//!   optional watch of the index files.
//!
//! # Bounds
//!
//! Every limit a hostile client could push on is in [`Limits`], with the
//! reason for its default: connections, header bytes and time, body bytes
//! and time, the time to take a response, HTTP/2 streams. Nothing a
//! request says changes how much memory the server allocates beyond one
//! range body per request in flight (about 45 bytes per hash of the range,
//! 1,000 or so for the full corpus), and no connection keeps its slot
//! without making progress for longer than these times.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod access_log;
mod config;
mod connection;
pub mod encoding;
mod error;
pub mod etag;
mod handlers;
mod indexes;
mod metrics;
mod ops;
pub mod padding;
mod query;
pub mod range;
mod router;
mod server;
mod tls;
mod watch;
mod watchdog;
mod write_deadline;

pub use config::{Config, Limits, TlsFiles};
pub use error::ServeError;
pub use indexes::{Indexes, LoadError, Loaded};
pub use ops::run;
pub use server::{Handle, Server};
pub use tls::TlsError;
