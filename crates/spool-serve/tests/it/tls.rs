//! HTTPS through a real client (hyper's, over rustls): a certificate made
//! in the test, ALPN choosing HTTP/2 or HTTP/1.1 as the client offers, the
//! same range bodies and ETags as over plain HTTP; and certificates or
//! keys that cannot be used refused with the file named.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::support::{config, raw_exchange, raw_status, sample_index, Dir, Running};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header::{ETAG, IF_NONE_MATCH};
use hyper::{Request, StatusCode, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::{CertificateDer, ServerName};
use spool_pwned::sample::sample_password;
use spool_pwned::{to_hex, HashKind, Index};
use spool_serve::{Server, TlsFiles};

/// A self-signed certificate for `localhost` and its key, as PEM files.
fn self_signed(dir: &Path, tag: &str) -> (TlsFiles, CertificateDer<'static>) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let files = TlsFiles {
        cert: dir.join(format!("{tag}.crt")),
        key: dir.join(format!("{tag}.key")),
    };
    std::fs::write(&files.cert, made.cert.pem()).unwrap();
    std::fs::write(&files.key, made.signing_key.serialize_pem()).unwrap();
    (files, made.cert.der().clone())
}

/// One GET over TLS offering only `alpn`; the version spoken, the status,
/// the ETag and the body.
async fn get(
    addr: std::net::SocketAddr,
    root: &CertificateDer<'static>,
    alpn: &[u8],
    path: &str,
    if_none_match: Option<&str>,
) -> (Version, StatusCode, Option<String>, Bytes) {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![alpn.to_vec()];
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let stream = tokio_rustls::TlsConnector::from(Arc::new(tls))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(alpn), "negotiated");
    let io = TokioIo::new(stream);
    let mut request = Request::get(format!("https://localhost{path}"));
    if let Some(tag) = if_none_match {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let response = if alpn == b"h2" {
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
        tokio::spawn(connection);
        sender
            .send_request(request.body(Empty::<Bytes>::new()).unwrap())
            .await
            .unwrap()
    } else {
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.unwrap();
        tokio::spawn(connection);
        let request = request.header(hyper::header::HOST, "localhost");
        sender
            .send_request(request.body(Empty::<Bytes>::new()).unwrap())
            .await
            .unwrap()
    };
    let (version, status) = (response.version(), response.status());
    let etag = response
        .headers()
        .get(ETAG)
        .map(|v| v.to_str().unwrap().to_string());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (version, status, etag, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alpn_gives_http2_or_http1_over_tls_with_the_same_answers() {
    let dir = Dir::new("tls");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 2000, 1);
    let (files, root) = self_signed(&dir.0, "server");
    let mut config = config(Some(&sha1), None);
    config.tls = Some(files);
    let server = Running::start(config).await;
    let hash = HashKind::Sha1.hash_password(&sample_password(1, 0));
    let prefix = &to_hex(&hash)[..5];
    let mut want = Vec::new();
    let index = Index::open(&sha1).unwrap();
    spool_serve::range::encode(
        index
            .range(u32::from_str_radix(prefix, 16).unwrap())
            .unwrap(),
        &mut want,
    );
    assert!(!want.is_empty());
    let path = format!("/range/{prefix}");
    for (alpn, version) in [
        (&b"h2"[..], Version::HTTP_2),
        (b"http/1.1", Version::HTTP_11),
    ] {
        let (spoken, status, etag, body) = get(server.addr, &root, alpn, &path, None).await;
        assert_eq!((spoken, status), (version, StatusCode::OK));
        assert_eq!(body, want);
        let etag = etag.expect("an ETag");
        assert_eq!(etag, spool_serve::etag::of_range(&want));
        let (_, status, again, body) = get(server.addr, &root, alpn, &path, Some(&etag)).await;
        assert_eq!(
            (status, again.as_deref()),
            (StatusCode::NOT_MODIFIED, Some(etag.as_str()))
        );
        assert!(body.is_empty());
    }
    // Plain HTTP to the TLS port gets no HTTP answer.
    let plain = raw_exchange(
        server.addr,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        std::time::Duration::from_secs(5),
    )
    .await;
    assert_eq!(raw_status(&plain), None);
    server.stop().await;
}

/// The message of `Server::bind` with these TLS files.
async fn refused(sha1: &Path, cert: PathBuf, key: PathBuf) -> String {
    let mut config = config(Some(sha1), None);
    config.tls = Some(TlsFiles { cert, key });
    match Server::bind(&config).await {
        Ok(_) => panic!("bound with unusable TLS files"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_certificates_and_keys_are_refused_naming_the_file() {
    let dir = Dir::new("tls-refused");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 10, 1);
    let (a, _) = self_signed(&dir.0, "a");
    let (b, _) = self_signed(&dir.0, "b");
    let missing = dir.0.join("missing.pem");
    let text = dir.0.join("text.pem");
    std::fs::write(&text, "not PEM at all\n").unwrap();
    let shown = |p: &Path| p.display().to_string();

    let message = refused(&sha1, missing.clone(), a.key.clone()).await;
    assert!(
        message.starts_with(&shown(&missing)) && message.contains("No such file"),
        "{message}"
    );
    let message = refused(&sha1, a.cert.clone(), missing.clone()).await;
    assert!(message.starts_with(&shown(&missing)), "{message}");
    let message = refused(&sha1, text.clone(), a.key.clone()).await;
    assert_eq!(
        message,
        format!(
            "{}: no PEM certificate (BEGIN CERTIFICATE) in it",
            shown(&text)
        )
    );
    // The certificate given as the key: no key in it.
    let message = refused(&sha1, a.cert.clone(), a.cert.clone()).await;
    assert!(
        message.starts_with(&format!("{}: no PEM private key", shown(&a.cert))),
        "{message}"
    );
    // Another certificate's key.
    let message = refused(&sha1, a.cert.clone(), b.key.clone()).await;
    assert!(
        message.starts_with(&format!("{} and {}: ", shown(&b.key), shown(&a.cert))),
        "{message}"
    );
    // The right pair binds.
    let mut config = config(Some(&sha1), None);
    config.tls = Some(a);
    assert!(Server::bind(&config).await.unwrap().is_tls());
}
