//! What the `pwned serve` tests share: the `spool` binary, sample
//! indexes built from text or range files, a running `spool pwned serve`
//! with its standard error, and an HTTP client.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use super::Dir;

pub fn spool(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(args);
    cmd
}

pub fn ok(mut cmd: Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `pwned sample` then `pwned build` (which renames the index into place).
pub fn build_sample(dir: &Dir, seed: u64, index: &Path) {
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
pub fn build_ranges(dir: &Dir) -> (std::path::PathBuf, std::path::PathBuf) {
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
pub struct Served {
    pub child: Child,
    pub base: String,
    stderr: Receiver<String>,
}

impl Served {
    pub fn start(args: &[&str]) -> Served {
        let mut cmd = spool(&["pwned", "serve", "--listen", "127.0.0.1:0"]);
        cmd.args(args);
        Served::spawn(cmd)
    }

    pub fn spawn(mut cmd: Command) -> Served {
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
    pub fn wait_for(&mut self, text: &str) -> String {
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
    pub fn rest(&self) -> Vec<String> {
        self.stderr.iter().collect()
    }

    pub fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill has no memory-safety preconditions; the pid is our
        // own child's, which has not been reaped yet.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "kill");
    }

    /// SIGTERM, then the exit status (within 10 s).
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        self.signal(libc::SIGTERM);
        self.wait_for("shutting down");
        self.exit_status(Duration::from_secs(10))
    }

    /// The exit status, once the process has exited (within `patience`).
    pub fn exit_status(&mut self, patience: Duration) -> std::process::ExitStatus {
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

pub fn http() -> reqwest::blocking::Client {
    // In a workspace build reqwest's features are unified with
    // spool-download's (rustls without a provider): install one, or
    // reqwest refuses to build even a plain-HTTP client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
}
