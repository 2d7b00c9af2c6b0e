//! `spool pwned download` against upstreams that behave as real ones and
//! their CDNs do (`support/upstream.rs`): connections recycled every 100
//! requests or closed when idle (HTTP/1.1 and HTTP/2), compressed,
//! chunked and unframed bodies, redirects. The index is byte for byte
//! the build of the same hashes, and normal connection life costs no
//! failed attempt: most runs have `--error-budget 0`.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::support::download::*;
use crate::support::upstream::{Behaviour, Upstream};
use crate::support::Dir;

/// A served sample and the index a download of the subset must equal.
fn setup(tag: &str, seed: u64) -> (Dir, std::path::PathBuf, std::path::PathBuf) {
    let dir = Dir::new(tag);
    let (text, index) = served_sample(&dir, 100_000, seed, false);
    let expected = dir.0.join("expected.idx");
    build(
        &subset(&dir, &text, "part", SUBSET_END),
        &expected,
        "full",
        false,
    );
    (dir, index, expected)
}

/// Downloads the subset from `url` into a fresh file; its standard error.
fn fetch_ok(dir: &Dir, name: &str, url: &str, extra: &[&str]) -> (std::path::PathBuf, String) {
    let got = dir.0.join(name);
    let stderr = ok(download(url, &got, false, false, extra));
    (got, stderr)
}

/// Every 64th range of the subset.
const EVERY_64TH: u64 = SUBSET_END as u64 / 64;

#[test]
fn recycled_and_idle_closed_connections_cost_no_failed_attempt() {
    let (dir, index, expected) = setup("upstream-recycle", 21);
    let cases = [
        (
            "h1-close-unannounced",
            false,
            Behaviour {
                recycle: 100,
                ..Behaviour::default()
            },
        ),
        (
            "h1-connection-close",
            false,
            Behaviour {
                recycle: 100,
                say_close: true,
                ..Behaviour::default()
            },
        ),
        (
            "h1-idle",
            false,
            Behaviour {
                idle: Some(Duration::from_millis(3)),
                ..Behaviour::default()
            },
        ),
        (
            "h2-goaway-graceful",
            true,
            Behaviour {
                recycle: 100,
                ..Behaviour::default()
            },
        ),
        (
            "h2-goaway-abrupt",
            true,
            Behaviour {
                recycle: 100,
                abrupt: true,
                ..Behaviour::default()
            },
        ),
        (
            "h2-idle",
            true,
            Behaviour {
                idle: Some(Duration::from_millis(3)),
                ..Behaviour::default()
            },
        ),
    ];
    for (name, h2, how) in cases {
        let recycle = how.recycle;
        let server = if h2 {
            Upstream::http2(&index, how)
        } else {
            Upstream::http1(&index, how)
        };
        let extra = ["--error-budget", "0", "--concurrency", "128"];
        let (got, stderr) = fetch_ok(&dir, name, &server.url, &extra);
        same_bytes(&got, &expected);
        assert!(stderr.contains(" 0 retries"), "{name}: {stderr}");
        let protocol = if h2 { "over HTTP/2" } else { "over HTTP/1.1" };
        assert!(stderr.contains(protocol), "{name}: {stderr}");
        let connections = server.counts.connections.load(Ordering::Relaxed);
        if recycle > 0 {
            // The server did recycle: a connection per 100 answers, and
            // the streams in flight when a graceful GOAWAY went out.
            let floor = u64::from(SUBSET_END) / (recycle + 128);
            assert!(connections >= floor, "{name}: {connections} connections");
        }
    }
}

#[test]
fn a_server_closing_every_connection_still_fails_the_run() {
    let (dir, index, _) = setup("upstream-close-all", 22);
    let server = Upstream::http1(
        &index,
        Behaviour {
            recycle: 1,
            ..Behaviour::default()
        },
    );
    // Recycling after every answer is still normal life ...
    let (_, stderr) = fetch_ok(&dir, "ok.idx", &server.url, &["--error-budget", "0"]);
    assert!(stderr.contains(" 0 retries"), "{stderr}");
    // ... but a server that never answers is not: the free re-sends of a
    // range are bounded, and then its attempts count.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/{{prefix}}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut byte = [0u8; 1];
            let _ = std::io::Read::read(&mut stream, &mut byte);
        }
    });
    let got = dir.0.join("never.idx");
    let out = download(&url, &got, false, false, &["--http1", "--attempts", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("failed 2 attempts"), "{stderr}");
    assert!(!got.exists());
}

#[test]
fn unframed_bodies_are_retried_never_taken_and_chunked_ones_are() {
    let (dir, index, expected) = setup("upstream-framing", 23);
    // Every 64th range's first answer is cut at a line boundary and ended
    // by closing the connection: a valid body with a hash missing.
    let server = Upstream::http1(
        &index,
        Behaviour {
            unframed_first: true,
            ..Behaviour::default()
        },
    );
    let (got, stderr) = fetch_ok(&dir, "unframed.idx", &server.url, &[]);
    same_bytes(&got, &expected);
    assert!(
        stderr.contains(&format!(" {EVERY_64TH} retries")),
        "{stderr}"
    );
    let server = Upstream::http1(
        &index,
        Behaviour {
            chunked: true,
            ..Behaviour::default()
        },
    );
    let (got, stderr) = fetch_ok(&dir, "chunked.idx", &server.url, &["--error-budget", "0"]);
    same_bytes(&got, &expected);
    assert!(stderr.contains(" 0 retries"), "{stderr}");
}

