//! The chunk reader against a model: whatever the bytes, buffer size,
//! delimiter and record limit, the records (raw bytes, line numbers,
//! offsets) equal `split_inclusive` on the whole input after a UTF-8
//! byte order mark at its start (which the reader skips), or the reader
//! reports a record over the limit that really is over it (and, with a
//! limit of at least two buffers, always reports one). Field splitting
//! is checked against `split` on every record.
//!
//! The input is cut to [`MAX_BUFFERS`] buffers' worth: every buffer the
//! reader fills is a hand-off between this thread and the read-ahead
//! thread, so kilobytes through one-byte buffers would cost thousands of
//! context switches for no new case (records across buffer boundaries,
//! records longer than a buffer and the limit all happen within a few
//! buffers). What is left of a run's cost is mostly starting and joining
//! that thread (its stack and the sanitizer's per-thread state).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_io::read::{fields, ChunkReader, ReadOptions};

#[derive(Arbitrary, Debug)]
struct Input {
    buffer_len: u8,
    max_record: u8,
    delimiter_is_nul: bool,
    field: u8,
    data: Vec<u8>,
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Buffers' worth of input per run (see the module doc).
const MAX_BUFFERS: usize = 16;

fuzz_target!(|input: Input| {
    let mut input = input;
    let buffer_len = usize::from(input.buffer_len).max(1);
    input.data.truncate(MAX_BUFFERS * buffer_len + 64);
    let delimiter = if input.delimiter_is_nul { 0 } else { b'\n' };
    let options = ReadOptions {
        buffers: 2,
        buffer_len,
        delimiter,
        max_record_len: usize::from(input.max_record).max(1) * 4,
        ..ReadOptions::default()
    };
    // The limit may count a byte order mark or not: an error is due if
    // a record is long either way, no error promises it is short without.
    let raw: Vec<&[u8]> = input.data.split_inclusive(|&b| b == delimiter).collect();
    let body = input.data.strip_prefix(BOM).unwrap_or(&input.data);
    let skipped = (input.data.len() - body.len()) as u64;
    let model: Vec<&[u8]> = body.split_inclusive(|&b| b == delimiter).collect();
    let mut reader = ChunkReader::new(std::io::Cursor::new(input.data.clone()), options.clone());
    let mut got = Vec::new();
    loop {
        match reader.next_block() {
            Ok(Some(block)) => {
                for record in block.records() {
                    got.push((record.raw().to_vec(), record.line(), record.offset()));
                    let body = record.bytes();
                    let split: Vec<&[u8]> = body.split(|&b| b == b'\t').collect();
                    let n = usize::from(input.field % 8);
                    assert_eq!(fields::field(body, b'\t', n), split.get(n).copied());
                }
            }
            Ok(None) => break,
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
                assert!(
                    raw.iter().any(|r| r.len() > options.max_record_len),
                    "limit error without a long record: {e}"
                );
                return;
            }
        }
    }
    if options.max_record_len >= 2 * options.buffer_len {
        // The limit is exact from two buffers on: no error, no long record.
        assert!(model.iter().all(|r| r.len() <= options.max_record_len));
    }
    let mut offset = skipped;
    let want: Vec<(Vec<u8>, u64, u64)> = model
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let item = (r.to_vec(), i as u64 + 1, offset);
            offset += r.len() as u64;
            item
        })
        .collect();
    assert_eq!(got, want);
});
