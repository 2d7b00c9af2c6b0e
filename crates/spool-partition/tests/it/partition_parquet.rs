//! `--format parquet` round trip: random typed tables written as TSV or CSV,
//! partitioned into Parquet, read back with the `parquet` crate's own
//! reader — every key's rows, in input order, with their types and NULLs.

use std::fs;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use proptest::prelude::*;
use spool_partition::parquet::{
    ColumnType, Encodings, ParquetCompression, ParquetOptions, SchemaSpec,
};
use spool_partition::{run, BufferSizes, ColumnRef, Options, OutputFormat};

/// A value as the test sees it, comparable across text and Parquet.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Null,
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Days since the epoch.
    Date(i32),
    /// Microseconds since the epoch.
    Timestamp(i64),
}

const TYPES: [ColumnType; 6] = [
    ColumnType::String,
    ColumnType::Int64,
    ColumnType::Float64,
    ColumnType::Bool,
    ColumnType::Date,
    ColumnType::Timestamp,
];

fn value(kind: ColumnType) -> BoxedStrategy<Value> {
    let some = match kind {
        ColumnType::String => "[a-zé ,;\"]{1,12}".prop_map(Value::Str).boxed(),
        ColumnType::Int64 => any::<i64>().prop_map(Value::Int).boxed(),
        ColumnType::Float64 => (-1e9f64..1e9).prop_map(Value::Float).boxed(),
        ColumnType::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        ColumnType::Date => (-100_000i32..100_000).prop_map(Value::Date).boxed(),
        ColumnType::Timestamp => (-4_000_000_000_000_000i64..4_000_000_000_000_000)
            .prop_map(Value::Timestamp)
            .boxed(),
    };
    prop_oneof![1 => Just(Value::Null), 6 => some].boxed()
}

/// Days since the epoch as `YYYY-MM-DD` (Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Str(s) => s.clone(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Date(d) => {
            let (y, m, d) = civil(i64::from(*d));
            format!("{y:04}-{m:02}-{d:02}")
        }
        Value::Timestamp(t) => {
            let (secs, micros) = (t.div_euclid(1_000_000), t.rem_euclid(1_000_000));
            let (y, m, d) = civil(secs.div_euclid(86_400));
            let s = secs.rem_euclid(86_400);
            format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}",
                s / 3600,
                s / 60 % 60,
                s % 60
            )
        }
    }
}

fn read_back(column: &dyn Array, kind: ColumnType, row: usize) -> Value {
    if column.is_null(row) {
        return Value::Null;
    }
    match kind {
        ColumnType::String => Value::Str(column.as_string::<i32>().value(row).to_owned()),
        ColumnType::Int64 => Value::Int(column.as_primitive::<Int64Type>().value(row)),
        ColumnType::Float64 => Value::Float(column.as_primitive::<Float64Type>().value(row)),
        ColumnType::Bool => Value::Bool(column.as_boolean().value(row)),
        ColumnType::Date => Value::Date(column.as_primitive::<Date32Type>().value(row)),
        ColumnType::Timestamp => {
            Value::Timestamp(column.as_primitive::<TimestampMicrosecondType>().value(row))
        }
    }
}

/// An empty directory of this test process's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spool-parquet-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Options to partition `dir/input` (a header line, then records) by the
/// column named `by` into `dir/out` as Parquet with `schema`.
fn parquet_options(dir: &Path, input: &str, by: &str, schema: &str) -> Options {
    let mut options = Options::new(
        vec![dir.join(input)],
        dir.join("out"),
        vec![ColumnRef(by.into())],
    );
    options.header = true;
    options.format = OutputFormat::Parquet(ParquetOptions {
        schema: SchemaSpec::parse(schema).unwrap(),
        ..ParquetOptions::default()
    });
    options
}

