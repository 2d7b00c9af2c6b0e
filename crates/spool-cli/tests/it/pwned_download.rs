//! `spool pwned download` against servers on the loopback (`update`:
//! `pwned_update.rs`): a `spool pwned serve` of a sample index, and a
//! server in this test that answers from the same index with faults
//! (resets, 500, 503, 429 with
//! `Retry-After`, cut and corrupted bodies, answers slower than the
//! timeout). Whatever happens on the way — faults, `kill -9` or Ctrl-C at
//! random moments, then the same command again — the index is byte for
//! byte what `spool pwned build` makes of the same hashes.
//!
//! Most tests fetch the prefixes 00000–00FFF only (a hidden option), so
//! that they take seconds; one fetches all 16^5 ranges.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spool_pwned::range_body::prefix_hex;
use spool_pwned::Index;

use crate::support::download::*;
use crate::support::Dir;

#[test]
fn downloads_from_serve_equal_builds_for_every_format_and_kind() {
    let dir = Dir::new("download-formats");
    for ntlm in [false, true] {
        let (text, index) = served_sample(&dir, 400_000, 3, ntlm);
        let served = Served::start(&index, ntlm);
        let part = subset(&dir, &text, "part", SUBSET_END);
        for format in ["full", "t64", "filter"] {
            let expected = dir.0.join(format!("expected-{format}"));
            build(&part, &expected, format, ntlm);
            let got = dir.0.join(format!("got-{format}"));
            let copy = dir.0.join(format!("copy-{format}.txt"));
            let stderr = ok(download(
                &served.base,
                &got,
                ntlm,
                false,
                &["--format", format, "--text", path(&copy)],
            ));
            assert!(stderr.contains("over HTTP/2"), "{stderr}");
            same_bytes(&got, &expected);
            same_bytes(&copy, &part);
            let left = crate::support::names(&dir.0);
            assert!(
                !left
                    .iter()
                    .any(|n| n.ends_with(".download") || n.ends_with(".partial")),
                "{left:?}"
            );
        }
    }
}

#[test]
fn a_whole_download_of_every_range_equals_the_build() {
    let dir = Dir::new("download-whole");
    let (_, index) = served_sample(&dir, 20_000, 5, false);
    let served = Served::start(&index, false);
    let got = dir.0.join("got.idx");
    let stderr = ok(download(&served.base, &got, false, true, &[]));
    assert!(stderr.contains("1048576 ranges, 20000 hashes"), "{stderr}");
    same_bytes(&got, &index);
    assert!(dir.0.join("got.idx.etags").exists());
}

#[test]
fn http1_forced_against_serve_downloads_and_updates_the_same_index() {
    let dir = Dir::new("download-http1");
    let (text, index) = served_sample(&dir, 100_000, 7, false);
    let served = Served::start(&index, false);
    let part = subset(&dir, &text, "part", SUBSET_END);
    let expected = dir.0.join("expected.idx");
    build(&part, &expected, "full", false);
    // serve speaks HTTP/2 in plain text too: without --http1 the
    // download would use it.
    let got = dir.0.join("got.idx");
    let stderr = ok(download(&served.base, &got, false, false, &["--http1"]));
    assert!(stderr.contains("over HTTP/1.1"), "{stderr}");
    same_bytes(&got, &expected);
    // Nothing changed upstream: every range answers 304 over HTTP/1.1 too.
    let updated = dir.0.join("updated.idx");
    let stderr = ok(update(&served.base, SUBSET, &got, &updated, &["--http1"]));
    assert!(stderr.contains("over HTTP/1.1"), "{stderr}");
    assert!(
        stderr.contains(&format!("{SUBSET_END} ranges unchanged (304), 0 changed")),
        "{stderr}"
    );
    same_bytes(&updated, &expected);
}

/// What the fault server does to a range's first answer.
#[derive(Clone, Copy, Debug)]
enum Fault {
    Reset,
    Status500,
    Status503,
    TooMany,
    Cut,
    Corrupt,
    Slow,
}

const FAULTS: [Fault; 7] = [
    Fault::Reset,
    Fault::Status500,
    Fault::Status503,
    Fault::TooMany,
    Fault::Cut,
    Fault::Corrupt,
    Fault::Slow,
];

