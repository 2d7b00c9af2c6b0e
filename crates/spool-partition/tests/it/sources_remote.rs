//! Inputs read over HTTP by ranged requests (a loopback server with
//! `Range` and `If-Match`, `support::range_server`): CSV in several
//! ranges and gzip'd, beside a local file; Parquet into Parquet (the
//! typed path) and into CSV, by ranges smaller than the file; an object
//! that changes after it was looked up fails the run naming it, and
//! nothing is published; a missing URL is named; many small objects
//! from a slow server are read several at once, in input order. The same code reads S3
//! objects, tested against an S3 server by tests/s3/.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use spool_partition::parquet::{ParquetOptions, SchemaSpec};
use spool_partition::{run, ColumnRef, Options, OutputFormat, PartitionError};

use crate::support::range_server::RangeServer;
use crate::support::{all_files, TempDir};

const KEYS: [&str; 4] = ["a", "b", "c d", "é"];

fn options(inputs: Vec<PathBuf>, out: PathBuf) -> Options {
    let mut options = Options::new(inputs, out, vec![ColumnRef("key".into())]);
    (options.delimiter, options.quote, options.header) = (b',', Some(b'"'), true);
    options.workers = 2;
    options
}

/// A CSV of `rows` rows numbered from `first`; each key's seq numbers.
fn csv(first: usize, rows: usize, by_key: &mut BTreeMap<String, Vec<String>>) -> Vec<u8> {
    let mut text = b"key,seq,pad\n".to_vec();
    for i in first..first + rows {
        let key = KEYS[i % KEYS.len()];
        writeln!(text, "{key},{i},{}", "x".repeat(i % 50)).unwrap();
        by_key
            .entry(key.to_owned())
            .or_default()
            .push(i.to_string());
    }
    text
}

/// Each key directory's seq numbers in the CSV files under `out`, sorted.
fn csv_seqs(out: &Path) -> BTreeMap<String, Vec<String>> {
    let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in all_files(out)
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "csv"))
    {
        let mut reader = csv::Reader::from_path(file).unwrap();
        let seq = reader
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "seq")
            .unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            got.entry(record[0].to_owned())
                .or_default()
                .push(record[seq].to_owned());
        }
    }
    got.values_mut().for_each(|v| v.sort());
    got
}

fn sorted(mut by_key: BTreeMap<String, Vec<String>>) -> BTreeMap<String, Vec<String>> {
    by_key.values_mut().for_each(|v| v.sort());
    by_key
}

#[test]
fn csv_in_ranges_and_gzip_beside_a_local_file() {
    let server = RangeServer::start();
    let dir = TempDir::new();
    let mut want = BTreeMap::new();
    // Past one ranged read (4 MiB): read in several, in order.
    let big = csv(0, 130_000, &mut want);
    assert!(big.len() > 4 << 20);
    server.put("big.csv", big.clone());
    let small = csv(130_000, 500, &mut want);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&small).unwrap();
    server.put("small.csv.gz", gz.finish().unwrap());
    let local = dir.0.join("local.csv");
    std::fs::write(&local, csv(140_000, 10, &mut want)).unwrap();
    let inputs = vec![
        format!("{}/big.csv", server.url).into(),
        local,
        format!("{}/small.csv.gz", server.url).into(),
    ];
    let out = dir.0.join("out");
    run(&options(inputs, out.clone())).unwrap();
    assert_eq!(csv_seqs(&out), sorted(want));
    let ranges = server.ranges("big.csv");
    assert!(ranges.len() > 1, "{ranges:?}");
    assert!(ranges.iter().all(|(a, b)| b - a <= 4 << 20), "{ranges:?}");
}

#[test]
fn small_objects_from_a_slow_server_are_read_several_at_once() {
    let server = RangeServer::start();
    let dir = TempDir::new();
    let mut want = BTreeMap::new();
    let mut inputs: Vec<PathBuf> = Vec::new();
    for n in 0..12 {
        let name = format!("part-{n:02}.csv");
        server.put(&name, csv(n * 300, 300, &mut want));
        inputs.push(format!("{}/{name}", server.url).into());
    }
    // Slower than the run: only the object reads (each object is one
    // range, larger than the format detection's heads).
    server.delay_gets(std::time::Duration::from_millis(150), 4096);
    let out = dir.0.join("out");
    let options = options(inputs, out.clone());
    assert_eq!(options.parallel_inputs, 2);
    run(&options).unwrap();
    assert_eq!(csv_seqs(&out), sorted(want));
    // Two inputs open at once, and the objects after them read early.
    let most = server.most_slowed_at_once();
    assert!(
        most > options.parallel_inputs,
        "at most {most} reads at once"
    );
}

