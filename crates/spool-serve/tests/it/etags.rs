//! Per-range ETags through a real HTTP client: XXH3 of the body, kept
//! across a rebuild by every unchanged range (`304`) and new for the
//! changed ones; `If-None-Match` lists, weak tags and `*` over HTTP/1.1
//! and HTTP/2; a padded request never `304`.

use std::collections::BTreeSet;

use crate::support::{client, config, fetch, index_from_text, sample_index, Dir, Running};
use reqwest::header::{CACHE_CONTROL, ETAG, IF_NONE_MATCH};
use reqwest::StatusCode;
use spool_pwned::sample::{sample_password, write_sample, Order};
use spool_pwned::{to_hex, HashKind};

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
    crate::support::install_tls_provider();
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

/// A client that asks for br or gzip gets the same body in that coding,
/// with the range's ETag marked by the coding (a representation of its
/// own), `304` for that tag only, and `Vary: Accept-Encoding`; a padded
/// answer is never compressed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_bodies_come_compressed_when_asked_each_coding_with_its_own_etag() {
    use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, VARY};
    use std::io::Read;

    let dir = Dir::new("compressed-ranges");
    let sha1 = dir.0.join("sha1");
    // One range of 2,000 hashes, as a busy range of the real corpus.
    let text: String = (0..2000u64)
        .map(|i| {
            format!(
                "5BAA6{:035X}:{}\n",
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8,
                i + 1
            )
        })
        .collect();
    index_from_text(&sha1, HashKind::Sha1, &text);
    let server = Running::start(config(Some(&sha1), None)).await;
    let url = server.url("/range/5BAA6");
    let http = client();
    let plain = http.get(&url).send().await.unwrap();
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    let plain_tag = plain.headers()[ETAG].to_str().unwrap().to_string();
    let plain = plain.bytes().await.unwrap();
    assert!(plain.len() > 1000);

    for (asked, coding, suffix) in [
        ("gzip", "gzip", "-gz\""),
        ("br, gzip, zstd", "br", "-br\""),
        ("br;q=0.5, gzip", "gzip", "-gz\""),
    ] {
        let response = http
            .get(&url)
            .header(ACCEPT_ENCODING, asked)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[CONTENT_ENCODING], coding, "{asked}");
        assert!(response.headers()[VARY]
            .to_str()
            .unwrap()
            .contains("Accept-Encoding"));
        let tag = response.headers()[ETAG].to_str().unwrap().to_string();
        assert_eq!(tag, format!("{}{suffix}", plain_tag.trim_end_matches('"')));
        let body = response.bytes().await.unwrap();
        assert!(
            body.len() < plain.len() * 2 / 3,
            "{asked}: {} bytes",
            body.len()
        );
        let mut decoded = Vec::new();
        if coding == "gzip" {
            flate2::read::GzDecoder::new(&body[..])
                .read_to_end(&mut decoded)
                .unwrap();
        } else {
            brotli::Decompressor::new(&body[..], 4096)
                .read_to_end(&mut decoded)
                .unwrap();
        }
        assert_eq!(decoded, plain, "{asked}");
        // That copy's tag gives 304; the plain copy's tag does not.
        for (tag, status) in [
            (&tag, StatusCode::NOT_MODIFIED),
            (&plain_tag, StatusCode::OK),
        ] {
            let again = http
                .get(&url)
                .header(ACCEPT_ENCODING, asked)
                .header(IF_NONE_MATCH, tag.as_str())
                .send()
                .await
                .unwrap();
            assert_eq!(again.status(), status, "{asked}, If-None-Match {tag}");
        }
    }
    let padded = http
        .get(&url)
        .header(ACCEPT_ENCODING, "br, gzip")
        .header("Add-Padding", "true")
        .send()
        .await
        .unwrap();
    assert!(padded.headers().get(CONTENT_ENCODING).is_none());
    server.stop().await;
}
