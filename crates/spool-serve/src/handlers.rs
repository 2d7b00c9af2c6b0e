//! The endpoints. Each reads what it needs from the raw request (path
//! tail, query, headers), answers a malformed request with 400 and a
//! one-line reason, and otherwise builds its response from one index it
//! holds until it returns.
//!
//! Path tails are read as sent, without percent-decoding, as the official
//! service reads them: `/range/%35BAA6` is not a prefix.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_MAX_AGE, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    LAST_MODIFIED, VARY,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use spool_pwned::{HashKind, RangeError};

use crate::query::{kind_name, mode, parse_hash, wants_json};
use crate::router::App;
use crate::{encoding, etag, padding, range};

/// How long clients and caches may keep a range: 31 days, as the official
/// service says. A range's ETag changes when its lines do, so a
/// revalidation after a reload fetches the range only if it changed.
const RANGE_CACHE: HeaderValue = HeaderValue::from_static("public, max-age=2678400");
/// Full hashes and their counts are not for caches: a cache would keep
/// the hash next to its URL. Nor are padded ranges (see [`etag`]).
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const TEXT: HeaderValue = HeaderValue::from_static("text/plain");
const TEXT_UTF8: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");
const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// A status with a one-line reason as its body.
pub(crate) fn reason(status: StatusCode, reason: impl Into<String>) -> Response {
    let mut body = reason.into();
    body.push('\n');
    (status, [(CONTENT_TYPE, TEXT_UTF8)], body).into_response()
}

/// A 500 for a lookup whose block fails its checksum: the index file is
/// damaged, and a count read from it could be wrong. The body is a
/// one-line reason naming the block (not the file's path, which is the
/// server's business); the log line names the file.
fn damaged_index(index: &spool_pwned::AnyIndex, damaged: &spool_pwned::Damaged) -> Response {
    eprintln!("{}: {}: {damaged}", crate::ops::NAME, index.path());
    let spool_pwned::Damaged { block, bytes } = damaged;
    reason(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!(
            "the index is damaged: block {block} (bytes {}..{}) fails its checksum",
            bytes.start, bytes.end
        ),
    )
}

/// A 501 for a range query to an index that holds no whole hashes.
fn unsupported_range(index: &spool_pwned::AnyIndex) -> Response {
    reason(
        StatusCode::NOT_IMPLEMENTED,
        format!(
            "this server's {} index is a {} index, which holds no whole hashes to answer /range with; use /check",
            kind_name(index.kind()),
            index.layout().name()
        ),
    )
}

fn no_index(kind: HashKind) -> Response {
    reason(
        StatusCode::NOT_FOUND,
        format!("this server has no {} index", kind_name(kind)),
    )
}

