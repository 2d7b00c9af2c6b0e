//! Many runs, one dataset: `spool partition --run-id ID --append` from
//! several processes at once into one output, as the tasks of a Spark job
//! or a job array would run it.
//!
//! The invariants checked: every input record is in the dataset exactly
//! once; within a run, each key's records keep input order; the files
//! under the output are exactly the ones the manifests list (nothing
//! partial, nothing unlisted); an id is written once; a directory that
//! is not a dataset is never appended to.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod support;
use support::Dir;

fn spool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spool"))
}

/// Shard `shard`'s input: `lines` records `SHARD-SEQ<TAB>kKEY<TAB>payload`.
fn write_shard(path: &Path, shard: usize, keys: usize, lines: usize) {
    let text: String = (0..lines)
        .map(|i| format!("{shard}-{i}\tk{}\tp{}\n", (i * 7919 + shard) % keys, i * 31))
        .collect();
    std::fs::write(path, text).unwrap();
}

fn append(input: &Path, out: &Path, id: &str, extra: &[&str]) -> Command {
    let mut cmd = spool();
    cmd.args(["partition", "-q", "--by", "2", "--threads", "2", "--append"])
        .args(["--run-id", id])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A text file's records, decompressed by its extension.
fn read_text(path: &Path) -> Vec<String> {
    let raw = std::fs::read(path).unwrap();
    let mut text = String::new();
    match path.extension().and_then(|e| e.to_str()) {
        Some("zst") => zstd::Decoder::new(&raw[..])
            .unwrap()
            .read_to_string(&mut text)
            .unwrap(),
        Some("gz") => flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_string(&mut text)
            .unwrap(),
        _ => {
            text = String::from_utf8(raw).unwrap();
            0
        }
    };
    text.lines().map(str::to_owned).collect()
}

/// Every `path` and `records` column of every `_partitions*.tsv` in `out`.
fn manifest_rows(out: &Path) -> BTreeMap<PathBuf, u64> {
    let mut rows = BTreeMap::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !(name.starts_with("_partitions") && name.ends_with(".tsv")) {
            continue;
        }
        let text = std::fs::read_to_string(out.join(&name)).unwrap();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            let previous = rows.insert(PathBuf::from(fields[2]), fields[3].parse().unwrap());
            assert!(previous.is_none(), "{} listed twice", fields[2]);
        }
    }
    rows
}

/// Every file under `out` but the top level's `_`-names, relative.
fn data_files(out: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if dir == root && path.file_name().unwrap().to_string_lossy().starts_with('_') {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, found);
            } else {
                found.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut found = Vec::new();
    walk(out, out, &mut found);
    found.sort();
    found
}

