//! Parquet inputs: re-partitioned into Parquet, each key's rows are the
//! input's rows of that key, in input order, with the input's types
//! exactly (dictionary strings, decimals, zoned timestamps, lists carried
//! whole), a hive dataset's path key as a column; into CSV, the values as
//! Arrow displays them. A file that is not Parquet, or whose columns
//! differ from the first's, is named. INT96 timestamps (Spark's) are
//! read as microseconds in UTC, whole from year 1 to 9999.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, DictionaryArray, Float32Array,
    Int64Array, Int8Array, RecordBatch, StringArray, TimestampNanosecondArray, UInt64Array,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use spool_partition::parquet::{ParquetOptions, SchemaSpec};
use spool_partition::{run, BufferSizes, ColumnRef, Options, OutputFormat};

use crate::support::{all_files, parquet_parts, TempDir};

const KEYS: [Option<&str>; 4] = [Some("a"), Some("b c"), None, Some("d")];

/// `rows` rows of every kind of column, from `seed`.
fn batch(rows: usize, seed: i64) -> RecordBatch {
    let at = |i: usize| seed * 1000 + i as i64;
    let key: StringArray = (0..rows).map(|i| KEYS[(at(i) % 4) as usize]).collect();
    let i8s: Int8Array = (0..rows)
        .map(|i| (i % 5 != 0).then_some((at(i) % 100) as i8))
        .collect();
    let u64s: UInt64Array = (0..rows).map(|i| Some(u64::MAX - at(i) as u64)).collect();
    let f32s: Float32Array = (0..rows)
        .map(|i| (i % 3 != 0).then_some(at(i) as f32 / 8.0))
        .collect();
    let decimals = Decimal128Array::from_iter(
        (0..rows).map(|i| (i % 4 != 0).then_some(at(i) as i128 * 12_345)),
    )
    .with_precision_and_scale(20, 4)
    .unwrap();
    let stamps =
        TimestampNanosecondArray::from_iter((0..rows).map(|i| Some(at(i) * 1_000_000_007)))
            .with_timezone("+01:00");
    let colours: DictionaryArray<Int32Type> = (0..rows)
        .map(|i| (i % 6 != 0).then_some(["red", "green", "blue"][i % 3]))
        .collect();
    let flags: BooleanArray = (0..rows)
        .map(|i| (i % 7 != 0).then_some(i % 2 == 0))
        .collect();
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..rows {
        if i % 5 == 0 {
            lists.append_null();
        } else {
            lists.append_value((0..(i % 3) as i32).map(Some));
        }
    }
    let big: Int64Array = (0..rows).map(|i| Some(at(i) * -7)).collect();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("key", Arc::new(key)),
        ("i8", Arc::new(i8s)),
        ("u64", Arc::new(u64s)),
        ("f32", Arc::new(f32s)),
        ("dec", Arc::new(decimals)),
        ("at", Arc::new(stamps)),
        ("colour", Arc::new(colours)),
        ("flag", Arc::new(flags)),
        ("list", Arc::new(lists.finish())),
        ("big", Arc::new(big)),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(300))
        .build();
    let mut writer = ArrowWriter::try_new(
        fs::File::create(path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

/// Each row of `batch` as text, all columns but `skip`.
fn rows_text(batch: &RecordBatch, skip: &str) -> Vec<Vec<String>> {
    let options = FormatOptions::new().with_null("∅");
    let columns: Vec<(usize, ArrayFormatter)> = (batch.schema().fields().iter().enumerate())
        .filter(|(_, f)| f.name() != skip)
        .map(|(i, _)| {
            (
                i,
                ArrayFormatter::try_new(batch.column(i).as_ref(), &options).unwrap(),
            )
        })
        .collect();
    (0..batch.num_rows())
        .map(|row| {
            columns
                .iter()
                .map(|(_, f)| f.value(row).to_string())
                .collect()
        })
        .collect()
}

/// Rows as text by key directory name, in order.
type ByKey = BTreeMap<String, Vec<Vec<String>>>;

/// The input's rows by key (as its directory names it), in order.
fn expected(batches: &[RecordBatch], key: &str) -> ByKey {
    let mut out = ByKey::new();
    for batch in batches {
        let keys = batch.column_by_name(key).unwrap();
        let options = FormatOptions::new().with_null("");
        let keys = ArrayFormatter::try_new(keys.as_ref(), &options).unwrap();
        for (row, text) in rows_text(batch, key).into_iter().enumerate() {
            let k = keys.value(row).to_string();
            let dir = if k.is_empty() {
                "__HIVE_DEFAULT_PARTITION__".to_owned()
            } else {
                k
            };
            out.entry(dir).or_default().push(text);
        }
    }
    out
}

/// Every part under `out`, by key directory in part order: rows, and the
/// files' column types.
fn read_back(out: &Path) -> (ByKey, Vec<Vec<DataType>>) {
    let (mut rows, mut types) = (BTreeMap::new(), Vec::new());
    for (key, batch) in parquet_parts(out) {
        types.push(
            (batch.schema().fields().iter())
                .map(|f| f.data_type().clone())
                .collect(),
        );
        rows.entry(key)
            .or_insert_with(Vec::new)
            .extend(rows_text(&batch, ""));
    }
    (rows, types)
}

fn parquet_options(inputs: Vec<PathBuf>, out: PathBuf, by: &str) -> Options {
    let mut options = Options::new(inputs, out, vec![ColumnRef(by.into())]);
    options.format = OutputFormat::Parquet(ParquetOptions::default());
    options
}

#[test]
fn parquet_to_parquet_keeps_rows_order_and_types() {
    let dir = TempDir::new();
    let batches = [batch(1000, 1), batch(700, 2)];
    write_parquet(&dir.0.join("in/2.parquet"), &batches[1]);
    write_parquet(&dir.0.join("in/10.parquet"), &batches[0]);
    let out = dir.0.join("out");
    let mut options = parquet_options(vec![dir.0.join("in")], out.clone(), "key");
    // One open file and small sends: rows go out in many pieces.
    (options.workers, options.max_open) = (1, 1);
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 4096,
        max_chunk: 16384,
        budget: 64 << 10,
    });
    let summary = run(&options).unwrap();
    assert_eq!(summary.records_in, 1700);
    let (rows, types) = read_back(&out);
    assert_eq!(rows, expected(&batches, "key"));
    let want: Vec<DataType> = (batches[0].schema().fields().iter())
        .skip(1)
        .map(|f| f.data_type().clone())
        .collect();
    assert!(types.iter().all(|t| *t == want), "{types:?}");
    assert!(
        summary.groups.iter().all(|g| g.files == 1),
        "a key is one part, whatever the budget and open files"
    );
}

