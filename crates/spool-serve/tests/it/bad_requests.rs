//! Malformed and unexpected requests: each gets its status and a one-line
//! reason, and the server goes on serving.

use std::time::Duration;

use crate::support::{client, config, raw_exchange, raw_status, sample_index, Dir, Running};
use reqwest::header::ALLOW;
use reqwest::{Method, StatusCode};
use spool_pwned::HashKind;

const SHA1: &str = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8";
const NTLM: &str = "8846F7EAEE8FB117AD06BDD830B7586C";

struct Case {
    method: Method,
    path: String,
    body: Vec<u8>,
    header: Option<(&'static str, String)>,
    status: u16,
    /// The reason line, or a part of it.
    reason: &'static str,
}

fn case(method: Method, path: impl Into<String>, status: u16, reason: &'static str) -> Case {
    Case {
        method,
        path: path.into(),
        body: Vec::new(),
        header: None,
        status,
        reason,
    }
}

fn table() -> Vec<Case> {
    use Method as M;
    let bad_digit = format!("{}g{}", &SHA1[..17], &SHA1[18..]);
    let mut cases = vec![
        case(
            M::GET,
            "/range/ABCD",
            400,
            "the hash prefix must be 5 hex digits, not 4 characters",
        ),
        case(
            M::GET,
            "/range/ABCDEF",
            400,
            "the hash prefix must be 5 hex digits, not 6 characters",
        ),
        case(
            M::GET,
            "/range/ABCDG",
            400,
            "the hash prefix is not hexadecimal",
        ),
        case(
            M::GET,
            "/range/-ABCD",
            400,
            "the hash prefix is not hexadecimal",
        ),
        // Read as sent, like the official service: no percent-decoding.
        case(M::GET, "/range/%41BCDE", 400, "not 7 characters"),
        case(M::GET, "/range/ABC%00", 400, "not 6 characters"),
        case(
            M::GET,
            "/range/ABCDE?mode=ntlm",
            404,
            "this server has no NTLM index",
        ),
        case(M::GET, "/range/", 404, "no such endpoint"),
        case(M::GET, "/range", 404, "no such endpoint"),
        case(M::GET, "/range/ABCDE/", 404, "no such endpoint"),
        case(M::GET, "/range/ABCDE/x", 404, "no such endpoint"),
        case(
            M::GET,
            format!("/check/sha1/{}", &SHA1[..39]),
            400,
            "a SHA-1 hash is 40 hex digits, not 39 characters",
        ),
        case(
            M::GET,
            format!("/check/sha1/{SHA1}0"),
            400,
            "not 41 characters",
        ),
        case(
            M::GET,
            format!("/check/sha1/{bad_digit}"),
            400,
            "the SHA-1 hash is not hexadecimal",
        ),
        case(
            M::GET,
            format!("/check/ntlm/{SHA1}"),
            400,
            "an NTLM hash is 32 hex digits, not 40 characters",
        ),
        case(
            M::GET,
            format!("/check/ntlm/{NTLM}"),
            404,
            "this server has no NTLM index",
        ),
        case(
            M::GET,
            format!("/check/md5/{NTLM}"),
            404,
            "no such endpoint",
        ),
        case(M::GET, "/check/sha1/", 404, "no such endpoint"),
        case(M::GET, "/", 404, "no such endpoint"),
        case(M::GET, "/../../etc/passwd", 404, "no such endpoint"),
        case(M::POST, "/range/ABCDE", 405, "method not allowed"),
        case(M::DELETE, "/check/plain", 405, "method not allowed"),
        case(M::GET, "/check/plain", 405, "method not allowed"),
        case(M::PUT, "/metrics", 405, "method not allowed"),
        case(
            Method::from_bytes(b"BREW").unwrap(),
            "/healthz",
            405,
            "method not allowed",
        ),
        case(M::POST, "/check/plain", 200, ""),
    ];
    cases.push(Case {
        body: vec![b'x'; 4097],
        ..case(
            M::POST,
            "/check/plain",
            413,
            "the password is longer than the 4096-byte limit",
        )
    });
    cases.push(Case {
        body: vec![b'p', 0xFF, b'w'],
        ..case(
            M::POST,
            "/check/plain",
            400,
            "the password is not valid UTF-8",
        )
    });
    cases.push(Case {
        body: b"password".to_vec(),
        ..case(
            M::POST,
            "/check/plain?mode=ntlm",
            404,
            "this server has no NTLM index",
        )
    });
    cases.push(Case {
        header: Some(("x-filler", "a".repeat(10_000))),
        ..case(M::GET, "/range/ABCDE", 431, "")
    });
    cases
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_request_gets_its_status_and_reason() {
    let dir = Dir::new("bad-requests");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 500, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let http = client();
    for case in table() {
        let mut request = http
            .request(case.method.clone(), server.url(&case.path))
            .body(case.body.clone());
        if let Some((name, value)) = &case.header {
            request = request.header(*name, value);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let allow = response.headers().get(ALLOW).cloned();
        let body = response.text().await.unwrap();
        let what = format!("{} {}", case.method, case.path);
        assert_eq!(status.as_u16(), case.status, "{what}: {body}");
        if status.is_client_error() && status != StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE {
            assert!(body.contains(case.reason), "{what}: {body:?}");
            assert_eq!(body.matches('\n').count(), 1, "{what}: one line: {body:?}");
            assert!(body.ends_with('\n'));
        }
        if status == StatusCode::METHOD_NOT_ALLOWED {
            assert!(allow.is_some(), "{what}: 405 names the allowed methods");
        }
    }
    let health = http.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK, "still serving");
    server.stop().await;
}

/// Requests no HTTP client library would send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_http_is_refused_by_the_parser() {
    let dir = Dir::new("broken-http");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 100, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let wait = Duration::from_secs(5);
    for bytes in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET /range/ABCDE HTTP/9.9\r\n\r\n",
        b"GET /range/ABCDE HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"GET /range/ABCDE HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"GET /range/ABC\x00E HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    ] {
        let response = raw_exchange(server.addr, bytes, wait).await;
        let status = raw_status(&response);
        assert!(
            status.is_none_or(|s| (400..500).contains(&s)),
            "{bytes:?}: {}",
            String::from_utf8_lossy(&response)
        );
    }
    // HTTP/1.0 without a Host header is fine.
    let response = raw_exchange(server.addr, b"GET /range/00000 HTTP/1.0\r\n\r\n", wait).await;
    assert_eq!(raw_status(&response), Some(200));
    // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host header.
    for (request, reason) in [
        (
            &b"GET /range/00000 HTTP/1.1\r\nConnection: close\r\n\r\n"[..],
            "an HTTP/1.1 request needs a Host header\n",
        ),
        (
            b"GET /range/00000 HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
            "a request may have only one Host header\n",
        ),
    ] {
        let response = raw_exchange(server.addr, request, wait).await;
        assert_eq!(raw_status(&response), Some(400), "{request:?}");
        assert!(
            response.ends_with(reason.as_bytes()),
            "{}",
            String::from_utf8_lossy(&response)
        );
    }
    let health = client().get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK, "still serving");
    server.stop().await;
}
