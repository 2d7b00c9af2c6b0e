//! `/check`, `/healthz` and `/metrics` through a real HTTP client: counts
//! equal to `Index::lookup` (text, JSON, and `POST /check/plain`), health,
//! and metrics after known requests. Ranges: `ranges.rs`; ETags:
//! `etags.rs`.

use crate::support::{client, config, sample_index, Dir, Running};
use reqwest::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use reqwest::StatusCode;
use spool_pwned::sample::{sample_count, sample_password};
use spool_pwned::{to_hex, HashKind, Index};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_equal_index_lookup_for_present_and_absent_hashes() {
    let dir = Dir::new("counts");
    let (sha1_path, ntlm_path) = (dir.0.join("sha1"), dir.0.join("ntlm"));
    let lines = 2000;
    sample_index(&sha1_path, HashKind::Sha1, lines, 3);
    sample_index(&ntlm_path, HashKind::Ntlm, lines, 3);
    let server = Running::start(config(Some(&sha1_path), Some(&ntlm_path))).await;
    let http = client();
    for (kind, path, route, mode) in [
        (HashKind::Sha1, &sha1_path, "/check/sha1/", ""),
        (HashKind::Ntlm, &ntlm_path, "/check/ntlm/", "?mode=ntlm"),
    ] {
        let index = Index::open(path).unwrap();
        // Present (i < lines) and absent (i >= lines) passwords.
        for i in (0..lines * 2).step_by(37) {
            let password = sample_password(3, i);
            let hash = kind.hash_password(&password);
            let want = index.lookup(&hash).unwrap().unwrap_or(0);
            assert_eq!(want != 0, i < lines);
            if i < lines {
                assert_eq!(want, sample_count(3, i));
            }
            let hex = if i % 2 == 0 {
                to_hex(&hash)
            } else {
                to_hex(&hash).to_lowercase()
            };
            let text = http
                .get(server.url(&format!("{route}{hex}")))
                .send()
                .await
                .unwrap();
            assert_eq!(text.headers()[CACHE_CONTROL], "no-store");
            assert_eq!(text.text().await.unwrap(), want.to_string());
            let json = http
                .get(server.url(&format!("{route}{hex}")))
                .header(ACCEPT, "application/json")
                .send()
                .await
                .unwrap();
            assert_eq!(json.headers()[CONTENT_TYPE], "application/json");
            assert_eq!(json.text().await.unwrap(), format!("{{\"count\":{want}}}"));
            let plain = http
                .post(server.url(&format!("/check/plain{mode}")))
                .body(password)
                .send()
                .await
                .unwrap();
            assert_eq!(plain.status(), StatusCode::OK);
            assert_eq!(plain.text().await.unwrap(), want.to_string());
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_metrics_report_what_was_served() {
    let dir = Dir::new("metrics");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 1234, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let http = client();
    let health = http.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(
        (health.status(), health.text().await.unwrap()),
        (StatusCode::OK, "ok\n".into())
    );
    for path in [
        "/range/00000",
        "/range/00000",
        "/range/00000",
        "/range/0000",
        "/nowhere",
    ] {
        http.get(server.url(path))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
    }
    // No index of that kind: 404, said so.
    let ntlm = http
        .get(server.url("/check/ntlm/00000000000000000000000000000000"))
        .send()
        .await
        .unwrap();
    assert_eq!(ntlm.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        ntlm.text().await.unwrap(),
        "this server has no NTLM index\n"
    );
    let metrics = http.get(server.url("/metrics")).send().await.unwrap();
    assert!(metrics.headers()[CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let text = metrics.text().await.unwrap();
    for line in [
        "spool_http_requests_total{endpoint=\"range\",status=\"200\"} 3",
        "spool_http_requests_total{endpoint=\"range\",status=\"400\"} 1",
        "spool_http_requests_total{endpoint=\"other\",status=\"404\"} 1",
        "spool_http_requests_total{endpoint=\"check_ntlm\",status=\"404\"} 1",
        "spool_http_requests_total{endpoint=\"healthz\",status=\"200\"} 1",
        "spool_http_request_duration_seconds_count{endpoint=\"range\"} 4",
        "spool_pwned_index_records{kind=\"sha1\"} 1234",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
    // This client's connection at least; closed ones are counted out as
    // their tasks end.
    let open: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("spool_http_connections "))
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&open), "{open} connections open");
    let built = std::fs::metadata(&sha1).unwrap().modified().unwrap();
    let seconds = built
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let reported: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("spool_pwned_index_build_timestamp_seconds{kind=\"sha1\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!((reported - seconds).abs() < 1e-3, "{reported} vs {seconds}");
    server.stop().await;
}
