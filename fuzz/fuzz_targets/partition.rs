//! The whole partition path against a model: inputs (split anywhere, with
//! or without a header, plain or compressed output, Hive or flat layout,
//! one or two `--by` columns, an optional `--where`) go through
//! `partition::run` into a temporary directory, and
//!
//! * the run fails exactly when the model finds a record with too few
//!   fields (without `--skip-invalid`) or inputs whose headers differ, and
//!   a failed run leaves nothing under the output's name;
//! * a successful run writes one file per (column, key), each decoding to
//!   that key's records in input order (the header on top), and nothing
//!   else but the manifest, which lists every file with its record count;
//! * no staging directory is left beside the output.
//!
//! The data is cut after [`MAX_LINES`] lines: every key is a file (an
//! encoder, a create, a close, a rename with the staging directory), so
//! a run costs about a file per line, while keys that need escaping or
//! shortening, more keys than open files, and inputs cut mid-record all
//! show up within a few dozen lines.
#![no_main]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use regex::bytes::Regex;
use spool_io::input::{detect, Detected};
use spool_io::write::Compression;
use spool_partition::{run, BufferSizes, ColumnRef, DatasetLayout, Filter, Options, SourceFormat};

const PATTERNS: [&str; 4] = ["^a", "b", "^$", "[0-9]"];

/// Lines of data per run (see the module doc).
const MAX_LINES: usize = 32;

#[derive(Arbitrary, Debug)]
struct Input {
    data: Vec<u8>,
    /// Where `data` is cut into inputs (at most three).
    cuts: Vec<u16>,
    comma: bool,
    by: u8,
    two: bool,
    filter: Option<(u8, u8, bool)>,
    header: bool,
    header_differs: bool,
    codec: u8,
    flat: bool,
    skip_invalid: bool,
    buffer_len: u8,
}

/// A scratch directory per process, emptied before every run.
fn scratch() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    base.join(format!("spool-fuzz-partition-{}", std::process::id()))
}

fn decode(codec: Compression, bytes: Vec<u8>) -> Vec<u8> {
    match codec {
        Compression::None => bytes,
        Compression::Zstd(_) => zstd::decode_all(&bytes[..]).unwrap(),
        Compression::Gzip(_) => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        }
    }
}

/// Where the `n`th newline of `data` is (1-based), if it has that many.
fn nth_newline(data: &[u8], n: usize) -> Option<usize> {
    data.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n - 1)
        .map(|(i, _)| i)
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, root, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
}

