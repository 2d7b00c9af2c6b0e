//! Inputs from directories and globs, in their stated order, and NDJSON
//! inputs: per key, the records written are the JSON objects read
//! (checked against serde_json's own reading), with escapes, unicode,
//! nested values, missing and extra fields; bad lines name their file and
//! line, or are counted with `skip_invalid`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Map, Value};
use spool_partition::{run, ColumnRef, Options, PartitionError, SourceFormat};

use crate::support::{write, TempDir};

fn csv_options(inputs: Vec<PathBuf>, out: PathBuf, by: &str) -> Options {
    let mut options = Options::new(inputs, out, vec![ColumnRef(by.into())]);
    (options.delimiter, options.quote) = (b',', Some(b'"'));
    options.workers = 2;
    options
}

/// Every CSV file under `out` by key directory: its header, and its rows.
fn read_csv(out: &Path) -> BTreeMap<String, (Vec<String>, Vec<Vec<String>>)> {
    let mut groups = BTreeMap::new();
    for file in crate::support::all_files(out) {
        if file.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let key = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mut reader = csv::Reader::from_path(&file).unwrap();
        let header = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        let rows = (reader.records())
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        groups.insert(key, (header, rows));
    }
    groups
}

/// A JSON value as the CSV should hold it.
fn as_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

#[test]
fn directories_and_globs_are_read_in_path_order() {
    let dir = TempDir::new();
    fs::create_dir_all(dir.0.join("in/b")).unwrap();
    fs::create_dir_all(dir.0.join("in/a")).unwrap();
    write(&dir, "in/b/1.tsv", "k\t4\n");
    write(&dir, "in/a/2.tsv", "k\t3\n");
    write(&dir, "in/a/10.tsv", "k\t2\n");
    write(&dir, "in/a/_SUCCESS", "");
    write(&dir, "first.tsv", "k\t1\n");
    let read = |inputs: Vec<PathBuf>, name: &str| {
        let out = dir.0.join(name);
        let options = Options::new(inputs, out.clone(), vec![ColumnRef("1".into())]);
        let summary = run(&options).unwrap();
        assert_eq!(summary.groups.len(), 1);
        fs::read_to_string(out.join("col1=k/part-00000.tsv")).unwrap()
    };
    let whole = read(vec![dir.0.join("first.tsv"), dir.0.join("in")], "out1");
    assert_eq!(whole, "k\t1\nk\t2\nk\t3\nk\t4\n");
    let glob = read(
        vec![dir.0.join("in/*/*.tsv"), dir.0.join("first.tsv")],
        "out2",
    );
    assert_eq!(glob, "k\t2\nk\t3\nk\t4\nk\t1\n");
    let none = Options::new(
        vec![dir.0.join("in/*.csv")],
        dir.0.join("out3"),
        vec![ColumnRef("1".into())],
    );
    let err = run(&none).unwrap_err().to_string();
    assert!(err.contains("in/*.csv: no file matches"), "{err}");
}

#[test]
fn ndjson_fields_become_columns() {
    let dir = TempDir::new();
    let text = concat!(
        "{\"city\":\"Berlin\",\"n\":1,\"tags\":[\"a\",{\"b\":null}],\"note\":\"say \\\"hi\\\"\\n\"}\n",
        "\n",
        "{\"n\":2.5e1,\"city\":\"S\\u00e3o Paulo\",\"extra\":true}\r\n",
        "{\"city\":\"Berlin\",\"note\":\"tab\\there, comma\"}\n",
        "{\"city\":null,\"n\":-3}\n",
    );
    let input = write(&dir, "events.jsonl", text);
    let out = dir.0.join("out");
    let summary = run(&csv_options(vec![input], out.clone(), "city")).unwrap();
    assert_eq!((summary.records_in, summary.groups.len()), (4, 3));
    let groups = read_csv(&out);
    let header = ["city", "n", "tags", "note", "extra"]
        .map(String::from)
        .to_vec();
    let row = |values: [&str; 5]| values.map(String::from).to_vec();
    assert_eq!(
        groups["city=Berlin"],
        (
            header.clone(),
            vec![
                row(["Berlin", "1", "[\"a\",{\"b\":null}]", "say \"hi\"\n", ""]),
                row(["Berlin", "", "", "tab\there, comma", ""]),
            ]
        )
    );
    assert_eq!(
        groups["city=São Paulo"].1,
        [row(["São Paulo", "2.5e1", "", "", "true"])]
    );
    assert_eq!(
        groups["city=__HIVE_DEFAULT_PARTITION__"].1,
        [row(["", "-3", "", "", ""])]
    );
}

