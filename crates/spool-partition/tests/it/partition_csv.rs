//! `partition::run` on RFC 4180 CSV against the `csv` crate: random
//! quoting (quoted keys, embedded delimiters, quotes, CR and LF), CRLF or
//! LF, a byte order mark or not, with and without a header, read in random
//! block sizes. For every key the `csv` crate finds, that key's file holds
//! exactly the records the `csv` crate gives it, in input order, each
//! written byte for byte as it was read.

use std::collections::BTreeMap;

use proptest::prelude::*;
use spool_partition::{run, ColumnRef, Options, PartitionError};

use crate::support::TempDir;

/// The oracle: each record's field values and its raw bytes (from its
/// start to the next record's start; inputs here have no blank lines),
/// as the `csv` crate reads them.
fn oracle(input: &[u8], bom: usize) -> Vec<(Vec<Vec<u8>>, Vec<u8>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut starts = Vec::new();
    let mut values = Vec::new();
    let mut record = csv::ByteRecord::new();
    loop {
        let start = reader.position().byte() as usize;
        if !reader.read_byte_record(&mut record).unwrap() {
            break;
        }
        // The `csv` crate puts the next record's start between the CR and
        // LF of a CRLF; the LF belongs to the record before.
        let crlf = start > 0 && input[start - 1] == b'\r' && input.get(start) == Some(&b'\n');
        starts.push(start.max(bom) + usize::from(crlf));
        values.push(record.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
    }
    starts.push(input.len());
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let mut raw = input[starts[i]..starts[i + 1]].to_vec();
            if !raw.ends_with(b"\n") && !raw.ends_with(b"\r") {
                raw.push(b'\n'); // the input's last record, completed
            }
            (v, raw)
        })
        .collect()
}

/// A field: plain, quoted with plain content, or quoted holding commas,
/// doubled quotes, CR, LF or CRLF. Keys come from a small set so groups
/// have several records, quoted or not.
fn field(key: bool) -> impl Strategy<Value = Vec<u8>> {
    let content: BoxedStrategy<Vec<u8>> = if key {
        prop::sample::select(vec![
            &b"Paris"[..],
            b"New York, NY",
            b"a\"b",
            b"",
            b"x\ny",
            b"1",
        ])
        .prop_map(<[u8]>::to_vec)
        .boxed()
    } else {
        prop::collection::vec(
            prop::sample::select(vec![b'a', b'z', b' ', b',', b'"', b'\n', b'\r', b'9']),
            0..8,
        )
        .boxed()
    };
    (content, any::<bool>()).prop_map(|(content, quote)| {
        let needs = content.iter().any(|b| b",\"\r\n".contains(b));
        if quote || needs || content.is_empty() {
            let mut out = vec![b'"'];
            for &b in &content {
                out.push(b);
                if b == b'"' {
                    out.push(b'"');
                }
            }
            out.push(b'"');
            out
        } else {
            content
        }
    })
}

/// A file: records of a key and one to three more fields, CRLF or LF, a
/// byte order mark or not, the last line break present or not.
fn file() -> impl Strategy<Value = (Vec<u8>, usize)> {
    let record = (field(true), prop::collection::vec(field(false), 1..4));
    (
        prop::collection::vec(record, 1..40),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0usize..2,
    )
        .prop_map(|(records, crlf, bom, last_break, key_at)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            for (key, mut rest) in records {
                rest.insert(key_at.min(rest.len()), key);
                out.extend(rest.join(&b","[..]));
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            if !last_break {
                while out.last().is_some_and(|b| b"\r\n".contains(b)) {
                    out.pop();
                }
            }
            (out, if bom { 3 } else { 0 } + key_at)
        })
}

/// Partitions `input` and checks every file against the oracle.
fn check(input: &[u8], bom: usize, key_at: usize, header: bool, block: usize) {
    let dir = TempDir::new();
    let path = dir.0.join("in.csv");
    std::fs::write(&path, input).unwrap();
    let mut options = Options::new(
        vec![path],
        dir.0.join("out"),
        vec![ColumnRef((key_at + 1).to_string())],
    );
    (options.delimiter, options.quote, options.header) = (b',', Some(b'"'), header);
    options.read.buffers = 2;
    options.read.buffer_len = block;
    let mut records = oracle(input, bom);
    let head = if header && !records.is_empty() {
        Some(records.remove(0).1)
    } else {
        None
    };
    let summary = match run(&options) {
        Ok(summary) => summary,
        // A header whose names are not UTF-8 cannot name columns.
        Err(PartitionError::Input { message, .. }) if message.contains("UTF-8") => return,
        Err(e) => panic!("{e}"),
    };
    let mut want: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for (values, raw) in &records {
        let file = want
            .entry(values[key_at].clone())
            .or_insert_with(|| head.clone().unwrap_or_default());
        file.extend_from_slice(raw);
    }
    let got: BTreeMap<Vec<u8>, Vec<u8>> = summary
        .groups
        .iter()
        .map(|g| (g.key.clone(), std::fs::read(&g.path).unwrap()))
        .collect();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (key, bytes) in &want {
        assert_eq!(
            String::from_utf8_lossy(&got[key]),
            String::from_utf8_lossy(bytes),
            "key {:?}, block {block}",
            String::from_utf8_lossy(key)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 200 }))]

    #[test]
    fn groups_match_the_csv_crate_at_any_block_size(
        (input, key) in file(),
        header: bool,
        block in 1usize..48,
    ) {
        let bom = if input.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        check(&input, bom, key - bom, header, block);
    }
}

#[test]
fn a_quoted_line_break_on_every_block_edge() {
    let input = b"k,v\r\n\"a\",\"1\r\n2\"\r\nb,\"x,\"\"y\"\"\"\r\n\"a\",3\r\n".repeat(5);
    for block in 1..24 {
        check(&input, 0, 0, true, block);
    }
}
