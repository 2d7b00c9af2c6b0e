//! `spool pwned build` under faults: killed with SIGKILL at random moments
//! (reading, sorting with spill files, writing, renaming) and run twice at
//! once into one output. Asserted each time: the output path holds either
//! nothing, the previous index, or the complete new one — never a
//! complete-looking wrong file — and after the next run nothing is left
//! but the index and its lock file. 20 kills by default;
//! `SPOOL_RELIABILITY_LONG=1` runs 100.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{names, Dir};

const SPOOL: &str = env!("CARGO_BIN_EXE_spool");

fn trials(short: u64, long: u64) -> u64 {
    if std::env::var_os("SPOOL_RELIABILITY_LONG").is_some() {
        long
    } else {
        short
    }
}

/// A build of `input` into `out` with a small memory budget, so that the
/// unsorted input spills.
fn build(input: &Path, out: &Path) -> Command {
    let mut cmd = Command::new(SPOOL);
    cmd.args(["pwned", "build", "--memory", "48M", "-o"])
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// A deterministic sequence of kill delays (splitmix64), so a failure
/// replays.
fn delays(n: u64, full: Duration) -> Vec<Duration> {
    let mut state = 0x6b69_6c6cu64;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^= z >> 27;
            // Up to 110% of a full run, so some kills land after the end.
            full.mul_f64((z % 1100) as f64 / 1000.0)
        })
        .collect()
}

/// Writes `lines` sample lines of `seed` in prevalence order to
/// `DIR/in.txt` and builds `DIR/reference.idx` from them; returns the
/// input's path, the index's bytes and how long the build took.
fn sample_and_reference(dir: &Path, lines: u64, seed: u64) -> (PathBuf, Vec<u8>, Duration) {
    let input = dir.join("in.txt");
    let status = Command::new(SPOOL)
        .args(["pwned", "sample", "--lines", &lines.to_string()])
        .args(["--seed", &seed.to_string(), "--order", "prevalence", "-o"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let reference = dir.join("reference.idx");
    let start = Instant::now();
    assert!(build(&input, &reference).status().unwrap().success());
    (input, std::fs::read(&reference).unwrap(), start.elapsed())
}

#[test]
fn killed_builds_never_leave_a_wrong_index_or_temporaries() {
    let dir = Dir::new("pwned-kill");
    let (input, good, full) = sample_and_reference(&dir.0, 150_000, 5);
    let out = dir.0.join("out.idx");
    let n = trials(20, 100);
    let (mut complete, mut absent) = (0, 0);
    for (trial, delay) in delays(n, full).into_iter().enumerate() {
        let _ = std::fs::remove_file(&out);
        let mut child = build(&input, &out).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        match std::fs::read(&out) {
            Ok(bytes) => {
                assert!(
                    bytes == good,
                    "trial {trial} (kill after {delay:?}): a wrong index at the output"
                );
                complete += 1;
            }
            Err(_) => absent += 1,
        }
    }
    // The next run takes over what a killed one left and leaves only the
    // index and its lock file.
    assert!(build(&input, &out).status().unwrap().success());
    assert_eq!(std::fs::read(&out).unwrap(), good);
    assert_eq!(
        names(&dir.0),
        [
            ".out.idx.spool-lock",
            ".reference.idx.spool-lock",
            "in.txt",
            "out.idx",
            "reference.idx"
        ]
    );
    eprintln!(
        "{n} kills over a {full:?} build: {complete} complete indexes, {absent} absent, 0 wrong"
    );
}

#[test]
fn two_builds_into_one_output_one_refuses() {
    let dir = Dir::new("pwned-twice");
    let (input, good, _) = sample_and_reference(&dir.0, 100_000, 6);
    let out = dir.0.join("out.idx");
    let mut refused = 0;
    let n = trials(5, 20);
    for trial in 0..n {
        let _ = std::fs::remove_file(&out);
        let a = build(&input, &out).spawn().unwrap();
        let b = build(&input, &out).spawn().unwrap();
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        for run in [&a, &b] {
            if !run.status.success() {
                let err = String::from_utf8_lossy(&run.stderr);
                assert!(
                    err.contains("out.idx: another build is writing this index"),
                    "trial {trial}: {err}"
                );
                refused += 1;
            }
        }
        assert!(
            a.status.success() || b.status.success(),
            "trial {trial}: both failed"
        );
        assert_eq!(std::fs::read(&out).unwrap(), good, "trial {trial}");
    }
    // Starting together, the second finds the first's lock nearly always;
    // a refusal in most trials shows the lock is taken before any work.
    assert!(refused >= n / 2, "{refused} refusals in {n} trials");
    eprintln!("{n} pairs of builds into one output: {refused} refused, 0 corrupt");
}
