//! A run that fails leaves nothing behind and says why: an invalid record
//! names its file, line and byte offset; a usage error names the option;
//! a missing or corrupt input names the file; a cancelled run removes its
//! partial output; `--force` replaces only a dataset, and whole.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use spool_partition::{run, ColumnRef, Options, PartitionError};

use crate::support::{all_files, write, TempDir};

#[test]
fn too_few_fields_names_file_line_and_offset_and_leaves_nothing() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", "x\t1\tp\n");
    let b = write(&dir, "b.tsv", "y\t2\tq\nshort\nz\t3\tr\n");
    let out = dir.0.join("out");
    let options = Options::new(
        vec![a.clone(), b.clone()],
        out.clone(),
        vec![ColumnRef("2".into())],
    );
    let err = run(&options).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!(
            "{}:2: byte offset 6: record has 1 field(s)",
            b.display()
        )),
        "{msg}"
    );
    assert!(all_files(&out).is_empty(), "{:?}", all_files(&out));

    let mut options = Options::new(vec![a, b], out.clone(), vec![ColumnRef("2".into())]);
    options.skip_invalid = true;
    let summary = run(&options).unwrap();
    assert_eq!((summary.skipped_invalid, summary.groups.len()), (1, 3));
}

#[test]
fn different_headers_are_an_error() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", "k\tv\n1\t2\n");
    let b = write(&dir, "b.tsv", "k\tw\n1\t3\n");
    let mut options = Options::new(
        vec![a, b.clone()],
        dir.0.join("out"),
        vec![ColumnRef("k".into())],
    );
    options.header = true;
    let msg = run(&options).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}:1: byte offset 0: header differs", b.display())),
        "{msg}"
    );
}

#[test]
fn unknown_column_and_non_empty_output_are_usage_errors() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", "k\tv\n");
    let mut options = Options::new(
        vec![a.clone()],
        dir.0.join("out"),
        vec![ColumnRef("nope".into())],
    );
    options.header = true;
    assert!(matches!(run(&options), Err(PartitionError::Usage(_))));
    let options = Options::new(vec![a], dir.0.clone(), vec![ColumnRef("1".into())]);
    let msg = run(&options).unwrap_err().to_string();
    assert!(msg.contains("not empty"), "{msg}");
}

#[test]
fn a_failed_run_keeps_an_output_directory_it_did_not_create() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", "x\t1\nshort\n");
    let out = dir.0.join("out");
    std::fs::create_dir(&out).unwrap();
    let options = Options::new(vec![a.clone()], out.clone(), vec![ColumnRef("2".into())]);
    assert!(run(&options).is_err());
    assert!(out.is_dir(), "the user's empty directory was removed");
    assert!(all_files(&out).is_empty());
    // One it created itself is removed, also when the options are wrong.
    let created = dir.0.join("created");
    let options = Options::new(vec![a], created.clone(), vec![ColumnRef("name".into())]);
    assert!(matches!(run(&options), Err(PartitionError::Usage(_))));
    assert!(!created.exists());
}

#[test]
fn missing_input_names_the_path() {
    let dir = TempDir::new();
    let missing = dir.0.join("missing.tsv");
    let options = Options::new(
        vec![missing.clone()],
        dir.0.join("out"),
        vec![ColumnRef("1".into())],
    );
    let msg = run(&options).unwrap_err().to_string();
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
}

#[test]
fn cancelled_run_leaves_no_output() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", &"k\tv\n".repeat(1000));
    let out = dir.0.join("out");
    let mut options = Options::new(vec![a], out.clone(), vec![ColumnRef("1".into())]);
    options.cancel = Some(Arc::new(AtomicBool::new(true)));
    assert!(matches!(run(&options), Err(PartitionError::Interrupted)));
    assert!(all_files(&out).is_empty());
}

#[test]
fn a_corrupt_compressed_input_names_the_file_and_where_reading_stopped() {
    let dir = TempDir::new();
    let text: String = (0..20_000).map(|i| format!("k{}\t{i}\n", i % 7)).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(text.as_bytes(), 1).unwrap();
    for (name, bytes) in [("cut.tsv.gz", &gz), ("cut.tsv.zst", &zst)] {
        let path = dir.0.join(name);
        std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let out = dir.0.join(format!("out-{name}"));
        let mut options =
            Options::new(vec![path.clone()], out.clone(), vec![ColumnRef("1".into())]);
        options.read.buffer_len = 4096;
        let msg = run(&options).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("{}: ", path.display())), "{msg}");
        assert!(msg.contains("byte offset") && msg.contains("line"), "{msg}");
        assert!(all_files(&out).is_empty());
    }
}

#[test]
fn force_replaces_a_dataset_whole_and_never_a_directory_of_other_files() {
    let dir = TempDir::new();
    let out = dir.0.join("out");
    let first = write(&dir, "a.tsv", "a\t1\nb\t2\n");
    run(&Options::new(
        vec![first],
        out.clone(),
        vec![ColumnRef("1".into())],
    ))
    .unwrap();
    assert!(out.join("col1=b/part-00000.tsv").is_file());
    // Without --force a dataset is never touched.
    let second = write(&dir, "b.tsv", "c\t3\n");
    let mut options = Options::new(vec![second], out.clone(), vec![ColumnRef("1".into())]);
    let msg = run(&options).unwrap_err().to_string();
    assert!(
        msg.contains("not empty") && msg.contains(&out.display().to_string()),
        "{msg}"
    );
    // With it the new dataset replaces the old one as a whole: no file of
    // the first run is left to be mixed in.
    options.force = true;
    run(&options).unwrap();
    let mut left = all_files(&out);
    left.sort();
    assert_eq!(
        left,
        [
            out.join("_partitions.tsv"),
            out.join("col1=c/part-00000.tsv")
        ]
    );
    // A directory that is not a dataset is never replaced, even with --force.
    let other = dir.0.join("home");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "keep").unwrap();
    options.out = other.clone();
    let msg = run(&options).unwrap_err().to_string();
    assert!(msg.contains("holds no _partitions"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(other.join("notes.txt")).unwrap(),
        "keep"
    );
    let hidden: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("spool-staging") || n.contains("spool-old"))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}
