//! `spool partition` under a low open-file limit (soft and hard, set in
//! the child before it starts): 1,500 keys, text and Parquet, complete
//! and in input order with `--max-open` fitted to the limit; a note only
//! when `--max-open` was given; and a clear error when not even one output
//! file fits.
//!
//! The text run at the default `--max-open` (256 files) under a limit of
//! 128 failed with "Too many open files" before the plan fitted
//! `--max-open` to the limit.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::parquet::parquet_numbers;
use crate::support::Dir;

const KEYS: usize = 1_500;

/// Records `key\tn\tnote` of about `width` bytes, keys taking turns; the
/// `n` of each key's records, in input order.
fn write_input(path: &Path, records: usize, width: usize) -> BTreeMap<String, Vec<i64>> {
    let mut text = String::from("key\tn\tnote\n");
    let mut by_key: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for n in 0..records {
        let key = format!("k{:04}", (n * 7) % KEYS);
        text.push_str(&format!("{key}\t{n}\t{}\n", "x".repeat(width + n % 23)));
        by_key.entry(key).or_default().push(n as i64);
    }
    std::fs::write(path, text).unwrap();
    by_key
}

/// `spool partition` of `input` into `out` with `extra` arguments, its
/// open-file limit (soft and hard) `limit`.
fn partition(input: &Path, out: &Path, limit: u64, extra: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["partition", "--by", "key", "--header", "-o"])
        .arg(out)
        .args(extra)
        .arg(input);
    // SAFETY: between fork and exec the closure only calls setrlimit, which
    // is async-signal-safe, on a value of its own.
    unsafe {
        cmd.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// The manifest's rows: (key, path, records).
fn manifest(out: &Path) -> Vec<(String, PathBuf, u64)> {
    let text = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    (text.lines().skip(1))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let records = fields[3].parse().unwrap();
            (fields[1].to_owned(), out.join(fields[2]), records)
        })
        .collect()
}

/// The `n` column of a text part, in file order.
fn text_numbers(path: &Path) -> Vec<i64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("key\tn\tnote"), "{}", path.display());
    lines
        .map(|line| line.split('\t').nth(1).unwrap().parse().unwrap())
        .collect()
}

/// Every key's records in its file (one per key), in input order, as the
/// manifest says.
fn check(out: &Path, want: &BTreeMap<String, Vec<i64>>, read: fn(&Path) -> Vec<i64>) {
    let listed = manifest(out);
    assert_eq!(listed.len(), KEYS);
    let mut got = BTreeMap::new();
    for (key, path, records) in listed {
        let numbers = read(&path);
        assert_eq!(numbers.len() as u64, records, "{}", path.display());
        assert!(got.insert(key, numbers).is_none());
    }
    assert!(got == *want, "a key's records differ from the input's");
}

#[test]
fn text_at_the_default_max_open_fits_a_low_limit() {
    let dir = Dir::new("nofile-text");
    let input = dir.0.join("in.tsv");
    // 13 MB through a small budget: every group's file is written, closed
    // and reopened many times.
    let want = write_input(&input, 60_000, 200);
    let out = dir.0.join("out");
    let result = partition(&input, &out, 128, &["--memory", "48M"]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        !stderr.contains("--max-open"),
        "a note for a default: {stderr}"
    );
    assert!(
        !stderr.contains(" 0 reopened"),
        "no file was reopened: {stderr}"
    );
    check(&out, &want, text_numbers);
}

#[test]
fn parquet_with_max_open_above_a_low_limit_is_fitted_with_a_note() {
    let dir = Dir::new("nofile-parquet");
    let input = dir.0.join("in.tsv");
    let want = write_input(&input, 30_000, 0);
    let out = dir.0.join("out");
    let extra = [
        "--format",
        "parquet",
        "--max-open",
        "1000",
        "--memory",
        "1G",
    ];
    let result = partition(&input, &out, 128, &extra);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        stderr.contains("--max-open 1000 does not fit the open-file limit (128)"),
        "{stderr}"
    );
    check(&out, &want, parquet_numbers);
}

#[test]
fn a_limit_too_low_for_one_output_file_is_refused() {
    let dir = Dir::new("nofile-refused");
    let input = dir.0.join("in.tsv");
    write_input(&input, 100, 0);
    let out = dir.0.join("out");
    let result = partition(&input, &out, 16, &[]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the open-file limit (ulimit -n) is 16"),
        "{stderr}"
    );
    assert!(!out.exists(), "a refused run left its output");
}
