//! `BufList` against a `VecDeque<u8>` model: random chunk sizes and random
//! operation sequences, contents and every answer compared after each step.
//! The methods that remove bytes (`advance`, `split_to`, `split_to_bytes`
//! and `Buf::copy_to_bytes`) are asked for counts past the end too: those
//! must panic, as `bytes`' do, and leave the list as it was.

use std::collections::VecDeque;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use bytes::{Buf, Bytes};
use proptest::prelude::*;
use spool::buf_list::BufList;

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

/// The message every count past the end panics with.
const PAST_THE_END: &str = "past the end of a BufList";

/// Whether `f` panicked with [`PAST_THE_END`]'s message. Those panics are
/// expected here and not printed; any other is.
fn panics_past_the_end(f: impl FnOnce()) -> bool {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let print = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.to_string().contains(PAST_THE_END) {
                print(info);
            }
        }));
    });
    catch_unwind(AssertUnwindSafe(f)).is_err_and(|payload| {
        payload
            .downcast_ref::<String>()
            .is_some_and(|m| m.contains(PAST_THE_END))
    })
}

fn contents(list: &BufList) -> Vec<u8> {
    list.chunks().flat_map(|c| c.iter().copied()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn agrees_with_vecdeque(ops in prop::collection::vec(op(), 1..80)) {
        let mut list = BufList::new();
        let mut model: VecDeque<u8> = VecDeque::new();
        for op in ops {
            let past_the_end = match op {
                Op::Take(n) | Op::SplitTo(n) | Op::Advance(n) | Op::CopyToBytes(n) => n > list.len(),
                _ => false,
            };
            if past_the_end {
                let panicked = panics_past_the_end(|| match op {
                    Op::Take(n) => drop(list.split_to_bytes(n)),
                    Op::SplitTo(n) => drop(list.split_to(n)),
                    Op::Advance(n) => list.advance(n),
                    Op::CopyToBytes(n) => drop(list.copy_to_bytes(n)),
                    _ => unreachable!(),
                });
                prop_assert!(panicked, "{:?} on {} bytes did not panic", op, list.len());
                prop_assert!(list == *model.make_contiguous(), "a panicking {:?} changed the list", op);
                continue;
            }
            match op {
                Op::PushBack(v) => {
                    model.extend(&v);
                    list.push_back(v);
                }
                Op::PushFront(v) => {
                    for &b in v.iter().rev() {
                        model.push_front(b);
                    }
                    list.push_front(v);
                }
                Op::Take(n) => {
                    prop_assert_eq!(list.split_to_bytes(n).to_vec(), drain_front(&mut model, n));
                }
                Op::SplitTo(n) => {
                    let head = list.split_to(n);
                    prop_assert_eq!(contents(&head), drain_front(&mut model, n));
                }
                Op::Advance(n) => {
                    list.advance(n);
                    drain_front(&mut model, n);
                }
                Op::PeekInto(n) => {
                    let mut buf = vec![0xAA; n];
                    let got = list.peek_into(&mut buf);
                    let want: Vec<u8> = model.iter().take(n).copied().collect();
                    prop_assert_eq!(&buf[..got], &want[..]);
                }
                Op::FindByte(b) => {
                    prop_assert_eq!(list.find_byte(b), model.iter().position(|&x| x == b));
                }
                Op::Position(limit) => {
                    let want = model.iter().take(limit).position(|&x| x >= 5);
                    prop_assert_eq!(list.position(|x| x >= 5, limit), want);
                }
                Op::Contiguous(n) => {
                    let want: Vec<u8> = model.iter().take(n).copied().collect();
                    prop_assert_eq!(list.make_contiguous_prefix(n), &want[..]);
                }
                Op::Read(n) => {
                    let mut buf = vec![0; n];
                    let got = list.read(&mut buf).unwrap();
                    prop_assert_eq!(&buf[..got], &drain_front(&mut model, n)[..]);
                }
                Op::CopyToBytes(n) => {
                    prop_assert_eq!(list.copy_to_bytes(n).to_vec(), drain_front(&mut model, n));
                }
                Op::PopChunk => {
                    let chunk = list.pop_front_chunk().unwrap_or_default();
                    prop_assert_eq!(chunk.to_vec(), drain_front(&mut model, chunk.len()));
                }
                Op::Clear => {
                    list.clear();
                    model.clear();
                }
            }
            prop_assert_eq!(list.len(), model.len());
            prop_assert!(list.chunks().all(|c| !c.is_empty()), "no empty chunks");
            prop_assert_eq!(contents(&list), model.iter().copied().collect::<Vec<u8>>());
            prop_assert!(list == *model.make_contiguous());
        }
    }
}

#[test]
fn take_within_one_chunk_shares_memory() {
    let big = Bytes::from(vec![7u8; 4096]);
    let base = big.as_ptr();
    let mut list = BufList::from(big);
    let part = list.split_to_bytes(100);
    assert_eq!(part.as_ptr(), base, "no copy for a take inside one chunk");
    let rest = list.split_to_bytes(3996);
    assert_eq!(rest.as_ptr(), base.wrapping_add(100));
    assert!(list.is_empty());
}

#[test]
fn split_to_shares_chunks() {
    let a = Bytes::from(vec![1u8; 10]);
    let b = Bytes::from(vec![2u8; 10]);
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut list: BufList = [a, b].into_iter().collect();
    let head = list.split_to(15);
    let ptrs: Vec<*const u8> = head.chunks().map(|c| c.as_ptr()).collect();
    assert_eq!(ptrs, vec![pa, pb]);
    assert_eq!(list.front_chunk().unwrap().as_ptr(), pb.wrapping_add(5));
}

#[test]
fn io_slices_and_bufread() {
    use std::io::BufRead;
    let mut list: BufList = [&b"ab"[..], b"cde"].into_iter().collect();
    let mut slices = [std::io::IoSlice::new(&[]); 4];
    assert_eq!(list.as_io_slices(&mut slices), 2);
    assert_eq!(&*slices[1], b"cde");
    assert_eq!(list.fill_buf().unwrap(), b"ab");
    list.consume(2);
    let mut line = String::new();
    list.read_line(&mut line).unwrap();
    assert_eq!(line, "cde");
}

#[test]
#[should_panic(expected = "advance(4) past the end of a BufList of 3 bytes")]
fn advance_past_the_end_panics() {
    let mut list: BufList = [&b"ab"[..], b"c"].into_iter().collect();
    list.advance(4);
}

#[test]
#[should_panic(expected = "split_to(1) past the end of a BufList of 0 bytes")]
fn split_to_past_the_end_panics() {
    let _ = BufList::new().split_to(1);
}

#[test]
#[should_panic(expected = "split_to_bytes(3) past the end of a BufList of 2 bytes")]
fn split_to_bytes_past_the_end_panics() {
    let _ = BufList::from(&b"ab"[..]).split_to_bytes(3);
}

#[test]
#[should_panic(expected = "advance(3) past the end of a BufList of 2 bytes")]
fn buf_advance_past_the_end_panics() {
    Buf::advance(&mut BufList::from(&b"ab"[..]), 3);
}

#[test]
#[should_panic(expected = "past the end of a BufList")]
fn consume_past_the_end_panics() {
    use std::io::BufRead;
    BufList::from(&b"ab"[..]).consume(3);
}

/// Counts up to the end, across chunk edges, are fine (the end itself
/// included), and the old name still compiles, with a warning.
#[test]
fn counts_up_to_the_end_and_the_old_name() {
    let mut list: BufList = [&b"ab"[..], b"cd"].into_iter().collect();
    list.advance(0);
    assert_eq!(list.split_to(3).len(), 3);
    assert_eq!(list.split_to_bytes(1), "d");
    assert_eq!(list.split_to_bytes(0), "");
    list.advance(0);
    assert!(list.is_empty());
}
