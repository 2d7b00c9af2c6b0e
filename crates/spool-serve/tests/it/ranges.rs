//! `/range` through a real HTTP client: range bodies byte-identical to
//! the downloader's range files (SHA-1 and NTLM, upper and lower case),
//! empty bodies for prefixes without a file, and padding. ETags:
//! `etags.rs`; counts, health and metrics: `api.rs`.

use std::collections::BTreeSet;

use crate::support::{client, config, index_from_ranges, sample_index, Dir, Running};
use reqwest::header::{CONTENT_TYPE, ETAG, VARY};
use reqwest::StatusCode;
use spool_pwned::sample::write_sample_ranges;
use spool_pwned::HashKind;

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
            assert_eq!(response.headers()[VARY], "Add-Padding, Accept-Encoding");
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
