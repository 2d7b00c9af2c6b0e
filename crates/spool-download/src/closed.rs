//! Telling a connection the server closed under a request — normal life
//! for a long download — from a failure of the request.
//!
//! Servers and CDNs recycle connections: HTTP/2 servers send `GOAWAY`
//! after some number of requests (hypercorn after 1,000) or when idle,
//! refusing the streams above its last stream ID; HTTP/1.1 servers answer
//! the last request of a connection with `Connection: close` or close an
//! idle keep-alive connection, sometimes just as a request goes out on
//! it. A request caught so was never answered, and sent again on a new
//! connection it is answered as any other: `fetch.rs` re-sends it at once
//! without counting a failed attempt ([`MAX_RESENDS`] times per range, so
//! that a server closing every connection still fails the download).
//!
//! Only errors before the answer's head count: a body cut after its head
//! is a failed attempt like any other cut.

use std::error::Error;
use std::io;

/// The most times one range is re-sent for free after a connection closed
/// under it; after that, each counts as a failed attempt. A range is
/// caught by a recycled connection at most a few times in a row even when
/// the server recycles every 100 requests with more in flight than that.
pub const MAX_RESENDS: u32 = 16;

/// Whether `e`, the error of sending a request (before any answer), is a
/// connection the server closed or refused the request on, so the request
/// is worth sending again on a new one.
pub(crate) fn closed_under(e: &reqwest::Error) -> bool {
    if e.is_timeout() {
        return false;
    }
    let mut source: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(e) = s.downcast_ref::<h2::Error>() {
            // GOAWAY without an error (a server recycling the connection)
            // or a stream refused unprocessed; a broken connection.
            let quiet = matches!(
                e.reason(),
                Some(h2::Reason::NO_ERROR | h2::Reason::REFUSED_STREAM)
            );
            if quiet || e.is_io() {
                return true;
            }
        }
        if let Some(e) = s.downcast_ref::<hyper::Error>() {
            // "connection closed before message completed": a keep-alive
            // connection closed as the request went out on it.
            if e.is_incomplete_message() || e.is_canceled() || e.is_closed() {
                return true;
            }
        }
        if let Some(e) = s.downcast_ref::<io::Error>() {
            if matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::BrokenPipe
                    | io::ErrorKind::UnexpectedEof
            ) {
                return true;
            }
        }
        source = s.source();
    }
    false
}