#[test]
fn a_bad_line_names_its_file_and_line_or_is_counted() {
    let dir = TempDir::new();
    let good = write(&dir, "a.ndjson", "{\"k\":\"x\",\"v\":1}\n");
    let bad = write(
        &dir,
        "b.ndjson",
        "{\"k\":\"y\"}\n\n{\"k\":\"y\",\"v\":2\n{\"k\":\"z\",\"w\":3}\n[1]\n",
    );
    let mut options = csv_options(vec![good, bad], dir.0.join("out"), "k");
    let err = run(&options).unwrap_err();
    let PartitionError::Input {
        file,
        line,
        offset,
        message,
    } = &err
    else {
        panic!("{err}");
    };
    assert!(file.ends_with("b.ndjson"), "{err}");
    assert_eq!((*line, *offset), (3, 11), "{err}");
    assert!(
        message.starts_with("not a JSON object: EOF while parsing"),
        "{err}"
    );
    assert!(!options.out.exists());
    options.skip_invalid = true;
    let summary = run(&options).unwrap();
    assert_eq!((summary.records_in, summary.skipped_invalid), (5, 3));
    let groups = read_csv(&options.out);
    assert_eq!(groups["k=y"].1, [["y".to_owned(), String::new()]]);
}

#[test]
fn tsv_refuses_a_value_it_cannot_hold() {
    let dir = TempDir::new();
    let input = write(&dir, "in.json", "{\"k\":\"a\",\"v\":\"two\\nlines\"}\n");
    let options = Options::new(vec![input], dir.0.join("out"), vec![ColumnRef("k".into())]);
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("in.json:1: byte offset 0: the value of \"v\" holds a tab or line break"),
        "{err}"
    );
}

#[test]
fn input_format_overrides_detection() {
    let dir = TempDir::new();
    let input = write(&dir, "data.txt", "{\"k\":\"a\"}\n");
    let mut options = Options::new(vec![input], dir.0.join("out"), vec![ColumnRef("k".into())]);
    let err = run(&options).unwrap_err().to_string();
    assert!(
        err.contains("\"k\" is not a number; names need --header"),
        "{err}"
    );
    options.source_format = Some(SourceFormat::Ndjson);
    let summary = run(&options).unwrap();
    assert_eq!(summary.groups.len(), 1);
    let mixed = write(&dir, "more.ndjson", "{\"k\":\"b\"}\n");
    options.inputs.push(mixed);
    options.source_format = None;
    let err = run(&options).unwrap_err().to_string();
    assert!(err.contains("more.ndjson holds ndjson"), "{err}");
}

/// A JSON object with a few of the fields `a`…`e` (`k` always), values of
/// every JSON kind.
pub fn object() -> impl Strategy<Value = Map<String, Value>> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z \"\\\\,\n\té😀\u{7f}]{0,8}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    let fields = prop::collection::vec(
        (prop::sample::select(vec!["a", "b", "c", "d", "e"]), value),
        0..5,
    );
    ("[xyz]{0,1}", fields).prop_map(|(k, fields)| {
        let mut object = Map::new();
        object.insert("k".into(), Value::String(k));
        for (name, value) in fields {
            object.insert(name.into(), value);
        }
        object
    })
}

/// `objects` as the lines of `in.ndjson` in `dir`; its path.
pub fn write_objects(dir: &TempDir, objects: &[Map<String, Value>]) -> PathBuf {
    let text: String = (objects.iter())
        .map(|o| format!("{}\n", Value::Object(o.clone())))
        .collect();
    write(dir, "in.ndjson", &text)
}

/// The columns of `objects` as lines: their fields in the order first
/// seen (every line is in the sample here).
pub fn first_seen_fields(objects: &[Map<String, Value>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in objects.iter().flat_map(Map::keys) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Per key, the rows written are the objects read, field by field, in
    /// input order.
    #[test]
    fn ndjson_to_csv_against_serde_json(objects in prop::collection::vec(object(), 1..40)) {
        let dir = TempDir::new();
        let input = write_objects(&dir, &objects);
        let out = dir.0.join("out");
        run(&csv_options(vec![input], out.clone(), "k")).unwrap();
        let groups = read_csv(&out);
        let names = first_seen_fields(&objects);
        let mut expected: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for o in &objects {
            let key = as_text(o.get("k"));
            let dir = if key.is_empty() { "k=__HIVE_DEFAULT_PARTITION__".to_owned() } else { format!("k={key}") };
            let row = names.iter().map(|n| as_text(o.get(n))).collect();
            expected.entry(dir).or_default().push(row);
        }
        prop_assert_eq!(groups.len(), expected.len());
        for (dir, rows) in expected {
            let (header, got) = &groups[&dir];
            prop_assert_eq!(header, &names);
            prop_assert_eq!(got, &rows);
        }
    }
}

#[test]
fn ndjson_without_the_by_field_is_a_usage_error() {
    let dir = TempDir::new();
    for text in ["{}\n", "{}\n{}\n", "{\"v\":1}\n", "[1]\n"] {
        let input = write(&dir, "in.ndjson", text);
        for skip_invalid in [false, true] {
            let mut options = csv_options(vec![input.clone()], dir.0.join("out"), "k");
            (options.workers, options.skip_invalid) = (1, skip_invalid);
            let err = run(&options).unwrap_err();
            assert!(matches!(err, PartitionError::Usage(_)), "{text:?}: {err}");
            assert!(!options.out.exists());
        }
    }
    // An input of blank lines leaves the columns to the next one.
    let blank = write(&dir, "a.ndjson", "\n \n");
    let data = write(&dir, "b.ndjson", "{\"k\":\"x\"}\n");
    let options = csv_options(vec![blank, data], dir.0.join("out"), "k");
    assert_eq!(run(&options).unwrap().records_in, 1);
}