fuzz_target!(|input: Input| {
    let mut input = input;
    if let Some(end) = nth_newline(&input.data, MAX_LINES) {
        input.data.truncate(end + 1);
    }
    let dir = scratch();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let delimiter = if input.comma { b',' } else { b'\t' };
    let d = delimiter as char;

    // Inputs: `data` cut at up to two points, each with its header.
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .take(2)
        .map(|&c| usize::from(c) % (input.data.len() + 1))
        .collect();
    cuts.sort();
    let mut parts = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([input.data.len()]) {
        parts.push(&input.data[start..cut]);
        start = cut;
    }
    let header = format!("h1{d}h2{d}h3\n");
    let mut paths = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let mut bytes = Vec::new();
        if input.header {
            if i == 1 && input.header_differs {
                bytes.extend_from_slice(format!("h1{d}other{d}h3\n").as_bytes());
            } else {
                bytes.extend_from_slice(header.as_bytes());
            }
        }
        bytes.extend_from_slice(part);
        // A file that starts as gzip or zstd does is read decompressed,
        // whatever its name: the model is of plain text (the decoders have
        // targets of their own).
        if detect(&bytes[..bytes.len().min(4)]) != Detected::Plain {
            return;
        }
        let path = dir.join(format!("in{i}"));
        std::fs::write(&path, &bytes).unwrap();
        paths.push(path);
    }

    // Columns: one or two different ones, by number or header name.
    let first = usize::from(input.by % 3);
    let mut columns = vec![first];
    if input.two {
        columns.push((first + 1 + usize::from(input.by / 3 % 2)) % 3);
    }
    let name = |c: usize| {
        if input.header && input.by & 0x80 != 0 {
            format!("h{}", c + 1)
        } else {
            (c + 1).to_string()
        }
    };
    let out = dir.join("out");
    let mut options = Options::new(
        paths.clone(),
        out.clone(),
        columns.iter().map(|&c| ColumnRef(name(c))).collect(),
    );
    options.delimiter = delimiter;
    // Delimited text whatever the bytes say (`--input-format text`): a
    // first `{` would otherwise make an input NDJSON, and `PAR1` Parquet.
    options.source_format = Some(SourceFormat::Text);
    options.header = input.header;
    options.layout = if input.flat {
        DatasetLayout::Flat
    } else {
        DatasetLayout::Hive
    };
    options.skip_invalid = input.skip_invalid;
    options.compression = match input.codec % 3 {
        0 => Compression::None,
        1 => Compression::Zstd(1),
        _ => Compression::Gzip(1),
    };
    options.workers = 1;
    options.max_open = 2;
    options.parallel_inputs = 1;
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 512,
        max_chunk: 1024,
        budget: 8 << 10,
    });
    options.read.buffer_len = 64 + usize::from(input.buffer_len) * 8;
    let filter = input.filter.map(|(c, p, negate)| {
        let pattern = PATTERNS[usize::from(p) % PATTERNS.len()];
        (usize::from(c % 3), Regex::new(pattern).unwrap(), negate)
    });
    if let Some((c, regex, negate)) = &filter {
        options.filters.push(Filter {
            column: ColumnRef(name(*c)),
            regex: regex.clone(),
            negate: *negate,
        });
    }

    // The model: each (grouping, key)'s records in order.
    let mut want: BTreeMap<(usize, Vec<u8>), Vec<u8>> = BTreeMap::new();
    let mut fails = input.header && input.header_differs && parts.len() > 1;
    for part in &parts {
        for raw in part.split_inclusive(|&b| b == b'\n') {
            // The `\r` of a CRLF line ending is not part of the key (a
            // last line without `\n` keeps its `\r`).
            let body = match raw.strip_suffix(b"\n") {
                Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
                None => raw,
            };
            let field = |c: usize| body.split(|&b| b == delimiter).nth(c);
            if let Some((c, regex, negate)) = &filter {
                match field(*c) {
                    None => {
                        fails |= !input.skip_invalid;
                        continue;
                    }
                    Some(v) if regex.is_match(v) == *negate => continue,
                    Some(_) => {}
                }
            }
            let Some(keys) = columns
                .iter()
                .map(|&c| field(c))
                .collect::<Option<Vec<_>>>()
            else {
                fails |= !input.skip_invalid;
                continue;
            };
            for (g, key) in keys.into_iter().enumerate() {
                let text = want.entry((g, key.to_vec())).or_default();
                text.extend_from_slice(raw);
                if !raw.ends_with(b"\n") {
                    text.push(b'\n');
                }
            }
        }
    }

    let result = run(&options);
    let beside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("spool-staging") || n.contains("spool-old"))
        .collect();
    assert!(beside.is_empty(), "left beside the output: {beside:?}");
    let summary = match result {
        Err(e) => {
            assert!(fails, "the model expected success: {e}");
            assert!(!out.exists(), "a failed run left {}", out.display());
            return;
        }
        Ok(summary) => {
            assert!(!fails, "the model expected a failure");
            summary
        }
    };
    assert_eq!(summary.groups.len(), want.len());
    let mut listed = vec![PathBuf::from("_partitions.tsv")];
    for g in &summary.groups {
        let grouping = columns
            .iter()
            .position(|&c| {
                g.column
                    == if input.header {
                        format!("h{}", c + 1)
                    } else {
                        format!("col{}", c + 1)
                    }
            })
            .expect("a known column");
        let mut expected = Vec::new();
        if input.header {
            expected.extend_from_slice(header.as_bytes());
        }
        expected.extend_from_slice(&want[&(grouping, g.key.clone())]);
        let got = decode(options.compression, std::fs::read(&g.path).unwrap());
        assert_eq!(got, expected, "{}", g.path.display());
        let records = want[&(grouping, g.key.clone())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        assert_eq!(g.records, records as u64);
        listed.push(g.path.strip_prefix(&out).unwrap().to_path_buf());
    }
    let mut found = Vec::new();
    files(&out, &out, &mut found);
    found.sort();
    listed.sort();
    assert_eq!(
        found, listed,
        "files other than the groups' and the manifest"
    );
    let manifest = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    assert_eq!(manifest.lines().count(), summary.groups.len() + 1);
});
