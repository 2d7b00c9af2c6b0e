//! `--encodings`: strings without a dictionary `DELTA_LENGTH_BYTE_ARRAY`
//! by default, `PLAIN` with `--encodings plain`, numbers `PLAIN` either
//! way, and a clear error for it without `--format parquet`.

use std::path::Path;
use std::process::Command;

use parquet::basic::Encoding;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

use crate::support::Dir;

/// Each column's encodings in `part`'s first row group, by column name.
fn encodings(part: &Path) -> Vec<(String, Vec<Encoding>)> {
    let reader = SerializedFileReader::new(std::fs::File::open(part).unwrap()).unwrap();
    let row_group = reader.metadata().row_group(0);
    (row_group.columns().iter())
        .map(|c| (c.column_path().string(), c.encodings().collect()))
        .collect()
}

/// Partitions a small table (a key, an int64, a float, a date, free text
/// and a repeating colour) into Parquet with `extra` arguments; the
/// encodings of key `a`'s part file.
fn partition(dir: &Dir, extra: &[&str]) -> Vec<(String, Vec<Encoding>)> {
    let input = dir.0.join("in.tsv");
    let mut text = String::from("key\tn\tx\tday\tnote\tcolour\n");
    for i in 0..2000 {
        let colour = ["red", "green", "blue"][i % 3];
        text.push_str(&format!(
            "a\t{i}\t{i}.5\t2026-01-{:02}\tnote {i}\t{colour}\n",
            i % 28 + 1
        ));
    }
    std::fs::write(&input, text).unwrap();
    let out = dir.0.join(format!("out{}", extra.len()));
    let status = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args([
            "partition",
            "-q",
            "--header",
            "--by",
            "key",
            "--format",
            "parquet",
        ])
        .args(["--schema", "n:int64,x:float64,day:date"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    encodings(&out.join("key=a/part-00000.parquet"))
}

fn has(encodings: &[(String, Vec<Encoding>)], column: &str, encoding: Encoding) -> bool {
    let (_, used) = encodings.iter().find(|(name, _)| name == column).unwrap();
    used.contains(&encoding)
}

#[test]
fn delta_by_default_plain_on_request() {
    let dir = Dir::new("parquet-encodings");
    let delta = partition(&dir, &[]);
    assert!(
        has(&delta, "note", Encoding::DELTA_LENGTH_BYTE_ARRAY),
        "{delta:?}"
    );
    for number in ["n", "x", "day"] {
        assert!(has(&delta, number, Encoding::PLAIN), "{number}: {delta:?}");
    }
    assert!(has(&delta, "colour", Encoding::RLE_DICTIONARY), "{delta:?}");

    let plain = partition(&dir, &["--encodings", "plain"]);
    for (column, used) in &plain {
        assert!(
            !used.contains(&Encoding::DELTA_BINARY_PACKED)
                && !used.contains(&Encoding::DELTA_LENGTH_BYTE_ARRAY),
            "{column}: {used:?}"
        );
    }
    assert!(has(&plain, "n", Encoding::PLAIN) && has(&plain, "note", Encoding::PLAIN));
    assert!(has(&plain, "colour", Encoding::RLE_DICTIONARY), "{plain:?}");
}

#[test]
fn encodings_need_parquet_output() {
    let dir = Dir::new("parquet-encodings-text");
    let input = dir.0.join("in.tsv");
    std::fs::write(&input, "a\t1\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args([
            "partition",
            "-q",
            "--by",
            "1",
            "--encodings",
            "plain",
            "--out",
        ])
        .arg(dir.0.join("out"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.matches("encodings needs format parquet").count(),
        1,
        "{stderr}"
    );
    assert!(!dir.0.join("out").exists());
}
