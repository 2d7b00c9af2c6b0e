//! The CSV splitter against the `csv` crate: random CSV (every quoting
//! style, embedded delimiters, quotes, CR and LF, CRLF or LF or CR
//! endings, blank lines, a byte order mark or not, the last record with or
//! without its line break), cut into blocks by `RecordCutter` fed at random
//! read sizes, gives exactly the records and field values the `csv` crate
//! gives, with raw views, offsets and line numbers that add up.

use crate::support::csv_reference;
use csv_reference::csv_crate;

use proptest::prelude::*;
use spool::text::csv::{strip_bom, Dialect, RecordCutter, Records, UnterminatedQuote};
use spool::text::Position;

/// One record as split: field values, raw bytes, offset, line.
struct Got {
    values: Vec<Vec<u8>>,
    raw: Vec<u8>,
    offset: u64,
    line: u64,
}

/// What a read-ahead reader would see: the input fed to a cutter in pieces
/// of the given sizes, cut after every record end it reports, each block
/// split by `Records`. Also checks every reported cut against `ends`.
fn split_in_blocks(
    input: &[u8],
    dialect: Dialect,
    reads: &[usize],
    ends: &[u64],
) -> Result<Vec<Got>, UnterminatedQuote> {
    let mut cutter = RecordCutter::new(dialect);
    let mut cuts = vec![Position { offset: 0, line: 1 }];
    let (mut at, mut k) = (0, 0);
    while at < input.len() {
        let end = (at + reads[k % reads.len()].max(1)).min(input.len());
        k += 1;
        let got = cutter.scan(&input[at..end]);
        // The last record end now known: one that ends at or before `end`,
        // except one ending in a lone CR at `end` (an LF may follow).
        let known = |&&e: &&u64| {
            let e = e as usize;
            e < end || (e == end && input[e - 1] != b'\r')
        };
        let want = ends
            .iter()
            .filter(known)
            .copied()
            .max()
            .filter(|&e| e > cuts.last().unwrap().offset);
        assert_eq!(got.map(|p| p.offset), want, "cut after reading {end} bytes");
        if let Some(p) = got {
            let lines = input[..p.offset as usize]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            assert_eq!(p.line, 1 + lines as u64, "line at the cut {}", p.offset);
            cuts.push(p);
        }
        at = end;
    }
    assert_eq!(cutter.scanned().offset, input.len() as u64);
    let finished = cutter.finish();
    let mut out = Vec::new();
    for (i, from) in cuts.iter().enumerate() {
        let to = cuts.get(i + 1).map_or(input.len(), |p| p.offset as usize);
        let mut block = &input[from.offset as usize..to];
        let mut offset = from.offset;
        if i == 0 {
            block = strip_bom(block);
            offset = (to - block.len()) as u64;
        }
        for record in Records::new(block, dialect).starting_at(Position {
            offset,
            line: from.line,
        }) {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    assert_eq!(Err(e), finished, "the cutter agrees on the error");
                    return Err(e);
                }
            };
            let values: Vec<Vec<u8>> = record.fields().map(|f| f.value().into_owned()).collect();
            // Field N found from the splitter's masks is the same field.
            for (i, v) in values.iter().enumerate() {
                assert_eq!(record.field(i).unwrap().value(), &v[..], "field {i}");
            }
            assert!(record.field(values.len()).is_none());
            out.push(Got {
                values,
                raw: record.raw().to_vec(),
                offset: record.offset(),
                line: record.line(),
            });
        }
    }
    assert_eq!(finished, Ok(()));
    Ok(out)
}

/// Record ends of the whole input (past each record's line break), as one
/// `Records` over it finds them.
fn record_ends(input: &[u8], dialect: Dialect) -> Vec<u64> {
    let body = strip_bom(input);
    let skip = (input.len() - body.len()) as u64;
    Records::new(body, dialect)
        .starting_at(Position {
            offset: skip,
            line: 1,
        })
        .map_while(Result::ok)
        .filter(|r| matches!(r.raw().last(), Some(b'\n' | b'\r')))
        .map(|r| r.offset() + r.raw().len() as u64)
        .collect()
}

/// Checks the records of `input` against the oracle, whatever the reads.
fn check(input: &[u8], dialect: Dialect, reads: &[usize]) -> Result<(), UnterminatedQuote> {
    let ends = record_ends(input, dialect);
    let got = split_in_blocks(input, dialect, reads, &ends)?;
    let values: Vec<_> = got.iter().map(|g| g.values.clone()).collect();
    assert_eq!(
        values,
        csv_crate(input, dialect),
        "input {:?}",
        String::from_utf8_lossy(input)
    );
    for Got {
        values,
        raw,
        offset,
        line,
    } in &got
    {
        let at = *offset as usize;
        assert_eq!(&input[at..at + raw.len()], &raw[..], "raw view at {offset}");
        let lines = input[..at].iter().filter(|&&b| b == b'\n').count();
        assert_eq!(*line, 1 + lines as u64, "line of the record at {offset}");
        // The raw fields joined by the delimiter give the record back.
        let record = Records::new(raw, dialect).next().unwrap().unwrap();
        let joined = record
            .fields()
            .map(|f| f.raw())
            .collect::<Vec<_>>()
            .join(&dialect.delimiter());
        assert_eq!(joined, record.bytes());
        assert_eq!(record.fields().count(), values.len());
        for (i, v) in values.iter().enumerate() {
            assert_eq!(record.field(i).unwrap().value(), &v[..]);
            let mut scratch = b"prefix".to_vec();
            record.field(i).unwrap().value_into(&mut scratch);
            assert_eq!(&scratch[6..], &v[..]);
        }
    }
    Ok(())
}

