//! Arbitrary writes, freezes and drops in any order on a pool of arbitrary
//! capacity (0 included) and slot count: live slices never overlap and keep
//! their bytes, and in-use accounting matches.
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
    Freeze,
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

fuzz_target!(|input: Input| {
    let capacity = usize::from(input.capacity) % (16 << 10);
    let mut pool = BufferPool::with_config(PoolConfig {
        capacity,
        slots: usize::from(input.slots).max(1),
    });
    let mut live: Vec<(Slice, u8, usize)> = Vec::new();
    let mut pending = 0usize;
    let mut tag = 0u8;
    for op in input.ops {
        match op {
            Op::Write(n) => {
                pool.reserve(usize::from(n)).fill(tag);
                pending += usize::from(n);
            }
            Op::Huge(n) => {
                let n = (n as usize) % (2 * capacity + 64);
                pool.reserve(n).fill(tag);
                pending += n;
            }
            Op::Freeze => {
                let s = pool.freeze();
                assert_eq!(s.len(), pending);
                assert!(s.iter().all(|&b| b == tag));
                live.push((s, tag, pending));
                pending = 0;
                tag = tag.wrapping_add(1);
            }
            Op::Drop(i) if !live.is_empty() => {
                live.swap_remove(usize::from(i) % live.len());
            }
            Op::Drop(_) => {}
            Op::Discard => {
                pool.discard();
                pending = 0;
            }
        }
        // A write after a freeze uses the next tag only once frozen; keep
        // the pending bytes uniform by refilling them with the current tag.
        if pending > 0 {
            pool.pending(pending).fill(tag);
        }
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (s, t, len) in &live {
            assert_eq!(s.len(), *len);
            assert!(s.iter().all(|b| b == t), "a live slice lost its bytes");
            if s.is_pooled() && !s.is_empty() {
                ranges.push((s.as_ptr() as usize, s.as_ptr() as usize + s.len()));
            }
        }
        ranges.sort();
        assert!(
            ranges.windows(2).all(|w| w[0].1 <= w[1].0),
            "live slices overlap"
        );
        let pooled: usize = live
            .iter()
            .filter(|(s, _, _)| s.is_pooled())
            .map(|(s, _, _)| s.len())
            .sum();
        assert_eq!(pool.stats().in_use, pooled);
    }
    drop(pool);
    for (s, t, _) in &live {
        assert!(s.iter().all(|b| b == t));
    }
});
