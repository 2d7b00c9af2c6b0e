//! Operations: a rebuilt index swapped in under load with no failed
//! request, a bad replacement refused, a shutdown that lets the request in
//! flight finish.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{client, config, fetch, raw_status, sample_index, Dir, Running};
use reqwest::StatusCode;
use spool_pwned::sample::{sample_count, sample_password};
use spool_pwned::{to_hex, HashKind, Index};
use spool_serve::LoadError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const LINES: u64 = 20_000;

/// What one index answers to the requests of the load.
#[derive(Clone, PartialEq, Debug)]
struct Answers {
    count_a: String,
    count_b: String,
    range: Vec<u8>,
}

fn answers(index: &Index, hash_a: &[u8], hash_b: &[u8]) -> Answers {
    let count = |h: &[u8]| index.lookup(h).unwrap().unwrap_or(0).to_string();
    let mut range = Vec::new();
    let prefix = u32::from_be_bytes([0, hash_a[0], hash_a[1], hash_a[2]]) >> 4;
    spool_serve::range::encode(index.range(prefix).unwrap(), &mut range);
    Answers {
        count_a: count(hash_a),
        count_b: count(hash_b),
        range,
    }
}

/// What one client saw.
#[derive(Default, Debug)]
struct Seen {
    requests: u64,
    failures: Vec<String>,
    old: u64,
    new: u64,
}

