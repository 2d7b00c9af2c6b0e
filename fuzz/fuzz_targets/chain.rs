//! Arbitrary chain operations against a `VecDeque<u8>` model.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use spool::chain::Chain;

#[derive(Arbitrary, Debug)]
enum Op {
    PushBack(Vec<u8>),
    PushFront(Vec<u8>),
    Take(u16),
    SplitTo(u16),
    Advance(u16),
    PeekInto(u16),
    FindByte(u8),
    Position(u8, u16),
    Contiguous(u16),
    PopChunk,
}

fuzz_target!(|ops: Vec<Op>| {
    let mut chain = Chain::new();
    let mut model: VecDeque<u8> = VecDeque::new();
    for op in ops {
        match op {
            Op::PushBack(v) => {
                model.extend(&v);
                chain.push_back(Bytes::from(v));
            }
            Op::PushFront(v) => {
                for &b in v.iter().rev() {
                    model.push_front(b);
                }
                chain.push_front(Bytes::from(v));
            }
            Op::Take(n) => {
                let got = chain.split_to_bytes(n.into());
                let want: Vec<u8> = model.drain(..got.len()).collect();
                assert_eq!(&got[..], &want[..]);
                assert_eq!(got.len(), usize::from(n).min(got.len() + model.len()));
            }
            Op::SplitTo(n) => {
                let head = chain.split_to(n.into());
                let want: Vec<u8> = model.drain(..head.len()).collect();
                assert!(head == want[..]);
            }
            Op::Advance(n) => {
                chain.advance(n.into());
                let n = usize::from(n).min(model.len());
                model.drain(..n);
            }
            Op::PeekInto(n) => {
                let mut buf = vec![0; n.into()];
                let got = chain.peek_into(&mut buf);
                assert!(buf[..got].iter().eq(model.iter().take(got)));
                assert_eq!(got, buf.len().min(model.len()));
            }
            Op::FindByte(b) => {
                assert_eq!(chain.find_byte(b), model.iter().position(|&x| x == b));
            }
            Op::Position(b, limit) => {
                let want = model.iter().take(limit.into()).position(|&x| x == b);
                assert_eq!(chain.position(|x| x == b, limit.into()), want);
            }
            Op::Contiguous(n) => {
                let got = chain.make_contiguous_prefix(n.into()).to_vec();
                assert!(got.iter().eq(model.iter().take(n.into())));
            }
            Op::PopChunk => {
                let chunk = chain.pop_front_chunk().unwrap_or_default();
                let want: Vec<u8> = model.drain(..chunk.len()).collect();
                assert_eq!(&chunk[..], &want[..]);
            }
        }
        assert_eq!(chain.len(), model.len());
        assert!(chain == *model.make_contiguous());
    }
});
