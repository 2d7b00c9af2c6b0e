//! `-q`/`--quiet` on `spool pwned verify`, `sample` and `serve`: nothing
//! on standard error when the command succeeds, and an error still printed
//! once, in the CLI's form (`spool: error: ...`, exit status 2), naming
//! the user's path. (`build` and `convert` are tested in `pwned_cli.rs`.)

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::Dir;

fn spool(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(args);
    cmd
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null()).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The CLI's one error line, exit status 2, naming `named`.
fn assert_one_error(out: &Output, named: &Path) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("spool: error: "), "{err}");
    assert!(err.contains(path(named)), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Runs `spool ARGS`, which must succeed and print nothing on standard
/// error; returns its output.
fn quietly(args: &[&str]) -> Output {
    let out = run(spool(args));
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "{args:?}");
    out
}

/// A 500-hash sample and its index (`build -q` keeps its summary line:
/// tested in `pwned_cli.rs`).
fn built_index(dir: &Dir) -> PathBuf {
    let text = dir.0.join("sample.txt");
    let index = dir.0.join("pwned.idx");
    quietly(&["pwned", "sample", "-q", "--lines", "500", "-o", path(&text)]);
    let out = run(spool(&[
        "pwned",
        "build",
        "-q",
        "-o",
        path(&index),
        path(&text),
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    index
}

#[test]
fn sample_quiet_prints_nothing_and_loud_prints_its_summary() {
    let dir = Dir::new("quiet-sample");
    for flag in ["-q", "--quiet"] {
        let text = dir.0.join(format!("sample{flag}.txt"));
        quietly(&["pwned", "sample", flag, "--lines", "50", "-o", path(&text)]);
        assert_eq!(std::fs::read_to_string(&text).unwrap().lines().count(), 50);
        let ranges = dir.0.join(format!("ranges{flag}"));
        quietly(&[
            "pwned",
            "sample",
            flag,
            "--lines",
            "50",
            "--ranges",
            path(&ranges),
        ]);
        assert!(std::fs::read_dir(&ranges).unwrap().count() > 0);
    }
    let text = dir.0.join("loud.txt");
    let out = run(spool(&[
        "pwned",
        "sample",
        "--lines",
        "50",
        "-o",
        path(&text),
    ]));
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let summary = format!(
        "spool pwned sample: 50 hashes written to {} in ",
        path(&text)
    );
    assert!(err.starts_with(&summary), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // To standard output there is no summary, quiet or not.
    let out = run(spool(&["pwned", "sample", "--lines", "50"]));
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 50);
    // An error under -q: a --ranges target that is a file.
    let out = run(spool(&["pwned", "sample", "-q", "--ranges", path(&text)]));
    assert_one_error(&out, &text);
}

#[test]
fn verify_quiet_prints_nothing_on_a_sound_index_and_names_a_damaged_one() {
    let dir = Dir::new("quiet-verify");
    let index = built_index(&dir);
    for flag in ["-q", "--quiet"] {
        let out = quietly(&["pwned", "verify", flag, path(&index)]);
        assert!(out.stdout.is_empty(), "{flag}");
    }
    let out = run(spool(&["pwned", "verify", path(&index)]));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(": ok, 500 hashes"));
    // One byte of the records flipped: the checksums no longer hold.
    let damaged = dir.0.join("damaged.idx");
    let mut bytes = std::fs::read(&index).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&damaged, bytes).unwrap();
    let out = run(spool(&["pwned", "verify", "-q", path(&damaged)]));
    assert_one_error(&out, &damaged);
    assert!(out.stdout.is_empty());
    let missing = dir.0.join("missing.idx");
    let out = run(spool(&["pwned", "verify", "-q", path(&missing)]));
    assert_one_error(&out, &missing);
}

/// A port that was free a moment ago (the server must bind it itself to
/// be told with `-q`, which does not print the address).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET /healthz` answered 200, retried until the server listens (10 s).
fn wait_healthy(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            let request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            stream.write_all(request.as_bytes()).unwrap();
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            if answer.starts_with("HTTP/1.1 200") {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the server did not answer");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn serve_quiet_prints_nothing_from_start_to_shutdown() {
    let dir = Dir::new("quiet-serve");
    let index = built_index(&dir);
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut cmd = spool(&["pwned", "serve", "-q", "--watch", "--listen", &listen]);
    let child = cmd
        .args(["--sha1", path(&index)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_healthy(port);
    // SAFETY: kill has no memory-safety preconditions; the pid is our own
    // child's, not yet reaped.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0, "kill");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // Its errors are printed all the same.
    let missing = dir.0.join("missing.idx");
    let out = run(spool(&[
        "pwned",
        "serve",
        "-q",
        "--listen",
        "127.0.0.1:0",
        "--sha1",
        path(&missing),
    ]));
    assert_one_error(&out, &missing);
}