#[test]
fn each_key_is_one_part_of_one_row_group_however_its_rows_came() {
    let dir = TempDir::new();
    let batches = [batch(6000, 5), batch(4000, 6)];
    write_parquet(&dir.0.join("in/a.parquet"), &batches[0]);
    write_parquet(&dir.0.join("in/b.parquet"), &batches[1]);
    let out = dir.0.join("out");
    let mut options = parquet_options(vec![dir.0.join("in")], out.clone(), "key");
    // One file open; batches gathered a small share of the budget at a
    // time, so each key's rows come in many pieces.
    (options.workers, options.max_open) = (2, 1);
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 4096,
        max_chunk: 16384,
        budget: 1 << 20,
    });
    let summary = run(&options).unwrap();
    let (rows, _) = read_back(&out);
    assert_eq!(rows, expected(&batches, "key"));
    assert!(
        summary.groups.iter().all(|g| g.files == 1),
        "one part a key"
    );
    let parts: Vec<PathBuf> = (all_files(&out).into_iter())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    assert_eq!(parts.len(), summary.groups.len());
    let row_groups = |part: &PathBuf| {
        let file = fs::File::open(part).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        reader.metadata().num_row_groups()
    };
    assert!(
        parts.iter().all(|p| row_groups(p) == 1),
        "the pieces written as one row group"
    );

    // A part still ends at --max-rows-per-file, its rows in order.
    fs::remove_dir_all(&out).unwrap();
    options.max_rows_per_file = Some(700);
    let summary = run(&options).unwrap();
    let (rows, _) = read_back(&out);
    assert_eq!(rows, expected(&batches, "key"));
    for group in &summary.groups {
        assert_eq!(
            u64::from(group.files),
            group.records.div_ceil(700),
            "{group:?}"
        );
    }
}

