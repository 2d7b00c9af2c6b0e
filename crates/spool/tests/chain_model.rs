//! `Chain` against a `VecDeque<u8>` model: random chunk sizes and random
//! operation sequences, contents and every answer compared after each step.

use std::collections::VecDeque;
use std::io::Read;

use bytes::{Buf, Bytes};
use proptest::prelude::*;
use spool::chain::Chain;

#[derive(Clone, Debug)]
enum Op {
    PushBack(Vec<u8>),
    PushFront(Vec<u8>),
    Take(usize),
    SplitTo(usize),
    Advance(usize),
    PeekInto(usize),
    FindByte(u8),
    Position(usize),
    Contiguous(usize),
    Read(usize),
    CopyToBytes(usize),
    PopChunk,
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    let data = prop::collection::vec(0u8..8, 0..40);
    prop_oneof![
        6 => data.clone().prop_map(Op::PushBack),
        1 => data.prop_map(Op::PushFront),
        3 => (0..60usize).prop_map(Op::Take),
        2 => (0..60usize).prop_map(Op::SplitTo),
        2 => (0..60usize).prop_map(Op::Advance),
        2 => (0..60usize).prop_map(Op::PeekInto),
        2 => (0u8..9).prop_map(Op::FindByte),
        2 => (0..80usize).prop_map(Op::Position),
        1 => (0..60usize).prop_map(Op::Contiguous),
        2 => (0..60usize).prop_map(Op::Read),
        2 => (0..60usize).prop_map(Op::CopyToBytes),
        1 => Just(Op::PopChunk),
        1 => Just(Op::Clear),
    ]
}

fn drain_front(model: &mut VecDeque<u8>, n: usize) -> Vec<u8> {
    let n = n.min(model.len());
    model.drain(..n).collect()
}

fn contents(chain: &Chain) -> Vec<u8> {
    chain.chunks().flat_map(|c| c.iter().copied()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn agrees_with_vecdeque(ops in prop::collection::vec(op(), 1..80)) {
        let mut chain = Chain::new();
        let mut model: VecDeque<u8> = VecDeque::new();
        for op in ops {
            match op {
                Op::PushBack(v) => {
                    model.extend(&v);
                    chain.push_back(v);
                }
                Op::PushFront(v) => {
                    for &b in v.iter().rev() {
                        model.push_front(b);
                    }
                    chain.push_front(v);
                }
                Op::Take(n) => {
                    prop_assert_eq!(chain.split_to_bytes(n).to_vec(), drain_front(&mut model, n));
                }
                Op::SplitTo(n) => {
                    let head = chain.split_to(n);
                    prop_assert_eq!(contents(&head), drain_front(&mut model, n));
                }
                Op::Advance(n) => {
                    chain.advance(n);
                    drain_front(&mut model, n);
                }
                Op::PeekInto(n) => {
                    let mut buf = vec![0xAA; n];
                    let got = chain.peek_into(&mut buf);
                    let want: Vec<u8> = model.iter().take(n).copied().collect();
                    prop_assert_eq!(&buf[..got], &want[..]);
                }
                Op::FindByte(b) => {
                    prop_assert_eq!(chain.find_byte(b), model.iter().position(|&x| x == b));
                }
                Op::Position(limit) => {
                    let want = model.iter().take(limit).position(|&x| x >= 5);
                    prop_assert_eq!(chain.position(|x| x >= 5, limit), want);
                }
                Op::Contiguous(n) => {
                    let want: Vec<u8> = model.iter().take(n).copied().collect();
                    prop_assert_eq!(chain.make_contiguous_prefix(n), &want[..]);
                }
                Op::Read(n) => {
                    let mut buf = vec![0; n];
                    let got = chain.read(&mut buf).unwrap();
                    prop_assert_eq!(&buf[..got], &drain_front(&mut model, n)[..]);
                }
                Op::CopyToBytes(n) => {
                    let n = n.min(chain.remaining());
                    prop_assert_eq!(chain.copy_to_bytes(n).to_vec(), drain_front(&mut model, n));
                }
                Op::PopChunk => {
                    let chunk = chain.pop_front_chunk().unwrap_or_default();
                    prop_assert_eq!(chunk.to_vec(), drain_front(&mut model, chunk.len()));
                }
                Op::Clear => {
                    chain.clear();
                    model.clear();
                }
            }
            prop_assert_eq!(chain.len(), model.len());
            prop_assert!(chain.chunks().all(|c| !c.is_empty()), "no empty chunks");
            prop_assert_eq!(contents(&chain), model.iter().copied().collect::<Vec<u8>>());
            prop_assert!(chain == *model.make_contiguous());
        }
    }
}

#[test]
fn take_within_one_chunk_shares_memory() {
    let big = Bytes::from(vec![7u8; 4096]);
    let base = big.as_ptr();
    let mut chain = Chain::from(big);
    let part = chain.split_to_bytes(100);
    assert_eq!(part.as_ptr(), base, "no copy for a take inside one chunk");
    let rest = chain.split_to_bytes(3996);
    assert_eq!(rest.as_ptr(), base.wrapping_add(100));
    assert!(chain.is_empty());
}

#[test]
fn split_to_shares_chunks() {
    let a = Bytes::from(vec![1u8; 10]);
    let b = Bytes::from(vec![2u8; 10]);
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut chain: Chain = [a, b].into_iter().collect();
    let head = chain.split_to(15);
    let ptrs: Vec<*const u8> = head.chunks().map(|c| c.as_ptr()).collect();
    assert_eq!(ptrs, vec![pa, pb]);
    assert_eq!(chain.front_chunk().unwrap().as_ptr(), pb.wrapping_add(5));
}

#[test]
fn io_slices_and_bufread() {
    use std::io::BufRead;
    let mut chain: Chain = [&b"ab"[..], b"cde"].into_iter().collect();
    let mut slices = [std::io::IoSlice::new(&[]); 4];
    assert_eq!(chain.as_io_slices(&mut slices), 2);
    assert_eq!(&*slices[1], b"cde");
    assert_eq!(chain.fill_buf().unwrap(), b"ab");
    chain.consume(2);
    let mut line = String::new();
    chain.read_line(&mut line).unwrap();
    assert_eq!(line, "cde");
}