#[test]
fn redirects_fail_naming_range_and_location_unless_to_the_same_range() {
    let (dir, index, expected) = setup("upstream-redirect", 24);
    let target = Upstream::http1(&index, Behaviour::default());
    let target_host = target.url.trim_end_matches("/{prefix}").to_string();
    let elsewhere = format!("{target_host}/00101");
    let server = Upstream::http1(
        &index,
        Behaviour {
            redirect: Some((0x100, elsewhere.clone())),
            ..Behaviour::default()
        },
    );
    for extra in [&[][..], &["--follow-redirects"][..]] {
        let got = dir.0.join("got.idx");
        let out = download(&server.url, &got, false, false, extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains("range 00100"), "{stderr}");
        assert!(stderr.contains(&elsewhere), "{stderr}");
        assert!(!got.exists());
    }
    // To the same range's path on another server: followed when asked.
    let same = format!("{target_host}/00100");
    let server = Upstream::http1(
        &index,
        Behaviour {
            redirect: Some((0x100, same.clone())),
            ..Behaviour::default()
        },
    );
    let got = dir.0.join("same.idx");
    let out = download(&server.url, &got, false, false, &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains(&same), "{stderr}");
    let (got, _) = fetch_ok(&dir, "same.idx", &server.url, &["--follow-redirects"]);
    same_bytes(&got, &expected);
}

#[test]
fn compressed_bodies_are_asked_for_and_decoded() {
    let (dir, index, expected) = setup("upstream-compressed", 25);
    for (coding, h2) in [
        ("gzip", false),
        ("br", true),
        ("zstd", false),
        ("gzip", true),
    ] {
        let how = Behaviour {
            coding: Some(coding),
            ..Behaviour::default()
        };
        let server = if h2 {
            Upstream::http2(&index, how)
        } else {
            Upstream::http1(&index, how)
        };
        let name = format!("{coding}-{h2}.idx");
        let (got, stderr) = fetch_ok(&dir, &name, &server.url, &["--error-budget", "0"]);
        same_bytes(&got, &expected);
        let all = format!("{SUBSET_END} bodies compressed");
        assert!(stderr.contains(&all), "{coding}: {stderr}");
        let counts = &server.counts;
        assert_eq!(
            counts.asked_encoding.load(Ordering::Relaxed),
            counts.requests.load(Ordering::Relaxed)
        );
    }
    // --no-compression asks for none; a body compressed anyway is decoded.
    let server = Upstream::http1(
        &index,
        Behaviour {
            coding: Some("gzip"),
            force: true,
            ..Behaviour::default()
        },
    );
    let (got, stderr) = fetch_ok(&dir, "forced.idx", &server.url, &["--no-compression"]);
    same_bytes(&got, &expected);
    assert!(stderr.contains("bodies compressed"), "{stderr}");
    assert_eq!(server.counts.asked_encoding.load(Ordering::Relaxed), 0);
}

#[test]
fn a_compressed_stream_cut_inside_its_framing_is_retried() {
    let (dir, index, expected) = setup("upstream-damaged", 26);
    for coding in ["gzip", "br", "zstd"] {
        let server = Upstream::http1(
            &index,
            Behaviour {
                coding: Some(coding),
                damaged_first: true,
                ..Behaviour::default()
            },
        );
        let (got, stderr) = fetch_ok(&dir, &format!("{coding}.idx"), &server.url, &[]);
        same_bytes(&got, &expected);
        assert!(
            stderr.contains(&format!(" {EVERY_64TH} retries")),
            "{coding}: {stderr}"
        );
    }
}

#[test]
fn a_range_being_retried_does_not_hold_the_others_back() {
    let (dir, index, expected) = setup("upstream-stall", 27);
    // Range 00010 waits two seconds for its second attempt.
    let slow = 0x10;
    let server = Upstream::http1(
        &index,
        Behaviour {
            pause_first: Some(slow),
            ..Behaviour::default()
        },
    );
    let window = 32;
    let extra = ["--lanes", "1", "--concurrency", "32", "--http1"];
    let (got, stderr) = fetch_ok(&dir, "got.idx", &server.url, &extra);
    same_bytes(&got, &expected);
    assert!(stderr.contains(" 1 retries"), "{stderr}");
    // Meanwhile the lane went on far past one window after it.
    let order = server.counts.order.lock().unwrap();
    let retry = order.iter().rposition(|&p| p == slow).unwrap();
    let furthest = order[..retry].iter().max().unwrap();
    assert!(
        *furthest >= slow + 4 * window,
        "nothing past {furthest:05X} before the retry of {slow:05X}"
    );
}
