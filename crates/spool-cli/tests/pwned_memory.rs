//! Peak memory of `spool pwned build` stays within `--memory` when the
//! records are several times the budget (so the build spills to disk and
//! gives its arena back before the final phase).
//!
//! The build is reaped with `wait4`, which reports that one child's peak
//! RSS. The sample is written by another child: a child's peak includes
//! its parent's memory at the moment it was started, so this process must
//! stay small.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

#[test]
fn peak_rss_stays_within_the_budget() {
    let dir = std::env::temp_dir().join(format!("spool-pwned-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("sample.txt");
    // 3 million lines: 140 MB of text, 72 MB of records against a 48 MiB
    // budget whose arena is about 20 MiB.
    let status = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["pwned", "sample", "--lines", "3000000", "--seed", "8"])
        .args(["--order", "prevalence", "--crlf", "-o"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let budget_mib = 48;
    let stderr = dir.join("stderr.txt");
    #[expect(
        clippy::zombie_processes,
        reason = "reaped below with wait4, which also reports its peak RSS"
    )]
    let child = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["pwned", "build", "--threads", "2"])
        .arg(format!("--memory={budget_mib}M"))
        .arg("-o")
        .arg(dir.join("index"))
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `status` and `usage` point to writable memory of the right
    // types; wait4 reaps exactly this child and fills both when it returns
    // the child's pid, which the assertion checks before reading.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, usage.as_mut_ptr()) };
    assert_eq!(pid, child.id() as i32);
    // SAFETY: wait4 succeeded, so the struct is initialized.
    let peak_kib = unsafe { usage.assume_init() }.ru_maxrss;
    let stderr = std::fs::read_to_string(&stderr).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        std::process::ExitStatus::from_raw(status).success(),
        "{stderr}"
    );
    assert!(stderr.contains("3000000 hashes"), "{stderr}");
    assert!(
        !stderr.contains(" 0 spill files"),
        "expected spills: {stderr}"
    );
    eprintln!(
        "peak RSS {} MiB with --memory {budget_mib}M",
        peak_kib / 1024
    );
    assert!(peak_kib > 0);
    assert!(
        peak_kib <= budget_mib * 1024,
        "peak RSS {peak_kib} KiB is over the {budget_mib} MiB budget"
    );
}
