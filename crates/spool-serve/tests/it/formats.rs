//! Serving the smaller layouts: a t64 index answers `/check` with counts,
//! a filter with `probably` (never a number it does not have), and both
//! answer `/range` with 501 and the reason — never truncated suffixes a
//! client would compare in vain.

use crate::support::{client, config, sample_index, Dir, Running};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use spool_pwned::build::convert;
use spool_pwned::format::IndexLayout;
use spool_pwned::sample::{sample_count, sample_password};
use spool_pwned::{to_hex, HashKind, Index};

/// Asks `/check/sha1/{hash}` as text and as JSON, and `/check/plain`.
async fn answers(server: &Running, password: &str) -> (String, String, String) {
    let http = client();
    let hex = to_hex(&HashKind::Sha1.hash_password(password));
    let url = server.url(&format!("/check/sha1/{hex}"));
    let text = http.get(&url).send().await.unwrap();
    assert_eq!(text.status(), StatusCode::OK);
    let json = http
        .get(&url)
        .header(ACCEPT, "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(json.headers()[CONTENT_TYPE], "application/json");
    let plain = http
        .post(server.url("/check/plain"))
        .body(password.to_string())
        .send()
        .await
        .unwrap();
    (
        text.text().await.unwrap(),
        json.text().await.unwrap(),
        plain.text().await.unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t64_and_filter_answer_check_honestly_and_refuse_range() {
    let dir = Dir::new("formats");
    let full = dir.0.join("full");
    let lines = 2000;
    sample_index(&full, HashKind::Sha1, lines, 4);
    for layout in [IndexLayout::T64, IndexLayout::Filter] {
        let path = dir.0.join(layout.name());
        convert(&Index::open(&full).unwrap(), &path, layout, 1 << 20).unwrap();
        let server = Running::start(config(Some(&path), None)).await;
        for i in (0..lines * 2).step_by(41) {
            let got = answers(&server, &sample_password(4, i)).await;
            let want = match (i < lines, layout) {
                (false, _) => ("0".to_string(), "{\"count\":0}".to_string()),
                (true, IndexLayout::Filter) => (
                    "probably".to_string(),
                    "{\"count\":null,\"probably\":true}".to_string(),
                ),
                (true, _) => {
                    let count = sample_count(4, i);
                    (count.to_string(), format!("{{\"count\":{count}}}"))
                }
            };
            assert_eq!(
                got,
                (want.0.clone(), want.1, want.0),
                "{layout:?}, password {i}"
            );
        }
        let range = client()
            .get(server.url("/range/5BAA6"))
            .send()
            .await
            .unwrap();
        assert_eq!(range.status(), StatusCode::NOT_IMPLEMENTED, "{layout:?}");
        let reason = range.text().await.unwrap();
        assert!(
            reason.contains(&format!("is a {} index", layout.name())),
            "{reason}"
        );
        assert!(reason.contains("use /check"), "{reason}");
        server.stop().await;
    }
}
