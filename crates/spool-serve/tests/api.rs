//! The endpoints through a real HTTP client: range bodies byte-identical to
//! the downloader's range files, padding, per-range ETags and
//! revalidation, counts equal to `Index::lookup`, health and metrics.

mod support;

use std::collections::BTreeSet;

use reqwest::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY};
use reqwest::StatusCode;
use spool_pwned::sample::{
    sample_count, sample_password, write_sample, write_sample_ranges, Order,
};
use spool_pwned::{to_hex, HashKind, Index};
use support::{
    client, config, fetch, index_from_ranges, index_from_text, sample_index, Dir, Running,
};

/// Prefixes with no range file: a spread over the whole space, and both
/// ends.
fn empty_prefixes(present: &BTreeSet<String>) -> Vec<String> {
    (0..400u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 12)
        .chain([0, 0xFFFFF])
        .map(|p| format!("{p:05X}"))
        .filter(|p| !present.contains(p))
        .collect()
}

/// Range directory → build → serve → every range fetched equals its file,
/// byte for byte; every prefix without a file is an empty 200 body.
async fn round_trip(kind: HashKind, lines: u64) {
    let dir = Dir::new(&format!("round-trip-{}", kind.hex_len()));
    let ranges = dir.0.join("ranges");
    write_sample_ranges(&ranges, kind, lines, 5, true).unwrap();
    let index = dir.0.join("index");
    index_from_ranges(&ranges, &index, kind);
    let (sha1, ntlm, mode) = match kind {
        HashKind::Sha1 => (Some(index.as_path()), None, ""),
        HashKind::Ntlm => (None, Some(index.as_path()), "?mode=ntlm"),
    };
    let server = Running::start(config(sha1, ntlm)).await;
    let http = client();
    let mut present = BTreeSet::new();
    for entry in std::fs::read_dir(&ranges).unwrap() {
        let path = entry.unwrap().path();
        let prefix = path.file_stem().unwrap().to_str().unwrap().to_string();
        let file = std::fs::read(&path).unwrap();
        // Lower case asks for the same range.
        let asked = if present.len() % 2 == 0 {
            prefix.to_lowercase()
        } else {
            prefix.clone()
        };
        let response = http
            .get(server.url(&format!("/range/{asked}{mode}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[CONTENT_TYPE], "text/plain");
        let body = response.bytes().await.unwrap();
        assert!(body == file, "range {prefix} differs from its file");
        present.insert(prefix);
    }
    assert!(
        present.len() > lines as usize / 2,
        "most ranges hold one hash"
    );
    for prefix in empty_prefixes(&present) {
        let response = http
            .get(server.url(&format!("/range/{prefix}{mode}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.bytes().await.unwrap().is_empty(), "{prefix}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sha1_ranges_equal_the_range_files() {
    round_trip(HashKind::Sha1, 3000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ntlm_ranges_equal_the_range_files() {
    round_trip(HashKind::Ntlm, 1500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn padding_appends_count_zero_lines_and_drops_the_etag() {
    let dir = Dir::new("padding");
    let (sha1, ntlm) = (dir.0.join("sha1"), dir.0.join("ntlm"));
    sample_index(&sha1, HashKind::Sha1, 50_000, 1);
    sample_index(&ntlm, HashKind::Ntlm, 500, 1);
    let server = Running::start(config(Some(&sha1), Some(&ntlm))).await;
    let http = client();
    for (mode, suffix_len, prefix) in [("", 35, "5BAA6"), ("?mode=ntlm", 27, "8846F")] {
        let url = server.url(&format!("/range/{prefix}{mode}"));
        let plain = http.get(&url).send().await.unwrap().bytes().await.unwrap();
        let mut sizes = BTreeSet::new();
        for value in ["true", "True", "TRUE"] {
            let response = http
                .get(&url)
                .header("Add-Padding", value)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            assert!(
                response.headers().get(ETAG).is_none(),
                "a padded body has no ETag"
            );
            assert_eq!(response.headers()[VARY], "Add-Padding");
            let body = response.bytes().await.unwrap();
            assert!(
                body.starts_with(&plain),
                "the real lines come first, unchanged"
            );
            let padding = &body[plain.len()..];
            let text = std::str::from_utf8(padding).unwrap();
            let text = if plain.is_empty() {
                text
            } else {
                text.strip_prefix("\r\n").unwrap()
            };
            let lines: Vec<&str> = text.split("\r\n").collect();
            assert!(
                (10..=209).contains(&lines.len()),
                "{} padding lines",
                lines.len()
            );
            for line in lines {
                let (suffix, count) = line.split_once(':').unwrap();
                assert_eq!((suffix.len(), count), (suffix_len, "0"), "{line}");
                assert!(suffix
                    .bytes()
                    .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c)));
            }
            sizes.insert(body.len());
        }
        assert!(sizes.len() > 1, "padding varies from response to response");
        let response = http
            .get(&url)
            .header("Add-Padding", "false")
            .send()
            .await
            .unwrap();
        assert_eq!(response.bytes().await.unwrap(), plain, "only `true` pads");
    }
    server.stop().await;
}

/// The sample's lines with three ranges changed: a count, a hash
/// removed, a hash added. Returns the text and the changed prefixes.
fn changed_sample(lines: u64) -> (String, String, BTreeSet<String>) {
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Sha1, lines, 1, Order::Hash, false).unwrap();
    let old = String::from_utf8(text).unwrap();
    let mut new: Vec<String> = old.lines().map(String::from).collect();
    let mut changed = BTreeSet::new();
    let (hash, count) = new[10].split_once(':').unwrap();
    changed.insert(hash[..5].to_string());
    new[10] = format!("{hash}:{}", count.parse::<u32>().unwrap() + 1);
    changed.insert(new[20][..5].to_string());
    new.remove(20);
    let added = format!("{}{}", &new[30][..5], "F".repeat(35));
    changed.insert(added[..5].to_string());
    new.push(format!("{added}:7"));
    (old, new.join("\n") + "\n", changed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_etags_change_with_their_range_and_only_then() {
    let dir = Dir::new("etag");
    let (served, next) = (dir.0.join("served"), dir.0.join("next"));
    let (old, new, changed) = changed_sample(3000);
    index_from_text(&served, HashKind::Sha1, &old);
    index_from_text(&next, HashKind::Sha1, &new);
    let mut prefixes: BTreeSet<String> = old.lines().map(|l| l[..5].to_string()).collect();
    prefixes.extend(changed.iter().cloned());
    prefixes.extend([
        "00000".to_string(),
        "FFFFF".to_string(),
        "ABCDE".to_string(),
    ]);
    let server = Running::start(config(Some(&served), None)).await;
    let http = client();
    let mut before = Vec::new();
    for prefix in &prefixes {
        let (status, headers, body) =
            fetch(http.get(server.url(&format!("/range/{prefix}")))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers[CACHE_CONTROL], "public, max-age=2678400");
        // The definition: XXH3-64 of the body, 16 hex digits, quoted.
        let etag = headers[ETAG].to_str().unwrap().to_string();
        assert_eq!(
            etag,
            format!("\"{:016x}\"", twox_hash::XxHash3_64::oneshot(&body))
        );
        before.push(etag);
    }
    // A rebuilt index renamed over the served path, reloaded.
    std::fs::rename(&next, &served).unwrap();
    server.handle.reload().unwrap();
    let (mut kept, mut refetched) = (0, 0);
    for (prefix, etag) in prefixes.iter().zip(&before) {
        let url = server.url(&format!("/range/{prefix}"));
        let (status, headers, body) = fetch(http.get(&url).header(IF_NONE_MATCH, etag)).await;
        if changed.contains(prefix) {
            assert_eq!(status, StatusCode::OK, "{prefix} changed");
            assert_ne!(&headers[ETAG], etag.as_str(), "{prefix} changed");
            let want = new
                .lines()
                .filter(|l| l.starts_with(prefix.as_str()))
                .count();
            let got = if body.is_empty() {
                0
            } else {
                body.split(|&b| b == b'\n').count()
            };
            assert_eq!(got, want, "{prefix}: the new range");
            refetched += 1;
        } else {
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{prefix} did not change");
            assert_eq!(&headers[ETAG], etag.as_str());
            assert_eq!(headers[CACHE_CONTROL], "public, max-age=2678400");
            assert!(body.is_empty(), "a 304 has no body");
            kept += 1;
        }
    }
    assert_eq!(refetched, 3);
    assert!(kept > 2000, "{kept} ranges kept their ETag");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn if_none_match_takes_lists_weak_tags_and_star_over_http1_and_http2() {
    let dir = Dir::new("if-none-match");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 2000, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let present = to_hex(&HashKind::Sha1.hash_password(&sample_password(1, 0)));
    let url = server.url(&format!("/range/{}", &present[..5]));
    support::install_tls_provider();
    let h2 = reqwest::Client::builder()
        .no_proxy()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    for http in [client(), h2] {
        let response = http.get(&url).send().await.unwrap();
        let version = response.version();
        let etag = response.headers()[ETAG].to_str().unwrap().to_string();
        assert!(!response.bytes().await.unwrap().is_empty());
        for (value, status) in [
            (etag.clone(), StatusCode::NOT_MODIFIED),
            (format!("W/{etag}"), StatusCode::NOT_MODIFIED),
            (format!("\"stale\", {etag}"), StatusCode::NOT_MODIFIED),
            ("*".to_string(), StatusCode::NOT_MODIFIED),
            ("\"stale\", W/\"older\"".to_string(), StatusCode::OK),
            (etag.trim_matches('"').to_string(), StatusCode::OK),
        ] {
            let response = http
                .get(&url)
                .header(IF_NONE_MATCH, &value)
                .send()
                .await
                .unwrap();
            assert_eq!(response.version(), version);
            assert_eq!(
                response.status(),
                status,
                "{version:?} If-None-Match: {value}"
            );
            assert_eq!(response.headers()[ETAG], etag.as_str());
            let body = response.bytes().await.unwrap();
            assert_eq!(body.is_empty(), status == StatusCode::NOT_MODIFIED);
        }
        // A padded request always gets a fresh padded body, no ETag.
        let padded = http
            .get(&url)
            .header(IF_NONE_MATCH, &etag)
            .header("Add-Padding", "true")
            .send()
            .await
            .unwrap();
        assert_eq!(padded.status(), StatusCode::OK);
        assert!(padded.headers().get(ETAG).is_none());
        assert_eq!(padded.headers()[CACHE_CONTROL], "no-store");
    }
    server.stop().await;
}

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
