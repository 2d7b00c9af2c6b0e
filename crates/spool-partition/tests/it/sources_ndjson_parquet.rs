//! NDJSON into Parquet, read as typed batches (never as text): per key,
//! the rows written are the objects read (checked against serde_json's
//! own reading) — strings as they were (an empty one too), numbers and
//! booleans in a string column as written, nested values as their JSON
//! text, `null` and missing fields as NULL — in input order across blocks
//! decoded on several threads; `--schema` columns parsed as CSV fields of
//! that type are; bad lines name their file, line and byte offset, or are
//! counted with `skip_invalid`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use proptest::prelude::*;
use serde_json::{Map, Value};
use spool_partition::parquet::{ParquetOptions, SchemaSpec};
use spool_partition::{run, ColumnRef, Options, OutputFormat, PartitionError};

use crate::sources::{first_seen_fields, object, write_objects};
use crate::support::{parquet_parts, write, TempDir};

fn parquet_options(inputs: Vec<PathBuf>, out: PathBuf, by: &str, schema: &str) -> Options {
    let mut options = Options::new(inputs, out, vec![ColumnRef(by.into())]);
    options.workers = 2;
    options.format = OutputFormat::Parquet(ParquetOptions {
        schema: SchemaSpec::parse(schema).unwrap(),
        ..ParquetOptions::default()
    });
    options
}

/// A row: each value as Arrow displays it, `None` for NULL.
type Row = Vec<Option<String>>;

/// A key's files: their column names and types, and their rows.
type Group = (Vec<(String, DataType)>, Vec<Row>);

/// Every part under `out` by key (as its directory names it), in part
/// order.
fn read_back(out: &Path) -> BTreeMap<String, Group> {
    let mut groups = BTreeMap::new();
    for (key, batch) in parquet_parts(out) {
        let columns = (batch.schema().fields().iter())
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let entry = groups.entry(key).or_insert((columns, Vec::new()));
        entry.1.extend(rows(&batch));
    }
    groups
}

fn rows(batch: &RecordBatch) -> Vec<Row> {
    let options = FormatOptions::new();
    let columns: Vec<_> = (batch.columns().iter())
        .map(|c| (c, ArrayFormatter::try_new(c.as_ref(), &options).unwrap()))
        .collect();
    (0..batch.num_rows())
        .map(|row| {
            (columns.iter())
                .map(|(c, f)| (!c.is_null(row)).then(|| f.value(row).to_string()))
                .collect()
        })
        .collect()
}

