//! Many runs, one dataset: `spool partition --run-id ID --append` from
//! several processes at once into one output, as the tasks of a Spark job
//! or a job array would run it.
//!
//! The invariants checked: every input record is in the dataset exactly
//! once; within a run, each key's records keep input order; the files
//! under the output are exactly the ones the manifests list (nothing
//! partial, nothing unlisted); an id is written once; a directory that
//! is not a dataset is never appended to; `merge-manifests` lists the
//! whole dataset. Runs that die are `partition_append_dead_runs.rs`'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::append::*;
use crate::support::Dir;

#[test]
fn runs_appending_at_once_keep_every_record_once() {
    let dir = Dir::new("append-concurrent");
    let out = dir.0.join("out");
    let compress = [
        &[][..],
        &["--compress", "zstd"],
        &["--compress", "gzip"],
        &[],
    ];
    let shards: Vec<(PathBuf, String)> = (0..4)
        .map(|i| {
            let input = dir.0.join(format!("shard{i}.tsv"));
            write_shard(&input, i, 40, 20_000);
            (input, format!("task-{i}"))
        })
        .collect();
    let children: Vec<_> = shards
        .iter()
        .zip(compress)
        .map(|((input, id), extra)| append(input, &out, id, extra).spawn().unwrap())
        .collect();
    for child in children {
        let result = child.wait_with_output().unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
    }
    check_dataset(&out, &shards);
    // Each key has one file per run.
    assert!(out.join("col2=k0/part-task-0-00000.tsv").is_file());
    assert!(out.join("col2=k0/part-task-1-00000.tsv.zst").is_file());
    assert!(out.join("col2=k0/part-task-2-00000.tsv.gz").is_file());
}