#[test]
fn a_hive_dataset_keeps_its_path_keys_and_csv_output_has_the_values() {
    let dir = TempDir::new();
    let (eu, us) = (batch(300, 3), batch(200, 4));
    write_parquet(&dir.0.join("in/region=eu/p.parquet"), &eu);
    write_parquet(&dir.0.join("in/region=us/p.parquet"), &us);
    let out = dir.0.join("out");
    run(&parquet_options(
        vec![dir.0.join("in/*/*.parquet")],
        out.clone(),
        "colour",
    ))
    .unwrap();
    let (rows, types) = read_back(&out);
    let with_region = |batch: &RecordBatch, region: &str| {
        let mut columns: Vec<(String, ArrayRef)> = (batch.schema().fields().iter())
            .map(|f| {
                (
                    f.name().clone(),
                    batch.column_by_name(f.name()).unwrap().clone(),
                )
            })
            .collect();
        columns.push((
            "region".into(),
            Arc::new(StringArray::from(vec![region; batch.num_rows()])),
        ));
        RecordBatch::try_from_iter(columns).unwrap()
    };
    let all = [with_region(&eu, "eu"), with_region(&us, "us")];
    assert_eq!(rows, expected(&all, "colour"));
    assert_eq!(types[0].last(), Some(&DataType::Utf8));
    // Into CSV: the same values, as text.
    let csv_out = dir.0.join("csv");
    let mut options = Options::new(
        vec![dir.0.join("in")],
        csv_out.clone(),
        vec![ColumnRef("region".into())],
    );
    (options.delimiter, options.quote) = (b',', Some(b'"'));
    run(&options).unwrap();
    let text = fs::read_to_string(csv_out.join("region=us/part-00000.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("key,i8,u64,f32,dec,at,colour,flag,list,big,region")
    );
    // Row 0 of `us`: NULLs empty, the zoned timestamp in UTC.
    let first = "a,,18446744073709547615,,,1970-01-01T01:06:40.000028Z,,,,-28000,us";
    assert_eq!(lines.next(), Some(first));
    let second = "b c,1,18446744073709547614,500.125,4939.2345,1970-01-01T01:06:41.000028007Z,green,false,[0],-28007,us";
    assert_eq!(lines.next(), Some(second));
}

#[test]
fn schema_types_a_hive_datasets_keys_and_only_those() {
    let dir = TempDir::new();
    let (a, b) = (batch(300, 3), batch(200, 4));
    write_parquet(&dir.0.join("in/year=2026/day=2026-05-01/p.parquet"), &a);
    let default = "day=__HIVE_DEFAULT_PARTITION__";
    write_parquet(&dir.0.join(format!("in/year=-7/{default}/p.parquet")), &b);
    let out = dir.0.join("out");
    let mut options = parquet_options(vec![dir.0.join("in")], out.clone(), "colour");
    let typed = |spec: &str| {
        OutputFormat::Parquet(ParquetOptions {
            schema: SchemaSpec::parse(spec).unwrap(),
            ..ParquetOptions::default()
        })
    };
    options.format = typed("year:int64,day:date");
    run(&options).unwrap();
    let (rows, types) = read_back(&out);
    for file in &types {
        assert_eq!(file[file.len() - 2..], [DataType::Int64, DataType::Date32]);
    }
    // The values as those types display them; the default key is NULL.
    let with_keys = |batch: &RecordBatch, year: i64, day: Option<i32>| {
        let n = batch.num_rows();
        let mut columns: Vec<(String, ArrayRef)> = (batch.schema().fields().iter())
            .map(|f| {
                (
                    f.name().clone(),
                    batch.column_by_name(f.name()).unwrap().clone(),
                )
            })
            .collect();
        columns.push(("year".into(), Arc::new(Int64Array::from(vec![year; n]))));
        columns.push(("day".into(), Arc::new(Date32Array::from(vec![day; n]))));
        RecordBatch::try_from_iter(columns).unwrap()
    };
    // 2026-05-01 is day 20,574 of the Unix epoch; `year=-7` is read
    // first (the directories in byte order).
    let all = [with_keys(&b, -7, None), with_keys(&a, 2026, Some(20_574))];
    assert_eq!(rows, expected(&all, "colour"));

    // A key whose value is not of its type names the file; nothing is
    // published.
    fs::remove_dir_all(&out).unwrap();
    write_parquet(&dir.0.join("in/year=20x6/day=2026-05-02/p.parquet"), &a);
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("year=20x6/day=2026-05-02/p.parquet: the hive key year=20x6 is not of type int64 (--schema year:int64)"),
        "{err}"
    );
    assert!(!out.exists());
    // Untyped, a key is text: one that unescapes to other bytes is named.
    fs::remove_dir_all(dir.0.join("in/year=20x6")).unwrap();
    write_parquet(&dir.0.join("in/year=%FF/day=2026-05-02/p.parquet"), &a);
    options.format = typed("day:date");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains(
            "year=%FF/day=2026-05-02/p.parquet: the hive key year=\u{FFFD} is not UTF-8 text"
        ),
        "{err}"
    );
    assert!(!out.exists());

    // A file's own column keeps its type; a name that is no column is
    // refused, listing the columns.
    options.format = typed("big:string");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("\"big\", a column of the Parquet inputs, which keep their own types; --schema types only their hive keys (year, day)"),
        "{err}"
    );
    options.format = typed("month:int64");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("\"month\", which is not a column; the columns are: key, i8"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_file_that_differs_or_is_not_parquet_is_named() {
    let dir = TempDir::new();
    write_parquet(&dir.0.join("a.parquet"), &batch(10, 1));
    let other = batch(10, 2).project(&[0, 2, 1]).unwrap();
    write_parquet(&dir.0.join("b.parquet"), &other);
    let out = dir.0.join("out");
    let options = parquet_options(vec![dir.0.join("*.parquet")], out.clone(), "key");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("b.parquet: the columns are [key, u64, i8], not [key, i8, u64"),
        "{err}"
    );
    assert!(!out.exists());
    let bytes = fs::read(dir.0.join("a.parquet")).unwrap();
    fs::write(dir.0.join("cut.parquet"), &bytes[..bytes.len() - 10]).unwrap();
    let options = parquet_options(vec![dir.0.join("cut.parquet")], out.clone(), "key");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("cut.parquet: cannot be read as Parquet"),
        "{err}"
    );
    let nested = parquet_options(vec![dir.0.join("a.parquet")], out.clone(), "list");
    let err = run(&nested).unwrap_err().to_string();
    assert!(err.contains("--by list: the column is List"), "{err}");
    assert!(!out.exists());
}

