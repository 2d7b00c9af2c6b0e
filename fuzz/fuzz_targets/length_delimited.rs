//! Arbitrary bytes in arbitrary chunks through the length-delimited decoder
//! with arbitrary settings: never a panic, frames consume exactly header +
//! body, and an error names a size over the limit.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use spool::buf_list::BufList;
use spool::codec::{Decoder, LengthDelimited};

fuzz_target!(|input: (u8, bool, i16, u16, u8, &[u8])| {
    let (width, little, adjustment, max, step, wire) = input;
    let width = usize::from(width % 8) + 1;
    let mut decoder = LengthDelimited::with_header_len(width)
        .length_adjustment(adjustment.into())
        .max_frame_length(max.into());
    if little {
        decoder = decoder.little_endian();
    }
    let mut list = BufList::new();
    for piece in wire.chunks(usize::from(step.max(1))) {
        list.push_back(Bytes::copy_from_slice(piece));
        loop {
            let before = list.len();
            match decoder.decode(&mut list) {
                Ok(Some(frame)) => {
                    assert!(frame.len() as u64 <= u64::from(max));
                    assert!(before - list.len() >= frame.len());
                }
                Ok(None) => break,
                Err(e) => {
                    assert!(e.size > e.limit || e.size == 0, "{e}");
                    return;
                }
            }
        }
    }
});