/// Asks for the two counts and the range over one keep-alive connection
/// until `stop`. Each answer must be the old index's or the new one's; a
/// client's requests follow one another, so once one saw the new index,
/// every later one must too.
async fn load(
    base: String,
    hex_a: String,
    hex_b: String,
    old: Answers,
    new: Answers,
    stop: Arc<AtomicBool>,
) -> Seen {
    let http = client();
    let mut seen = Seen::default();
    let asks = [
        (
            format!("/check/sha1/{hex_a}"),
            old.count_a.into_bytes(),
            new.count_a.into_bytes(),
        ),
        (
            format!("/check/sha1/{hex_b}"),
            old.count_b.into_bytes(),
            new.count_b.into_bytes(),
        ),
        (format!("/range/{}", &hex_a[..5]), old.range, new.range),
    ];
    while !stop.load(Ordering::Relaxed) {
        for (path, old, new) in &asks {
            seen.requests += 1;
            let response = match http.get(format!("{base}{path}")).send().await {
                Ok(r) if r.status() == StatusCode::OK => r,
                Ok(r) => {
                    seen.failures.push(format!("{path}: status {}", r.status()));
                    continue;
                }
                Err(e) => {
                    seen.failures.push(format!("{path}: {e}"));
                    continue;
                }
            };
            match response.bytes().await {
                Ok(body) if body == new => seen.new += 1,
                Ok(body) if body == old && seen.new == 0 => seen.old += 1,
                Ok(body) => seen.failures.push(format!(
                    "{path}: unexpected {body:?} after {} new",
                    seen.new
                )),
                Err(e) => seen.failures.push(format!("{path}: {e}")),
            }
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuilt_index_is_swapped_in_under_load_with_no_failed_request() {
    let dir = Dir::new("swap");
    let (served, rebuilt) = (dir.0.join("pwned.idx"), dir.0.join("pwned.idx.new"));
    sample_index(&served, HashKind::Sha1, LINES, 1);
    sample_index(&rebuilt, HashKind::Sha1, LINES, 2);
    let hash_a = HashKind::Sha1.hash_password(&sample_password(1, 0));
    let hash_b = HashKind::Sha1.hash_password(&sample_password(2, 0));
    let old = answers(&Index::open(&served).unwrap(), &hash_a, &hash_b);
    let new = answers(&Index::open(&rebuilt).unwrap(), &hash_a, &hash_b);
    assert_eq!(old.count_a, sample_count(1, 0).to_string());
    assert_eq!(new.count_b, sample_count(2, 0).to_string());
    assert_ne!(old, new);
    let server = Running::start(config(Some(&served), None)).await;
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(load(
                server.url(""),
                to_hex(&hash_a),
                to_hex(&hash_b),
                old.clone(),
                new.clone(),
                Arc::clone(&stop),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // What `pwned build` does, then what SIGHUP does.
    std::fs::rename(&rebuilt, &served).unwrap();
    let handle = server.handle.clone();
    let loaded = tokio::task::spawn_blocking(move || handle.reload())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(loaded.len(), 1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        let seen = client.await.unwrap();
        assert!(seen.failures.is_empty(), "{seen:?}");
        assert!(
            seen.old > 0 && seen.new > 0,
            "each client saw both indexes: {seen:?}"
        );
        assert!(seen.requests > 30, "{seen:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_replacement_is_refused_and_the_old_index_stays() {
    let dir = Dir::new("bad-replacement");
    let (sha1, ntlm) = (dir.0.join("sha1"), dir.0.join("ntlm"));
    sample_index(&sha1, HashKind::Sha1, 300, 1);
    sample_index(&ntlm, HashKind::Ntlm, 300, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let url = server.url("/range/00000");
    let before = fetch(client().get(&url)).await;
    let tmp = dir.0.join("tmp");
    // Not an index; then an index of the other kind.
    std::fs::write(&tmp, b"not an index").unwrap();
    std::fs::rename(&tmp, &sha1).unwrap();
    let err = server.handle.reload().unwrap_err();
    assert!(matches!(err, LoadError::Index(_)), "{err}");
    std::fs::rename(&ntlm, &sha1).unwrap();
    let err = server.handle.reload().unwrap_err();
    assert!(matches!(err, LoadError::WrongKind { .. }), "{err}");
    assert!(err
        .to_string()
        .ends_with("holds NTLM hashes, but it was given as the SHA-1 index"));
    let after = fetch(client().get(&url)).await;
    assert_eq!(before.2, after.2, "still the first index");
    let metrics = fetch(client().get(server.url("/metrics"))).await.2;
    let metrics = String::from_utf8_lossy(&metrics);
    assert!(
        metrics.contains("spool_pwned_index_reloads_total{result=\"error\"} 2"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_the_request_in_flight_finish() {
    let dir = Dir::new("shutdown");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 300, 1);
    let server = Running::start(config(Some(&sha1), None)).await;
    let addr = server.addr;
    let password = sample_password(1, 7);
    // Headers and half the body: the request is in its handler.
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /check/plain HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
        password.len()
    );
    let (first, rest) = password.as_bytes().split_at(4);
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(first).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let done = server.begin_stop();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!done.is_finished(), "waits for the request in flight");
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
    stream.write_all(rest).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw_status(&response), Some(200));
    let body = String::from_utf8(response).unwrap();
    assert!(
        body.ends_with(&format!("\r\n\r\n{}", sample_count(1, 7))),
        "{body}"
    );
    tokio::time::timeout(Duration::from_secs(10), done)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_refuses_an_index_with_a_damaged_record() {
    let dir = Dir::new("verify");
    let (good, damaged) = (dir.0.join("good"), dir.0.join("damaged"));
    sample_index(&good, HashKind::Sha1, 300, 1);
    let mut bytes = std::fs::read(&good).unwrap();
    // The last record's count: the header and size still check out.
    let last = spool_pwned::format::checked_len(HashKind::Sha1, 300).unwrap() as usize - 1;
    bytes[last] ^= 1;
    std::fs::write(&damaged, &bytes).unwrap();
    let mut unverified = config(Some(&damaged), None);
    assert!(
        spool_serve::Server::bind(&unverified).await.is_ok(),
        "opening checks the header and size only"
    );
    unverified.verify = true;
    let err = spool_serve::Server::bind(&unverified).await.err().unwrap();
    assert!(err.to_string().contains("fails its checksum"), "{err}");
    // And on reload: the damaged file renamed over a verified one.
    let mut verified = config(Some(&good), None);
    verified.verify = true;
    let server = Running::start(verified).await;
    std::fs::rename(&damaged, &good).unwrap();
    let err = server.handle.reload().unwrap_err();
    assert!(err.to_string().contains("fails its checksum"), "{err}");
    server.stop().await;
}