/// `GET /range/{prefix}[?mode=ntlm]`: the suffixes and counts of every
/// hash starting with the prefix (see [`range`]), with the range's own
/// ETag and `304` for a current copy (see [`etag`]), compressed when the
/// client asks (see [`encoding`]); `Add-Padding: true` appends padding
/// (see [`padding`]) and drops all three.
pub(crate) async fn range(State(app): State<Arc<App>>, request: Request) -> Response {
    let (uri, headers) = (request.uri(), request.headers());
    let tail = uri.path().strip_prefix("/range/").unwrap_or_default();
    let prefix = match range::parse_prefix(tail.as_bytes()) {
        Ok(prefix) => prefix,
        Err(why) => return reason(StatusCode::BAD_REQUEST, why),
    };
    let kind = mode(uri.query());
    let padded = padding::requested(headers.get("add-padding").map(HeaderValue::as_bytes));
    let loaded = app.indexes.get(kind);
    let Some(loaded) = loaded.as_ref() else {
        return no_index(kind);
    };
    let records = match loaded.index().range(prefix) {
        Ok(records) => records,
        Err(RangeError::Damaged(damaged)) => return damaged_index(loaded.index(), &damaged),
        // A t64 or filter index has no whole suffixes: 501 with the reason,
        // never suffixes a client would compare in vain (see docs/pwned.md).
        Err(RangeError::Unsupported(_)) => return unsupported_range(loaded.index()),
    };
    let mut body = Vec::new();
    range::encode(records, &mut body);
    let mut response = if padded {
        padding::pad(&mut body, kind, &mut rand::rng());
        let mut response = ([(CONTENT_TYPE, TEXT)], body).into_response();
        response.headers_mut().insert(CACHE_CONTROL, NO_STORE);
        response
    } else {
        // Each coding is a representation with its own ETag (encoding.rs).
        let coding = encoding::chosen(headers);
        let mut tag = etag::header_of_range(&body);
        if let Some(coding) = coding {
            tag = encoding::etag(&tag, coding);
        }
        let mut response = if etag::none_match_fails(headers, &tag) {
            StatusCode::NOT_MODIFIED.into_response()
        } else if let Some(coding) = coding {
            let body = encoding::compress(&body, coding);
            let coding = HeaderValue::from_static(coding.name());
            ([(CONTENT_TYPE, TEXT), (CONTENT_ENCODING, coding)], body).into_response()
        } else {
            ([(CONTENT_TYPE, TEXT)], body).into_response()
        };
        let out = response.headers_mut();
        out.insert(ETAG, tag);
        out.insert(CACHE_CONTROL, RANGE_CACHE);
        response
    };
    let out = response.headers_mut();
    out.insert(LAST_MODIFIED, loaded.last_modified().clone());
    out.insert(
        VARY,
        HeaderValue::from_static("Add-Padding, Accept-Encoding"),
    );
    out.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// `OPTIONS /range/{prefix}`: the CORS preflight a browser sends before a
/// request with `Add-Padding`, answered as the official service does.
pub(crate) async fn range_preflight() -> Response {
    (
        StatusCode::OK,
        [
            (ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*")),
            (
                ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET"),
            ),
            (
                ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("Add-Padding"),
            ),
            (ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("1728000")),
            (CONTENT_LENGTH, HeaderValue::from_static("0")),
        ],
    )
        .into_response()
}

/// `GET /check/sha1/{hash}`: the hash's count, 0 if absent.
pub(crate) async fn check_sha1(State(app): State<Arc<App>>, request: Request) -> Response {
    check_hash(&app, HashKind::Sha1, &request, "/check/sha1/")
}

/// `GET /check/ntlm/{hash}`: the hash's count, 0 if absent.
pub(crate) async fn check_ntlm(State(app): State<Arc<App>>, request: Request) -> Response {
    check_hash(&app, HashKind::Ntlm, &request, "/check/ntlm/")
}

fn check_hash(app: &App, kind: HashKind, request: &Request, route: &str) -> Response {
    let tail = request.uri().path().strip_prefix(route).unwrap_or_default();
    match parse_hash(kind, tail.as_bytes()) {
        Ok(hash) => count(app, kind, &hash, request.headers()),
        Err(why) => reason(StatusCode::BAD_REQUEST, why),
    }
}

/// `POST /check/plain[?mode=ntlm]`: the count of the password that is the
/// request body (UTF-8, taken exactly as sent). In the body, not the URL:
/// URLs end up in access logs, proxy logs and browser histories.
pub(crate) async fn check_plain(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let (uri, headers) = (parts.uri, parts.headers);
    let limits = app.limits;
    let too_long = || {
        reason(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the password is longer than the {}-byte limit",
                limits.max_body
            ),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.max_body as u64) {
        return too_long();
    }
    let collected = Limited::new(body, limits.max_body).collect();
    let bytes = match tokio::time::timeout(limits.body_timeout, collected).await {
        Err(_) => {
            return reason(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s",
                    limits.body_timeout.as_secs_f64()
                ),
            )
        }
        Ok(Err(e)) if e.is::<LengthLimitError>() => return too_long(),
        Ok(Err(_)) => {
            return reason(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            )
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let Ok(password) = std::str::from_utf8(&bytes) else {
        return reason(StatusCode::BAD_REQUEST, "the password is not valid UTF-8");
    };
    let kind = mode(uri.query());
    count(&app, kind, &kind.hash_password(password), &headers)
}

/// The count of `hash` as text (`12`) or, if the client accepts JSON,
/// `{"count":12}`; from a filter index, which has no counts, a present
/// hash is `probably` or `{"count":null,"probably":true}`.
fn count(app: &App, kind: HashKind, hash: &[u8], headers: &HeaderMap) -> Response {
    let loaded = app.indexes.get(kind);
    let Some(loaded) = loaded.as_ref() else {
        return no_index(kind);
    };
    let answer = match loaded.index().check(hash) {
        Ok(answer) => answer,
        Err(damaged) => return damaged_index(loaded.index(), &damaged),
    };
    let (content_type, body) = match (answer.count(), wants_json(headers)) {
        (Some(count), json) => {
            let mut digits = itoa::Buffer::new();
            let digits = digits.format(count);
            if json {
                (JSON, format!("{{\"count\":{digits}}}"))
            } else {
                (TEXT_UTF8, digits.to_string())
            }
        }
        (None, true) => (JSON, "{\"count\":null,\"probably\":true}".to_string()),
        (None, false) => (TEXT_UTF8, "probably".to_string()),
    };
    (
        [(CONTENT_TYPE, content_type), (CACHE_CONTROL, NO_STORE)],
        body,
    )
        .into_response()
}

/// `GET /healthz`: 200 while the server serves.
pub(crate) async fn healthz() -> Response {
    ([(CONTENT_TYPE, TEXT_UTF8)], "ok\n").into_response()
}

/// `GET /metrics`: see [`crate::metrics`].
pub(crate) async fn metrics(State(app): State<Arc<App>>) -> Response {
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    (
        [(CONTENT_TYPE, HeaderValue::from_static(content_type))],
        app.metrics.encode(),
    )
        .into_response()
}

/// Any other path.
pub(crate) async fn not_found() -> Response {
    reason(
        StatusCode::NOT_FOUND,
        "no such endpoint: GET /range/{prefix}, /check/sha1/{hash}, /check/ntlm/{hash}, \
         /healthz, /metrics; POST /check/plain",
    )
}

/// A known path with the wrong method (the router adds `Allow`).
pub(crate) async fn method_not_allowed() -> Response {
    reason(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this endpoint (see the Allow header)",
    )
}
