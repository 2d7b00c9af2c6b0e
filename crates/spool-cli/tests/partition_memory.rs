//! Peak memory of `spool partition` stays within `--memory` on an input
//! several times larger.

use std::process::Command;

mod support;
use support::{assert_within_budget, run_measuring_peak_rss, Dir};

#[test]
fn peak_rss_stays_within_the_budget() {
    let dir = Dir::new("partition-memory");
    let input = dir.0.join("in.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    // 256 MiB, 4x the budget, 5000 keys; written streaming, so this
    // process stays small (see `run_measuring_peak_rss`).
    spool_bench::tsv_sample::write_sample(file, 256 << 20, 5000, 3).unwrap();
    let budget_mib = 64;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args([
        "partition",
        "--by",
        "1",
        "--compress",
        "zstd",
        "--threads",
        "2",
    ])
    .arg(format!("--memory={budget_mib}M"))
    .arg("--out")
    .arg(dir.0.join("out"))
    .arg(&input);
    let (success, stderr, peak_kib) = run_measuring_peak_rss(cmd, &dir);
    assert!(success, "{stderr}");
    assert_within_budget(peak_kib, budget_mib);
}
