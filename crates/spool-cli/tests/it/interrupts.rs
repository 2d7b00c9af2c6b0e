//! Ctrl-C and SIGTERM at random moments of `spool pwned build` (reading,
//! sorting with spill files, writing, renaming) and `spool partition`.
//! Each time: the exit status is 130 (SIGINT) or 143 (SIGTERM) — or 0 when
//! the signal came after the run had finished, or death by the signal
//! when it came before the handler was installed, when nothing is
//! written yet — the output is absent or
//! whole, and nothing else is left in the folder: no `.NAME.partial`, no
//! spill file, no staging directory (only the output's lock file, which
//! is kept by design).
//!
//! 12 signals per command by default; `SPOOL_RELIABILITY_LONG=1` sends 40.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::{names, Dir};

const SPOOL: &str = env!("CARGO_BIN_EXE_spool");

fn trials() -> u64 {
    if std::env::var_os("SPOOL_RELIABILITY_LONG").is_some_and(|v| v != "0") {
        40
    } else {
        12
    }
}

/// Delays spread over 0–105% of `full` (a fixed sequence, so a failure
/// replays), and which signal to send each time.
fn schedule(n: u64, full: Duration) -> Vec<(Duration, libc::c_int)> {
    (0..n)
        .map(|i| {
            // The golden-ratio sequence covers [0, 1) evenly in any prefix.
            let at = (i as f64 * 0.618_034).fract() * 1.05;
            let signal = if i % 2 == 0 {
                libc::SIGINT
            } else {
                libc::SIGTERM
            };
            (full.mul_f64(at), signal)
        })
        .collect()
}

/// Sends `signal` to `child` after `delay`, then returns its exit status
/// and standard error.
fn signal_after(mut child: Child, delay: Duration, signal: libc::c_int) -> (ExitStatus, String) {
    std::thread::sleep(delay);
    // SAFETY: kill(2) with the pid of our own unreaped child and a valid
    // signal number has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (child.wait().unwrap(), stderr)
}

/// One command interrupted again and again in `dir`.
struct Trials<'a> {
    what: &'a str,
    dir: &'a Path,
    /// The output's name in `dir`.
    out: &'a str,
    /// The command writing `dir/out`.
    run: &'a dyn Fn(&Path) -> Command,
    /// The output's contents (`None` if absent), and how to remove it.
    read: &'a dyn Fn(&Path) -> Option<Vec<u8>>,
    remove: &'a dyn Fn(&Path),
    /// What `dir` holds besides the output and lock files.
    kept: &'a [&'a str],
}

impl Trials<'_> {
    /// Runs the command once undisturbed (into `reference`), then
    /// interrupts it at moments spread over that run's length, checking
    /// each time the exit status and message, that the output is absent
    /// or whole, and that nothing else is left.
    fn run(&self) {
        let reference = self.dir.join("reference");
        let start = Instant::now();
        assert!((self.run)(&reference).status().unwrap().success());
        let full = start.elapsed();
        let good = (self.read)(&reference).unwrap();
        (self.remove)(&reference);

        let out = self.dir.join(self.out);
        let (mut whole, mut absent) = (0, 0);
        for (trial, (delay, signal)) in schedule(trials(), full).into_iter().enumerate() {
            if out.exists() {
                (self.remove)(&out);
            }
            let (exit, stderr) = signal_after((self.run)(&out).spawn().unwrap(), delay, signal);
            let (status, word) = if signal == libc::SIGINT {
                (130, "interrupted")
            } else {
                (143, "terminated")
            };
            let at = format!("trial {trial} (signal {signal} after {delay:?})");
            match exit.code() {
                Some(0) => {}
                Some(c) if c == status => assert!(stderr.contains(word), "{at}: {stderr}"),
                None if exit.signal() == Some(signal) => {}
                other => panic!("{at}: exit {other:?}: {stderr}"),
            }
            match (self.read)(&out) {
                Some(bytes) => {
                    assert!(bytes == good, "{at}: a wrong output");
                    whole += 1;
                }
                None => {
                    assert_ne!(exit.code(), Some(0), "{at}: success without an output");
                    absent += 1;
                }
            }
            let mut left = names(self.dir);
            left.retain(|n| n != self.out && !n.ends_with(".spool-lock"));
            assert_eq!(left, self.kept, "{at}");
        }
        eprintln!(
            "{}: {} signals over a {full:?} run: {absent} outputs absent, {whole} whole, 0 wrong, 0 temporaries left",
            self.what,
            trials()
        );
    }
}

#[test]
fn interrupted_pwned_builds_leave_no_temporary_or_spill_file() {
    interrupt_pwned_builds("int-pwned", "spool pwned build", &[]);
}

/// A smaller layout is converted from a full index built first beside the
/// output (`.NAME.full`): an interrupt in either step leaves neither.
#[test]
fn interrupted_t64_builds_leave_no_full_index() {
    interrupt_pwned_builds(
        "int-pwned-t64",
        "spool pwned build --format t64",
        &["--format", "t64"],
    );
}

fn interrupt_pwned_builds(name: &str, what: &str, extra: &[&str]) {
    let dir = Dir::new(name);
    let input = dir.0.join("in.txt");
    let sampled = Command::new(SPOOL)
        .args(["pwned", "sample", "--lines", "150000", "--seed", "7"])
        .args(["--order", "prevalence", "-o"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(sampled.success());
    // Spill files (the input is unsorted and the budget small) go beside
    // the output by default: one left behind would show in `dir`.
    let build = |out: &Path| {
        let mut cmd = Command::new(SPOOL);
        cmd.args(["pwned", "build", "--memory", "48M"])
            .args(extra)
            .arg("-o")
            .arg(out)
            .arg(&input)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    };
    Trials {
        what,
        dir: &dir.0,
        out: "out.idx",
        run: &build,
        read: &|p| std::fs::read(p).ok(),
        remove: &|p| std::fs::remove_file(p).unwrap(),
        kept: &["in.txt"],
    }
    .run();
}

#[test]
fn interrupted_partitions_leave_no_staging_directory() {
    let dir = Dir::new("int-partition");
    let input = dir.0.join("in.tsv");
    let text: String = (0..300_000u64)
        .map(|i| format!("{i}\tk{}\tpayload-{}\n", (i * 7919) % 50, i * 31))
        .collect();
    std::fs::write(&input, text).unwrap();
    let partition = |out: &Path| {
        let mut cmd = Command::new(SPOOL);
        cmd.args(["partition", "-q", "--by", "2", "--layout", "flat"])
            .args(["--threads", "2", "--out"])
            .arg(out)
            .arg(&input)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    };
    // The flat layout's files, concatenated in name order, stand for the
    // dataset.
    let dataset = |root: &Path| -> Option<Vec<u8>> {
        let files = names(root);
        Some(
            files
                .iter()
                .flat_map(|f| std::fs::read(root.join(f)).unwrap())
                .collect(),
        )
    };
    Trials {
        what: "spool partition",
        dir: &dir.0,
        out: "out",
        run: &partition,
        read: &|p| p.exists().then(|| dataset(p)).flatten(),
        remove: &|p| std::fs::remove_dir_all(p).unwrap(),
        kept: &["in.tsv"],
    }
    .run();
}
