//! The pool against a model: random writes, truncations, freezes, clones,
//! writes through slices and drops (on this thread or another, in any
//! order). Slices that are not clones of one another must never overlap;
//! every slice keeps exactly the bytes written into it (a write through a
//! clone changes that clone only), whatever happens afterwards; the pending
//! message reads the same through `pending` and `pending_ref`.
//!
//! Slots come back in any order: a freeze that finds no free slot while
//! fewer than `slots` frames are live (the model knows which are) may fall
//! back to the heap only while the pool waits out a scan that freed
//! little — at most `slots / 8` such freezes in a row, none below 8 slots.

use proptest::prelude::*;
use spool::pool::{BufferPool, PoolConfig, Slice};

#[derive(Clone, Debug)]
enum Op {
    Write(usize),
    Truncate(usize),
    Freeze,
    Clone(usize),
    CloneElsewhere(usize),
    WriteThrough(usize),
    Drop(usize),
    DropElsewhere(usize),
    Discard,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..200usize).prop_map(Op::Write),
        1 => (0..6000usize).prop_map(Op::Write),
        1 => (0..300usize).prop_map(Op::Truncate),
        3 => Just(Op::Freeze),
        1 => any::<usize>().prop_map(Op::Clone),
        1 => any::<usize>().prop_map(Op::CloneElsewhere),
        1 => any::<usize>().prop_map(Op::WriteThrough),
        2 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::DropElsewhere),
        1 => Just(Op::Discard),
    ]
}

/// A live slice, the bytes it must hold, and the freeze it came from
/// (clones share it, and only they may share a span).
struct Live {
    slice: Slice,
    want: Vec<u8>,
    freeze: usize,
}

fn check_live(live: &[Live]) {
    for l in live {
        assert_eq!(&l.slice[..], &l.want[..], "a live slice lost its bytes");
    }
    let mut ranges: Vec<(usize, usize, usize)> = live
        .iter()
        .filter(|l| l.slice.is_pooled() && !l.slice.is_empty())
        .map(|l| {
            let at = l.slice.as_ptr() as usize;
            (at, at + l.slice.len(), l.freeze)
        })
        .collect();
    ranges.sort();
    ranges.dedup();
    for w in ranges.windows(2) {
        assert!(w[0].1 <= w[1].0, "live slices overlap: {w:?}");
    }
}

/// Frames holding a slot: distinct freezes with a live pooled handle.
fn live_frames(live: &[Live]) -> usize {
    let mut frames: Vec<usize> = live
        .iter()
        .filter(|l| l.slice.is_pooled())
        .map(|l| l.freeze)
        .collect();
    frames.sort_unstable();
    frames.dedup();
    frames.len()
}

fn run(ops: &[Op], capacity: usize, slots: usize) {
    let mut pool = BufferPool::with_config(PoolConfig { capacity, slots });
    let mut live: Vec<Live> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut counter = 0u8;
    let mut freezes = 0;
    // Freezes in a row that fell back for want of a slot while one was
    // released.
    let mut starved = 0;
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
            }
            Op::Truncate(len) => {
                pool.truncate(len);
                pending.truncate(len);
            }
            Op::Freeze => {
                // A message in the arena that freezes into a heap slice
                // found no slot.
                let in_arena = !pool.is_spilled() && !pool.is_empty();
                let slice = pool.freeze();
                assert_eq!(&slice[..], &pending[..]);
                if slice.is_pooled() {
                    starved = 0;
                } else if in_arena && live_frames(&live) < slots {
                    starved += 1;
                    assert!(
                        starved <= slots / 8,
                        "{starved} freezes in a row found no slot with {} of {slots} frames live",
                        live_frames(&live)
                    );
                }
                freezes += 1;
                live.push(Live {
                    slice,
                    want: std::mem::take(&mut pending),
                    freeze: freezes,
                });
            }
            Op::Clone(i) if !live.is_empty() => {
                let l = &live[i % live.len()];
                let clone = Live {
                    slice: l.slice.clone(),
                    want: l.want.clone(),
                    freeze: l.freeze,
                };
                if l.slice.is_pooled() {
                    assert_eq!(
                        clone.slice.as_ptr(),
                        l.slice.as_ptr(),
                        "a copy, not a share"
                    );
                }
                live.push(clone);
            }
            Op::CloneElsewhere(i) if !live.is_empty() => {
                // Cloned and dropped on another thread, the original kept.
                let l = &live[i % live.len()];
                let (slice, want) = (&l.slice, &l.want);
                std::thread::scope(|s| {
                    s.spawn(|| {
                        let clone = slice.clone();
                        assert_eq!(&clone[..], &want[..]);
                    });
                });
            }
            Op::WriteThrough(i) if !live.is_empty() => {
                let n = live.len();
                let l = &mut live[i % n];
                if !l.want.is_empty() {
                    counter = counter.wrapping_add(1);
                    let at = i % l.want.len();
                    l.slice[at] = counter;
                    l.want[at] = counter;
                }
            }
            Op::Drop(i) if !live.is_empty() => {
                let i = i % live.len();
                live.swap_remove(i);
            }
            Op::DropElsewhere(i) if !live.is_empty() => {
                let Live { slice, want, .. } = live.swap_remove(i % live.len());
                std::thread::spawn(move || assert_eq!(&slice[..], &want[..]))
                    .join()
                    .unwrap();
            }
            Op::Clone(_)
            | Op::CloneElsewhere(_)
            | Op::WriteThrough(_)
            | Op::Drop(_)
            | Op::DropElsewhere(_) => {}
            Op::Discard => {
                pool.discard();
                pending.clear();
            }
        }
        assert_eq!(pool.len(), pending.len());
        assert_eq!(pool.pending_ref(usize::MAX), &pending[..]);
        assert_eq!(pool.pending(usize::MAX), &pending[..]);
        let half = pending.len() / 2;
        assert_eq!(pool.pending_ref(half), &pending[..half]);
        check_live(&live);
        let stats = pool.stats();
        let mut spans: Vec<(usize, usize)> = live
            .iter()
            .filter(|l| l.slice.is_pooled())
            .map(|l| (l.slice.as_ptr() as usize, l.slice.len()))
            .collect();
        spans.sort();
        spans.dedup();
        assert_eq!(stats.in_use, spans.iter().map(|s| s.1).sum::<usize>());
        assert!(stats.in_use <= capacity);
    }
    // The pool may go first; the slices stay valid and free the arena last.
    drop(pool);
    check_live(&live);
}

proptest! {
    // A few cases under Miri (scripts/test-sv2.sh), which runs each step
    // thousands of times slower.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 300 }))]

    #[test]
    fn slices_never_overlap_and_keep_their_bytes(
        ops in prop::collection::vec(op(), 1..150),
        capacity in prop_oneof![Just(0usize), 1..64usize, 64..4096usize, 40_000..120_000usize],
        slots in 1usize..40,
    ) {
        run(&ops, capacity, slots);
    }
}
