//! Clients that are slow, idle, numerous or long-winded: the limits hold
//! and the server goes on serving others.

mod support;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use spool_pwned::HashKind;
use spool_serve::Config;
use support::{client, config, raw_exchange, raw_status, sample_index, Dir, Running};

const TIMEOUT: Duration = Duration::from_millis(300);
/// Far longer than any limit under test: a test waiting this long failed.
const PATIENCE: Duration = Duration::from_secs(10);

fn limited(dir: &Dir) -> Config {
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 100, 1);
    let mut config = config(Some(&sha1), None);
    config.limits.header_timeout = TIMEOUT;
    config.limits.body_timeout = TIMEOUT;
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_that_never_end_are_cut_off() {
    let dir = Dir::new("slow-headers");
    let server = Running::start(limited(&dir)).await;
    let start = Instant::now();
    let response = raw_exchange(
        server.addr,
        b"GET /range/ABCDE HTTP/1.1\r\nHost: x\r\n",
        PATIENCE,
    )
    .await;
    let took = start.elapsed();
    assert!(
        took >= TIMEOUT - Duration::from_millis(50),
        "closed after {took:?}"
    );
    assert!(took < PATIENCE, "never closed");
    assert!(
        raw_status(&response).is_none_or(|s| s == 408),
        "{response:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed() {
    let dir = Dir::new("idle");
    let server = Running::start(limited(&dir)).await;
    let start = Instant::now();
    let response = raw_exchange(
        server.addr,
        b"GET /range/00000 HTTP/1.1\r\nHost: x\r\n\r\n",
        PATIENCE,
    )
    .await;
    let took = start.elapsed();
    assert_eq!(raw_status(&response), Some(200));
    assert!(
        took >= TIMEOUT - Duration::from_millis(50),
        "closed after {took:?}"
    );
    assert!(took < PATIENCE, "an idle connection stayed open");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_limit_wait_for_a_free_slot() {
    let dir = Dir::new("connection-limit");
    let mut config = limited(&dir);
    config.limits.max_connections = 1;
    let server = Running::start(config).await;
    // Takes the only slot and sends nothing: the header timeout frees it.
    let idle = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let start = Instant::now();
    let response = client().get(server.url("/healthz")).send().await.unwrap();
    let waited = start.elapsed();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        waited >= TIMEOUT - Duration::from_millis(100),
        "served after {waited:?}: the limit did not hold"
    );
    drop(idle);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stops_arriving_gets_408() {
    let dir = Dir::new("slow-body");
    let server = Running::start(limited(&dir)).await;
    let request = b"POST /check/plain HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\npas";
    let start = Instant::now();
    let response = raw_exchange(server.addr, request, PATIENCE).await;
    assert_eq!(
        raw_status(&response),
        Some(408),
        "{}",
        String::from_utf8_lossy(&response)
    );
    assert!(start.elapsed() < PATIENCE);
    assert!(
        String::from_utf8_lossy(&response).contains("the request body did not arrive within 0.3 s")
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunked_body_over_the_limit_gets_413() {
    let dir = Dir::new("chunked");
    let server = Running::start(limited(&dir)).await;
    let mut request =
        b"POST /check/plain HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..5 {
        request.extend_from_slice(b"400\r\n");
        request.extend_from_slice(&[b'a'; 0x400]);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let response = raw_exchange(server.addr, &request, PATIENCE).await;
    assert_eq!(
        raw_status(&response),
        Some(413),
        "{}",
        String::from_utf8_lossy(&response)
    );
    // Within the limit, chunked is fine.
    let small = b"POST /check/plain HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\npas\r\n5\r\nsword\r\n0\r\n\r\n";
    let response = raw_exchange(server.addr, small, PATIENCE).await;
    assert_eq!(raw_status(&response), Some(200));
    server.stop().await;
}
