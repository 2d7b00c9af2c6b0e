//! Range servers that behave as real upstreams and CDNs do, for the
//! download tests: HTTP/1.1 (hand-written, so that every byte of the
//! framing is the test's) and HTTP/2 (the `h2` crate), answering
//! `/PREFIX` from a full index, and recycling connections, closing idle
//! ones, compressing, chunking, redirecting or leaving bodies unframed as
//! asked.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use spool_pwned::Index;

/// What a server does besides answering.
#[derive(Clone, Debug, Default)]
pub struct Behaviour {
    /// Close each connection after this many answers (0: never): HTTP/1.1
    /// without warning (or with `Connection: close` if `say_close`),
    /// HTTP/2 with a GOAWAY (graceful, or at once if `abrupt`).
    pub recycle: u64,
    pub say_close: bool,
    pub abrupt: bool,
    /// Close a connection idle this long after an answer, without a word.
    pub idle: Option<Duration>,
    /// HTTP/1.1: the first answer of every 64th range has no
    /// Content-Length and no chunking, its last line cut, and ends by
    /// closing the connection.
    pub unframed_first: bool,
    /// HTTP/1.1: bodies in the chunked encoding.
    pub chunked: bool,
    /// Bodies encoded so (`gzip`, `br`, `zstd`) when the request asks for
    /// it, or always if `force`.
    pub coding: Option<&'static str>,
    pub force: bool,
    /// The first compressed answer of every 64th range loses the last
    /// bytes of its stream (still framed: its Content-Length says so).
    pub damaged_first: bool,
    /// This range's first request is answered `503` with `Retry-After: 2`.
    pub pause_first: Option<u32>,
    /// Range `.0` answers `301` to `.1`.
    pub redirect: Option<(u32, String)>,
}

/// What a server counted.
#[derive(Debug, Default)]
pub struct Counts {
    pub requests: AtomicU64,
    /// Requests with an `Accept-Encoding`.
    pub asked_encoding: AtomicU64,
    pub connections: AtomicU64,
    /// The prefixes asked for, in the order the requests came.
    pub order: Mutex<Vec<u32>>,
}

/// A running server (its threads end with the test process).
pub struct Upstream {
    /// `http://ADDR/{prefix}`.
    pub url: String,
    pub counts: Arc<Counts>,
}

/// The body of range `prefix` as a server answers it.
fn range_body(index: &Index, prefix: u32) -> Vec<u8> {
    let mut body = Vec::new();
    spool_serve::range::encode(index.range(prefix).unwrap(), &mut body);
    body
}

fn encode(coding: &str, body: &[u8]) -> Vec<u8> {
    match coding {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(body).unwrap();
            e.finish().unwrap()
        }
        "br" => {
            let mut out = Vec::new();
            let mut e = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
            e.write_all(body).unwrap();
            drop(e);
            out
        }
        "zstd" => zstd::encode_all(body, 3).unwrap(),
        other => panic!("{other}"),
    }
}

/// What to send for one request: status line, extra headers, body.
struct Answer {
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    /// HTTP/1.1: no framing, end by closing.
    unframed: bool,
}

/// Tracks how many times each range was asked for.
#[derive(Default)]
struct Seen(Mutex<std::collections::HashMap<u32, u32>>);

impl Seen {
    fn first(&self, prefix: u32) -> bool {
        let mut seen = self.0.lock().unwrap();
        let n = seen.entry(prefix).or_insert(0);
        *n += 1;
        *n == 1
    }
}

fn answer(
    index: &Index,
    how: &Behaviour,
    seen: &Seen,
    prefix: u32,
    accept: Option<&str>,
) -> Answer {
    let first = seen.first(prefix);
    let mut answer = Answer {
        status: "200 OK",
        headers: Vec::new(),
        body: range_body(index, prefix),
        unframed: false,
    };
    if let Some((from, to)) = &how.redirect {
        if *from == prefix {
            answer.status = "301 Moved Permanently";
            answer.headers.push(("location", to.clone()));
            answer.body.clear();
            return answer;
        }
    }
    if how.pause_first == Some(prefix) && first {
        answer.status = "503 Service Unavailable";
        answer.headers.push(("retry-after", "2".to_string()));
        answer.body.clear();
        return answer;
    }
    let every_64th = prefix.is_multiple_of(64);
    if how.unframed_first && first && every_64th {
        // Cut at a line boundary: the last line is gone.
        let keep = answer.body.iter().rposition(|&b| b == b'\n').unwrap_or(0);
        answer.body.truncate(keep);
        answer.unframed = true;
        return answer;
    }
    if let Some(coding) = how.coding {
        if how.force || accept.is_some_and(|a| a.contains(coding)) {
            answer.body = encode(coding, &answer.body);
            answer
                .headers
                .push(("content-encoding", coding.to_string()));
            if how.damaged_first && first && every_64th {
                answer.body.truncate(answer.body.len().saturating_sub(3));
            }
        }
    }
    answer
}

impl Upstream {
    /// An HTTP/1.1 server of `index`.
    pub fn http1(index: &Path, how: Behaviour) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/{{prefix}}", listener.local_addr().unwrap());
        let index = Arc::new(Index::open(index).unwrap());
        let counts = Arc::new(Counts::default());
        let seen = Arc::new(Seen::default());
        let shared = (index, Arc::new(how), seen, counts.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (index, how, seen, counts) = shared.clone();
                counts.connections.fetch_add(1, Ordering::Relaxed);
                std::thread::spawn(move || {
                    let _ = serve_http1(stream, &index, &how, &seen, &counts);
                });
            }
        });
        Upstream { url, counts }
    }
}

