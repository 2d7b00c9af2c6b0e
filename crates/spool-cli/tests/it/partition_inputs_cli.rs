//! `spool partition`'s inputs from the command line: a quoted glob that
//! spool expands (in path order), a directory, `--input-format` over a
//! file's name, NDJSON errors printed once with file and line, and the
//! words `--input-format` takes, which the docs list.

use crate::support::{spool, Dir};

#[test]
fn a_quoted_glob_is_expanded_by_spool_in_path_order() {
    let dir = Dir::new("inputs-glob");
    std::fs::create_dir_all(dir.0.join("logs/b")).unwrap();
    std::fs::create_dir_all(dir.0.join("logs/a")).unwrap();
    std::fs::write(
        dir.0.join("logs/b/1.jsonl"),
        "{\"level\":\"warn\",\"n\":3}\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("logs/a/9.jsonl"),
        "{\"level\":\"warn\",\"n\":2}\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("logs/a/10.jsonl"),
        "{\"level\":\"warn\",\"n\":1}\n",
    )
    .unwrap();
    let out = dir.0.join("out");
    let run = spool()
        .args([
            "partition",
            "-q",
            "--delimiter",
            "comma",
            "--by",
            "level",
            "--out",
        ])
        .arg(&out)
        .arg(dir.0.join("logs/**/*.jsonl"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("from 3 input(s)"), "{stderr}");
    let text = std::fs::read_to_string(out.join("level=warn/part-00000.csv")).unwrap();
    assert_eq!(text, "level,n\nwarn,1\nwarn,2\nwarn,3\n");
}

#[test]
fn input_format_decides_over_the_name_and_a_bad_line_is_named_once() {
    let dir = Dir::new("inputs-format");
    let input = dir.0.join("events.txt");
    std::fs::write(&input, "{\"k\":\"a\"}\n{\"k\":\"b\",\n").unwrap();
    let run = spool()
        .args([
            "partition",
            "-q",
            "--input-format",
            "ndjson",
            "--by",
            "k",
            "--out",
        ])
        .arg(dir.0.join("out"))
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    let want = format!("{}:2: byte offset 10: not a JSON object", input.display());
    assert_eq!(stderr.matches(&want).count(), 1, "{stderr}");
    assert!(!dir.0.join("out").exists());
}

#[test]
fn the_input_formats_are_the_documented_ones() {
    let run = spool()
        .args([
            "partition",
            "--input-format",
            "xml",
            "--by",
            "1",
            "--out",
            "o",
            "in",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("use csv, tsv, ndjson or parquet"),
        "{stderr}"
    );
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/partition.md"
    ))
    .unwrap();
    assert!(docs.contains("`--input-format csv|tsv|ndjson|parquet`"));
}
