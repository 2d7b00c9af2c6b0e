//! `run` against a model: for every key, the concatenated output of its
//! file is exactly the input records with that key, in input order; and
//! what a run does with headers, groupings, filters, hostile or long keys
//! and records longer than a chunk.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use spool_io::write::Compression;
use spool_partition::{escape, run, BufferSizes, ColumnRef, DatasetLayout, Filter, Options};

use crate::support::{all_files, write, TempDir};

fn decode(path: &Path, compression: Compression) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match compression {
        Compression::None => raw,
        Compression::Zstd(_) => zstd::decode_all(&raw[..]).unwrap(),
        Compression::Gzip(_) => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&raw[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        }
    }
}

/// Every file under `dir` but hidden ones and the manifest, sorted.
fn visible_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = all_files(dir)
        .into_iter()
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            !name.starts_with('.') && name != "_partitions.tsv"
        })
        .collect();
    out.sort();
    out
}

fn key_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-d]{0,2}".prop_map(String::into_bytes),
        1 => Just(b"..".to_vec()),
        1 => Just(b"a/b".to_vec()),
        1 => proptest::collection::vec(any::<u8>().prop_filter("no delimiters", |b| *b != b'\t' && *b != b'\n'), 0..6),
    ]
}

fn record_strategy() -> impl Strategy<Value = (Vec<u8>, String, bool)> {
    (key_strategy(), "[x-z ]{0,12}", any::<bool>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn groups_concatenate_back_to_their_records(
        files in proptest::collection::vec(proptest::collection::vec(record_strategy(), 0..60), 1..4),
        last_newline in any::<bool>(),
        chunk_len in 8usize..200,
        min_chunk_len in 1usize..64,
        chunks in 1usize..6,
        max_open in 1usize..5,
        workers in 1usize..4,
        buffer_len in 1usize..64,
        compression in prop_oneof![Just(Compression::None), Just(Compression::Zstd(1)), Just(Compression::Gzip(1))],
    ) {
        let dir = TempDir::new();
        let mut inputs = Vec::new();
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for (i, records) in files.iter().enumerate() {
            let mut text = Vec::new();
            for (j, (key, rest, crlf)) in records.iter().enumerate() {
                let mut line = key.clone();
                line.push(b'\t');
                line.extend_from_slice(rest.as_bytes());
                let is_last = j + 1 == records.len();
                let mut raw = line.clone();
                if *crlf { raw.push(b'\r'); }
                let mut written = raw.clone();
                written.push(b'\n');
                raw.push(b'\n');
                if is_last && !last_newline {
                    raw.pop();
                }
                text.extend_from_slice(&raw);
                model.entry(key.clone()).or_default().extend_from_slice(&written);
            }
            let path = dir.0.join(format!("in{i}.tsv"));
            std::fs::write(&path, &text).unwrap();
            inputs.push(path);
        }
        let out = dir.0.join("out");
        let mut options = Options::new(inputs, out.clone(), vec![ColumnRef("1".into())]);
        options.buffer_sizes = Some(BufferSizes {
            min_chunk: min_chunk_len,
            max_chunk: chunk_len,
            budget: chunk_len * chunks,
        });
        options.max_open = max_open;
        options.workers = workers;
        options.read.buffer_len = buffer_len;
        options.read.buffers = 2;
        options.compression = compression;
        let summary = run(&options).unwrap();
        prop_assert_eq!(summary.groups.len(), model.len());
        for group in &summary.groups {
            prop_assert!(group.path.starts_with(&out));
            let got = decode(&group.path, compression);
            prop_assert_eq!(&got, &model[&group.key], "key {:?}", group.key);
            let name = group.path.parent().unwrap().file_name().unwrap().to_str().unwrap();
            prop_assert_eq!(name, format!("col1={}", escape::escape(&group.key)));
        }
        prop_assert_eq!(visible_files(&out).len(), model.len());
        prop_assert!(all_files(&out).iter().all(|p| !p.to_string_lossy().ends_with(".partial")));
    }
}

#[test]
fn header_is_repeated_in_every_file_and_named_columns_work() {
    let dir = TempDir::new();
    let a = write(&dir, "a.csv", "city,country\r\nBerlin,de\r\nParis,fr\r\n");
    let b = write(&dir, "b.csv", "city,country\nBonn,de\n");
    let mut options = Options::new(
        vec![a, b],
        dir.0.join("out"),
        vec![ColumnRef("country".into())],
    );
    options.header = true;
    options.delimiter = b',';
    let summary = run(&options).unwrap();
    assert_eq!(summary.records_in, 3);
    let de = std::fs::read_to_string(dir.0.join("out/country=de/part-00000.csv")).unwrap();
    // The header as the first input has it (CRLF), then each record as read.
    assert_eq!(de, "city,country\r\nBerlin,de\r\nBonn,de\n");
}

#[test]
fn several_groupings_and_filters_in_one_pass() {
    let dir = TempDir::new();
    let a = write(&dir, "a.tsv", "de\t2020\tok\nfr\t2021\tbad\nde\t2021\tok\n");
    let mut options = Options::new(
        vec![a],
        dir.0.join("out"),
        vec![ColumnRef("1".into()), ColumnRef("2".into())],
    );
    options.filters = vec![Filter::parse("3~^ok$").unwrap()];
    options.layout = DatasetLayout::Hive;
    let summary = run(&options).unwrap();
    assert_eq!(summary.filtered, 1);
    let read = |p: &str| std::fs::read_to_string(dir.0.join("out").join(p)).unwrap();
    assert_eq!(
        read("by-col1/col1=de/part-00000.tsv"),
        "de\t2020\tok\nde\t2021\tok\n"
    );
    assert_eq!(read("by-col2/col2=2021/part-00000.tsv"), "de\t2021\tok\n");
    assert!(!dir.0.join("out/by-col1/col1=fr").exists());
    let manifest = read("_partitions.tsv");
    assert!(
        manifest.contains("col1\tde\tby-col1/col1=de/part-00000.tsv\t2\n"),
        "{manifest}"
    );
}

#[test]
fn hostile_keys_stay_inside_the_output_directory() {
    let dir = TempDir::new();
    let keys = [
        "..",
        "../..",
        "/etc/passwd",
        ".",
        "",
        "a/../../b",
        "\u{1}",
        "~x",
        &"k".repeat(500),
    ];
    let text: String = keys.iter().map(|k| format!("{k}\tv\n")).collect();
    let a = write(&dir, "a.tsv", &text);
    let out = dir.0.join("out");
    for layout in [DatasetLayout::Hive, DatasetLayout::Flat] {
        let _ = std::fs::remove_dir_all(&out);
        let mut options = Options::new(vec![a.clone()], out.clone(), vec![ColumnRef("1".into())]);
        options.layout = layout;
        let summary = run(&options).unwrap();
        assert_eq!(summary.groups.len(), keys.len());
        assert_eq!(visible_files(&out).len(), keys.len());
        // Nothing was written beside the output directory but its lock.
        let mut beside: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        beside.sort();
        assert_eq!(beside, [".out.spool-lock", "a.tsv", "out"], "{beside:?}");
        for g in &summary.groups {
            assert_eq!(
                std::fs::read(&g.path).unwrap(),
                [&g.key[..], b"\tv\n"].concat()
            );
        }
    }
}

#[test]
fn many_keys_with_one_open_file_and_a_tiny_budget() {
    let dir = TempDir::new();
    let text: String = (0..5000).map(|i| format!("{}\t{i}\n", i % 700)).collect();
    let a = write(&dir, "a.tsv", &text);
    let mut options = Options::new(vec![a], dir.0.join("out"), vec![ColumnRef("1".into())]);
    options.max_open = 1;
    options.workers = 2;
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 8,
        max_chunk: 64,
        budget: 64 * 8,
    });
    options.compression = Compression::Zstd(1);
    let summary = run(&options).unwrap();
    assert_eq!(summary.groups.len(), 700);
    assert!(summary.reopened > 0 && summary.early_flushes > 0);
    for g in &summary.groups {
        let got = decode(&g.path, options.compression);
        let key = std::str::from_utf8(&g.key).unwrap();
        let want: String = (0..5000)
            .filter(|i| (i % 700).to_string() == key)
            .map(|i| format!("{key}\t{i}\n"))
            .collect();
        assert_eq!(String::from_utf8(got).unwrap(), want);
    }
}

