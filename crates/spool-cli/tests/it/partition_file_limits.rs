//! `--max-rows-per-file` and `--max-bytes-per-file`: every part within its
//! limit, each group's parts holding its records complete and in input
//! order, and the manifest listing every part with its records.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::Command;

use crate::support::parquet::parquet_numbers;
use crate::support::Dir;

/// Keys of very different sizes: `k0` gets about half the records, so it
/// rolls over many times, `k5` a few.
fn write_input(path: &Path, records: usize) -> BTreeMap<String, Vec<String>> {
    let mut text = String::from("key,n,note\n");
    let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for n in 0..records {
        let key = format!("k{}", (n * n + n / 3) % 11 % 6);
        let note = "x".repeat(n % 37);
        let record = format!("{key},{n},\"{note}\"\n");
        text.push_str(&record);
        by_key.entry(key).or_default().push(record);
    }
    std::fs::write(path, text).unwrap();
    by_key
}

fn spool_partition(dir: &Dir, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.0.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args([
            "partition",
            "--by",
            "key",
            "--header",
            "--delimiter",
            "comma",
        ])
        .args(["--quote", "\"", "--threads", "2", "-o"])
        .arg(&out)
        .args(extra)
        .arg(dir.0.join("in.csv"))
        .status()
        .unwrap();
    assert!(status.success(), "{extra:?}");
    out
}

/// The manifest's rows: path → records, in the manifest's order.
fn manifest(out: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields[2].to_owned(), fields[3].parse().unwrap())
        })
        .collect()
}