fn serve_http1(
    stream: TcpStream,
    index: &Index,
    how: &Behaviour,
    seen: &Seen,
    counts: &Counts,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut answered = 0;
    loop {
        // An idle keep-alive connection's read times out: it is closed,
        // unannounced.
        out.set_read_timeout(how.idle.filter(|_| answered > 0))?;
        let mut request = String::new();
        if reader.read_line(&mut request)? == 0 {
            return Ok(());
        }
        let mut accept = None;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header == "\r\n" {
                break;
            }
            let lower = header.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("accept-encoding:") {
                accept = Some(v.trim().to_string());
            }
        }
        // An HTTP/2 preface (the client's h2c probe) is not HTTP/1.1.
        let Some(prefix) = request
            .strip_prefix("GET /")
            .and_then(|r| r.get(..5))
            .and_then(|p| u32::from_str_radix(p, 16).ok())
        else {
            return Ok(());
        };
        counts.requests.fetch_add(1, Ordering::Relaxed);
        counts.order.lock().unwrap().push(prefix);
        if accept.is_some() {
            counts.asked_encoding.fetch_add(1, Ordering::Relaxed);
        }
        let a = answer(index, how, seen, prefix, accept.as_deref());
        answered += 1;
        let last = how.recycle > 0 && answered == how.recycle;
        let mut head = format!("HTTP/1.1 {}\r\n", a.status);
        for (name, value) in &a.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if last && how.say_close {
            head.push_str("connection: close\r\n");
        }
        if a.unframed {
            out.write_all(format!("{head}\r\n").as_bytes())?;
            out.write_all(&a.body)?;
            return Ok(());
        }
        if how.chunked {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            out.write_all(head.as_bytes())?;
            let (one, two) = a.body.split_at(a.body.len() / 2);
            for chunk in [one, two] {
                if !chunk.is_empty() {
                    write!(out, "{:x}\r\n", chunk.len())?;
                    out.write_all(chunk)?;
                    out.write_all(b"\r\n")?;
                }
            }
            out.write_all(b"0\r\n\r\n")?;
        } else {
            head.push_str(&format!("content-length: {}\r\n\r\n", a.body.len()));
            out.write_all(head.as_bytes())?;
            out.write_all(&a.body)?;
        }
        if last {
            // Recycled: the client learns it when it next sends.
            return Ok(());
        }
    }
}

impl Upstream {
    /// An HTTP/2 server (prior knowledge, h2c) of `index`.
    pub fn http2(index: &Path, how: Behaviour) -> Upstream {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/{{prefix}}", listener.local_addr().unwrap());
        let index = Arc::new(Index::open(index).unwrap());
        let counts = Arc::new(Counts::default());
        let seen = Arc::new(Seen::default());
        let shared = (index, Arc::new(how), seen, counts.clone());
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        continue;
                    };
                    let (index, how, seen, counts) = shared.clone();
                    counts.connections.fetch_add(1, Ordering::Relaxed);
                    tokio::spawn(async move {
                        let _ = serve_http2(socket, &index, &how, &seen, &counts).await;
                    });
                }
            });
        });
        Upstream { url, counts }
    }
}

async fn serve_http2(
    socket: tokio::net::TcpStream,
    index: &Index,
    how: &Behaviour,
    seen: &Seen,
    counts: &Counts,
) -> Result<(), h2::Error> {
    let mut conn = h2::server::handshake(socket).await?;
    let mut answered = 0;
    loop {
        let next = match how.idle.filter(|_| answered > 0) {
            Some(idle) => match tokio::time::timeout(idle, conn.accept()).await {
                Ok(next) => next,
                // Idle: closed without a GOAWAY.
                Err(_) => return Ok(()),
            },
            None => conn.accept().await,
        };
        let Some(next) = next else { return Ok(()) };
        let (request, mut respond) = next?;
        let prefix = request
            .uri()
            .path()
            .get(1..6)
            .and_then(|p| u32::from_str_radix(p, 16).ok())
            .unwrap_or(0);
        counts.requests.fetch_add(1, Ordering::Relaxed);
        let accept = request
            .headers()
            .get("accept-encoding")
            .and_then(|v| v.to_str().ok());
        if accept.is_some() {
            counts.asked_encoding.fetch_add(1, Ordering::Relaxed);
        }
        let a = answer(index, how, seen, prefix, accept);
        let mut response = http::Response::builder()
            .status(a.status[..3].parse::<u16>().unwrap())
            .header("content-length", a.body.len());
        for (name, value) in &a.headers {
            response = response.header(*name, value);
        }
        let mut send = respond.send_response(response.body(()).unwrap(), false)?;
        send.send_data(bytes::Bytes::from(a.body), true)?;
        answered += 1;
        if how.recycle > 0 && answered == how.recycle {
            if how.abrupt {
                // GOAWAY naming the last stream taken: the streams the
                // client opened after it are refused.
                conn.abrupt_shutdown(h2::Reason::NO_ERROR);
            } else {
                conn.graceful_shutdown();
            }
        }
    }
}
