//! Model-checked release protocol of the pool (run with
//! `RUSTFLAGS="--cfg loom" cargo test -p spool --release --test loom_pool`).
//! loom explores every interleaving of the slot holder counts and the owner
//! count: a slice released on another thread while the producer reclaims
//! and reuses its space, the pool dropped while slices are dropped
//! elsewhere (the shared memory must be freed exactly once, by whoever goes
//! last), clones made and dropped on other threads while the producer
//! reclaims or the pool is dropped, a write through a slice (copy on
//! write) racing the drop of its clone, and a frame released behind a held
//! one while the producer, out of slots, scans for it and reuses its space.
#![cfg(loom)]

use loom::thread;
use spool::pool::{BufferPool, PoolConfig};

#[test]
fn release_elsewhere_while_producer_reuses() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 8,
            slots: 2,
        });
        pool.reserve(6).copy_from_slice(b"abcdef");
        let a = pool.freeze();
        let t = thread::spawn(move || {
            assert_eq!(&a[..], b"abcdef");
            drop(a);
        });
        // Either the release is seen (the span is reused) or it is not (the
        // message falls back to the heap); never both owners at once.
        pool.reserve(8).fill(7);
        let b = pool.freeze();
        assert_eq!(&b[..], &[7; 8]);
        t.join().unwrap();
        let stats = pool.stats();
        assert_eq!(stats.live, usize::from(b.is_pooled()));
    });
}

#[test]
fn pool_dropped_while_slices_drop_elsewhere() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 16,
            slots: 4,
        });
        pool.reserve(4).fill(1);
        let a = pool.freeze();
        pool.reserve(4).fill(2);
        let b = pool.freeze();
        let ta = thread::spawn(move || assert_eq!(&a[..], &[1; 4]));
        let tb = thread::spawn(move || assert_eq!(&b[..], &[2; 4]));
        drop(pool);
        ta.join().unwrap();
        tb.join().unwrap();
    });
}

#[test]
fn two_releases_and_a_reclaim() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 8,
            slots: 2,
        });
        pool.reserve(4).fill(1);
        let a = pool.freeze();
        pool.reserve(4).fill(2);
        let b = pool.freeze();
        let ta = thread::spawn(move || drop(a));
        let tb = thread::spawn(move || drop(b));
        pool.reserve(4).fill(3);
        let c = pool.freeze();
        assert_eq!(&c[..], &[3; 4]);
        ta.join().unwrap();
        tb.join().unwrap();
        drop(c);
        assert_eq!(pool.stats().live, 0);
    });
}

#[test]
fn clone_dropped_elsewhere_while_producer_reuses() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 8,
            slots: 2,
        });
        pool.reserve(8).fill(1);
        let a = pool.freeze();
        let clone = a.clone();
        let t = thread::spawn(move || {
            assert_eq!(&clone[..], &[1; 8]);
        });
        drop(a);
        // The span comes back only once the clone is gone too.
        pool.reserve(8).fill(2);
        let b = pool.freeze();
        assert_eq!(&b[..], &[2; 8]);
        t.join().unwrap();
        assert_eq!(pool.stats().live, usize::from(b.is_pooled()));
    });
}

#[test]
fn clones_dropped_elsewhere_while_the_pool_drops() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 16,
            slots: 2,
        });
        pool.reserve(4).fill(1);
        let a = pool.freeze();
        let clone = a.clone();
        let ta = thread::spawn(move || assert_eq!(&a[..], &[1; 4]));
        let tc = thread::spawn(move || {
            let again = clone.clone();
            drop(clone);
            assert_eq!(&again[..], &[1; 4]);
        });
        drop(pool);
        ta.join().unwrap();
        tc.join().unwrap();
    });
}

#[test]
fn write_through_a_slice_while_its_clone_drops() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 8,
            slots: 2,
        });
        pool.reserve(4).fill(1);
        let mut a = pool.freeze();
        let clone = a.clone();
        let t = thread::spawn(move || {
            assert_eq!(&clone[..], &[1; 4]);
        });
        // Either the clone is still there (the write copies first) or it is
        // gone (the write lands in place); the clone never sees it.
        a[0] = 9;
        t.join().unwrap();
        assert_eq!(&a[..], &[9, 1, 1, 1]);
        assert_eq!(pool.stats().live, usize::from(a.is_pooled()));
        drop(a);
        assert_eq!(pool.stats().live, 0);
    });
}

#[test]
fn released_behind_a_held_frame_while_producer_scans() {
    loom::model(|| {
        let mut pool = BufferPool::with_config(PoolConfig {
            capacity: 12,
            slots: 2,
        });
        pool.reserve(4).fill(1);
        let a = pool.freeze();
        pool.reserve(4).fill(2);
        let b = pool.freeze();
        let t = thread::spawn(move || {
            assert_eq!(&b[..], &[2; 4]);
            drop(b);
        });
        // No slot is free and the held `a` is at the front: `c` takes
        // `b`'s slot if the scan sees its release, else the heap; `d` then
        // lands on `b`'s bytes, past `a`, or on the heap.
        pool.reserve(4).fill(3);
        let c = pool.freeze();
        pool.reserve(4).fill(4);
        let d = pool.freeze();
        t.join().unwrap();
        assert_eq!(&a[..], &[1; 4]);
        assert_eq!(&c[..], &[3; 4]);
        assert_eq!(&d[..], &[4; 4]);
        let pooled = [&a, &c, &d].iter().filter(|s| s.is_pooled()).count();
        assert_eq!(pool.stats().live, pooled);
    });
}
