//! One range, fetched until it arrives whole: the request, the checks of
//! the answer, the retries.
//!
//! An attempt fails, and is retried after a pause, when the connection
//! cannot be made or breaks, the request times out, the server answers
//! `429` or `5xx`, or the body is unframed, cut short, too large, badly
//! compressed (`body.rs`) or not a valid range body ([`parse_range_body`]).
//! The pause doubles from
//! [`FIRST_PAUSE`] up to [`LONGEST_PAUSE`], and a random part of it is
//! left out (jitter), so that ranges failed together do not come back
//! together; a `Retry-After` of some seconds is honoured instead, up to
//! [`LONGEST_RETRY_AFTER`]. A range fails the download after
//! `Options::attempts` attempts, and the download fails when the failed
//! attempts of all ranges exceed `Options::error_budget`. Any other answer
//! (`404`, `403`, …) fails at once: retrying will not change it. So does a
//! redirect (`3xx`): the client follows none, or with
//! `Options::follow_redirects` only those to the same range's path
//! (`client.rs`), and a range stored under another range's prefix would
//! be silent loss.
//!
//! A request the server never answered because it closed or recycled the
//! connection (`closed.rs`) is not a failed attempt: it is sent again at
//! once, on a new connection.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ETAG, IF_NONE_MATCH, LOCATION, RETRY_AFTER};
use reqwest::{Client, StatusCode};
use spool_pwned::range_body::{parse_range_body, prefix_hex};
use spool_pwned::HashKind;

use crate::client::{chain, range_url};
use crate::closed::{closed_under, MAX_RESENDS};
use crate::journal::{Frame, Origin, Shape};
use crate::options::{DownloadProgress, Options};
use crate::previous::Previous;
use crate::DownloadError;

/// The pause after a range's first failed attempt.
pub const FIRST_PAUSE: Duration = Duration::from_millis(100);
/// The longest pause between two attempts at a range, without `Retry-After`.
pub const LONGEST_PAUSE: Duration = Duration::from_secs(10);
/// The longest `Retry-After` honoured.
pub const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(300);

/// What the fetching tasks share (the lanes' clients aside).
pub(crate) struct Shared {
    pub opts: Options,
    pub shape: Shape,
    pub previous: Option<Previous>,
    pub progress: Arc<DownloadProgress>,
    /// Failed attempts so far.
    pub failures: AtomicU64,
}

/// Why one attempt failed, and how long to wait before the next.
struct Failure {
    why: String,
    retry_after: Option<Duration>,
    /// The server closed the connection before answering (`closed.rs`).
    closed: bool,
}

impl Failure {
    fn new(why: impl Into<String>) -> Failure {
        Failure {
            why: why.into(),
            retry_after: None,
            closed: false,
        }
    }
}

/// Fetches range `prefix` (or keeps the previous index's, on `304`).
pub(crate) async fn fetch_range(
    shared: Arc<Shared>,
    client: Client,
    prefix: u32,
) -> Result<Frame, DownloadError> {
    let url = range_url(&shared.opts.url, prefix, shared.opts.kind == HashKind::Ntlm);
    let (mut attempt, mut resent) = (0, 0);
    loop {
        attempt += 1;
        let failure = match attempt_once(&shared, &client, prefix, &url).await {
            Ok(Ok(frame)) => return Ok(frame),
            Ok(Err(failure)) if failure.closed && resent < MAX_RESENDS => {
                // Not an attempt: the request was never answered.
                attempt -= 1;
                resent += 1;
                DownloadProgress::add(&shared.progress.resent, 1);
                continue;
            }
            Ok(Err(failure)) => failure,
            Err(fatal) => return Err(fatal),
        };
        let failures = shared.failures.fetch_add(1, Ordering::Relaxed) + 1;
        let range = String::from_utf8_lossy(&prefix_hex(prefix)).into_owned();
        if failures > shared.opts.error_budget {
            return Err(DownloadError::Budget {
                failures,
                range,
                last: failure.why,
            });
        }
        if attempt >= shared.opts.attempts {
            return Err(DownloadError::Range {
                range,
                attempts: attempt,
                last: failure.why,
            });
        }
        DownloadProgress::add(&shared.progress.retries, 1);
        tokio::time::sleep(failure.retry_after.unwrap_or_else(|| pause(attempt))).await;
    }
}

/// The pause after `failed` failed attempts: doubling, capped, with
/// "equal jitter" (between half of it and all of it).
fn pause(failed: u32) -> Duration {
    let full = FIRST_PAUSE
        .saturating_mul(1 << failed.saturating_sub(1).min(16))
        .min(LONGEST_PAUSE);
    let millis = full.as_millis() as u64;
    Duration::from_millis(fastrand::u64(millis / 2..=millis))
}

/// One attempt: `Ok(Ok)` the range, `Ok(Err)` a failure worth retrying,
/// `Err` a failure that ends the download.
async fn attempt_once(
    shared: &Shared,
    client: &Client,
    prefix: u32,
    url: &str,
) -> Result<Result<Frame, Failure>, DownloadError> {
    let etag = shared.previous.as_ref().and_then(|p| p.etags.get(prefix));
    let mut request = client.get(url).timeout(shared.opts.timeout);
    if let Some(tag) = etag {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => {
            return Ok(Err(Failure {
                closed: closed_under(&e),
                ..Failure::new(chain(&e))
            }))
        }
    };
    let status = response.status();
    if status == StatusCode::NOT_MODIFIED {
        if let (Some(previous), Some(tag)) = (&shared.previous, etag) {
            return Ok(Ok(previous.kept(prefix, tag)?));
        }
    }
    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s).min(LONGEST_RETRY_AFTER));
        return Ok(Err(Failure {
            retry_after,
            ..Failure::new(format!("HTTP {status}"))
        }));
    }
    if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
        let range = String::from_utf8_lossy(&prefix_hex(prefix)).into_owned();
        let location = response.headers().get(LOCATION);
        return Err(DownloadError::Redirected {
            range,
            url: response.url().to_string(),
            status: status.to_string(),
            location: location.map_or_else(
                || "nowhere (no Location)".to_string(),
                |l| String::from_utf8_lossy(l.as_bytes()).into_owned(),
            ),
        });
    }
    if status != StatusCode::OK {
        return Err(DownloadError::Refused {
            url: url.to_string(),
            status: status.to_string(),
        });
    }
    let tag = response
        .headers()
        .get(ETAG)
        .map(|v| v.as_bytes().to_vec())
        .unwrap_or_default();
    let body = match crate::body::read(response, &shared.progress).await {
        Ok(body) => body,
        Err(why) => return Ok(Err(Failure::new(why))),
    };
    let shape = shared.shape;
    let mut records = Vec::with_capacity(body.len() / 2);
    let parsed = parse_range_body(shape.kind, prefix, &body, |hash, count| {
        records.extend_from_slice(&hash[2..shape.kept]);
        records.extend_from_slice(&count.to_le_bytes());
    });
    match parsed {
        Ok(seen) => Ok(Ok(Frame {
            prefix,
            hashes: seen.hashes as u32,
            origin: Origin::Fetched,
            etag: tag,
            records,
        })),
        Err(e) => Ok(Err(Failure::new(format!("bad body: {e}")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_cap_with_jitter() {
        for failed in 1..30 {
            let full = FIRST_PAUSE
                .saturating_mul(1 << (failed - 1).min(16))
                .min(LONGEST_PAUSE);
            let p = pause(failed);
            assert!(p <= full && p >= full / 2, "{failed}: {p:?} of {full:?}");
        }
    }
}