/// Every file of `out` but the manifest, relative, sorted.
fn files(out: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for dir in std::fs::read_dir(out).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                found.push(f.strip_prefix(out).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// Checks the text parts of every key: each within `fits`, starting with
/// the header, the records of all of a key's parts, in part order, its
/// input's records in order; the manifest lists exactly the parts.
fn check_text_parts(
    out: &Path,
    by_key: &BTreeMap<String, Vec<String>>,
    decode: impl Fn(&[u8]) -> String,
    fits: impl Fn(&str, usize) -> bool,
) -> usize {
    let listed = manifest(out);
    let mut listed_paths: Vec<String> = listed.iter().map(|(p, _)| p.clone()).collect();
    listed_paths.sort();
    assert_eq!(listed_paths, files(out), "the manifest lists every part");
    let mut parts = 0;
    for (key, records) in by_key {
        let mut joined = Vec::new();
        let mine = listed
            .iter()
            .filter(|(p, _)| p.starts_with(&format!("key={key}/")));
        for (n, (path, count)) in mine.enumerate() {
            assert!(path.ends_with(&format!("{n:05}.csv")) || path.contains(&format!("{n:05}.")));
            let raw = std::fs::read(out.join(path)).unwrap();
            let text = decode(&raw);
            let body = text
                .strip_prefix("key,n,note\n")
                .expect("each part has the header");
            let lines: Vec<String> = body.split_inclusive('\n').map(str::to_owned).collect();
            assert_eq!(lines.len() as u64, *count, "{path}: the manifest's records");
            assert!(
                fits(&text, lines.len()),
                "{path}: {} bytes, {} records",
                raw.len(),
                lines.len()
            );
            joined.extend(lines);
            parts += 1;
        }
        assert_eq!(&joined, records, "{key}: complete and in order");
    }
    parts
}

#[test]
fn text_parts_hold_at_most_the_rows_given() {
    let dir = Dir::new("limits-rows");
    let by_key = write_input(&dir.0.join("in.csv"), 3_000);
    let out = spool_partition(&dir, &["--max-rows-per-file", "97"]);
    let parts = check_text_parts(
        &out,
        &by_key,
        |b| String::from_utf8(b.to_vec()).unwrap(),
        |_, n| n <= 97,
    );
    let expected: usize = by_key.values().map(|r| r.len().div_ceil(97)).sum();
    assert_eq!(parts, expected, "full parts but the last of each key");
}

#[test]
fn text_parts_hold_at_most_the_bytes_given() {
    let dir = Dir::new("limits-bytes");
    let by_key = write_input(&dir.0.join("in.csv"), 3_000);
    let out = spool_partition(&dir, &["--max-bytes-per-file", "2000"]);
    let parts = check_text_parts(
        &out,
        &by_key,
        |b| String::from_utf8(b.to_vec()).unwrap(),
        |text, _| text.len() <= 2000,
    );
    assert!(parts > 6 * 5, "{parts} parts: the limit rolled files over");
}

#[test]
fn compressed_text_parts_are_within_the_bytes_before_compression() {
    let dir = Dir::new("limits-zstd");
    let by_key = write_input(&dir.0.join("in.csv"), 3_000);
    let out = spool_partition(
        &dir,
        &[
            "--max-bytes-per-file",
            "3000",
            "--max-rows-per-file",
            "60",
            "--compress",
            "zstd",
        ],
    );
    let unzstd = |b: &[u8]| {
        let mut text = String::new();
        zstd::Decoder::new(b)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    check_text_parts(&out, &by_key, unzstd, |text, n| {
        text.len() <= 3000 && n <= 60
    });
}

#[test]
fn flat_layout_refuses_the_limits() {
    let dir = Dir::new("limits-flat");
    write_input(&dir.0.join("in.csv"), 10);
    let output = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args([
            "partition",
            "--by",
            "1",
            "--layout",
            "flat",
            "--max-rows-per-file",
            "5",
            "-o",
        ])
        .arg(dir.0.join("out"))
        .arg(dir.0.join("in.csv"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("hive layout"), "{stderr}");
}

/// Bytes of the largest row group of a Parquet part, compressed.
fn largest_row_group(path: &Path) -> u64 {
    use parquet::file::reader::FileReader;
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    let groups = reader.metadata().row_groups().iter();
    groups
        .map(|g| g.compressed_size() as u64)
        .max()
        .unwrap_or(0)
}

fn check_parquet_parts(
    out: &Path,
    by_key: &BTreeMap<String, Vec<String>>,
    fits: impl Fn(&Path, usize) -> bool,
) -> usize {
    let listed = manifest(out);
    let mut listed_paths: Vec<String> = listed.iter().map(|(p, _)| p.clone()).collect();
    listed_paths.sort();
    assert_eq!(listed_paths, files(out), "the manifest lists every part");
    let mut parts = 0;
    for (key, records) in by_key {
        let expected: Vec<i64> = (records.iter())
            .map(|r| r.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        let mut joined = Vec::new();
        let mine = listed
            .iter()
            .filter(|(p, _)| p.starts_with(&format!("key={key}/")));
        for (n, (path, count)) in mine.enumerate() {
            assert!(path.ends_with(&format!("part-{n:05}.parquet")), "{path}");
            let numbers = parquet_numbers(&out.join(path));
            assert_eq!(
                numbers.len() as u64,
                *count,
                "{path}: the manifest's records"
            );
            assert!(fits(&out.join(path), numbers.len()), "{path}");
            joined.extend(numbers);
            parts += 1;
        }
        assert_eq!(joined, expected, "{key}: complete and in order");
    }
    parts
}

#[test]
fn parquet_parts_hold_at_most_the_rows_given() {
    let dir = Dir::new("limits-parquet-rows");
    let by_key = write_input(&dir.0.join("in.csv"), 5_000);
    let out = spool_partition(&dir, &["--format", "parquet", "--max-rows-per-file", "300"]);
    let parts = check_parquet_parts(&out, &by_key, |_, n| n <= 300);
    let expected: usize = by_key.values().map(|r| r.len().div_ceil(300)).sum();
    assert_eq!(parts, expected, "full parts but the last of each key");
}

#[test]
fn parquet_parts_pass_the_bytes_by_at_most_one_row_group() {
    let dir = Dir::new("limits-parquet-bytes");
    let by_key = write_input(&dir.0.join("in.csv"), 20_000);
    let limit = 4_000;
    let out = spool_partition(
        &dir,
        &[
            "--format",
            "parquet",
            "--row-group-size",
            "100",
            "--max-bytes-per-file",
            "4000",
        ],
    );
    // A footer (schema, row group metadata) comes on top of the data.
    let footer = 4_096;
    let parts = check_parquet_parts(&out, &by_key, |path, _| {
        let len = std::fs::metadata(path).unwrap().len();
        len <= limit + largest_row_group(path) + footer
    });
    assert!(parts > 12, "{parts} parts: the limit rolled files over");
}
