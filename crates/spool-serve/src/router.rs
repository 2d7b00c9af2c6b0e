//! Routes, and the layer that observes every request: metrics and the
//! optional access log.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::HttpBody as _;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::HOST;
use axum::http::{StatusCode, Version};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::access_log::{AccessLog, Entry};
use crate::handlers;
use crate::metrics::{Endpoint, Metrics};
use crate::{Indexes, Limits};

/// What the handlers share.
pub(crate) struct App {
    pub indexes: Indexes,
    pub metrics: Metrics,
    pub limits: Limits,
    pub access_log: Option<AccessLog>,
}

/// The client's address, set on each request by the connection that
/// carried it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peer(pub SocketAddr);

/// The service's routes over `app`.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(
            "/range/{prefix}",
            get(handlers::range).options(handlers::range_preflight),
        )
        .route("/check/sha1/{hash}", get(handlers::check_sha1))
        .route("/check/ntlm/{hash}", get(handlers::check_ntlm))
        .route("/check/plain", post(handlers::check_plain))
        .route("/healthz", get(handlers::healthz))
        .route("/metrics", get(handlers::metrics))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), observe))
        .with_state(app)
}

/// RFC 9112 §3.2: an HTTP/1.1 request without a `Host` field, or with
/// more than one, gets `400`. (HTTP/1.0 has no such rule; an HTTP/2
/// request names its authority in the `:authority` pseudo-header.)
fn missing_host(request: &Request) -> Option<Response> {
    if request.version() != Version::HTTP_11 {
        return None;
    }
    let mut hosts = request.headers().get_all(HOST).iter();
    let why = match (hosts.next(), hosts.next()) {
        (None, _) => "an HTTP/1.1 request needs a Host header",
        (Some(_), Some(_)) => "a request may have only one Host header",
        (Some(_), None) => return None,
    };
    Some(handlers::reason(StatusCode::BAD_REQUEST, why))
}

/// Refuses an HTTP/1.1 request without one Host header; counts the request
/// by endpoint and status, times it, and logs it if the access log is on.
/// (One layer for all of it: each layer costs every request a boxed
/// future.)
async fn observe(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let route = request.extensions().get::<MatchedPath>();
    let endpoint = Endpoint::of_route(route.map(MatchedPath::as_str));
    // Only with the log on: the method and target outlive the request.
    let logged = app.access_log.as_ref().map(|_| {
        let peer = request.extensions().get::<Peer>().map(|p| p.0);
        let target = request
            .uri()
            .path_and_query()
            .map_or_else(|| "/".to_string(), ToString::to_string);
        (peer, request.method().clone(), target)
    });
    let response = match missing_host(&request) {
        Some(refused) => refused,
        None => next.run(request).await,
    };
    let elapsed = start.elapsed();
    let status = response.status().as_u16();
    app.metrics.request(endpoint, status, elapsed);
    if let (Some(log), Some((peer, method, target))) = (&app.access_log, logged) {
        let entry = Entry {
            peer,
            method: method.as_str(),
            target: &target,
            status,
            bytes: response.body().size_hint().exact(),
            elapsed,
        };
        if !log.log(&entry) {
            app.metrics.access_log_dropped();
        }
    }
    response
}
