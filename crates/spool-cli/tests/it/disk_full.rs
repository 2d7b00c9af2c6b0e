//! A really full disk: `spool partition` and `spool pwned build` writing
//! onto a small tmpfs (mounted in a private mount namespace with
//! `unshare -m`, so nothing outside the test sees it) until it runs out of
//! space — the output itself, and the build's spill files.
//!
//! Each run must fail with exit status 2 and one clear error naming the
//! user's path and "No space left on device", and leave on the file
//! system nothing but the output's lock file: no output that looks
//! complete, no temporary, staging directory or spill file.
//!
//! Mounting needs root (CAP_SYS_ADMIN); elsewhere the tests say they are
//! skipped and pass. (`partition_reliability.rs` also fails writes with a
//! file-size limit, which needs no privilege.)

use std::path::Path;
use std::process::Command;

use crate::support::Dir;

const SPOOL: &str = env!("CARGO_BIN_EXE_spool");

/// Mounts a tmpfs of `size` on `mnt`, runs the command, then prints its
/// exit status and every name left on the tmpfs; the command's standard
/// error goes to `MNT.stderr`, outside the tmpfs.
const SCRIPT: &str = r#"
mnt=$1; size=$2; shift 2
mount -t tmpfs -o "size=$size" tmpfs "$mnt" || exit 97
"$@" 2>"$mnt.stderr"
echo "exit=$?"
cd "$mnt" && find . -mindepth 1 | sort
"#;

/// What a run on a full tmpfs did.
struct Outcome {
    exit: String,
    stderr: String,
    /// Names left on the tmpfs (`./NAME`, recursively).
    left: Vec<String>,
}

/// Runs `spool ARGS` (paths in `args` may point into `DIR/small`, where a
/// tmpfs of `size` is mounted) in a private mount namespace; `None`, with
/// a message, where mounting is not allowed.
fn on_small_tmpfs(dir: &Dir, size: &str, args: &[&str]) -> Option<Outcome> {
    let mnt = dir.0.join("small");
    std::fs::create_dir_all(&mnt).unwrap();
    let run = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", SCRIPT, "sh"])
        .arg(&mnt)
        .arg(size)
        .arg(SPOOL)
        .args(args)
        .output();
    let out = match run {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            eprintln!(
                "skipped: cannot mount a small tmpfs in a private namespace (needs root): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Err(e) => {
            eprintln!("skipped: cannot run unshare(1): {e}");
            return None;
        }
    };
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    let exit = lines.next().unwrap().to_owned();
    let stderr = std::fs::read_to_string(dir.0.join("small.stderr")).unwrap();
    Some(Outcome {
        exit,
        stderr,
        left: lines.map(str::to_owned).collect(),
    })
}

/// The checks every full-disk run must pass.
fn assert_failed_cleanly(run: &Outcome, names: &Path, left: &[&str]) {
    let Outcome { exit, stderr, .. } = run;
    assert_eq!(exit, "exit=2", "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(
        stderr.contains(&names.display().to_string()),
        "the error does not name {}: {stderr}",
        names.display()
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one error: {stderr}");
    assert_eq!(run.left, left, "{stderr}");
}

fn sample(dir: &Dir, lines: u64, order: &str) -> String {
    let input = dir.0.join("in.txt");
    let ok = Command::new(SPOOL)
        .args([
            "pwned",
            "sample",
            "--lines",
            &lines.to_string(),
            "--order",
            order,
            "-o",
        ])
        .arg(&input)
        .status()
        .unwrap();
    assert!(ok.success());
    input.display().to_string()
}

#[test]
fn partition_onto_a_full_tmpfs_fails_and_leaves_only_its_lock() {
    let dir = Dir::new("full-partition");
    let input = dir.0.join("in.tsv");
    let text: String = (0..50_000u64)
        .map(|i| format!("{i}\tk{}\tpayload-payload-{}\n", (i * 7919) % 20, i * 31))
        .collect();
    std::fs::write(&input, text).unwrap();
    let out = dir.0.join("small").join("out");
    let args = [
        "partition",
        "-q",
        "--by",
        "2",
        "--out",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ];
    let Some(run) = on_small_tmpfs(&dir, "256k", &args) else {
        return;
    };
    assert_failed_cleanly(&run, &out, &["./.out.spool-lock"]);
}

#[test]
fn pwned_build_whose_index_fills_the_disk_fails_and_leaves_only_its_lock() {
    let dir = Dir::new("full-pwned-out");
    // Sorted input streams into the index: the index's writes fill it.
    let input = sample(&dir, 200_000, "hash");
    let out = dir.0.join("small").join("out.idx");
    let args = ["pwned", "build", "-o", out.to_str().unwrap(), &input];
    let Some(run) = on_small_tmpfs(&dir, "1m", &args) else {
        return;
    };
    assert_failed_cleanly(&run, &out, &["./.out.idx.spool-lock"]);
}

#[test]
fn pwned_build_whose_spill_fills_the_disk_fails_and_leaves_only_its_lock() {
    let dir = Dir::new("full-pwned-spill");
    // Unsorted input in a small budget spills (about 10 MB at a time):
    // the spill folder is the full tmpfs, the index goes elsewhere.
    let input = sample(&dir, 600_000, "prevalence");
    let spill = dir.0.join("small");
    let out = dir.0.join("out.idx");
    let args = [
        "pwned",
        "build",
        "--threads",
        "1",
        "--memory",
        "48M",
        "--temp-dir",
        spill.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        &input,
    ];
    let Some(run) = on_small_tmpfs(&dir, "2m", &args) else {
        return;
    };
    assert_failed_cleanly(&run, &spill, &[]);
    assert!(!out.exists(), "a failed build left its index");
    let mut beside = crate::support::names(&dir.0);
    beside.retain(|n| !n.ends_with(".spool-lock"));
    assert_eq!(beside, ["in.txt", "small", "small.stderr"]);
}
