//! A damaged index: a request whose answer rests on a block that fails its
//! checksum gets a 500 with a one-line reason, never a wrong count, and the
//! server goes on answering from the intact blocks.

use crate::support::{client, config, fetch, sample_index, Dir, Running};
use reqwest::StatusCode;
use spool_pwned::format::{HEADER_LEN, RECORDS_OFFSET};
use spool_pwned::sample::{sample_count, sample_password};
use spool_pwned::{to_hex, HashKind};

/// Flips one bit of `hash`'s record in the index `bytes`.
fn damage_record(bytes: &mut [u8], hash: &[u8]) {
    let entry = |p: usize| {
        let at = HEADER_LEN + 8 * p;
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize
    };
    let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
    let i = (entry(p)..entry(p + 1))
        .find(|&i| bytes[RECORDS_OFFSET + i * 22..][..18] == hash[2..])
        .expect("present");
    bytes[RECORDS_OFFSET + i * 22 + 19] ^= 0x04; // a bit of the count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_block_is_a_500_not_a_wrong_count() {
    let dir = Dir::new("damaged");
    let good = dir.0.join("good.idx");
    sample_index(&good, HashKind::Sha1, 2_000, 3);
    let hash = HashKind::Sha1.hash_password(&sample_password(3, 0));
    let mut bytes = std::fs::read(&good).unwrap();
    damage_record(&mut bytes, &hash);
    let bad = dir.0.join("bad.idx");
    std::fs::write(&bad, &bytes).unwrap();
    let server = Running::start(config(Some(&bad), None)).await;
    let client = client();

    let (status, _, body) =
        fetch(client.get(server.url(&format!("/check/sha1/{}", to_hex(&hash))))).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let body = String::from_utf8(body.to_vec()).unwrap();
    assert!(
        body.contains("the index is damaged") && body.contains("fails its checksum"),
        "{body}"
    );
    assert_eq!(body.lines().count(), 1, "one line: {body}");
    assert_eq!(body.matches("damaged").count(), 1, "said once: {body}");

    let prefix = &to_hex(&hash)[..5];
    let (status, _, body) = fetch(client.get(server.url(&format!("/range/{prefix}")))).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(String::from_utf8_lossy(&body).contains("damaged"));

    // A hash far from the damage still answers its count.
    let other = (1..2_000u64)
        .find(|&n| HashKind::Sha1.hash_password(&sample_password(3, n))[0] != hash[0])
        .unwrap();
    let other_hash = HashKind::Sha1.hash_password(&sample_password(3, other));
    let (status, _, body) =
        fetch(client.get(server.url(&format!("/check/sha1/{}", to_hex(&other_hash))))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, sample_count(3, other).to_string());
    server.stop().await;
}
