//! NDJSON inputs through the whole partition path: any bytes, as the
//! lines of an `.ndjson` file, partitioned by the field `k` into CSV (the
//! lines transcoded to text) or into Parquet (decoded into record batches
//! on two threads).
//!
//! * The run never panics; it fails only with an error that names the
//!   input file and a line it has (a bad line, without `--skip-invalid`),
//!   or a usage error (no field `k` in the first lines), and a failed run
//!   leaves nothing under the output's name.
//! * A successful run accounts for every line that is not blank: written
//!   to exactly one group or counted as skipped.
//! * With CSV output, every written file is CSV whose header is the run's columns and whose
//!   rows have that many fields; a row's `k` is its directory's key; and a
//!   line serde_json reads as an object of strings and nulls is written
//!   as those values (the oracle: serde_json's own reading).
#![no_main]

use std::path::{Path, PathBuf};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_io::input::{detect, Detected};
use spool_partition::escape::unescape;
use spool_partition::{run, ColumnRef, Options, OutputFormat, PartitionError, SourceFormat};

/// Lines of data per run: each key is a file.
const MAX_LINES: usize = 24;

#[derive(Arbitrary, Debug)]
struct Input {
    data: Vec<u8>,
    skip_invalid: bool,
    parquet: bool,
}

fn scratch() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    base.join(format!(
        "spool-fuzz-partition-ndjson-{}",
        std::process::id()
    ))
}

fn csv_files(out: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(out).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            files.extend(std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().path()));
        }
    }
    files
}

fuzz_target!(|input: Input| {
    let mut data = input.data;
    if let Some(cut) = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(MAX_LINES)
    {
        data.truncate(cut.0 + 1);
    }
    // A file that starts as gzip or zstd does is read decompressed: the
    // model is of the lines as written (the decoders have targets of their
    // own).
    if detect(&data[..data.len().min(4)]) != Detected::Plain {
        return;
    }
    let root = scratch();
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let path = root.join("in.ndjson");
    std::fs::write(&path, &data).unwrap();
    let out = root.join("out");
    let mut options = Options::new(vec![path.clone()], out.clone(), vec![ColumnRef("k".into())]);
    (options.delimiter, options.quote) = (b',', Some(b'"'));
    (options.workers, options.skip_invalid) = (1, input.skip_invalid);
    // NDJSON whatever the bytes say (`--input-format ndjson`): a first
    // `PAR1` would otherwise make the input Parquet.
    options.source_format = Some(SourceFormat::Ndjson);
    if input.parquet {
        options.format = OutputFormat::Parquet(Default::default());
    }
    let lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let records = lines
        .iter()
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count() as u64;
    let summary = match run(&options) {
        Err(PartitionError::Input { file, line, .. }) => {
            assert!(!input.skip_invalid);
            assert_eq!(file, path.display().to_string());
            assert!(line >= 1 && line as usize <= lines.len());
            assert!(!out.exists());
            return;
        }
        Err(PartitionError::Usage(_)) => {
            assert!(!out.exists());
            return;
        }
        Err(e) => panic!("{e}"),
        Ok(summary) => summary,
    };
    let written: u64 = summary.groups.iter().map(|g| g.records).sum();
    assert_eq!(written + summary.skipped_invalid, records);
    assert_eq!(summary.records_in, records);
    if input.parquet {
        return;
    }
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for file in csv_files(&out) {
        let key = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let key = unescape(key.strip_prefix("k=").unwrap()).expect("short keys");
        let mut reader = csv::ReaderBuilder::new().from_path(&file).unwrap();
        let this: Vec<String> = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        let k = this.iter().position(|n| n == "k").unwrap();
        assert!(header.as_ref().is_none_or(|h| *h == this));
        for record in reader.byte_records() {
            let record = record.unwrap();
            assert_eq!(record.len(), this.len());
            assert_eq!(&record[k], &key[..]);
            rows.push(record.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
        }
        header = Some(this);
    }
    // The oracle: lines serde_json reads as objects of strings and nulls.
    let Some(header) = header else { return };
    for line in &lines {
        let Ok(serde_json::Value::Object(object)) = serde_json::from_slice(line) else {
            continue;
        };
        let plain = object.values().all(|v| v.is_string() || v.is_null());
        if !plain || !object.keys().all(|k| header.contains(k)) {
            continue;
        }
        let want: Vec<Vec<u8>> = (header.iter())
            .map(|n| {
                object
                    .get(n)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .as_bytes()
                    .to_vec()
            })
            .collect();
        assert!(rows.contains(&want), "{want:?} not written");
    }
});
