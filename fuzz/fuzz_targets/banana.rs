//! Arbitrary bytes, cut into arbitrary chunks, through the Banana decoder:
//! it must never panic, and the tokens it yields must re-encode to exactly
//! the bytes it consumed.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use spool::buf_list::BufList;
use spool::codec::banana::{encode, BananaDecoder, Token};
use spool::codec::Decoder;

fuzz_target!(|input: (u8, u32, &[u8])| {
    let (step, max_body, wire) = input;
    let step = usize::from(step.max(1));
    let mut decoder = BananaDecoder::with_max_body(u64::from(max_body % 100_000));
    let mut list = BufList::new();
    let mut tokens: Vec<Token> = Vec::new();
    let mut consumed = 0usize;
    'feed: for piece in wire.chunks(step) {
        list.push_back(Bytes::copy_from_slice(piece));
        loop {
            let before = list.len();
            match decoder.decode(&mut list) {
                Ok(Some(t)) => {
                    consumed += before - list.len();
                    tokens.push(t);
                }
                Ok(None) => {
                    assert_eq!(list.len(), before, "an incomplete token consumes nothing");
                    break;
                }
                Err(_) => break 'feed,
            }
        }
    }
    assert_eq!(decoder.offset(), consumed as u64);
    // Re-encoding gives back the same bytes, except that headers may carry
    // redundant leading zero digits on the wire: compare decoded again.
    let mut again = Vec::new();
    for t in &tokens {
        encode(t, &mut again);
    }
    // (Compare encodings, not tokens: a NaN float is not equal to itself.)
    let mut list = BufList::from(again.clone());
    let mut d = BananaDecoder::new();
    let mut round = Vec::new();
    for _ in &tokens {
        let t = d.decode(&mut list).unwrap().expect("a whole token");
        encode(&t, &mut round);
    }
    assert!(list.is_empty());
    assert_eq!(round, again);
});