#[test]
fn a_skipped_record_makes_no_group_in_any_grouping() {
    let dir = TempDir::new();
    // "lonely" has no column 2: with --by 1 --by 2 and --skip-invalid it is
    // skipped, and must not leave a group (or a manifest line) for col1.
    let a = write(&dir, "a.tsv", "x\t1\nlonely\nx\t2\n");
    let out = dir.0.join("out");
    let mut options = Options::new(
        vec![a],
        out.clone(),
        vec![ColumnRef("1".into()), ColumnRef("2".into())],
    );
    options.skip_invalid = true;
    let summary = run(&options).unwrap();
    assert_eq!(summary.skipped_invalid, 1);
    let keys: Vec<&[u8]> = summary.groups.iter().map(|g| &g.key[..]).collect();
    assert_eq!(keys, [&b"x"[..], b"1", b"2"]);
    for g in &summary.groups {
        assert!(
            g.path.is_file(),
            "{} is listed but missing",
            g.path.display()
        );
    }
    let manifest = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    assert!(!manifest.contains("lonely"), "{manifest}");
}

#[test]
fn a_long_column_name_and_a_long_key_still_make_a_valid_file_name() {
    let dir = TempDir::new();
    let column = "c".repeat(120);
    let key = "k".repeat(300);
    let a = write(&dir, "a.tsv", &format!("{column}\tv\n{key}\t1\nshort\t2\n"));
    let out = dir.0.join("out");
    let mut options = Options::new(vec![a], out.clone(), vec![ColumnRef(column.clone())]);
    options.header = true;
    let summary = run(&options).unwrap();
    for g in &summary.groups {
        let dir_name = g.path.parent().unwrap().file_name().unwrap();
        assert!(dir_name.len() <= 255, "{}", dir_name.len());
        assert!(g.path.starts_with(&out));
        let text = std::fs::read_to_string(&g.path).unwrap();
        assert!(text.starts_with(&format!("{column}\tv\n")));
    }
    // The short key keeps its plain name; with a short column name a
    // long key is shortened as `escape` says.
    assert!(out.join(format!("{column}=short/part-00000.tsv")).is_file());
    let b = write(&dir, "b.tsv", &format!("{key}\t1\n"));
    let out = dir.0.join("out-b");
    run(&Options::new(
        vec![b],
        out.clone(),
        vec![ColumnRef("1".into())],
    ))
    .unwrap();
    let name = format!("col1={}", escape::escape(key.as_bytes()));
    assert!(out.join(name).is_dir());
}

