//! The pool against a model: random writes, freezes and drops (on this
//! thread or another, in any order). Live slices must never overlap and must
//! keep exactly the bytes written into them, whatever happens afterwards.

use proptest::prelude::*;
use spool::pool::{BufferPool, PoolConfig, Slice};

#[derive(Clone, Debug)]
enum Op {
    Write(usize),
    Freeze,
    Drop(usize),
    DropElsewhere(usize),
    Discard,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..200usize).prop_map(Op::Write),
        1 => (0..6000usize).prop_map(Op::Write),
        3 => Just(Op::Freeze),
        2 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::DropElsewhere),
        1 => Just(Op::Discard),
    ]
}

fn check_live(live: &[(Slice, Vec<u8>)]) {
    for (slice, want) in live {
        assert_eq!(&slice[..], &want[..], "a live slice lost its bytes");
    }
    let mut ranges: Vec<(usize, usize)> = live
        .iter()
        .filter(|(s, _)| s.is_pooled() && !s.is_empty())
        .map(|(s, _)| (s.as_ptr() as usize, s.as_ptr() as usize + s.len()))
        .collect();
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(w[0].1 <= w[1].0, "live slices overlap: {w:?}");
    }
}

fn run(ops: &[Op], capacity: usize, slots: usize) {
    let mut pool = BufferPool::with_config(PoolConfig { capacity, slots });
    let mut live: Vec<(Slice, Vec<u8>)> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut counter = 0u8;
    for op in ops {
        match *op {
            Op::Write(len) => {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        counter = counter.wrapping_add(1);
                        counter
                    })
                    .collect();
                pool.reserve(len).copy_from_slice(&bytes);
                pending.extend(bytes);
                assert_eq!(pool.len(), pending.len());
                assert_eq!(pool.pending(usize::MAX), &pending[..]);
            }
            Op::Freeze => {
                let slice = pool.freeze();
                assert_eq!(&slice[..], &pending[..]);
                live.push((slice, std::mem::take(&mut pending)));
            }
            Op::Drop(i) if !live.is_empty() => {
                let i = i % live.len();
                live.swap_remove(i);
            }
            Op::DropElsewhere(i) if !live.is_empty() => {
                let (slice, want) = live.swap_remove(i % live.len());
                std::thread::spawn(move || assert_eq!(&slice[..], &want[..]))
                    .join()
                    .unwrap();
            }
            Op::Drop(_) | Op::DropElsewhere(_) => {}
            Op::Discard => {
                pool.discard();
                pending.clear();
            }
        }
        check_live(&live);
        let stats = pool.stats();
        let pooled: usize = live
            .iter()
            .filter(|(s, _)| s.is_pooled())
            .map(|(s, _)| s.len())
            .sum();
        assert_eq!(stats.in_use, pooled);
        assert!(stats.in_use <= capacity);
    }
    // The pool may go first; the slices stay valid and free the arena last.
    drop(pool);
    check_live(&live);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn slices_never_overlap_and_keep_their_bytes(
        ops in prop::collection::vec(op(), 1..150),
        capacity in prop_oneof![Just(0usize), 1..64usize, 64..4096usize, 40_000..120_000usize],
        slots in 1usize..40,
    ) {
        run(&ops, capacity, slots);
    }
}