/// Every row of a group's part files, in part order.
fn rows_of(dir: &Path, types: &[ColumnType]) -> Vec<Vec<Value>> {
    let mut parts: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    parts.sort();
    let mut rows = Vec::new();
    for part in parts {
        let name = part.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            name.starts_with("part-") && name.ends_with(".parquet"),
            "{name}"
        );
        let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&part).unwrap())
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch: RecordBatch = batch.unwrap();
            for row in 0..batch.num_rows() {
                rows.push(
                    types
                        .iter()
                        .enumerate()
                        .map(|(c, &kind)| read_back(batch.column(c).as_ref(), kind, row))
                        .collect(),
                );
            }
        }
    }
    rows
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Column 1 is the key (a few values); the others have random types.
    /// Tiny buffers and one open file force early flushes and small row
    /// groups; more keys than open writers (or a budget too small for any)
    /// send groups to spill files, and still each key gets one part file
    /// (two if its writer had to be closed). As TSV or as CSV with every
    /// string quoted (its commas and doubled quotes unquoted on the way).
    /// With the delta encodings or plain ones.
    #[test]
    fn round_trip(
        (types, rows) in proptest::collection::vec(0..TYPES.len(), 1..5).prop_flat_map(|kinds| {
            let types: Vec<ColumnType> = kinds.iter().map(|&k| TYPES[k]).collect();
            let row = (0u8..5, types.iter().map(|&t| value(t)).collect::<Vec<_>>());
            (Just(types), proptest::collection::vec(row, 1..300))
        }),
        max_open in 1usize..4,
        roomy in any::<bool>(),
        csv in any::<bool>(),
        plain in any::<bool>(),
        case in 0u64..1_000_000,
    ) {
        let dir = scratch(&format!("rt-{case}"));
        let delimiter = if csv { ',' } else { '\t' };
        let mut input = String::new();
        for (key, values) in &rows {
            input.push_str(&format!("k{key}"));
            for v in values {
                input.push(delimiter);
                match v {
                    Value::Str(s) if csv => input.push_str(&format!("\"{}\"", s.replace('"', "\"\""))),
                    v => input.push_str(&text(v)),
                }
            }
            input.push('\n');
        }
        fs::write(dir.join("in.txt"), &input).unwrap();
        let spec = SchemaSpec(types.iter().enumerate().map(|(i, &t)| (format!("col{}", i + 2), t)).collect());
        let mut options = Options::new(vec![dir.join("in.txt")], dir.join("out"), vec![ColumnRef("1".into())]);
        options.format = OutputFormat::Parquet(ParquetOptions {
            schema: spec,
            row_group_size: 7,
            compression: ParquetCompression::Zstd(1),
            encodings: if plain { Encodings::Plain } else { Encodings::Delta },
        });
        if csv {
            (options.delimiter, options.quote) = (b',', Some(b'"'));
        }
        options.workers = 2;
        options.max_open = max_open * 2;
        options.buffer_sizes = Some(BufferSizes {
            min_chunk: 64,
            max_chunk: 256,
            // 4 KiB admits no writer: every group spills.
            budget: if roomy { 4 << 20 } else { 4096 },
        });
        let summary = run(&options).unwrap();
        let mut expected: std::collections::BTreeMap<u8, Vec<Vec<Value>>> = Default::default();
        for (key, values) in rows {
            expected.entry(key).or_default().push(values);
        }
        prop_assert_eq!(summary.groups.len(), expected.len());
        for group in &summary.groups {
            prop_assert!((1..=2).contains(&group.files), "{} parts", group.files);
        }
        for (key, want) in expected {
            let got = rows_of(&dir.join(format!("out/col1=k{key}")), &types);
            prop_assert_eq!(got, want);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_bad_value_names_file_line_offset_column_and_value() {
    let dir = scratch("bad");
    fs::write(dir.join("in.tsv"), "k\tn\na\t1\nb\ttwo\nc\t3\n").unwrap();
    let mut options = parquet_options(&dir, "in.tsv", "k", "n:int64");
    let err = run(&options).unwrap_err().to_string();
    assert!(err.contains("in.tsv:3: byte offset 8:"), "{err}");
    assert!(
        err.contains("column 2 (n): \"two\" is not a valid int64 value"),
        "{err}"
    );
    assert!(!dir.join("out").exists(), "nothing is left behind");
    options.skip_invalid = true;
    let summary = run(&options).unwrap();
    assert_eq!((summary.skipped_invalid, summary.groups.len()), (1, 2));
    assert_eq!(
        rows_of(&dir.join("out/k=c"), &[ColumnType::Int64]),
        vec![vec![Value::Int(3)]]
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// RFC 4180 input: the Parquet values are the fields' unquoted values —
/// delimiters, doubled quotes, CR and LF inside quotes are data, a quoted
/// number is a number, a quoted key is the same key. Tiny buffers cut the
/// long record (longer than the largest chunk, with line breaks inside its
/// quotes) into pieces the writer must join before it splits records.
#[test]
fn quoted_csv_values_are_written_unquoted() {
    let dir = scratch("csv");
    let long = format!("{}\n\"end\"", "line, with \"quotes\"\r\n".repeat(40));
    let input = format!(
        "\"key\",name,\"n\"\r\n\
         a,\"Smith, John\",\"42\"\r\n\
         \"a\",\"say \"\"hi\"\"\",7\r\n\
         b,\"two\nlines\",\r\n\
         b,{},-1\r\n\
         a,plain,\"\"\n",
        format_args!("\"{}\"", long.replace('"', "\"\""))
    );
    fs::write(dir.join("in.csv"), &input).unwrap();
    let mut options = Options::new(
        vec![dir.join("in.csv")],
        dir.join("out"),
        vec![ColumnRef("key".into())],
    );
    options.header = true;
    (options.delimiter, options.quote) = (b',', Some(b'"'));
    options.format = OutputFormat::Parquet(ParquetOptions {
        schema: SchemaSpec::parse("n:int64").unwrap(),
        row_group_size: 2,
        compression: ParquetCompression::None,
        ..ParquetOptions::default()
    });
    options.workers = 1;
    let sizes = BufferSizes {
        min_chunk: 64,
        max_chunk: 256,
        budget: 4096,
    };
    options.buffer_sizes = Some(sizes);
    assert!(long.len() > sizes.max_chunk, "the long record spans chunks");
    let summary = run(&options).unwrap();
    assert_eq!(summary.groups.len(), 2, "\"a\" and a are one key");
    let types = [ColumnType::String, ColumnType::Int64];
    let s = |v: &str| Value::Str(v.to_owned());
    assert_eq!(
        rows_of(&dir.join("out/key=a"), &types),
        vec![
            vec![s("Smith, John"), Value::Int(42)],
            vec![s("say \"hi\""), Value::Int(7)],
            vec![s("plain"), Value::Null],
        ]
    );
    assert_eq!(
        rows_of(&dir.join("out/key=b"), &types),
        vec![
            vec![s("two\nlines"), Value::Null],
            vec![Value::Str(long), Value::Int(-1)],
        ]
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Each file chooses its string columns' encoding from its first batch: a
/// column whose values repeat gets a dictionary, one of distinct values is
/// written as lengths then bytes (`DELTA_LENGTH_BYTE_ARRAY`), numbers
/// plain — and every value reads back.
#[test]
fn repeating_strings_get_a_dictionary_distinct_ones_do_not() {
    use parquet::basic::Encoding;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = scratch("dictionary");
    let colours = ["red", "green", "blue"];
    let mut input = String::from("key\tcolour\tname\tn\n");
    for i in 0..3000 {
        input.push_str(&format!("k{}\t{}\tname {i}\t{i}\n", i % 2, colours[i % 3]));
    }
    fs::write(dir.join("in.tsv"), &input).unwrap();
    let options = parquet_options(&dir, "in.tsv", "key", "n:int64");
    run(&options).unwrap();
    for key in ["k0", "k1"] {
        let part = dir.join(format!("out/key={key}/part-00000.parquet"));
        let reader = SerializedFileReader::new(fs::File::open(&part).unwrap()).unwrap();
        let row_group = reader.metadata().row_group(0);
        let dictionary =
            |c: usize| (row_group.column(c).encodings()).any(|e| e == Encoding::RLE_DICTIONARY);
        assert_eq!(
            (dictionary(0), dictionary(1), dictionary(2)),
            (true, false, false),
            "{key}: colour, name, n"
        );
        let delta_lengths = |c: usize| {
            (row_group.column(c).encodings()).any(|e| e == Encoding::DELTA_LENGTH_BYTE_ARRAY)
        };
        assert_eq!(
            (delta_lengths(0), delta_lengths(1), delta_lengths(2)),
            (false, true, false),
            "{key}: colour, name, n"
        );
        let types = [ColumnType::String, ColumnType::String, ColumnType::Int64];
        let rows = rows_of(&dir.join(format!("out/key={key}")), &types);
        let first = usize::from(key == "k1");
        assert_eq!(rows.len(), 1500);
        assert_eq!(
            rows[1],
            vec![
                Value::Str(colours[(first + 2) % 3].to_owned()),
                Value::Str(format!("name {}", first + 2)),
                Value::Int(first as i64 + 2),
            ]
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}
