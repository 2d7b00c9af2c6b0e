//! `spool pwned serve` as an operator runs it: sample range files → `pwned
//! build` → `serve` → every range byte-identical to its file; a rebuilt
//! index swapped in by SIGHUP under load with no failed request, or by
//! `--watch` (an absolute or a relative path); curl over HTTP/2 (h2c, and
//! TLS with a certificate openssl makes); SIGTERM ends it cleanly.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod support;
use support::Dir;

fn spool(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(args);
    cmd
}

fn ok(mut cmd: Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `pwned sample` then `pwned build` (which renames the index into place).
fn build_sample(dir: &Dir, seed: u64, index: &Path) {
    let text = dir.0.join(format!("sample-{seed}.txt"));
    let seed = seed.to_string();
    ok(spool(&[
        "pwned",
        "sample",
        "--lines",
        "5000",
        "--seed",
        &seed,
        "-o",
        path(&text),
    ]));
    ok(spool(&["pwned", "build", "-o", path(index), path(&text)]));
}

/// `pwned sample --ranges` (2,000 hashes, CRLF, as the official
/// downloader writes them) then `pwned build` of the folder; returns the
/// folder and the index.
fn build_ranges(dir: &Dir) -> (std::path::PathBuf, std::path::PathBuf) {
    let ranges = dir.0.join("ranges");
    let index = dir.0.join("pwned.idx");
    ok(spool(&[
        "pwned",
        "sample",
        "--lines",
        "2000",
        "--crlf",
        "--ranges",
        path(&ranges),
    ]));
    ok(spool(&[
        "pwned",
        "build",
        "-o",
        path(&index),
        path(&ranges),
    ]));
    (ranges, index)
}

/// A running `spool pwned serve` and the lines of its standard error.
struct Served {
    child: Child,
    base: String,
    stderr: Receiver<String>,
}

impl Served {
    fn start(args: &[&str]) -> Served {
        let mut cmd = spool(&["pwned", "serve", "--listen", "127.0.0.1:0"]);
        cmd.args(args);
        Served::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> Served {
        let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
        let (tx, stderr) = channel();
        let lines = BufReader::new(child.stderr.take().unwrap()).lines();
        std::thread::spawn(move || lines.map_while(Result::ok).try_for_each(|l| tx.send(l)));
        let mut served = Served {
            child,
            base: String::new(),
            stderr,
        };
        let line = served.wait_for("listening on ");
        served.base = line.split("listening on ").nth(1).unwrap().to_string();
        served
    }

    /// The next standard error line containing `text` (within 10 s).
    fn wait_for(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(e) => panic!("no `{text}` on standard error: {e}"),
            }
        }
    }

    /// The standard error lines not read yet, up to the end of the stream
    /// (once the process has exited).
    fn rest(&self) -> Vec<String> {
        self.stderr.iter().collect()
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill has no memory-safety preconditions; the pid is our
        // own child's, which has not been reaped yet.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "kill");
    }

    /// SIGTERM, then the exit status (within 10 s).
    fn terminate(&mut self) -> std::process::ExitStatus {
        self.signal(libc::SIGTERM);
        self.wait_for("shutting down");
        self.exit_status(Duration::from_secs(10))
    }

    /// The exit status, once the process has exited (within `patience`).
    fn exit_status(&mut self, patience: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + patience;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "still running");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http() -> reqwest::blocking::Client {
    // In a workspace build reqwest's features are unified with
    // spool-download's (rustls without a provider): install one, or
    // reqwest refuses to build even a plain-HTTP client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
}

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

/// Asks for one count over and over until `stop`: every answer must be
/// the old index's or the new one's, and never the old after the new.
fn ask(url: String, old: String, new: String, stop: Arc<AtomicBool>) -> (u64, u64, Vec<String>) {
    let client = http();
    let (mut olds, mut news, mut failures) = (0, 0, Vec::new());
    while !stop.load(Ordering::Relaxed) {
        match client
            .get(&url)
            .send()
            .and_then(|r| r.error_for_status())
            .and_then(|r| r.text())
        {
            Ok(count) if count == new => news += 1,
            Ok(count) if count == old && news == 0 => olds += 1,
            Ok(count) => failures.push(format!("count {count} after {news} new")),
            Err(e) => failures.push(e.to_string()),
        }
    }
    (olds, news, failures)
}

#[test]
fn sighup_swaps_a_rebuilt_index_under_load_with_no_failed_request() {
    let dir = Dir::new("serve-sighup");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let hash = spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-1-3"));
    let old = spool_pwned::sample::sample_count(1, 3).to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (url, old, stop) = (
                format!("{}/check/sha1/{hash}", served.base),
                old.clone(),
                Arc::clone(&stop),
            );
            std::thread::spawn(move || ask(url, old, "0".into(), stop))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Another sample, built over the served path (temporary name, rename).
    build_sample(&dir, 2, &index);
    served.signal(libc::SIGHUP);
    served.wait_for("reloaded (SIGHUP)");
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        let (olds, news, failures) = client.join().unwrap();
        assert!(failures.is_empty(), "{failures:?}");
        assert!(olds > 0 && news > 0, "{olds} old, {news} new answers");
    }
    assert!(served.terminate().success());
}

