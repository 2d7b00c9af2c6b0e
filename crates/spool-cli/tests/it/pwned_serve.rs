//! `spool pwned serve` as an operator runs it: sample range files →
//! `pwned build` → `serve` → every range byte-identical to its file; the
//! access log (off by default, never a password); SIGTERM ends it cleanly,
//! after the request in flight unless a second signal comes. Reloads:
//! `pwned_serve_reload.rs`; HTTP/2 and TLS: `pwned_serve_http2.rs`.

use std::time::Duration;

use crate::support::serve::*;
use crate::support::Dir;

#[test]
fn range_files_build_serve_and_come_back_byte_identical() {
    let dir = Dir::new("serve-round-trip");
    let (ranges, index) = build_ranges(&dir);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let client = http();
    let range = |prefix: &str| {
        let url = format!("{}/range/{prefix}", served.base);
        client.get(url).send().unwrap().bytes().unwrap()
    };
    let mut files = 0;
    for entry in std::fs::read_dir(&ranges).unwrap() {
        let file = entry.unwrap().path();
        let prefix = file.file_stem().unwrap().to_str().unwrap();
        assert!(
            range(prefix) == std::fs::read(&file).unwrap(),
            "range {prefix}"
        );
        files += 1;
    }
    assert!(files > 1000);
    for prefix in (0..200u32).map(|i| format!("{:05X}", i * 5237)) {
        if !ranges.join(format!("{prefix}.txt")).exists() {
            assert!(range(&prefix).is_empty(), "{prefix}");
        }
    }
    assert!(served.terminate().success());
}

#[test]
fn the_access_log_is_off_by_default_and_never_holds_a_password() {
    let dir = Dir::new("serve-access-log");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let client = http();
    for logging in [false, true] {
        let mut args = vec!["--sha1", path(&index)];
        if logging {
            args.push("--access-log");
        }
        let mut served = Served::start(&args);
        let range = client
            .get(format!("{}/range/5BAA6", served.base))
            .send()
            .unwrap();
        assert!(range.status().is_success());
        let plain = client
            .post(format!("{}/check/plain", served.base))
            .body("a secret password")
            .send()
            .unwrap();
        assert_eq!(plain.text().unwrap(), "0");
        client
            .get(format!("{}/healthz", served.base))
            .send()
            .unwrap();
        let mut log = Vec::new();
        if logging {
            // The log thread writes asynchronously: the last line is
            // /healthz's.
            log.push(served.wait_for("\"target\":\"/range/5BAA6\""));
            log.push(served.wait_for("\"target\":\"/check/plain\""));
            log.push(served.wait_for("\"target\":\"/healthz\""));
            assert!(log[0].contains("\"method\":\"GET\"") && log[0].contains("\"status\":200"));
            assert!(log[0].contains("\"peer\":\"127.0.0.1:"));
        }
        assert!(served.terminate().success());
        log.extend(served.rest());
        assert!(log.iter().all(|l| !l.contains("secret")), "{log:?}");
        if !logging {
            assert!(log.iter().all(|l| !l.contains("\"target\"")), "{log:?}");
        }
    }
}

#[test]
fn sigterm_waits_for_the_request_in_flight_and_a_second_one_does_not() {
    use std::io::Write;
    let dir = Dir::new("serve-second-signal");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let addr = served.base.strip_prefix("http://").unwrap().to_string();
    // Headers and part of a body: a request in flight.
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"POST /check/plain HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    served.signal(libc::SIGTERM);
    served.wait_for("shutting down");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        served.child.try_wait().unwrap().is_none(),
        "waits for the request"
    );
    served.signal(libc::SIGTERM);
    served.wait_for("second signal");
    assert_eq!(served.exit_status(Duration::from_secs(5)).code(), Some(1));
}
