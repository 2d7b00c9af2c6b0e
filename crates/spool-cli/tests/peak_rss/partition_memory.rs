//! Peak memory of `spool partition` stays within `--memory` on an input
//! several times larger.

use std::process::Command;

use crate::support::{assert_within_budget, run_measuring_peak_rss};

/// Partitions a sample of four times `budget_mib` with `keys` keys by
/// column 1, with `args` besides, and checks the peak RSS; returns the
/// run's summary line.
fn partition_within_budget(tag: &str, budget_mib: i64, keys: u32, args: &[&str]) -> String {
    partition_sized(tag, budget_mib, 4 * budget_mib as u64, keys, args)
}

/// [`partition_within_budget`] on an input of `input_mib`.
fn partition_sized(tag: &str, budget_mib: i64, input_mib: u64, keys: u32, args: &[&str]) -> String {
    let (dir, input) = tsv_sample(tag, input_mib, keys);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["partition", "--by", "1", "--threads", "2"])
        .args(args)
        .arg(format!("--memory={budget_mib}M"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg(&input);
    let (success, stderr, peak_kib) = run_measuring_peak_rss(cmd, dir.path());
    assert!(success, "{stderr}");
    assert_within_budget(peak_kib, budget_mib);
    stderr
}

/// A scratch folder named for `tag`, holding `in.tsv`: a sample of
/// `input_mib` with `keys` keys in column 1.
fn tsv_sample(tag: &str, input_mib: u64, keys: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("spool-cli-{tag}-"))
        .tempdir()
        .unwrap();
    let input = dir.path().join("in.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    // Written streaming, so this process stays small (see
    // `run_measuring_peak_rss`).
    spool_bench::tsv_sample::write_sample(file, input_mib << 20, keys, 3).unwrap();
    (dir, input)
}

#[test]
fn peak_rss_stays_within_the_budget() {
    // 256 MiB, 4x the budget, 5000 keys.
    partition_within_budget("partition-memory", 64, 5000, &["--compress", "zstd"]);
}

/// `SPOOL_MEMORY_LONG=1`: inputs four times the budget at every key
/// count (minutes at 100,000 keys on 2 cores); otherwise twice the budget
/// up to 10,000 keys and the budget's size at 100,000.
fn long() -> bool {
    std::env::var_os("SPOOL_MEMORY_LONG").is_some_and(|v| v != "0")
}

/// Parquet output with `keys` keys under `--memory 128M`: the router's
/// buffers, every open writer's row group (with its codec contexts) and
/// the spill files' conversion share the budget.
fn parquet_within_budget(keys: u32, short_input_mib: u64) {
    let input_mib = if long() { 512 } else { short_input_mib };
    let summary = partition_sized(
        &format!("partition-memory-parquet-{keys}"),
        128,
        input_mib,
        keys,
        &[
            "--format",
            "parquet",
            "--schema",
            "col2:int64,col3:timestamp",
            "--max-open",
            "1024",
        ],
    );
    // The sample draws keys at random: a short input may miss a few.
    let groups: u32 = summary
        .split(" group(s)")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no group count in {summary}"));
    assert!(groups <= keys && groups >= keys / 10 * 9, "{summary}");
}

#[test]
fn parquet_peak_rss_stays_within_the_budget_at_10_keys() {
    parquet_within_budget(10, 256);
}

#[test]
fn parquet_peak_rss_stays_within_the_budget_at_1000_keys() {
    parquet_within_budget(1000, 256);
}

#[test]
fn parquet_peak_rss_stays_within_the_budget_at_10000_keys() {
    parquet_within_budget(10_000, 256);
}

#[test]
fn parquet_peak_rss_stays_within_the_budget_at_100000_keys() {
    parquet_within_budget(100_000, 128);
}

/// A Parquet dataset re-partitioned into Parquet (the typed path: decoded
/// batches read ahead, gathered, sorted, spilled as Arrow IPC, written)
/// under `--memory 128M`: eight large input files, by a 1,000-value key.
#[test]
fn parquet_input_peak_rss_stays_within_the_budget() {
    let (dir, input) = tsv_sample("partition-memory-parquet-input", 256, 1000);
    let words = dir.path().join("words");
    let made = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["partition", "-q", "--by", "4", "--format", "parquet"])
        .args(["--schema", "col2:int64,col3:timestamp", "--memory", "512M"])
        .arg("--out")
        .arg(&words)
        .arg(&input)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::remove_file(&input).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["partition", "--by", "col1", "--format", "parquet"])
        .args(["--threads", "2", "--memory=128M", "--out"])
        .arg(dir.path().join("out"))
        .arg(&words);
    let (success, stderr, peak_kib) = run_measuring_peak_rss(cmd, dir.path());
    assert!(success, "{stderr}");
    assert!(stderr.contains("1000 group(s)"), "{stderr}");
    assert_within_budget(peak_kib, 128);
}
