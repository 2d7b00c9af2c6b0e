//! One client connection, from the accepted socket to its close: TLS if
//! configured, the write deadline, HTTP/1.1 or HTTP/2, the watchdog, and
//! a polite close on idleness or shutdown.
//!
//! ```text
//!  TcpStream ─► WriteDeadline ─► [TLS handshake, within header_timeout]
//!      ─► hyper-util auto: HTTP/2 if the client's first bytes are the
//!         HTTP/2 preface (h2c prior knowledge, or after ALPN `h2`),
//!         HTTP/1.1 otherwise
//!      ─► the router, each response body carrying its watchdog guard
//! ```
//!
//! The connection ends when the client closes it, when the watchdog says
//! it is stalled (cut at once) or idle, or at shutdown (both: GOAWAY or
//! `Connection: close` after the requests in flight, within
//! `body_timeout + write_timeout`).

use std::convert::Infallible;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::Router;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::{Request, Version};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tower::ServiceExt as _;

use crate::router::Peer;
use crate::watchdog::{Expiry, Open, Watchdog};
use crate::write_deadline::WriteDeadline;
use crate::Limits;

/// HTTP/2: the window each stream and the whole connection grant the
/// client for request bodies (a password of at most `--max-body`). The
/// connection's bounds what a client can make the server buffer.
const STREAM_WINDOW: u32 = 64 * 1024;
const CONNECTION_WINDOW: u32 = 256 * 1024;

/// The HTTP/1.1 and HTTP/2 settings of every connection, from the limits.
pub(crate) fn protocols(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // The read buffer holds one head at most (hyper answers 431
        // beyond it) and the body streams through it: a client pipelining
        // requests without reading responses waits, it does not grow the
        // buffer. hyper's floor is 8 KiB.
        .max_buf_size(limits.max_header_bytes.max(8192));
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_streams)
        .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX))
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW);
    builder
}

/// What every connection of a server shares.
pub(crate) struct Shared {
    pub router: Router,
    pub protocols: auto::Builder<TokioExecutor>,
    pub tls: Option<tokio_rustls::TlsAcceptor>,
    pub limits: Limits,
}

/// Serves one accepted connection until it ends (see the module docs).
/// `stop` turns true at shutdown.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    stream: TcpStream,
    peer: Option<Peer>,
    stop: watch::Receiver<bool>,
) {
    let limits = shared.limits;
    let stream = WriteDeadline::new(stream, limits.write_timeout);
    match &shared.tls {
        None => drive(&shared, stream, peer, stop).await,
        Some(acceptor) => {
            let handshake = acceptor.accept(stream);
            // A client that starts a handshake and stalls holds a slot
            // like one that sends no request: the same limit.
            if let Ok(Ok(stream)) = tokio::time::timeout(limits.header_timeout, handshake).await {
                drive(&shared, stream, peer, stop).await;
            }
        }
    }
}

async fn drive<I>(shared: &Shared, io: I, peer: Option<Peer>, mut stop: watch::Receiver<bool>)
where
    I: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let limits = shared.limits;
    let response_limit = limits.body_timeout + limits.write_timeout;
    let watchdog = Watchdog::new(limits.header_timeout, response_limit);
    let service = {
        let (watchdog, router) = (Arc::clone(&watchdog), shared.router.clone());
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let open = if request.version() == Version::HTTP_2 {
                Some(watchdog.open())
            } else {
                watchdog.http1();
                None
            };
            // Only the access log wants the peer: without it, no request
            // pays for an extension map.
            if let Some(peer) = peer {
                request.extensions_mut().insert(peer);
            }
            let response = router.clone().oneshot(request);
            async move {
                let response = response.await?;
                Ok::<_, Infallible>(response.map(|body| Tracked { body, _open: open }))
            }
        })
    };
    let mut connection = pin!(shared.protocols.serve_connection(TokioIo::new(io), service));
    // A client that goes away mid-request is its own business.
    let expired = tokio::select! {
        biased;
        _ = connection.as_mut() => return,
        _ = stop.wait_for(|stop| *stop) => None,
        why = watchdog.expired() => why,
    };
    match expired {
        Some(Expiry::Stalled) => return,
        Some(Expiry::Idle) => {}
        // HTTP/1: the watchdog is done (see watchdog.rs); shutdown only.
        None if !*stop.borrow() => tokio::select! {
            biased;
            _ = connection.as_mut() => return,
            _ = stop.wait_for(|stop| *stop) => {}
        },
        None => {}
    }
    connection.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(response_limit, connection).await;
}

/// A response body that holds its request's watchdog guard (HTTP/2) until
/// hyper has taken it whole and dropped it.
pub(crate) struct Tracked {
    body: Body,
    _open: Option<Open>,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
