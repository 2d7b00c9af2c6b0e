//! `BlockCutter` and `IndexedRecords` against `Records`: an input read the
//! way the read-ahead reader reads it (buffers of a random size, grown
//! while no record ends in them, the tail after each cut carried into the
//! next), each block read off its index, gives exactly the records, lines,
//! offsets, fields and error that `Records` gives over the whole input
//! (which `csv_oracle.rs` checks against the `csv` crate), and
//! `Record::value` gives every field's value as `field(n).value()` does.
//! Small buffers
//! make small indexes, so records past an index's capacity are covered.

use crate::support::block_reader;

use proptest::prelude::*;
use spool::text::csv::{strip_bom, BlockCutter, BlockIndex, Dialect, Records, UnterminatedQuote};
use spool::text::Position;

/// A record as a caller sees it: raw bytes, line, offset, field values.
type Seen = (Vec<u8>, u64, u64, Vec<Vec<u8>>);

fn seen<'a>(
    records: impl Iterator<Item = Result<spool::text::csv::Record<'a>, UnterminatedQuote>>,
) -> Vec<Result<Seen, UnterminatedQuote>> {
    records
        .map(|r| {
            r.map(|r| {
                let values: Vec<Vec<u8>> = (0..)
                    .map_while(|n| r.field(n))
                    .map(|f| f.value().into_owned())
                    .collect();
                // The value cut from the masks directly is the field's.
                for (n, v) in values.iter().enumerate() {
                    assert_eq!(r.value(n).unwrap(), &v[..], "value {n}");
                }
                assert!(r.value(values.len()).is_none());
                (r.raw().to_vec(), r.line(), r.offset(), values)
            })
        })
        .collect()
}

/// The records of `input` as blocks cut by a `BlockCutter` would give
/// them, with buffers of `buffer_len` bytes.
fn through_blocks(
    input: &[u8],
    dialect: Dialect,
    buffer_len: usize,
) -> Vec<Result<Seen, UnterminatedQuote>> {
    block_reader::through_blocks(input, dialect, buffer_len, |r| {
        seen(std::iter::once(r)).remove(0)
    })
}

fn whole(input: &[u8], dialect: Dialect) -> Vec<Result<Seen, UnterminatedQuote>> {
    let body = strip_bom(input);
    let skip = (input.len() - body.len()) as u64;
    seen(Records::new(body, dialect).starting_at(Position {
        offset: skip,
        line: 1,
    }))
}

fn csv_byte() -> impl Strategy<Value = u8> {
    prop_oneof![4 => Just(b'"'), 4 => Just(b','), 2 => Just(b'\n'), 2 => Just(b'\r'), 12 => Just(b'a')]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 300 } else { 3000 }))]

    #[test]
    fn blocks_read_off_their_index_match_records(
        input in proptest::collection::vec(csv_byte(), 0..1500),
        bom in any::<bool>(),
        buffer_len in prop_oneof![1usize..8, 8usize..200, 200usize..2000],
        quoting in any::<bool>(),
    ) {
        let dialect = Dialect::new(b',', quoting.then_some(b'"')).unwrap();
        let input = if bom { [&b"\xEF\xBB\xBF"[..], &input].concat() } else { input };
        prop_assert_eq!(through_blocks(&input, dialect, buffer_len), whole(&input, dialect));
    }
}

/// An input of short records fills a small index long before the block
/// ends: the records after it are scanned, and come out the same.
#[test]
fn records_past_the_index_capacity_are_scanned() {
    let mut input = Vec::new();
    for i in 0..5000 {
        input.extend_from_slice(format!("{},\"q\r\n{i}\"\r\n", i % 7).as_bytes());
    }
    for buffer_len in [64, 4096, 1 << 20] {
        let got = through_blocks(&input, Dialect::CSV, buffer_len);
        assert_eq!(got.len(), 5000);
        assert_eq!(got, whole(&input, Dialect::CSV), "buffer {buffer_len}");
    }
}

/// A quote never closed: the cutter names it when asked, and the last
/// block's records end with the same error `Records` gives.
#[test]
fn an_open_quote_is_named_by_the_cutter_and_the_records() {
    let input = b"a,b\n\"c\nd\ne,f\n";
    let mut cutter = BlockCutter::new(Dialect::CSV);
    let mut index = BlockIndex::for_block_len(1 << 20);
    assert_eq!(cutter.scan(input, true, &mut index), Some(4));
    let quote = cutter.open_quote(0).unwrap();
    assert_eq!((quote.offset, quote.line), (4, 2));
    let got = through_blocks(input, Dialect::CSV, 3);
    assert_eq!(
        got.last().unwrap(),
        &Err(UnterminatedQuote { offset: 4, line: 2 })
    );
    assert_eq!(got, whole(input, Dialect::CSV));
}
