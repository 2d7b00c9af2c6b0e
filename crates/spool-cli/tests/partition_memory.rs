//! Peak memory of `spool partition` stays within `--memory` on an input
//! several times larger.

use std::process::Command;

mod support;
use support::{assert_within_budget, run_measuring_peak_rss, Dir};

/// Partitions a sample of four times `budget_mib` with `keys` keys by
/// column 1, with `args` besides, and checks the peak RSS; returns the
/// run's summary line.
fn partition_within_budget(tag: &str, budget_mib: i64, keys: u32, args: &[&str]) -> String {
    let dir = Dir::new(tag);
    let input = dir.0.join("in.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    // Written streaming, so this process stays small (see
    // `run_measuring_peak_rss`).
    spool_bench::tsv_sample::write_sample(file, (4 * budget_mib as u64) << 20, keys, 3).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["partition", "--by", "1", "--threads", "2"])
        .args(args)
        .arg(format!("--memory={budget_mib}M"))
        .arg("--out")
        .arg(dir.0.join("out"))
        .arg(&input);
    let (success, stderr, peak_kib) = run_measuring_peak_rss(cmd, &dir);
    assert!(success, "{stderr}");
    assert_within_budget(peak_kib, budget_mib);
    stderr
}

#[test]
fn peak_rss_stays_within_the_budget() {
    // 256 MiB, 4x the budget, 5000 keys.
    partition_within_budget("partition-memory", 64, 5000, &["--compress", "zstd"]);
}

/// Parquet output with 100,000 keys: the router's buffers and every open
/// writer's row group share the budget.
///
/// Not yet met: on a 2-core machine this peaked at 143 MiB (and the
/// same with 1,000 keys at 179 MiB); the writers' charges now cover
/// their measured state and row-group metadata, and groups beyond the
/// open writers spill rather than writing a part file per flush, but the
/// rest is not yet accounted for. Run with `--ignored` to check.
#[test]
#[ignore = "over budget: about 12% over at 100,000 keys; slow on 2 cores"]
fn parquet_peak_rss_stays_within_the_budget_at_100000_keys() {
    let summary = partition_within_budget(
        "partition-memory-parquet",
        128,
        100_000,
        &[
            "--format",
            "parquet",
            "--schema",
            "col2:int64,col3:timestamp",
            "--max-open",
            "1024",
        ],
    );
    assert!(summary.contains("of 100000 group(s)"), "{summary}");
}