/// A JSON value as a string column holds it.
fn as_string(value: Option<&Value>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

/// The key directory of an object's `k`.
fn key_dir(object: &Map<String, Value>) -> String {
    match as_string(object.get("k")) {
        Some(k) if !k.is_empty() => k,
        _ => "__HIVE_DEFAULT_PARTITION__".to_owned(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Per key, the rows written are the objects read, field by field, in
    /// input order, every column a string.
    #[test]
    fn ndjson_to_parquet_against_serde_json(objects in prop::collection::vec(object(), 1..40)) {
        let dir = TempDir::new();
        let input = write_objects(&dir, &objects);
        let out = dir.0.join("out");
        let ran = run(&parquet_options(vec![input], out.clone(), "k", ""));
        let mut names = first_seen_fields(&objects);
        names.retain(|n| n != "k");
        if names.is_empty() {
            // Only the key: no column to write, refused as for CSV input.
            let e = ran.unwrap_err().to_string();
            prop_assert!(e.contains("needs a column besides the --by column"), "{}", e);
            return Ok(());
        }
        ran.unwrap();
        let mut expected: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for o in &objects {
            let row = names.iter().map(|n| as_string(o.get(n))).collect();
            expected.entry(key_dir(o)).or_default().push(row);
        }
        let groups = read_back(&out);
        prop_assert_eq!(groups.len(), expected.len());
        for (key, rows) in expected {
            let (columns, got) = &groups[&key];
            let want: Vec<(String, DataType)> = names.iter().map(|n| (n.clone(), DataType::Utf8)).collect();
            prop_assert_eq!(columns, &want);
            prop_assert_eq!(got, &rows);
        }
    }
}

#[test]
fn schema_columns_are_parsed_as_csv_fields_of_their_type() {
    let dir = TempDir::new();
    let text = concat!(
        "{\"k\":\"a\",\"i\":1,\"f\":2.5,\"b\":true,\"d\":\"2024-02-29\",\"t\":\"2024-02-29T10:11:12.5\"}\n",
        "{\"k\":\"a\",\"i\":\"-7\",\"f\":\"1e3\",\"b\":\"f\",\"d\":null,\"t\":\"2024-02-29 10:11\"}\n",
        "{\"k\":\"a\",\"i\":null,\"f\":-0.25,\"b\":0,\"d\":\"\",\"s\":\"\"}\n",
    );
    let input = write(&dir, "in.ndjson", text);
    let out = dir.0.join("out");
    let options = parquet_options(
        vec![input],
        out.clone(),
        "k",
        "i:int64,f:float64,b:bool,d:date,t:timestamp",
    );
    assert_eq!(run(&options).unwrap().records_in, 3);
    let groups = read_back(&out);
    let (columns, rows) = &groups["a"];
    let types: Vec<&DataType> = columns.iter().map(|(_, t)| t).collect();
    assert_eq!(
        types,
        [
            &DataType::Int64,
            &DataType::Float64,
            &DataType::Boolean,
            &DataType::Date32,
            &DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None),
            &DataType::Utf8,
        ]
    );
    let row = |values: [Option<&str>; 6]| values.map(|v| v.map(str::to_owned)).to_vec();
    assert_eq!(
        rows,
        &[
            row([
                Some("1"),
                Some("2.5"),
                Some("true"),
                Some("2024-02-29"),
                Some("2024-02-29T10:11:12.500"),
                None
            ]),
            row([
                Some("-7"),
                Some("1000.0"),
                Some("false"),
                None,
                Some("2024-02-29T10:11:00"),
                None
            ]),
            // An empty string is NULL in a typed column, itself in a string one.
            row([None, Some("-0.25"), Some("false"), None, None, Some("")]),
        ]
    );
}

#[test]
fn a_bad_line_names_its_file_and_line_or_is_counted() {
    let dir = TempDir::new();
    let good = write(&dir, "a.ndjson", "{\"k\":\"x\",\"v\":1}\n");
    // Past the first block, so that its line number counts the blocks before.
    let mut text = String::new();
    let mut lines = 0;
    while text.len() < 3 << 20 {
        lines += 1;
        text.push_str(&format!("{{\"k\":\"y\",\"v\":{lines}}}\n"));
    }
    let offset = text.len() as u64;
    text.push_str("{\"k\":\"y\",\"v\":\"two\"}\n{\"k\":\"z\",\"w\":3}\n[1]\n{\"k\":\"y\"\n{\"k\":\"y\",\"v\":{\"n\":1}}\n");
    let bad = write(&dir, "b.ndjson", &text);
    let mut options = parquet_options(vec![good, bad], dir.0.join("out"), "k", "v:int64");
    let err = run(&options).unwrap_err();
    let PartitionError::Input {
        file,
        line,
        offset: at,
        message,
    } = &err
    else {
        panic!("{err}");
    };
    assert!(file.ends_with("b.ndjson"), "{err}");
    assert_eq!((*line, *at), (lines + 1, offset), "{err}");
    assert_eq!(
        message,
        "field \"v\": \"two\" is not a valid int64 value (use --skip-invalid to skip such lines)"
    );
    assert!(!options.out.exists());
    options.skip_invalid = true;
    let summary = run(&options).unwrap();
    assert_eq!(
        (summary.records_in, summary.skipped_invalid),
        (1 + lines + 5, 5)
    );
    let groups = read_back(&options.out);
    assert_eq!(groups["y"].1.len() as u64, lines);
    assert_eq!(groups["y"].1[41], [Some("42".to_owned())]);
    // Each kind of bad line, after the lines that name the columns, says why.
    let first = "{\"k\":\"x\",\"v\":1}\n".repeat(1000);
    for (bad, why) in [
        (
            "{\"k\":\"z\",\"w\":3}",
            "field \"w\" is not one of the columns (k, v)",
        ),
        ("[1]", "not a JSON object: invalid type: sequence"),
        (
            "{\"k\":\"y\"} {\"k\":\"y\"}",
            "not a JSON object: trailing characters",
        ),
        ("{\"k\":", "not a JSON object: EOF while parsing a value"),
        (
            "{\"k\":\"y\"",
            "not a JSON object: EOF while parsing an object",
        ),
        (
            "{\"k\":\"y\",\"v\":{\"n\":1}}",
            "field \"v\": \"{\\\"n\\\":1}\" is not a valid int64 value",
        ),
    ] {
        let input = write(&dir, "c.ndjson", &format!("{first}{bad}\n"));
        let options = parquet_options(vec![input], dir.0.join("out2"), "k", "v:int64");
        let err = run(&options).unwrap_err().to_string();
        assert!(err.contains("c.ndjson:1001: byte offset 16000: "), "{err}");
        assert!(err.contains(why), "{bad}: {err}");
    }
}

/// Many blocks, decoded on two threads, come out in input order; a
/// nested value on every line takes the slower way through every block.
#[test]
fn blocks_keep_input_order_and_nested_values() {
    let dir = TempDir::new();
    let mut inputs = Vec::new();
    let mut n = 0u64;
    for file in 0..3 {
        let mut text = String::new();
        while text.len() < 2 << 20 {
            text.push_str(&format!(
                "{{\"k\":\"{}\",\"n\":{n},\"o\":{{\"a\":[{n}, \"x\"]}}}}\n",
                n % 3
            ));
            n += 1;
        }
        inputs.push(write(&dir, &format!("{file}.ndjson"), &text));
    }
    let out = dir.0.join("out");
    let summary = run(&parquet_options(inputs, out.clone(), "k", "n:int64")).unwrap();
    assert_eq!(summary.records_in, n);
    let groups = read_back(&out);
    for (key, (_, rows)) in &groups {
        let want: Vec<Row> = (0..n)
            .filter(|i| (i % 3).to_string() == *key)
            .map(|i| vec![Some(i.to_string()), Some(format!("{{\"a\":[{i}, \"x\"]}}"))])
            .collect();
        assert!(rows == &want, "key {key}: rows out of order or changed");
    }
}

#[test]
fn hive_keys_of_ndjson_inputs_become_columns() {
    let dir = TempDir::new();
    fs::create_dir_all(dir.0.join("in/day=1")).unwrap();
    fs::create_dir_all(dir.0.join("in/day=2")).unwrap();
    write(&dir, "in/day=1/a.ndjson", "{\"k\":\"x\",\"v\":\"p\"}\n");
    write(&dir, "in/day=2/a.ndjson", "{\"k\":\"x\",\"v\":\"q\"}\n");
    let out = dir.0.join("out");
    run(&parquet_options(
        vec![dir.0.join("in")],
        out.clone(),
        "k",
        "",
    ))
    .unwrap();
    let groups = read_back(&out);
    let (columns, rows) = &groups["x"];
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["v", "day"]);
    let row = |v: &str, day: &str| vec![Some(v.to_owned()), Some(day.to_owned())];
    assert_eq!(rows, &[row("p", "1"), row("q", "2")]);
    // `--schema` types a key as it does a field.
    fs::remove_dir_all(&out).unwrap();
    run(&parquet_options(
        vec![dir.0.join("in")],
        out.clone(),
        "k",
        "day:int64,v:string",
    ))
    .unwrap();
    let (columns, rows) = &read_back(&out)["x"];
    assert_eq!(columns[1], ("day".to_owned(), DataType::Int64));
    assert_eq!(rows, &[row("p", "1"), row("q", "2")]);
}

#[test]
fn inputs_without_a_json_object_name_no_columns() {
    let dir = TempDir::new();
    let blank = write(&dir, "a.ndjson", "\n \n");
    let options = parquet_options(vec![blank.clone()], dir.0.join("out"), "k", "");
    let err = run(&options).unwrap_err();
    assert!(matches!(err, PartitionError::Usage(_)), "{err}");
    assert!(err.to_string().contains("names the columns"), "{err}");
    // Lines but no object among them name no columns either, as with text.
    let arrays = write(&dir, "c.ndjson", "[1]\n[2]\n");
    let options = parquet_options(vec![arrays], dir.0.join("out"), "k", "");
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("c.ndjson: no line among its first 1000"),
        "{err}"
    );
    // An input of blank lines leaves the columns to the next one.
    let data = write(&dir, "b.ndjson", "{\"k\":\"x\",\"v\":1}\n");
    let options = parquet_options(vec![blank, data], dir.0.join("out"), "k", "v:int64");
    assert_eq!(run(&options).unwrap().records_in, 1);
    let options = parquet_options(
        vec![dir.0.join("b.ndjson")],
        dir.0.join("out2"),
        "k",
        "w:int64",
    );
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("--schema names \"w\", which is not a column"),
        "{err}"
    );
}