#[test]
fn records_longer_than_a_chunk_go_out_in_chunk_sized_blocks() {
    let dir = TempDir::new();
    let long = "x".repeat(5000);
    let header = format!("key\t{}", "h".repeat(300));
    let text = format!("{header}\na\t1\na\t{long}\nb\t{long}\na\t3\n");
    let a = write(&dir, "a.tsv", &text);
    let mut options = Options::new(vec![a], dir.0.join("out"), vec![ColumnRef("key".into())]);
    options.header = true;
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 16,
        max_chunk: 256,
        budget: 256 * 4,
    });
    options.compression = Compression::Zstd(1);
    let summary = run(&options).unwrap();
    for g in &summary.groups {
        let key = std::str::from_utf8(&g.key).unwrap();
        let want: String = std::iter::once(format!("{header}\n"))
            .chain(
                text.lines()
                    .skip(1)
                    .filter(|l| l.starts_with(&format!("{key}\t")))
                    .map(|l| format!("{l}\n")),
            )
            .collect();
        let raw = std::fs::read(&g.path).unwrap();
        assert_eq!(
            String::from_utf8(decode(&g.path, options.compression)).unwrap(),
            want
        );
        // Every block (zstd frame) holds at most one chunk: a long record
        // was not copied whole outside the pool.
        let mut rest = &raw[..];
        while !rest.is_empty() {
            let len = zstd::zstd_safe::find_frame_compressed_size(rest).unwrap();
            let content = zstd::zstd_safe::get_frame_content_size(&rest[..len]).unwrap();
            assert!(content.is_some_and(|n| n <= 256), "{key}: {content:?}");
            rest = &rest[len..];
        }
    }
}

#[test]
fn records_need_not_be_utf8_but_the_header_must_be() {
    let dir = TempDir::new();
    let a = dir.0.join("a.tsv");
    std::fs::write(&a, b"k\tv\n\xff\xfe\t1\nok\t\xc3\x28\n").unwrap();
    let mut options = Options::new(
        vec![a.clone()],
        dir.0.join("out"),
        vec![ColumnRef("k".into())],
    );
    options.header = true;
    options.filters = vec![Filter::parse("v~.").unwrap()];
    let summary = run(&options).unwrap();
    assert_eq!((summary.groups.len(), summary.filtered), (2, 0));
    let b = dir.0.join("b.tsv");
    std::fs::write(&b, b"k\t\xff\n1\t2\n").unwrap();
    let mut options = Options::new(
        vec![b.clone()],
        dir.0.join("out-b"),
        vec![ColumnRef("k".into())],
    );
    options.header = true;
    options.skip_invalid = true;
    let msg = run(&options).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "{}:1: byte offset 0: header is not valid UTF-8",
            b.display()
        )),
        "{msg}"
    );
}

#[test]
fn compression_suffix_in_names() {
    let dir = TempDir::new();
    let input = write(&dir, "in.csv", "a,1\nb,2\n");
    let mut options = Options::new(vec![input], dir.0.join("out"), vec![ColumnRef("1".into())]);
    options.delimiter = b',';
    options.compression = Compression::Zstd(3);
    options.layout = DatasetLayout::Flat;
    run(&options).unwrap();
    let got = decode(&dir.0.join("out/a.csv.zst"), options.compression);
    assert_eq!(got, b"a,1\n");
}
