//! `spool pwned serve` to curl over HTTP/2: h2c with prior knowledge
//! (and a 304 on revalidation), and TLS with a certificate openssl makes;
//! certificate files it cannot use are named in one line.

use std::process::Command;

use crate::support::serve::*;
use crate::support::Dir;

/// Runs `curl ARGS`; its standard output, or `None` if curl is missing or
/// lacks `feature` (`curl --version`'s features line).
fn curl(feature: &str, args: &[&str]) -> Option<String> {
    let version = Command::new("curl").arg("--version").output().ok()?;
    let features = String::from_utf8_lossy(&version.stdout).to_string();
    if !features
        .lines()
        .any(|l| l.starts_with("Features:") && l.split(' ').any(|f| f == feature))
    {
        eprintln!("skipped: curl has no {feature}");
        return None;
    }
    let out = Command::new("curl")
        .args(["-sS", "--noproxy", "*"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn curl_speaks_http2_with_prior_knowledge_and_revalidates() {
    let dir = Dir::new("serve-curl-h2");
    let (ranges, index) = build_ranges(&dir);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let file = std::fs::read_dir(&ranges)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let prefix = file.file_stem().unwrap().to_str().unwrap().to_string();
    let url = format!("{}/range/{prefix}", served.base);
    let body = dir.0.join("body");
    let Some(out) = curl(
        "HTTP2",
        &[
            "--http2-prior-knowledge",
            "-o",
            path(&body),
            "-D",
            "-",
            "-w",
            "%{http_version}",
            &url,
        ],
    ) else {
        return;
    };
    assert!(out.starts_with("HTTP/2 200"), "{out}");
    assert!(out.ends_with("\n2"), "{out}");
    assert_eq!(std::fs::read(&body).unwrap(), std::fs::read(&file).unwrap());
    let etag = out
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an ETag")
        .trim()
        .to_string();
    let again = curl(
        "HTTP2",
        &[
            "--http2-prior-knowledge",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{http_version}",
            "-H",
            &format!("If-None-Match: {etag}"),
            &url,
        ],
    )
    .unwrap();
    assert_eq!(again, "304 2");
    assert!(served.terminate().success());
}

#[test]
fn tls_serves_curl_over_http2_and_names_files_it_cannot_use() {
    let dir = Dir::new("serve-tls");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let missing = dir.0.join("missing.pem");
    let out = spool(&[
        "pwned",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--sha1",
        path(&index),
    ])
    .args(["--tls-cert", path(&missing), "--tls-key", path(&missing)])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: No such file", path(&missing))),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let (cert, key) = (dir.0.join("cert.pem"), dir.0.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ])
        .args([
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        .args(["-keyout", path(&key), "-out", path(&cert)])
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no openssl to make a certificate");
        return;
    }
    let mut served = Served::start(&[
        "--sha1",
        path(&index),
        "--tls-cert",
        path(&cert),
        "--tls-key",
        path(&key),
    ]);
    assert!(
        served.base.starts_with("https://127.0.0.1:"),
        "{}",
        served.base
    );
    let port = served.base.rsplit(':').next().unwrap().to_string();
    let url = format!(
        "https://localhost:{port}/check/sha1/{}",
        spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-1-3"))
    );
    let resolve = format!("localhost:{port}:127.0.0.1");
    let Some(out) = curl(
        "HTTP2",
        &[
            "--http2",
            "--cacert",
            path(&cert),
            "--resolve",
            &resolve,
            "-w",
            " %{http_version}",
            &url,
        ],
    ) else {
        return;
    };
    assert_eq!(
        out,
        format!("{} 2", spool_pwned::sample::sample_count(1, 3))
    );
    assert!(served.terminate().success());
}
