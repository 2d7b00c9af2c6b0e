//! The CSV splitter against the `csv` crate on any bytes: the first byte
//! picks the dialect and the read size, the rest is the input. The input
//! is cut into blocks by `RecordCutter` fed at that read size, and each
//! block split by `Records`: the records and field values must be the
//! `csv` crate's, the raw views must be the input's bytes at their
//! offsets, field N found from the masks must be the N-th field — or, when
//! a quoted field is never closed, the error must name the quote that
//! opened it (closing it at the end of the input gives the records csv-core
//! gives without the closing quote). The same input read as the
//! read-ahead reader reads it (`BlockCutter` over buffers of that size,
//! each block's records read off its `BlockIndex`) gives the very records
//! `Records` gives over the whole input, and the same error.
#![no_main]

#[path = "../../crates/spool/tests/it/support/block_reader.rs"]
mod block_reader;

use libfuzzer_sys::fuzz_target;
use spool::text::csv::{strip_bom, Dialect, Record, RecordCutter, Records, UnterminatedQuote};
use spool::text::Position;

type Values = Vec<Vec<Vec<u8>>>;

fn csv_crate(input: &[u8], dialect: Dialect) -> Values {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(dialect.delimiter())
        .quoting(dialect.quote().is_some())
        .quote(dialect.quote().unwrap_or(b'"'))
        .from_reader(input);
    reader
        .byte_records()
        .map(|r| {
            r.expect("reads from memory")
                .iter()
                .map(<[u8]>::to_vec)
                .collect()
        })
        .collect()
}

/// Records and values through the cutter at `read` bytes a time; also
/// checks raw views, offsets, lines and field access.
fn split(input: &[u8], dialect: Dialect, read: usize) -> Result<Values, UnterminatedQuote> {
    let mut cutter = RecordCutter::new(dialect);
    let mut cuts = vec![(0u64, 1u64)];
    for piece in input.chunks(read) {
        if let Some(p) = cutter.scan(piece) {
            assert!(p.offset > cuts.last().unwrap().0, "cuts move forward");
            cuts.push((p.offset, p.line));
        }
    }
    let finished = cutter.finish();
    let mut out = Vec::new();
    for (i, &(from, line)) in cuts.iter().enumerate() {
        let to = cuts.get(i + 1).map_or(input.len(), |c| c.0 as usize);
        let mut block = &input[from as usize..to];
        if i == 0 {
            block = strip_bom(block);
        }
        let offset = (to - block.len()) as u64;
        for record in Records::new(block, dialect).starting_at(Position { offset, line }) {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    assert_eq!(Err(e), finished);
                    return Err(e);
                }
            };
            let at = record.offset() as usize;
            assert_eq!(&input[at..at + record.raw().len()], record.raw());
            let lines = input[..at].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(record.line(), 1 + lines);
            let values: Vec<Vec<u8>> = record.fields().map(|f| f.value().into_owned()).collect();
            for (n, v) in values.iter().enumerate() {
                assert_eq!(record.field(n).unwrap().value(), &v[..]);
            }
            assert!(record.field(values.len()).is_none());
            out.push(values);
        }
    }
    assert_eq!(finished, Ok(()));
    Ok(out)
}

/// A record's raw bytes, line, offset and values, or the error.
type Seen = Result<(Vec<u8>, u64, u64, Vec<Vec<u8>>), UnterminatedQuote>;

fn seen(record: Result<Record<'_>, UnterminatedQuote>) -> Seen {
    record.map(|r| {
        let values: Vec<Vec<u8>> = (0..)
            .map_while(|n| r.value(n))
            .map(|v| v.into_owned())
            .collect();
        (r.raw().to_vec(), r.line(), r.offset(), values)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, input)) = data.split_first() else {
        return;
    };
    let delimiter = [b',', b'\t', b';', b'|'][usize::from(knobs & 3)];
    let quote = (knobs & 4 == 0).then_some(b'"');
    let dialect = Dialect::new(delimiter, quote).expect("valid");
    let read = [1, 2, 3, 7, 63, 64, 65, 4096][usize::from(knobs >> 5)];
    let body = strip_bom(input);
    let start = Position {
        offset: (input.len() - body.len()) as u64,
        line: 1,
    };
    let whole: Vec<Seen> = Records::new(body, dialect)
        .starting_at(start)
        .map(seen)
        .collect();
    assert_eq!(
        block_reader::through_blocks(input, dialect, read, seen),
        whole
    );
    match split(input, dialect, read) {
        Ok(values) => assert_eq!(values, csv_crate(input, dialect)),
        Err(err) => {
            assert!(quote.is_some());
            let mut closed = input.to_vec();
            closed.push(b'"');
            let values = split(&closed, dialect, read).expect("closed at the end");
            assert_eq!(values, csv_crate(input, dialect));
            // The open field ran to the end: it is the last field of the
            // last record, and starts at the quote the error names.
            let body = strip_bom(&closed);
            let skip = closed.len() - body.len();
            let last = Records::new(body, dialect)
                .starting_at(Position {
                    offset: skip as u64,
                    line: 1,
                })
                .last()
                .unwrap()
                .unwrap();
            let tail = last.fields().last().unwrap().raw();
            assert_eq!(err.offset as usize, closed.len() - tail.len());
        }
    }
});