#[test]
fn an_id_is_written_once() {
    let dir = Dir::new("append-same-id");
    let out = dir.0.join("out");
    let input = dir.0.join("in.tsv");
    write_shard(&input, 0, 30, 50_000);
    // Two at once: one runs, the other is refused (busy, or already written).
    let (a, b) = (
        append(&input, &out, "same", &[]).spawn().unwrap(),
        append(&input, &out, "same", &[]).spawn().unwrap(),
    );
    let results = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let ok = results.iter().filter(|r| r.status.success()).count();
    assert_eq!(ok, 1, "{} / {}", stderr(&results[0]), stderr(&results[1]));
    let refused = results.iter().find(|r| !r.status.success()).unwrap();
    let message = stderr(refused);
    assert!(
        message.contains("run id same is being written by another process")
            || message.contains("run id same was already written"),
        "{message}"
    );
    let before = manifest_rows(&out);
    // Later: refused, naming the manifest, and nothing changes.
    let again = append(&input, &out, "same", &[]).output().unwrap();
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("_partitions-same.tsv exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(manifest_rows(&out), before);
    check_dataset(&out, &[(input, "same".into())]);
}

#[test]
fn a_directory_that_is_not_a_dataset_is_never_appended_to() {
    let dir = Dir::new("append-foreign");
    let out = dir.0.join("notes");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("todo.txt"), "mine").unwrap();
    let input = dir.0.join("in.tsv");
    write_shard(&input, 0, 3, 10);
    let result = append(&input, &out, "r1", &[]).output().unwrap();
    assert!(!result.status.success());
    let message = stderr(&result);
    assert!(message.contains("not a dataset to append to"), "{message}");
    assert!(message.contains(&out.display().to_string()), "{message}");
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["todo.txt"], "nothing added, not even a lock file");
    // A file in the way of the output, a bad id, --append without an id.
    std::fs::write(dir.0.join("file"), "x").unwrap();
    let result = append(&input, &dir.0.join("file"), "r1", &[])
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("is not a directory"),
        "{}",
        stderr(&result)
    );
    let result = append(&input, &dir.0.join("o"), "../x", &[])
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("run id '../x' may only hold"),
        "{}",
        stderr(&result)
    );
    let result = spool()
        .args(["partition", "--by", "1", "--append", "-o"])
        .arg(dir.0.join("o"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(!result.status.success() && stderr(&result).contains("--run-id"));
    assert!(!dir.0.join("o").exists());
}

#[test]
fn a_run_id_names_files_of_every_format_and_layout() {
    let dir = Dir::new("append-formats");
    let input = dir.0.join("in.tsv");
    write_shard(&input, 0, 3, 30);
    let out = dir.0.join("pq");
    for id in ["a", "b"] {
        let result = append(&input, &out, id, &["--format", "parquet"])
            .output()
            .unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
    }
    let rows = manifest_rows(&out);
    assert_eq!(rows.keys().cloned().collect::<Vec<_>>(), data_files(&out));
    assert_eq!(rows.len(), 6);
    assert_eq!(rows.values().sum::<u64>(), 60);
    let part = std::fs::read(out.join("col2=k0/part-b-00000.parquet")).unwrap();
    assert!(part.starts_with(b"PAR1") && part.ends_with(b"PAR1"));
    // Flat: KEY.ID.tsv; and a run id without --append writes a new dataset.
    let flat = dir.0.join("flat");
    let flat_run = |extra: &[&str]| {
        let mut cmd = spool();
        cmd.args(["partition", "-q", "--by", "2", "--layout", "flat", "-o"]);
        cmd.arg(&flat).args(extra).arg(&input).output().unwrap()
    };
    let result = flat_run(&["--run-id", "x1"]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(read_text(&flat.join("k0.x1.tsv")).len(), 10);
    assert!(flat.join("_partitions-x1.tsv").is_file());
    let result = append(&input, &flat, "x2", &["--layout", "flat"])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    check_dataset(
        &flat,
        &[(input.clone(), "x1".into()), (input.clone(), "x2".into())],
    );
    // A dataset of runs with ids is a dataset --force may replace, whole.
    let result = flat_run(&["--force"]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(flat.join("_partitions.tsv").is_file() && !flat.join("k0.x1.tsv").exists());
}

fn merge(out: &Path, extra: &[&str]) -> Output {
    spool()
        .args(["partition", "merge-manifests"])
        .args(extra)
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn merge_manifests_lists_the_whole_dataset() {
    let dir = Dir::new("append-merge");
    let out = dir.0.join("out");
    let mut shards = Vec::new();
    for i in 0..3 {
        let input = dir.0.join(format!("s{i}.tsv"));
        write_shard(&input, i, 5, 100);
        let result = append(&input, &out, &format!("r{i}"), &[])
            .output()
            .unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        shards.push((input, format!("r{i}")));
    }
    let result = merge(&out, &["--check"]);
    assert!(result.status.success(), "{}", stderr(&result));
    let table = String::from_utf8(result.stdout).unwrap();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("column\tkey\tpath\trecords"));
    let rows: BTreeMap<PathBuf, u64> = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (PathBuf::from(f[2]), f[3].parse().unwrap())
        })
        .collect();
    assert_eq!(rows, manifest_rows(&out));
    assert_eq!(rows.values().sum::<u64>(), 300);
    // -o writes the same table; a stray file is warned about (and fails --check).
    let saved = dir.0.join("all.tsv");
    assert!(merge(&out, &["-o", saved.to_str().unwrap()])
        .status
        .success());
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), table);
    std::fs::write(out.join("col2=k1/stray.tsv"), "x\n").unwrap();
    let result = merge(&out, &["--check"]);
    assert_eq!(result.status.code(), Some(1));
    assert!(
        stderr(&result).contains("stray.tsv: no manifest lists this file"),
        "{}",
        stderr(&result)
    );
    // Saving the table as a manifest of the dataset itself is refused.
    let inside = out.join("_partitions-all.tsv");
    let result = merge(&out, &["-o", inside.to_str().unwrap()]);
    assert!(
        !result.status.success() && !inside.exists(),
        "{}",
        stderr(&result)
    );
}