/// One field written in a random style.
fn field() -> impl Strategy<Value = Vec<u8>> {
    let content = proptest::collection::vec(
        prop_oneof![6 => Just(b'a'), 2 => Just(b','), 2 => Just(b'"'), 1 => Just(b'\n'), 1 => Just(b'\r'), 1 => Just(b' '), 1 => Just(0xC3)],
        0..12,
    );
    (content, 0..10u8).prop_map(|(content, style)| {
        let special = content.iter().any(|b| b",\"\r\n".contains(b));
        match style {
            // Minimal quoting: only when needed.
            0..=4 if !special => content,
            // A quote in the middle of an unquoted field (csv-core: data).
            5 if !special => {
                let mut f = content;
                f.insert(f.len() / 2, b'x');
                f.insert(f.len() / 2 + 1, b'"');
                f
            }
            // Text after the closing quote (csv-core: appended).
            6 => {
                let mut f = quoted(&content);
                f.extend_from_slice(b"tail\"x");
                f
            }
            _ => quoted(&content),
        }
    })
}

fn quoted(content: &[u8]) -> Vec<u8> {
    let mut f = vec![b'"'];
    for &b in content {
        if b == b'"' {
            f.push(b'"');
        }
        f.push(b);
    }
    f.push(b'"');
    f
}

/// A whole file: records of 1–6 fields, a line ending style, blank lines,
/// a byte order mark, the last line break or not.
fn file() -> impl Strategy<Value = Vec<u8>> {
    let records =
        proptest::collection::vec((proptest::collection::vec(field(), 1..6), 0..20u8), 0..40);
    (records, 0..4u8, any::<bool>(), any::<bool>()).prop_map(
        |(records, endings, bom, last_break)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let n = records.len();
            for (i, (fields, extra)) in records.into_iter().enumerate() {
                out.extend_from_slice(&fields.join(&b','));
                if i + 1 == n && !last_break {
                    break;
                }
                let ending: &[u8] = match (endings, extra % 4) {
                    (0, _) => b"\n",
                    (1, _) => b"\r\n",
                    (2, _) => b"\r",
                    (_, 0) => b"\n",
                    (_, 1) => b"\r\n",
                    (_, 2) => b"\r",
                    _ => b"\n\r\n",
                };
                out.extend_from_slice(ending);
                if extra == 19 {
                    out.extend_from_slice(b"\n\r\n"); // blank lines
                }
            }
            out
        },
    )
}

fn reads() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        proptest::collection::vec(1usize..8, 1..8),
        proptest::collection::vec(1usize..200, 1..8),
        Just(vec![64]),
        Just(vec![usize::MAX / 2]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 600 } else { 3000 }))]

    #[test]
    fn random_csv_matches_the_csv_crate(input in file(), reads in reads()) {
        check(&input, Dialect::CSV, &reads).expect("generated fields are all closed");
    }

    /// Any arrangement of the special bytes: the same records as the `csv`
    /// crate, or an unterminated quote exactly where csv-core would have
    /// run the last field to the end of the input.
    #[test]
    fn arbitrary_bytes_match_or_name_the_open_quote(
        input in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b','), Just(b'"'), Just(b'\n'), Just(b'\r'), Just(b'\t')], 0..300),
        reads in reads(),
        tab in any::<bool>(),
        quoting in any::<bool>(),
    ) {
        let delimiter = if tab { b'\t' } else { b',' };
        let dialect = Dialect::new(delimiter, quoting.then_some(b'"')).unwrap();
        if let Err(err) = check(&input, dialect, &reads) {
            prop_assert!(quoting);
            // Closing the quote at the end makes it valid, with the records
            // csv-core gives for the unclosed input.
            let mut closed = input.clone();
            closed.push(b'"');
            check(&closed, dialect, &reads).expect("closed at the end");
            prop_assert_eq!(csv_crate(&closed, dialect), csv_crate(&input, dialect));
            // The open field is the last one, and it starts at the quote
            // the error names.
            let records: Vec<_> = Records::new(&closed, dialect).map(Result::unwrap).collect();
            let last = records.last().unwrap();
            let tail = last.fields().last().unwrap().raw();
            prop_assert_eq!(err.offset as usize, closed.len() - tail.len());
            let lines = input[..err.offset as usize].iter().filter(|&&b| b == b'\n').count();
            prop_assert_eq!(err.line, 1 + lines as u64);
        }
    }
}