#[test]
fn watch_reloads_an_index_renamed_over_the_served_path() {
    let dir = Dir::new("serve-watch");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let mut served = Served::start(&["--watch", "--sha1", path(&index)]);
    rebuild_and_see_it_served(&mut served, &dir, &index);
    assert!(served.terminate().success());
}

/// With `served` watching `index` (seed 1's sample): seed 2's, built over
/// it, is served once the reload says so. Returns a URL whose answer
/// changed, and the new answer.
fn rebuild_and_see_it_served(served: &mut Served, dir: &Dir, index: &Path) -> (String, String) {
    let hash = spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-2-3"));
    let url = format!("{}/check/sha1/{hash}", served.base);
    let client = http();
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), "0");
    build_sample(dir, 2, index);
    served.wait_for("reloaded (index file replaced)");
    let new = spool_pwned::sample::sample_count(2, 3).to_string();
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), new);
    (url, new)
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

#[test]
fn watch_reloads_an_index_given_by_a_relative_path() {
    let dir = Dir::new("serve-watch-relative");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    // The server runs in the index's folder and names it relatively, as
    // docs/pwned.md shows.
    let mut child = spool(&["pwned", "serve", "--listen", "127.0.0.1:0"]);
    child
        .args(["--watch", "--sha1", "pwned.idx"])
        .current_dir(&dir.0);
    let mut served = Served::spawn(child);
    let (url, new) = rebuild_and_see_it_served(&mut served, &dir, &index);
    let client = http();
    // A replacement that does not open is refused, said so, and the
    // index served stays.
    std::fs::write(dir.0.join("broken"), b"not an index").unwrap();
    std::fs::rename(dir.0.join("broken"), &index).unwrap();
    served.wait_for("reload (index file replaced) failed, still serving the previous index");
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), new);
    assert!(served.terminate().success());
}

/// Runs `curl ARGS`; its standard output, or `None` if curl is missing or
/// lacks `feature` (`curl --version`'s features line).
fn curl(feature: &str, args: &[&str]) -> Option<String> {
    let version = Command::new("curl").arg("--version").output().ok()?;
    let features = String::from_utf8_lossy(&version.stdout).to_string();
    if !features
        .lines()
        .any(|l| l.starts_with("Features:") && l.split(' ').any(|f| f == feature))
    {
        eprintln!("skipped: curl has no {feature}");
        return None;
    }
    let out = Command::new("curl")
        .args(["-sS", "--noproxy", "*"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn curl_speaks_http2_with_prior_knowledge_and_revalidates() {
    let dir = Dir::new("serve-curl-h2");
    let (ranges, index) = build_ranges(&dir);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let file = std::fs::read_dir(&ranges)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let prefix = file.file_stem().unwrap().to_str().unwrap().to_string();
    let url = format!("{}/range/{prefix}", served.base);
    let body = dir.0.join("body");
    let Some(out) = curl(
        "HTTP2",
        &[
            "--http2-prior-knowledge",
            "-o",
            path(&body),
            "-D",
            "-",
            "-w",
            "%{http_version}",
            &url,
        ],
    ) else {
        return;
    };
    assert!(out.starts_with("HTTP/2 200"), "{out}");
    assert!(out.ends_with("\n2"), "{out}");
    assert_eq!(std::fs::read(&body).unwrap(), std::fs::read(&file).unwrap());
    let etag = out
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an ETag")
        .trim()
        .to_string();
    let again = curl(
        "HTTP2",
        &[
            "--http2-prior-knowledge",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{http_version}",
            "-H",
            &format!("If-None-Match: {etag}"),
            &url,
        ],
    )
    .unwrap();
    assert_eq!(again, "304 2");
    assert!(served.terminate().success());
}

#[test]
fn tls_serves_curl_over_http2_and_names_files_it_cannot_use() {
    let dir = Dir::new("serve-tls");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let missing = dir.0.join("missing.pem");
    let out = spool(&[
        "pwned",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--sha1",
        path(&index),
    ])
    .args(["--tls-cert", path(&missing), "--tls-key", path(&missing)])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: No such file", path(&missing))),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let (cert, key) = (dir.0.join("cert.pem"), dir.0.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ])
        .args([
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        .args(["-keyout", path(&key), "-out", path(&cert)])
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no openssl to make a certificate");
        return;
    }
    let mut served = Served::start(&[
        "--sha1",
        path(&index),
        "--tls-cert",
        path(&cert),
        "--tls-key",
        path(&key),
    ]);
    assert!(
        served.base.starts_with("https://127.0.0.1:"),
        "{}",
        served.base
    );
    let port = served.base.rsplit(':').next().unwrap().to_string();
    let url = format!(
        "https://localhost:{port}/check/sha1/{}",
        spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-1-3"))
    );
    let resolve = format!("localhost:{port}:127.0.0.1");
    let Some(out) = curl(
        "HTTP2",
        &[
            "--http2",
            "--cacert",
            path(&cert),
            "--resolve",
            &resolve,
            "-w",
            " %{http_version}",
            &url,
        ],
    ) else {
        return;
    };
    assert_eq!(
        out,
        format!("{} 2", spool_pwned::sample::sample_count(1, 3))
    );
    assert!(served.terminate().success());
}
