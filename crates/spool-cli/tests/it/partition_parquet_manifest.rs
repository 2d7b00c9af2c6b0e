//! `_partitions.tsv` of a Parquet run lists every part file on disk, each
//! with its own records, including the second part of a group whose
//! writer was finished early to keep the budget.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::Dir;

/// Every `.parquet` file under `dir`, relative to it.
fn parquet_files(dir: &Path, under: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir.join(under)).unwrap() {
        let entry = entry.unwrap();
        let path = under.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            parquet_files(dir, &path, found);
        } else if path.extension().is_some_and(|e| e == "parquet") {
            found.push(path);
        }
    }
}

/// Rows of a Parquet file, from its footer.
fn rows_in(path: &Path) -> u64 {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    parquet::file::reader::FileReader::metadata(&reader)
        .file_metadata()
        .num_rows() as u64
}

#[test]
fn the_manifest_lists_every_part_with_its_records() {
    // Whether the budget finishes a writer early depends on how the router
    // and the writer thread interleave, so a run may have no second part:
    // every run's manifest is checked, and runs go on (another sample
    // each) until one has a second part. Each run has one in most tries.
    let mut covered = false;
    for seed in 7..15 {
        if run_and_check_the_manifest(seed) > 0 {
            covered = true;
            break;
        }
    }
    assert!(
        covered,
        "no group got a second part in eight runs: the test no longer covers that case"
    );
}

/// One run over a sample of `seed`, its manifest checked against the part
/// files on disk; returns how many second parts there were.
fn run_and_check_the_manifest(seed: u64) -> usize {
    let dir = Dir::new("parquet-manifest");
    let input = dir.0.join("in.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    // 2,000 keys in 4 MiB under the smallest budget one thread accepts:
    // the budget runs out while writers are open, and some of them are
    // finished early (their groups get a second part). Plain pages: with
    // delta lengths each string column's reservation counts at admission,
    // and so few writers are admitted that the budget never runs out.
    let records = spool_bench::tsv_sample::write_sample(file, 4 << 20, 2000, seed).unwrap();
    let out = dir.0.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["partition", "-q", "--by", "1", "--format", "parquet"])
        .args(["--encodings", "plain"])
        .args(["--threads", "1", "--memory", "89M", "--max-open", "4096"])
        .arg("--out")
        .arg(&out)
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());

    let manifest = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    let mut listed: BTreeMap<PathBuf, u64> = BTreeMap::new();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let previous = listed.insert(PathBuf::from(fields[2]), fields[3].parse().unwrap());
        assert!(previous.is_none(), "listed twice: {line}");
    }
    let mut on_disk = Vec::new();
    parquet_files(&out, Path::new(""), &mut on_disk);
    on_disk.sort();
    assert_eq!(listed.keys().cloned().collect::<Vec<_>>(), on_disk);
    for (path, records) in &listed {
        assert_eq!(rows_in(&out.join(path)), *records, "{}", path.display());
    }
    assert_eq!(listed.values().sum::<u64>(), records);

    let check = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["partition", "merge-manifests", "--check"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    on_disk
        .iter()
        .filter(|p| p.ends_with("part-00001.parquet"))
        .count()
}
