//! Peak memory of `spool pwned build` stays within `--memory` when the
//! records are several times the budget (so the build spills to disk and
//! gives its arena back before the final phase).

use std::process::Command;

use crate::support::{assert_within_budget, run_measuring_peak_rss};

#[test]
fn peak_rss_stays_within_the_budget() {
    let dir = tempfile::Builder::new()
        .prefix("spool-cli-pwned-memory-")
        .tempdir()
        .unwrap();
    let input = dir.path().join("sample.txt");
    // 3 million lines: 140 MB of text, 72 MB of records against a 48 MiB
    // budget whose arena is about 8 MiB. Written by another child, so this
    // process stays small (see `run_measuring_peak_rss`).
    let status = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["pwned", "sample", "--lines", "3000000", "--seed", "8"])
        .args(["--order", "prevalence", "--crlf", "-o"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let budget_mib = 48;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["pwned", "build", "--threads", "2"])
        .arg(format!("--memory={budget_mib}M"))
        .arg("-o")
        .arg(dir.path().join("index"))
        .arg(&input);
    let (success, stderr, peak_kib) = run_measuring_peak_rss(cmd, dir.path());
    assert!(success, "{stderr}");
    assert!(stderr.contains("3000000 hashes"), "{stderr}");
    assert!(
        !stderr.contains(" 0 spill files"),
        "expected spills: {stderr}"
    );
    assert_within_budget(peak_kib, budget_mib);
}