/// The ranges whose first answer the fault server spoils: every 5th below
/// this (the others keep the test short: each fault stalls the reorder
/// window for up to a second).
const FAULTY_BELOW: u32 = 0x400;

/// An HTTP/1.1 server of `/PREFIX` answering from a full index, which
/// spoils the first answer of every 5th range below [`FAULTY_BELOW`] with
/// one of [`FAULTS`] (every answer of `always_fail`'s range, if set), and
/// counts requests.
struct FaultServer {
    base: String,
    requests: Arc<AtomicU64>,
}

impl FaultServer {
    fn start(index: &Path, always_fail: Option<u32>) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/{{prefix}}", listener.local_addr().unwrap());
        let index = Arc::new(Index::open(index).unwrap());
        let requests = Arc::new(AtomicU64::new(0));
        let seen: Arc<Mutex<HashMap<u32, u32>>> = Arc::default();
        let counter = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (index, seen, counter) = (index.clone(), seen.clone(), counter.clone());
                std::thread::spawn(move || {
                    let _ = serve_connection(stream, &index, &seen, &counter, always_fail);
                });
            }
        });
        FaultServer { base, requests }
    }
}

fn serve_connection(
    stream: TcpStream,
    index: &Index,
    seen: &Mutex<HashMap<u32, u32>>,
    counter: &AtomicU64,
    always_fail: Option<u32>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let mut request = String::new();
        if reader.read_line(&mut request)? == 0 {
            return Ok(());
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header == "\r\n" {
                break;
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
        counter.fetch_add(1, Ordering::Relaxed);
        let attempt = {
            let mut seen = seen.lock().unwrap();
            let n = seen.entry(prefix).or_insert(0);
            *n += 1;
            *n
        };
        let mut body = Vec::new();
        spool_serve::range::encode(index.range(prefix).unwrap(), &mut body);
        let fault = if always_fail == Some(prefix) {
            Some(Fault::Status500)
        } else if attempt == 1 && prefix % 5 == 0 && prefix < FAULTY_BELOW {
            Some(FAULTS[(prefix / 5) as usize % FAULTS.len()])
        } else {
            None
        };
        let head = |status: &str, len: usize, extra: &str| {
            format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\n{extra}\r\n")
        };
        match fault {
            None => {
                out.write_all(head("200 OK", body.len(), "").as_bytes())?;
                out.write_all(&body)?;
            }
            Some(Fault::Reset) => return Ok(()),
            Some(Fault::Status500) => out.write_all(head("500 Oops", 0, "").as_bytes())?,
            Some(Fault::Status503) => out.write_all(head("503 Busy", 0, "").as_bytes())?,
            Some(Fault::TooMany) => {
                out.write_all(head("429 Slow Down", 0, "Retry-After: 1\r\n").as_bytes())?
            }
            Some(Fault::Cut) => {
                // Promised at least 10 bytes, so that an empty range is cut too.
                out.write_all(head("200 OK", body.len().max(10), "").as_bytes())?;
                out.write_all(&body[..body.len() / 2])?;
                return Ok(());
            }
            Some(Fault::Corrupt) => {
                // A well-framed body whose first line is not hex any more
                // (or, for an empty range, a line where none should be).
                let mut bad = body.clone();
                match bad.first_mut() {
                    Some(first) => *first = b'G',
                    None => bad.extend_from_slice(b"XYZ:1"),
                }
                out.write_all(head("200 OK", bad.len(), "").as_bytes())?;
                out.write_all(&bad)?;
            }
            Some(Fault::Slow) => {
                std::thread::sleep(Duration::from_millis(1500));
                out.write_all(head("200 OK", body.len(), "").as_bytes())?;
                out.write_all(&body)?;
            }
        }
    }
}

#[test]
fn faults_are_survived_and_the_index_is_the_same() {
    let dir = Dir::new("download-faults");
    let (text, index) = served_sample(&dir, 200_000, 7, false);
    let expected = dir.0.join("expected.idx");
    build(
        &subset(&dir, &text, "part", SUBSET_END),
        &expected,
        "full",
        false,
    );
    let server = FaultServer::start(&index, None);
    let got = dir.0.join("got.idx");
    let stderr = ok(download(
        &server.base,
        &got,
        false,
        false,
        &["--timeout", "1"],
    ));
    assert!(stderr.contains("over HTTP/1.1"), "{stderr}");
    same_bytes(&got, &expected);
    // Every 5th range below FAULTY_BELOW failed once: its retry is one
    // request more. A connection closed without an answer is not a failed
    // attempt but a request sent again (connection life, as a server
    // recycling its connections does it).
    let faulty = u64::from(FAULTY_BELOW.div_ceil(5));
    let resets = (0..FAULTY_BELOW)
        .step_by(5)
        .filter(|p| matches!(FAULTS[(p / 5) as usize % FAULTS.len()], Fault::Reset))
        .count() as u64;
    let retries = format!("{} retries, {resets} re-sent", faulty - resets);
    assert!(stderr.contains(&retries), "{stderr}");
    assert_eq!(
        server.requests.load(Ordering::Relaxed),
        u64::from(SUBSET_END) + faulty
    );
}

#[test]
fn a_range_that_always_fails_fails_the_download_naming_it() {
    let dir = Dir::new("download-fails");
    let (_, index) = served_sample(&dir, 20_000, 8, false);
    let server = FaultServer::start(&index, Some(0x00123));
    let got = dir.0.join("got.idx");
    let run = |extra: &[&str]| -> Output {
        let mut args = vec!["--timeout", "2"];
        args.extend(extra);
        download(&server.base, &got, false, false, &args)
            .output()
            .unwrap()
    };
    let out = run(&["--attempts", "3", "--error-budget", "1000"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("range 00123: failed 3 attempts; the last: HTTP 500"),
        "{stderr}"
    );
    assert!(!got.exists());
    // The journal holds the ranges before it; a budget of 2 failures is
    // spent by the third attempt at it.
    let out = run(&["--attempts", "10", "--error-budget", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("more than the error budget"), "{stderr}");
    assert!(!got.exists());
}

#[test]
fn kill_9_or_ctrl_c_at_random_moments_then_resume_gives_the_same_index() {
    let dir = Dir::new("download-resume");
    let (text, index) = served_sample(&dir, 200_000, 9, false);
    let served = Served::start(&index, false);
    let expected = dir.0.join("expected.idx");
    build(
        &subset(&dir, &text, "part", SUBSET_END),
        &expected,
        "full",
        false,
    );
    // How long an uninterrupted run takes, to kill within it.
    let got = dir.0.join("got.idx");
    let start = Instant::now();
    ok(download(&served.base, &got, false, false, &[]));
    let mut moments = KillMoments::new(start.elapsed(), 0x9E37_79B9_7F4A_7C15);
    same_bytes(&got, &expected);
    let mut interrupted = 0;
    for trial in 0..20 {
        std::fs::remove_file(&got).unwrap();
        std::fs::remove_file(dir.0.join("got.idx.etags")).unwrap();
        // One to three interruptions, each at a random moment of a run.
        for _ in 0..1 + trial % 3 {
            let mut child = download(&served.base, &got, false, false, &[])
                .spawn()
                .unwrap();
            std::thread::sleep(moments.next());
            let signal = if trial % 5 == 4 {
                libc::SIGINT
            } else {
                libc::SIGKILL
            };
            // SAFETY: kill has no memory-safety preconditions; the pid is
            // our own child's, not reaped yet.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
            if child.wait().unwrap().success() {
                moments.missed();
            } else {
                interrupted += 1;
                // Stopped after the rename: the output is whole. Never a
                // partial index under the output's name.
                if got.exists() {
                    same_bytes(&got, &expected);
                }
            }
        }
        ok(download(&served.base, &got, false, false, &[]));
        same_bytes(&got, &expected);
    }
    assert!(
        interrupted >= 10,
        "only {interrupted} runs were interrupted"
    );
}

#[test]
fn prefix_hex_matches_the_urls_the_fault_server_parses() {
    assert_eq!(&prefix_hex(0x00123), b"00123");
}
