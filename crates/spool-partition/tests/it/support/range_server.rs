//! A small HTTP/1.1 server on loopback for the remote-input tests: HEAD
//! and GET of named bodies, one `Range: bytes=A-B` per request, an ETag
//! per body and `If-Match` honoured (412); every ranged GET recorded. A
//! body may be replaced by another once it was looked up (HEAD), to play
//! an object written again during a run. Ranged GETs may be slowed
//! ([`RangeServer::delay_gets`]), and the most under way at once is
//! counted.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One body served, and what replaces it after its first HEAD.
struct Served {
    bytes: Vec<u8>,
    after_head: Option<Vec<u8>>,
}

#[derive(Default)]
struct State {
    files: HashMap<String, Served>,
    /// Every ranged GET: its path and range.
    ranges: Vec<(String, u64, u64)>,
    /// How long each ranged GET longer than `delay_above` bytes waits
    /// before it answers.
    delay: Duration,
    delay_above: u64,
    /// Those slowed GETs under way, and the most at once.
    slowed_now: usize,
    slowed_most: usize,
}

/// The server; stopped on drop.
pub struct RangeServer {
    pub url: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RangeServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, halt) = (state.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if halt.load(Ordering::Relaxed) {
                    return;
                }
                let s = s.clone();
                std::thread::spawn(move || {
                    if let Ok(stream) = stream {
                        let _ = serve(stream, &s);
                    }
                });
            }
        });
        RangeServer {
            url,
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// Serves `bytes` at `/name`.
    pub fn put(&self, name: &str, bytes: Vec<u8>) {
        self.served(name, bytes, None);
    }

    /// Serves `bytes` at `/name` until its first HEAD, then `then`.
    pub fn put_changing(&self, name: &str, bytes: Vec<u8>, then: Vec<u8>) {
        self.served(name, bytes, Some(then));
    }

    fn served(&self, name: &str, bytes: Vec<u8>, after_head: Option<Vec<u8>>) {
        let mut state = self.state.lock().unwrap();
        let served = Served { bytes, after_head };
        state.files.insert(format!("/{name}"), served);
    }

    /// Makes each ranged GET of more than `above` bytes wait `delay`
    /// before it answers (a store far away), counting how many are under
    /// way at once.
    pub fn delay_gets(&self, delay: Duration, above: u64) {
        let mut state = self.state.lock().unwrap();
        (state.delay, state.delay_above) = (delay, above);
    }

    /// The most slowed GETs under way at once so far.
    pub fn most_slowed_at_once(&self) -> usize {
        self.state.lock().unwrap().slowed_most
    }

    /// The ranged GETs of `/name` so far.
    pub fn ranges(&self, name: &str) -> Vec<(u64, u64)> {
        let state = self.state.lock().unwrap();
        let path = format!("/{name}");
        (state.ranges.iter())
            .filter(|(p, ..)| *p == path)
            .map(|(_, a, b)| (*a, *b))
            .collect()
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one request, then closes the connection.
fn serve(stream: TcpStream, state_lock: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or("").to_owned(),
        parts.next().unwrap_or("").to_owned(),
    );
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let mut out = stream;
    let mut state = state_lock.lock().unwrap();
    let Some(served) = state.files.get_mut(&path) else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let body = served.bytes.clone();
    if method == "HEAD" {
        if let Some(then) = served.after_head.take() {
            served.bytes = then;
        }
    }
    let tag = {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut hasher);
        format!("\"{:016x}\"", hasher.finish())
    };
    if headers.get("if-match").is_some_and(|m| *m != tag) {
        return out.write_all(
            b"HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
    let len = body.len() as u64;
    let range = headers.get("range").and_then(|r| {
        let (a, b) = r.strip_prefix("bytes=")?.split_once('-')?;
        Some((
            a.parse::<u64>().ok()?,
            (b.parse::<u64>().ok()? + 1).min(len),
        ))
    });
    let (status, start, end) = match range {
        Some((a, b)) => {
            state.ranges.push((path.clone(), a, b));
            ("206 Partial Content", a, b)
        }
        None => ("200 OK", 0, len),
    };
    let slowed = method == "GET" && range.is_some() && end - start > state.delay_above;
    let delay = state.delay;
    if slowed && !delay.is_zero() {
        state.slowed_now += 1;
        state.slowed_most = state.slowed_most.max(state.slowed_now);
        drop(state);
        std::thread::sleep(delay);
        state = state_lock.lock().unwrap();
        state.slowed_now -= 1;
    }
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: {tag}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n",
        end - start
    );
    if range.is_some() {
        head += &format!("Content-Range: bytes {start}-{}/{len}\r\n", end.max(1) - 1);
    }
    head += "\r\n";
    out.write_all(head.as_bytes())?;
    if method == "GET" {
        out.write_all(&body[start as usize..end as usize])?;
    }
    out.flush()
}