/// An INT96 timestamp: a Julian day and nanoseconds of the day.
fn int96(day: u32, nanos: u64) -> parquet::data_type::Int96 {
    let mut value = parquet::data_type::Int96::new();
    value.set_data(nanos as u32, (nanos >> 32) as u32, day);
    value
}

/// Writes `values` as the row group's next column (with its definition
/// and repetition levels).
fn write_column<T: parquet::data_type::DataType>(
    group: &mut parquet::file::writer::SerializedRowGroupWriter<'_, fs::File>,
    values: &[T::T],
    definitions: Option<&[i16]>,
    repetitions: Option<&[i16]>,
) {
    let mut column = group.next_column().unwrap().unwrap();
    (column.typed::<T>())
        .write_batch(values, definitions, repetitions)
        .unwrap();
    column.close().unwrap();
}

/// A file as Spark writes one (INT96 timestamps, no Arrow schema): `k`,
/// and `ts` as (Julian day, nanoseconds of the day) or null.
fn write_int96(path: &Path, rows: &[(&str, Option<(u32, u64)>)]) {
    use parquet::data_type::{ByteArray, ByteArrayType, Int96, Int96Type};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    let message = "message spark_schema { required binary k (UTF8); optional int96 ts; }";
    let schema = Arc::new(parse_message_type(message).unwrap());
    let file = fs::File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, Default::default()).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let keys: Vec<ByteArray> = rows.iter().map(|(k, _)| ByteArray::from(*k)).collect();
    write_column::<ByteArrayType>(&mut group, &keys, None, None);
    let values: Vec<Int96> = (rows.iter().filter_map(|(_, ts)| *ts))
        .map(|(day, nanos)| int96(day, nanos))
        .collect();
    let present: Vec<i16> = rows.iter().map(|(_, ts)| i16::from(ts.is_some())).collect();
    write_column::<Int96Type>(&mut group, &values, Some(&present), None);
    group.close().unwrap();
    writer.close().unwrap();
}

