//! What the download tests share: the `spool` binary, samples and their
//! builds, a `spool pwned serve` to download from.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::Dir;

/// The prefixes most tests fetch, as the hidden `--prefixes` takes them.
pub const SUBSET: &str = "00000-00FFF";
pub const SUBSET_END: u32 = 0x1000;

pub fn spool(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(args);
    cmd
}

pub fn ok(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn kind_args(ntlm: bool) -> Vec<&'static str> {
    if ntlm {
        vec!["--ntlm"]
    } else {
        vec![]
    }
}

/// A sample of `lines` hashes (hash order) at `dir/NAME.txt`.
pub fn sample(dir: &Dir, name: &str, lines: u64, seed: u64, ntlm: bool) -> PathBuf {
    let text = dir.0.join(format!("{name}.txt"));
    let (lines, seed) = (lines.to_string(), seed.to_string());
    let mut args = vec!["pwned", "sample", "--lines", &lines, "--seed", &seed];
    args.extend(kind_args(ntlm));
    args.extend(["-o", path(&text)]);
    ok(spool(&args));
    text
}

/// The lines of `text` whose prefix is below `end`, at `dir/NAME.txt`.
pub fn subset(dir: &Dir, text: &Path, name: &str, end: u32) -> PathBuf {
    let out = dir.0.join(format!("{name}.txt"));
    let all = std::fs::read_to_string(text).unwrap();
    let kept: String = all
        .lines()
        .filter(|l| u32::from_str_radix(&l[..5], 16).unwrap() < end)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&out, kept).unwrap();
    out
}

pub fn build(text: &Path, out: &Path, format: &str, ntlm: bool) {
    let mut args = vec!["pwned", "build", "-q", "--format", format, "-o", path(out)];
    args.extend(kind_args(ntlm));
    args.push(path(text));
    ok(spool(&args));
}

/// A sample of `lines` hashes and the full index the tests serve from it
/// (`all.txt` and `served.idx` in `dir`).
pub fn served_sample(dir: &Dir, lines: u64, seed: u64, ntlm: bool) -> (PathBuf, PathBuf) {
    let text = sample(dir, "all", lines, seed, ntlm);
    let index = dir.0.join("served.idx");
    build(&text, &index, "full", ntlm);
    (text, index)
}

/// `spool pwned download` of `url` into `out` (quiet, the subset unless
/// `all`), with `extra` arguments.
pub fn download(url: &str, out: &Path, ntlm: bool, all: bool, extra: &[&str]) -> Command {
    let mut args = vec!["pwned", "download", "-q", "--url", url, "-o", path(out)];
    args.extend(kind_args(ntlm));
    if !all {
        args.extend(["--prefixes", SUBSET]);
    }
    args.extend(extra);
    spool(&args)
}

/// `spool pwned update` of `prefixes` from `base` (quiet), `input` into
/// `output`, with `extra` arguments.
pub fn update(base: &str, prefixes: &str, input: &Path, output: &Path, extra: &[&str]) -> Command {
    let mut args = vec![
        "pwned",
        "update",
        "-q",
        "--prefixes",
        prefixes,
        "--url",
        base,
    ];
    args.extend(["-i", path(input), "-o", path(output)]);
    args.extend(extra);
    spool(&args)
}

pub fn same_bytes(a: &Path, b: &Path) {
    let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(
        x == y,
        "{} and {} differ ({} and {} bytes)",
        a.display(),
        b.display(),
        x.len(),
        y.len()
    );
}

/// A running `spool pwned serve`, killed on drop.
pub struct Served {
    child: Child,
    pub base: String,
}

impl Served {
    pub fn start(index: &Path, ntlm: bool) -> Served {
        let flag = if ntlm { "--ntlm" } else { "--sha1" };
        let mut child = spool(&[
            "pwned",
            "serve",
            "--listen",
            "127.0.0.1:0",
            flag,
            path(index),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let line = lines
            .find(|l| l.as_ref().is_ok_and(|l| l.contains("listening on ")))
            .expect("serve says where it listens")
            .unwrap();
        std::thread::spawn(move || lines.for_each(drop));
        let base = line.split("listening on ").nth(1).unwrap().to_string();
        Served { child, base }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Random moments at which to kill a run, within how long a run takes.
/// The window starts at a measured run's length; each kill that comes
/// after the run already finished narrows it by a third, so a machine
/// where later runs go faster than the first (warm caches, a resumed
/// journal) still gets its runs interrupted rather than outrun.
pub struct KillMoments {
    window_us: u64,
    rng: u64,
}

impl KillMoments {
    pub fn new(run: std::time::Duration, seed: u64) -> KillMoments {
        let window_us = (run.as_micros() as u64).max(1_000);
        KillMoments {
            window_us,
            rng: seed | 1,
        }
    }

    /// The next moment, uniform in the window (xorshift64).
    pub fn next(&mut self) -> std::time::Duration {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        std::time::Duration::from_micros(self.rng % self.window_us)
    }

    /// The last kill came after the run finished: aim earlier.
    pub fn missed(&mut self) {
        self.window_us = (self.window_us * 2 / 3).max(1_000);
    }
}
