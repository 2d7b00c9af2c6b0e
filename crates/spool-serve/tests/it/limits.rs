//! Clients that are slow, idle, numerous or long-winded, or that never read
//! what they asked for (over HTTP/1.1, or over HTTP/2 with their windows
//! shut): the limits hold and the server goes on serving others.

use std::time::{Duration, Instant};

use crate::support::{client, config, raw_exchange, raw_status, sample_index, Dir, Running};
use reqwest::StatusCode;
use spool_pwned::HashKind;
use spool_serve::Config;

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

/// A padded range request: each response is a few kilobytes.
const PADDED: &[u8] = b"GET /range/00000 HTTP/1.1\r\nHost: x\r\nAdd-Padding: true\r\n\r\n";

/// Connects with a small receive buffer, sends `requests` pipelined padded
/// requests from a task of its own and never reads a byte.
async fn never_reads(addr: std::net::SocketAddr, requests: usize) -> Idle {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (reader, mut writer) = stream.into_split();
    let sending = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let batch = PADDED.repeat(100);
        for _ in 0..requests / 100 {
            if writer.write_all(&batch).await.is_err() {
                break;
            }
        }
        writer
    });
    Idle { reader, sending }
}

/// A client that never reads.
struct Idle {
    reader: tokio::net::tcp::OwnedReadHalf,
    sending: tokio::task::JoinHandle<tokio::net::tcp::OwnedWriteHalf>,
}

impl Idle {
    /// Whether the server has closed the connection: reading what it
    /// sent ends (EOF or reset) within `PATIENCE`.
    async fn was_closed(mut self) -> bool {
        use tokio::io::AsyncReadExt;
        self.sending.abort();
        let mut sink = vec![0u8; 1 << 16];
        let drained = async {
            while let Ok(n) = self.reader.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        };
        tokio::time::timeout(PATIENCE, drained).await.is_ok()
    }
}

/// Serves `/healthz` to a well-behaved client; returns how long it took.
async fn normal_client_waits(server: &Running) -> Duration {
    let start = Instant::now();
    let response = tokio::time::timeout(PATIENCE, client().get(server.url("/healthz")).send())
        .await
        .expect("a normal client was locked out")
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_read_cannot_hold_the_connection_slots() {
    let dir = Dir::new("never-read");
    let mut config = limited(&dir);
    config.limits.max_connections = 4;
    // The write timeout frees the slots long before the header timeout
    // could: a connection whose responses all fit in the kernel's socket
    // buffers waits for its next request, and the header timeout ends it.
    let header_timeout = Duration::from_secs(4);
    config.limits.header_timeout = header_timeout;
    config.limits.write_timeout = TIMEOUT;
    let server = Running::start(config).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(never_reads(server.addr, 3000).await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waited = normal_client_waits(&server).await;
    assert!(
        waited >= TIMEOUT / 2,
        "served after {waited:?}: the slots were not all taken"
    );
    assert!(
        waited < header_timeout,
        "served after {waited:?}: only once a header timeout freed a slot"
    );
    for client in idle {
        assert!(
            client.was_closed().await,
            "a client that never reads keeps its connection"
        );
    }
    server.stop().await;
}

/// An HTTP/2 client whose streams grant no window: the responses can never
/// be sent. Returns the client's responses (headers only), kept open.
async fn shut_window(
    addr: std::net::SocketAddr,
    path: &str,
) -> Vec<hyper::Response<hyper::body::Incoming>> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
            .initial_stream_window_size(0)
            .handshake(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(connection);
    let mut responses = Vec::new();
    for _ in 0..5 {
        let request = hyper::Request::get(format!("http://{addr}{path}"))
            .body(http_body_util::Empty::<bytes::Bytes>::new())
            .unwrap();
        match tokio::time::timeout(PATIENCE, sender.send_request(request)).await {
            Ok(Ok(response)) => responses.push(response),
            _ => break,
        }
    }
    responses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_clients_that_shut_their_window_cannot_hold_the_connection_slots() {
    let dir = Dir::new("h2-window");
    let sha1 = dir.0.join("sha1");
    sample_index(&sha1, HashKind::Sha1, 2000, 1);
    let mut config = crate::support::config(Some(&sha1), None);
    config.limits.max_connections = 4;
    config.limits.header_timeout = PATIENCE;
    config.limits.body_timeout = TIMEOUT;
    config.limits.write_timeout = TIMEOUT;
    let server = Running::start(config).await;
    // A range with lines: its body needs window to be sent.
    let hash = HashKind::Sha1.hash_password(&spool_pwned::sample::sample_password(1, 0));
    let path = format!("/range/{}", &spool_pwned::to_hex(&hash)[..5]);
    let mut held = Vec::new();
    for _ in 0..4 {
        let responses = shut_window(server.addr, &path).await;
        assert_eq!(responses.len(), 5, "the headers arrive; the bodies cannot");
        held.push(responses);
    }
    let waited = normal_client_waits(&server).await;
    assert!(
        waited >= TIMEOUT,
        "served after {waited:?}: the slots were not all taken"
    );
    drop(held);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_is_closed() {
    let dir = Dir::new("h2-idle");
    let server = Running::start(limited(&dir)).await;
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let start = Instant::now();
    let (_sender, connection) =
        hyper::client::conn::http2::handshake::<_, _, http_body_util::Empty<bytes::Bytes>>(
            hyper_util::rt::TokioExecutor::new(),
            hyper_util::rt::TokioIo::new(tcp),
        )
        .await
        .unwrap();
    let ended = tokio::time::timeout(PATIENCE, connection).await;
    let took = start.elapsed();
    assert!(ended.is_ok(), "an idle HTTP/2 connection stayed open");
    assert!(
        took >= TIMEOUT - Duration::from_millis(50),
        "closed after {took:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_says_which_protocol_is_closed() {
    let dir = Dir::new("no-preface");
    let server = Running::start(limited(&dir)).await;
    let start = Instant::now();
    // The first bytes of the HTTP/2 preface, and nothing more.
    let response = raw_exchange(server.addr, b"PRI * HT", PATIENCE).await;
    let took = start.elapsed();
    assert!(took < PATIENCE, "never closed");
    assert!(
        took >= TIMEOUT - Duration::from_millis(50),
        "closed after {took:?}"
    );
    assert!(raw_status(&response).is_none());
    server.stop().await;
}
