//! Arbitrary `BufList` operations against a `VecDeque<u8>` model (the
//! target keeps the type's first name, `chain`). Counts that remove bytes
//! are kept to the list's length: past it they panic, as `bytes`' do, which
//! the property tests check.
#![no_main]

use std::collections::VecDeque;

use arbitrary::Arbitrary;
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use spool::buf_list::BufList;

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
    let mut list = BufList::new();
    let mut model: VecDeque<u8> = VecDeque::new();
    for op in ops {
        match op {
            Op::PushBack(v) => {
                model.extend(&v);
                list.push_back(Bytes::from(v));
            }
            Op::PushFront(v) => {
                for &b in v.iter().rev() {
                    model.push_front(b);
                }
                list.push_front(Bytes::from(v));
            }
            Op::Take(n) => {
                let n = usize::from(n).min(list.len());
                let got = list.split_to_bytes(n);
                let want: Vec<u8> = model.drain(..n).collect();
                assert_eq!(&got[..], &want[..]);
            }
            Op::SplitTo(n) => {
                let n = usize::from(n).min(list.len());
                let head = list.split_to(n);
                let want: Vec<u8> = model.drain(..n).collect();
                assert_eq!(head.len(), n);
                assert!(head == want[..]);
            }
            Op::Advance(n) => {
                let n = usize::from(n).min(list.len());
                list.advance(n);
                model.drain(..n);
            }
            Op::PeekInto(n) => {
                let mut buf = vec![0; n.into()];
                let got = list.peek_into(&mut buf);
                assert!(buf[..got].iter().eq(model.iter().take(got)));
                assert_eq!(got, buf.len().min(model.len()));
            }
            Op::FindByte(b) => {
                assert_eq!(list.find_byte(b), model.iter().position(|&x| x == b));
            }
            Op::Position(b, limit) => {
                let want = model.iter().take(limit.into()).position(|&x| x == b);
                assert_eq!(list.position(|x| x == b, limit.into()), want);
            }
            Op::Contiguous(n) => {
                let got = list.make_contiguous_prefix(n.into()).to_vec();
                assert!(got.iter().eq(model.iter().take(n.into())));
            }
            Op::PopChunk => {
                let chunk = list.pop_front_chunk().unwrap_or_default();
                let want: Vec<u8> = model.drain(..chunk.len()).collect();
                assert_eq!(&chunk[..], &want[..]);
            }
        }
        assert_eq!(list.len(), model.len());
        assert!(list == *model.make_contiguous());
    }
});