#[test]
fn int96_timestamps_are_microseconds_from_year_1_to_9999() {
    use arrow_array::TimestampMicrosecondArray;
    use arrow_schema::TimeUnit;
    const EPOCH_DAY: u32 = 2_440_588; // 1970-01-01 as a Julian day
    const DAY_NANOS: u64 = 86_400_000_000_000;
    let dir = TempDir::new();
    let input = dir.0.join("spark.parquet");
    // (value, the instant in microseconds since 1970, as CSV shows it)
    let rows = [
        (
            "first",
            Some((1_721_426, 0)),
            -62_135_596_800_000_000,
            "0001-01-01T00:00:00Z",
        ),
        (
            "unix",
            Some((EPOCH_DAY, 1_000)),
            1,
            "1970-01-01T00:00:00.000001Z",
        ),
        (
            "last",
            Some((5_373_484, DAY_NANOS - 1_000)),
            253_402_300_799_999_999,
            "9999-12-31T23:59:59.999999Z",
        ),
        ("none", None, 0, ""),
    ];
    let given: Vec<_> = rows.iter().map(|(k, ts, ..)| (*k, *ts)).collect();
    write_int96(&input, &given);
    let out = dir.0.join("out");
    run(&parquet_options(vec![input.clone()], out.clone(), "k")).unwrap();
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    for (key, _, micros, _) in &rows[..3] {
        let parts = parquet_parts(&out.join(format!("k={key}")));
        let (_, batch) = &parts[0];
        let ts = batch.column_by_name("ts").unwrap();
        assert_eq!(ts.data_type(), &utc, "{key}");
        let ts = ts
            .as_any()
            .downcast_ref::<TimestampMicrosecondArray>()
            .unwrap();
        assert_eq!(ts.value(0), *micros, "{key}");
    }
    let parts = parquet_parts(&out.join("k=none"));
    assert!(parts[0].1.column_by_name("ts").unwrap().is_null(0));

    let csv_out = dir.0.join("csv");
    let mut options = Options::new(vec![input], csv_out.clone(), vec![ColumnRef("k".into())]);
    (options.delimiter, options.quote) = (b',', Some(b'"'));
    run(&options).unwrap();
    for (key, _, _, text) in rows {
        let written = fs::read_to_string(csv_out.join(format!("k={key}/part-00000.csv"))).unwrap();
        assert_eq!(written, format!("k,ts\n{key},{text}\n"), "{key}");
    }
}

#[test]
fn int96_inside_structs_and_lists_is_microseconds_too() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampMicrosecondType;
    use arrow_schema::TimeUnit;
    use parquet::data_type::{ByteArray, ByteArrayType, Int96Type};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    let dir = TempDir::new();
    let input = dir.0.join("nested.parquet");
    let message = "message spark_schema {
        required binary k (UTF8);
        optional group s { optional int96 t; }
        optional group l (LIST) { repeated group list { optional int96 element; } }
    }";
    let schema = Arc::new(parse_message_type(message).unwrap());
    let mut writer = SerializedFileWriter::new(
        fs::File::create(&input).unwrap(),
        schema,
        Default::default(),
    )
    .unwrap();
    let mut group = writer.next_row_group().unwrap();
    let keys = [ByteArray::from("a"), ByteArray::from("b")];
    write_column::<ByteArrayType>(&mut group, &keys, None, None);
    // s.t: year 1 in row a, no struct in row b.
    write_column::<Int96Type>(&mut group, &[int96(1_721_426, 0)], Some(&[2, 0]), None);
    // l: [9999-12-31T23:59:59.999999, 1970-01-01T00:00:00.000001] in row a, null in row b.
    let elements = [
        int96(5_373_484, 86_400_000_000_000 - 1_000),
        int96(2_440_588, 1_000),
    ];
    write_column::<Int96Type>(&mut group, &elements, Some(&[3, 3, 0]), Some(&[0, 1, 0]));
    group.close().unwrap();
    writer.close().unwrap();

    let out = dir.0.join("out");
    run(&parquet_options(vec![input], out.clone(), "k")).unwrap();
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    let (_, a) = &parquet_parts(&out.join("k=a"))[0];
    let s = a.column_by_name("s").unwrap().as_struct();
    assert_eq!(s.column(0).data_type(), &utc);
    let t = s.column(0).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(t.value(0), -62_135_596_800_000_000);
    let l = a.column_by_name("l").unwrap().as_list::<i32>();
    assert_eq!(l.values().data_type(), &utc);
    let elements = l.value(0);
    let elements = elements.as_primitive::<TimestampMicrosecondType>();
    assert_eq!(elements.values(), &[253_402_300_799_999_999, 1]);
    let (_, b) = &parquet_parts(&out.join("k=b"))[0];
    assert!(b.column_by_name("s").unwrap().is_null(0));
    assert!(b.column_by_name("l").unwrap().is_null(0));
}
