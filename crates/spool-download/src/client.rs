//! The HTTP client: which protocol, which URL for a range.
//!
//! `Options::http1` asks for HTTP/1.1 alone (for proxies that pass nothing
//! else). Otherwise, over TLS (`https://`) rustls offers HTTP/2 and
//! HTTP/1.1 by ALPN and the server picks. In plain text (`http://`) there is nothing to negotiate
//! with, so the first range is asked for with HTTP/2 prior knowledge (h2c,
//! what `spool pwned serve` speaks); if the server answers that in any way
//! but HTTP/2, the download uses HTTP/1.1 (nginx, most static file
//! servers). A server that cannot be connected to at all ends the
//! download at once.
//!
//! HTTP/2 carries a lane's requests (`fetch_lanes.rs`) over one connection, as many at once as
//! the server's `SETTINGS_MAX_CONCURRENT_STREAMS` allows (the client
//! queues the rest); HTTP/1.1 opens one connection per request in flight,
//! reused from the lane's pool.
//!
//! Requests ask for compressed bodies (`body.rs` decodes them; reqwest's
//! own decoding is off, so that the body's framing and bytes are seen as
//! sent). Redirects are not followed ([`same_range`] with
//! `Options::follow_redirects`).

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT_ENCODING};
use reqwest::redirect::Policy;
use reqwest::{Client, StatusCode, Url};

use crate::options::Options;

/// The protocol a download speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/2 (ALPN over TLS or prior knowledge in plain text).
    Http2,
    /// HTTP/1.1.
    Http1,
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Http2 => "HTTP/2",
            Protocol::Http1 => "HTTP/1.1",
        })
    }
}

/// The URL of range `prefix` under `template`: `{prefix}` replaced by the
/// five upper-case hex digits if the template has it, else `/range/PREFIX`
/// appended; `mode=ntlm` added to the query for NTLM.
///
/// # Examples
///
/// ```
/// use spool_download::client::range_url;
/// assert_eq!(range_url("http://localhost:8080", 0x5BAA6, false), "http://localhost:8080/range/5BAA6");
/// assert_eq!(range_url("http://localhost:8080/", 1, true), "http://localhost:8080/range/00001?mode=ntlm");
/// assert_eq!(range_url("http://localhost:8090/{prefix}", 0xABCDE, false), "http://localhost:8090/ABCDE");
/// ```
pub fn range_url(template: &str, prefix: u32, ntlm: bool) -> String {
    let hex = spool_pwned::range_body::prefix_hex(prefix);
    let hex = std::str::from_utf8(&hex).expect("hex digits");
    let mut url = if template.contains("{prefix}") {
        template.replace("{prefix}", hex)
    } else {
        format!("{}/range/{hex}", template.trim_end_matches('/'))
    };
    if ntlm {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str("mode=ntlm");
    }
    url
}

/// Which protocol to speak to `opts`'s server: HTTP/1.1 if asked for
/// (`Options::http1`); over TLS HTTP/2, which ALPN turns into HTTP/1.1 if
/// the server wants; in plain text HTTP/2 if the server answers range
/// `probe` so.
///
/// # Errors
///
/// A message if no client can be built or no connection made.
pub async fn probe(opts: &Options, probe: u32) -> Result<Protocol, String> {
    if opts.http1 {
        return Ok(Protocol::Http1);
    }
    if !opts.url.starts_with("http://") {
        return Ok(Protocol::Http2);
    }
    let h2c = build(opts, Protocol::Http2)?;
    let url = range_url(&opts.url, probe, opts.kind == spool_pwned::HashKind::Ntlm);
    match h2c.get(&url).timeout(opts.timeout).send().await {
        Ok(r) if r.status() != StatusCode::HTTP_VERSION_NOT_SUPPORTED => Ok(Protocol::Http2),
        Err(e) if e.is_connect() => Err(format!("{url}: {}", chain(&e))),
        // Anything else: the server does not speak HTTP/2 in plain text.
        // HTTP/1.1 is not probed: its failures are retried as any range's.
        _ => Ok(Protocol::Http1),
    }
}

/// A client for `opts`'s server speaking `protocol` (in plain text; over
/// TLS, `Http2` offers both and the server picks).
///
/// # Errors
///
/// A message if the client cannot be built.
pub fn build(opts: &Options, protocol: Protocol) -> Result<Client, String> {
    // The process's rustls provider: ring, as spool-serve's. Installing it
    // a second time fails harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut headers = HeaderMap::new();
    if !opts.no_compression {
        headers.insert(
            ACCEPT_ENCODING,
            HeaderValue::from_static(crate::body::ACCEPT),
        );
    }
    let redirects = if opts.follow_redirects {
        Policy::custom(|attempt| match attempt.previous().first() {
            _ if attempt.previous().len() > MAX_REDIRECTS => attempt.error("too many redirects"),
            Some(first) if same_range(first, attempt.url()) => attempt.follow(),
            _ => attempt.stop(),
        })
    } else {
        Policy::none()
    };
    let builder = Client::builder()
        .user_agent(concat!("spool/", env!("CARGO_PKG_VERSION")))
        .default_headers(headers)
        .no_gzip()
        .no_brotli()
        .no_zstd()
        .no_deflate()
        .redirect(redirects)
        .connect_timeout(opts.timeout)
        .pool_max_idle_per_host(opts.concurrency)
        .pool_idle_timeout(Duration::from_secs(30))
        .tcp_nodelay(true);
    let builder = match protocol {
        Protocol::Http1 => builder.http1_only(),
        Protocol::Http2 if opts.url.starts_with("http://") => {
            builder.http2_prior_knowledge().http2_adaptive_window(true)
        }
        Protocol::Http2 => builder,
    };
    builder.build().map_err(|e| format!("HTTP client: {e}"))
}

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 5;

/// Whether a redirect from `from` to `to` stays on the same range: the
/// same path and query, on any host or scheme (a CDN's other name, HTTP
/// to HTTPS). Only such redirects are followed, and only when asked.
///
/// # Examples
///
/// ```
/// use reqwest::Url;
/// use spool_download::client::same_range;
/// let from = Url::parse("http://a.example/range/5BAA6").unwrap();
/// assert!(same_range(&from, &Url::parse("https://b.example/range/5BAA6").unwrap()));
/// assert!(!same_range(&from, &Url::parse("http://a.example/range/5BAA7").unwrap()));
/// assert!(!same_range(&from, &Url::parse("http://a.example/range/5BAA6?mode=ntlm").unwrap()));
/// ```
pub fn same_range(from: &Url, to: &Url) -> bool {
    from.path() == to.path() && from.query() == to.query()
}

/// An error with its causes, one after the other: reqwest's own message
/// alone says only "error sending request".
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
