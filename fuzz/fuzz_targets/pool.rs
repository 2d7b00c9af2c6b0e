//! Arbitrary writes, truncations, freezes, clones, writes through frames,
//! conversions to `Vec` and drops in any order on a pool of arbitrary
//! capacity (0 included) and slot count, against a `Vec` oracle: the
//! pending message reads (`pending`, `pending_ref`) as the oracle says,
//! every live slice keeps exactly its bytes (a write through a slice is
//! seen by that slice alone, whatever clones it has), slices that are not
//! clones of one another never overlap, and in-use accounting matches.
//! This is the contract `compat/buffer_sv2` builds buffer_sv2's on.
//!
//! Sizes are bounded by the pool's capacity (a "huge" write is up to twice
//! the capacity plus a little, so it still overflows to the heap): what
//! matters is where a write lands relative to the ring's edges, not how
//! many megabytes it fills — 16 MiB writes held the target to ~100 runs/s.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool::pool::{BufferPool, PoolConfig, Slice};

#[derive(Arbitrary, Debug)]
enum Op {
    Write(u8),
    Huge(u32),
    Truncate(u16),
    Patch(u16, u8),
    Freeze,
    Clone(u8),
    WriteThrough(u8, u16, u8),
    IntoVec(u8),
    Drop(u8),
    Discard,
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// At most 16 KiB: every edge case of the ring shows up at this size.
    capacity: u16,
    slots: u8,
    ops: Vec<Op>,
}

/// A live slice, the bytes it must hold, and which freeze it came from
/// (clones share the number; only they may share a span).
struct Live {
    slice: Slice,
    want: Vec<u8>,
    origin: usize,
}

fuzz_target!(|input: Input| {
    let capacity = usize::from(input.capacity) % (16 << 10);
    let mut pool = BufferPool::with_config(PoolConfig {
        capacity,
        slots: usize::from(input.slots).max(1),
    });
    let mut live: Vec<Live> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let (mut tag, mut freezes) = (0u8, 0usize);
    for op in input.ops {
        match op {
            Op::Write(n) => {
                tag = tag.wrapping_add(1);
                pool.reserve(usize::from(n)).fill(tag);
                pending.resize(pending.len() + usize::from(n), tag);
            }
            Op::Huge(n) => {
                tag = tag.wrapping_add(1);
                let n = (n as usize) % (2 * capacity + 64);
                pool.reserve(n).fill(tag);
                pending.resize(pending.len() + n, tag);
            }
            Op::Truncate(n) => {
                pool.truncate(usize::from(n));
                pending.truncate(usize::from(n));
            }
            Op::Patch(i, b) if !pending.is_empty() => {
                let at = usize::from(i) % pending.len();
                pool.pending(at + 1)[at] = b;
                pending[at] = b;
            }
            Op::Freeze => {
                let slice = pool.freeze();
                assert_eq!(&slice[..], &pending[..]);
                live.push(Live {
                    slice,
                    want: std::mem::take(&mut pending),
                    origin: freezes,
                });
                freezes += 1;
            }
            Op::Clone(i) if !live.is_empty() => {
                let l = &live[usize::from(i) % live.len()];
                let clone = Live {
                    slice: l.slice.clone(),
                    want: l.want.clone(),
                    origin: l.origin,
                };
                if l.slice.is_pooled() {
                    assert_eq!(clone.slice.as_ptr(), l.slice.as_ptr(), "shared, not copied");
                }
                live.push(clone);
            }
            Op::WriteThrough(i, at, b) if !live.is_empty() => {
                let n = live.len();
                let l = &mut live[usize::from(i) % n];
                if !l.want.is_empty() {
                    let at = usize::from(at) % l.want.len();
                    l.slice[at] = b;
                    l.want[at] = b;
                }
            }
            Op::IntoVec(i) if !live.is_empty() => {
                let l = live.swap_remove(usize::from(i) % live.len());
                assert_eq!(Vec::from(l.slice), l.want);
            }
            Op::Drop(i) if !live.is_empty() => {
                live.swap_remove(usize::from(i) % live.len());
            }
            Op::Discard => {
                pool.discard();
                pending.clear();
            }
            _ => {}
        }
        assert_eq!(pool.len(), pending.len());
        assert_eq!(pool.pending_ref(usize::MAX), &pending[..]);
        assert_eq!(pool.pending(3), &pending[..pending.len().min(3)]);
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for l in &live {
            assert_eq!(&l.slice[..], &l.want[..], "a live slice lost its bytes");
            if l.slice.is_pooled() && !l.slice.is_empty() {
                let start = l.slice.as_ptr() as usize;
                spans.push((start, start + l.slice.len(), l.origin));
            }
        }
        // Clones of one freeze share a span; nothing else may overlap.
        spans.sort_unstable();
        spans.dedup();
        assert!(
            spans.windows(2).all(|w| w[0].1 <= w[1].0),
            "live slices overlap: {spans:?}"
        );
        let stats = pool.stats();
        assert_eq!(stats.in_use, spans.iter().map(|s| s.1 - s.0).sum::<usize>());
        assert_eq!(stats.live, spans.len());
    }
    drop(pool);
    for l in &live {
        assert_eq!(&l.slice[..], &l.want[..]);
    }
});