/// A Parquet file of `rows` rows (`key`, `seq`), small row groups.
fn parquet(rows: usize) -> Vec<u8> {
    let keys: StringArray = (0..rows).map(|i| Some(KEYS[i % KEYS.len()])).collect();
    let seqs: Int64Array = (0..rows as i64).map(Some).collect();
    let columns: Vec<(&str, ArrayRef)> = vec![("key", Arc::new(keys)), ("seq", Arc::new(seqs))];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(20_000))
        .set_compression(parquet::basic::Compression::UNCOMPRESSED)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    out
}

#[test]
fn parquet_by_ranges_into_parquet_and_into_csv() {
    let server = RangeServer::start();
    let dir = TempDir::new();
    let rows = 100_000;
    let file = parquet(rows);
    server.put("t.parquet", file.clone());
    let url: PathBuf = format!("{}/t.parquet", server.url).into();
    let mut want: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for i in 0..rows {
        want.entry(KEYS[i % KEYS.len()].to_owned())
            .or_default()
            .push(i.to_string());
    }
    let want = sorted(want);

    let out = dir.0.join("pq");
    let mut typed = options(vec![url.clone()], out.clone());
    typed.format = OutputFormat::Parquet(ParquetOptions::default());
    run(&typed).unwrap();
    let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for part in all_files(&out)
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "parquet"))
    {
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(part).unwrap())
            .unwrap()
            .build()
            .unwrap();
        // The key is in the directory's name (escaped), not in the file.
        let dir = part
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        let key = got.entry(dir.into_owned()).or_default();
        for batch in reader {
            let batch = batch.unwrap();
            let seqs = batch.column_by_name("seq").unwrap();
            let seqs = seqs
                .as_any()
                .downcast_ref::<Int64Array>()
                .expect("int64 kept");
            key.extend(seqs.values().iter().map(i64::to_string));
        }
    }
    let groups = |by_key: BTreeMap<String, Vec<String>>| {
        let mut groups: Vec<Vec<String>> = sorted(by_key).into_values().collect();
        groups.sort();
        groups
    };
    assert_eq!(groups(got), groups(want.clone()));
    let ranges = server.ranges("t.parquet");
    assert!(
        ranges.iter().all(|(a, b)| b - a < file.len() as u64),
        "{ranges:?}"
    );

    let out = dir.0.join("csv");
    run(&options(vec![url], out.clone())).unwrap();
    assert_eq!(csv_seqs(&out), want);
}

#[test]
fn an_object_changed_after_it_was_looked_up_fails_the_run() {
    let server = RangeServer::start();
    let dir = TempDir::new();
    let mut keys = BTreeMap::new();
    let before = csv(0, 100, &mut keys);
    server.put_changing("in.csv", before, csv(0, 101, &mut keys));
    let url = format!("{}/in.csv", server.url);
    let out = dir.0.join("out");
    let e = run(&options(vec![url.clone().into()], out.clone()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&url) && e.contains("changed during the run"),
        "{e}"
    );
    assert!(!out.exists(), "nothing published");

    let missing = format!("{}/missing.csv", server.url);
    let e = run(&options(vec![missing.clone().into()], out))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("{missing}: cannot be read")), "{e}");
}

#[test]
fn a_record_that_does_not_fit_the_schema_is_named_by_url_and_line() {
    let server = RangeServer::start();
    let dir = TempDir::new();
    let mut text = csv(0, 2000, &mut BTreeMap::new());
    text.extend_from_slice(b"a,not-a-number,x\n");
    server.put("in.csv", text);
    let url = format!("{}/in.csv", server.url);
    let out = dir.0.join("out");
    let mut options = options(vec![url.clone().into()], out.clone());
    options.format = OutputFormat::Parquet(ParquetOptions {
        schema: SchemaSpec::parse("seq:int64").unwrap(),
        ..ParquetOptions::default()
    });
    // The writers check the records; the input is read again to say where.
    let e = run(&options).unwrap_err();
    let PartitionError::Input { file, line, .. } = &e else {
        panic!("not an input error: {e}");
    };
    assert_eq!((file.as_str(), *line), (url.as_str(), 2002), "{e}");
    assert!(!out.exists(), "nothing published");
}
