//! Arbitrary requests through the service's routes, in process: any
//! method, path, query, headers, body and HTTP version, with or without a
//! Host header and a revalidation. The service must answer every one
//! without panicking, with a status from its known set, a one-line reason
//! for every client error it writes, and — for a well-formed range or
//! hash — exactly what the index holds: the range's lines and its ETag
//! (XXH3-64 of the unpadded body), a `304` with no body only for a
//! current copy, and `400` for an HTTP/1.1 request without one Host.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use axum::body::Body;
use axum::http::{Request, Version};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use spool_pwned::{HashKind, Index, IndexWriter};
use tower::ServiceExt;

#[derive(Arbitrary, Debug)]
struct Input {
    method: Vec<u8>,
    /// Appended to one of a few prefixes, so most inputs reach a route.
    route: u8,
    path: Vec<u8>,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
    /// 0: HTTP/1.1, 1: HTTP/1.0, 2: HTTP/2.
    version: u8,
    /// Adds `Host: localhost` (HTTP/1.1 needs exactly one).
    host: bool,
    /// Adds `If-None-Match` with the range's current ETag, weak or not.
    revalidate: Option<bool>,
}

const ROUTES: [&str; 6] = [
    "/range/",
    "/check/sha1/",
    "/check/ntlm/",
    "/check/plain",
    "/",
    "",
];

struct Fixture {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    index: Index,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("spool-fuzz-serve-{}", std::process::id()));
        let mut writer = IndexWriter::create(&path, HashKind::Sha1).unwrap();
        let mut keys: Vec<Vec<u8>> = (0..3000)
            .map(|i| HashKind::Sha1.hash_password(&format!("p{i}")))
            .collect();
        keys.sort();
        for (i, key) in keys.iter().enumerate() {
            writer.push(key, i as u32 + 1).unwrap();
        }
        writer.finish().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let config = spool_serve::Config {
            listen: ([127, 0, 0, 1], 0).into(),
            sha1: Some(path.clone()),
            ..Default::default()
        };
        let server = runtime
            .block_on(spool_serve::Server::bind(&config))
            .unwrap();
        let router = server.router();
        // The map stays valid after the name is gone.
        let index = Index::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        Fixture {
            runtime,
            router,
            index,
        }
    })
}

/// The ETag of the range `target` names, if it is a well-formed range
/// path of the SHA-1 index.
fn current_etag(index: &Index, target: &str) -> Option<String> {
    let prefix = target.strip_prefix("/range/")?;
    let prefix = prefix.split_once('?').map_or(prefix, |(p, _)| p);
    let prefix = spool_serve::range::parse_prefix(prefix.as_bytes()).ok()?;
    let mut body = Vec::new();
    spool_serve::range::encode(index.range(prefix).ok()?, &mut body);
    Some(spool_serve::etag::of_range(&body))
}

fuzz_target!(|input: Input| {
    let fixture = fixture();
    let mut target = ROUTES[usize::from(input.route) % ROUTES.len()]
        .as_bytes()
        .to_vec();
    target.extend_from_slice(&input.path);
    let Ok(target) = String::from_utf8(target) else {
        return;
    };
    let version = match input.version % 3 {
        0 => Version::HTTP_11,
        1 => Version::HTTP_10,
        _ => Version::HTTP_2,
    };
    let mut builder = Request::builder()
        .method(&input.method[..])
        .uri(&target)
        .version(version);
    if input.host {
        builder = builder.header("host", "localhost");
    }
    let current = current_etag(&fixture.index, &target);
    if let (Some(weak), Some(etag)) = (input.revalidate, &current) {
        let tag = if weak {
            format!("W/{etag}")
        } else {
            etag.clone()
        };
        builder = builder.header("if-none-match", tag);
    }
    for (name, value) in &input.headers {
        builder = builder.header(&name[..], &value[..]);
    }
    // What hyper would refuse before routing, a client library would never send.
    let Ok(request) = builder.body(Body::from(input.body.clone())) else {
        return;
    };
    let (method, uri) = (request.method().clone(), request.uri().clone());
    let padded = request
        .headers()
        .get("add-padding")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
    let hosts = request.headers().get_all("host").iter().count();
    let conditional = request.headers().contains_key("if-none-match");
    let response = fixture.runtime.block_on(async {
        let response = fixture.router.clone().oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        (parts, body.collect().await.unwrap().to_bytes())
    });
    let (parts, body) = response;
    let status = parts.status.as_u16();
    assert!(
        [200, 304, 400, 404, 405, 408, 413].contains(&status),
        "{status} for {method} {uri}"
    );
    if (400..500).contains(&status) && status != 408 {
        assert!(
            body.ends_with(b"\n") && body.iter().filter(|&&b| b == b'\n').count() == 1,
            "{body:?}"
        );
    }
    if version == Version::HTTP_11 && hosts != 1 {
        assert_eq!(status, 400, "HTTP/1.1 with {hosts} Host headers");
        return;
    }
    if status == 304 {
        assert!(conditional && !padded && body.is_empty(), "{method} {uri}");
        assert_eq!(
            parts
                .headers
                .get("etag")
                .map(|v| v.to_str().unwrap().to_string()),
            current
        );
        return;
    }
    if input.revalidate.is_some() && current.is_some() && !padded && method == "GET" {
        assert_ne!(status, 200, "a current copy revalidated: {uri}");
    }
    if status != 200 || method != "GET" {
        return;
    }
    let path = uri.path();
    if let Some(prefix) = path.strip_prefix("/range/") {
        let prefix = u32::from_str_radix(prefix, 16).expect("a 200 range has a hex prefix");
        let mut want = Vec::new();
        spool_serve::range::encode(fixture.index.range(prefix).unwrap(), &mut want);
        assert!(if padded {
            body.starts_with(&want)
        } else {
            body == want[..]
        });
        let etag = parts
            .headers
            .get("etag")
            .map(|v| v.to_str().unwrap().to_string());
        assert_eq!(etag, (!padded).then(|| spool_serve::etag::of_range(&want)));
    } else if let Some(hex) = path.strip_prefix("/check/sha1/") {
        let mut hash = [0u8; 20];
        assert!(spool_pwned::text::hex::decode(hex.as_bytes(), &mut hash).is_ok());
        let count = fixture.index.lookup(&hash).unwrap().unwrap_or(0);
        let text = count.to_string();
        assert!(body == text.as_bytes() || body == format!("{{\"count\":{text}}}").as_bytes());
    }
});