/// Checks the dataset against the shards it was written from: every
/// record once, per-key input order within each run, files = manifests,
/// no staging or lock left.
fn check_dataset(out: &Path, shards: &[(PathBuf, String)]) {
    let rows = manifest_rows(out);
    let files = data_files(out);
    assert_eq!(
        files,
        rows.keys().cloned().collect::<Vec<_>>(),
        "files under the output = files the manifests list"
    );
    let mut got = Vec::new();
    for (rel, &records) in &rows {
        let lines = read_text(&out.join(rel));
        assert_eq!(lines.len() as u64, records, "{}", rel.display());
        // One run per file, and its records in input order.
        let seqs: Vec<(usize, usize)> = lines
            .iter()
            .map(|l| {
                let (shard, seq) = l.split('\t').next().unwrap().split_once('-').unwrap();
                (shard.parse().unwrap(), seq.parse().unwrap())
            })
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0].0 == w[1].0 && w[0].1 < w[1].1),
            "{}",
            rel.display()
        );
        got.extend(lines);
    }
    let mut want: Vec<String> = shards
        .iter()
        .flat_map(|(input, _)| {
            std::fs::read_to_string(input)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got.len(), want.len(), "records in = records out");
    assert!(got == want, "every input record exactly once");
    let leftovers: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("_staging-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

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

/// Kills one of several runs appending at once (SIGKILL): twice at a
/// moment that varies by trial, twice as soon as it starts moving its
/// files into place (its list of moves appears). The others are whole,
/// the dead run's moved files are unlisted, and `clean` removes exactly
/// them.
#[test]
fn kill_9_of_one_run_among_others_is_cleaned_up() {
    let dir = Dir::new("append-kill");
    let shards: Vec<(PathBuf, String)> = (0..3)
        .map(|i| {
            let input = dir.0.join(format!("shard{i}.tsv"));
            write_shard(&input, i, 500, 5_000);
            (input, format!("job-{i}"))
        })
        .collect();
    let started = std::time::Instant::now();
    let reference = dir.0.join("reference");
    let result = append(&shards[0].0, &reference, "x", &[]).output().unwrap();
    assert!(result.status.success());
    let full_run = started.elapsed();
    let (mut killed_partway, mut moved_removed) = (0, 0);
    for trial in 0..4 {
        let out = dir.0.join(format!("out{trial}"));
        let mut children: Vec<_> = shards
            .iter()
            .map(|(input, id)| {
                append(input, &out, id, &[])
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        if trial < 2 {
            std::thread::sleep(full_run.mul_f64(0.3 + 0.4 * f64::from(trial)));
        } else {
            let moves = out.join("_staging-job-1/_moves.txt");
            while !moves.exists() && children[1].try_wait().unwrap().is_none() {
                std::thread::yield_now();
            }
        }
        let _ = children[1].kill();
        for child in &mut children {
            child.wait().unwrap();
        }
        let dead_finished = out.join("_partitions-job-1.tsv").exists();
        let survivors: Vec<_> = shards
            .iter()
            .filter(|(_, id)| dead_finished || id != "job-1")
            .cloned()
            .collect();
        killed_partway += usize::from(!dead_finished);
        let result = spool()
            .args(["partition", "clean"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        let removed = String::from_utf8(result.stdout).unwrap();
        assert!(
            removed.lines().all(|l| l.contains("job-1")),
            "trial {trial}: {removed}"
        );
        moved_removed += removed
            .lines()
            .filter(|l| l.contains("/part-job-1-"))
            .count();
        check_dataset(&out, &survivors);
        assert!(!out.join("_staging-job-1.lock").exists());
    }
    eprintln!(
        "kill trials: 4, killed before its manifest {killed_partway}, \
         moved files removed by clean {moved_removed}"
    );
}

#[test]
fn a_retried_run_cleans_up_after_its_dead_attempt_and_clean_spares_live_runs() {
    let dir = Dir::new("append-retry");
    let out = dir.0.join("out");
    let input = dir.0.join("in.tsv");
    write_shard(&input, 0, 20, 1_000);
    // A live run: reading a pipe that stays open, holding its lock.
    let mut live = append(Path::new("-"), &out, "live", &[])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = live.stdin.take().unwrap();
    std::io::Write::write_all(&mut pipe, &std::fs::read(&input).unwrap()).unwrap();
    while !out.join("_staging-live").exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // What a killed attempt of run r1 leaves: a file moved, one not.
    std::fs::create_dir_all(out.join("_staging-r1/col2=k1")).unwrap();
    std::fs::create_dir_all(out.join("col2=k0")).unwrap();
    std::fs::write(out.join("col2=k0/part-r1-00000.tsv"), "old attempt\n").unwrap();
    std::fs::write(out.join("_staging-r1/col2=k1/part-r1-00000.tsv"), "old\n").unwrap();
    std::fs::write(
        out.join("_staging-r1/_moves.txt"),
        "col2=k0/part-r1-00000.tsv\ncol2=k1/part-r1-00000.tsv\n",
    )
    .unwrap();
    let result = append(&input, &out, "r1", &[]).output().unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("_staging-r1"),
        "the retry says what it removed: {}",
        stderr(&result)
    );
    let result = spool()
        .args(["partition", "clean"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("run live is still writing"),
        "{}",
        stderr(&result)
    );
    assert!(
        out.join("_staging-live").exists(),
        "a live run's staging is never removed"
    );
    // Nor can a run replace the whole output while one appends to it.
    let result = spool()
        .args(["partition", "-q", "--by", "2", "--force", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("another run is writing this output"),
        "{}",
        stderr(&result)
    );
    drop(pipe);
    let finished = live.wait_with_output().unwrap();
    assert!(finished.status.success(), "{}", stderr(&finished));
    check_dataset(
        &out,
        &[(input.clone(), "r1".into()), (input, "live".into())],
    );
}
