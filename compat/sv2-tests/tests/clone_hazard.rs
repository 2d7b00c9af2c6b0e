//! The clone hazard of buffer_sv2's `Slice`, run on both crates.
//!
//! buffer_sv2 3.x derives `Clone` on `Slice`, which copies the handle, not
//! the bytes: once the original is dropped, its pool reuses the memory
//! under the live clone (which then reads "BBBB" where "AAAA" was written),
//! and each drop flips the slot's bit, so after the clone and the next
//! frame drop the bit is left set and the pool's `Drop` spins forever. On
//! spool's buffer_sv2 the clone shares the bytes by reference count: it
//! keeps "AAAA" and the pool drops at once. The same code runs on
//! crates.io's crate (`real/`), where it checks that the hazard is there —
//! which is what shows this test can see it.

use std::sync::mpsc;
use std::time::Duration;

use buffer_sv2::{Buffer, BufferPool};

/// Whether this build runs on crates.io's buffer_sv2.
const REAL: bool = cfg!(feature = "real");

#[test]
fn a_clone_keeps_its_bytes_and_the_pool_drops_at_once() {
    let mut pool = BufferPool::new(1 << 16);
    pool.get_writable(4).copy_from_slice(b"AAAA");
    let original = pool.get_data_owned();
    let clone = original.clone();
    drop(original);
    pool.get_writable(4).copy_from_slice(b"BBBB");
    let next = pool.get_data_owned();
    let seen = clone.as_ref().to_vec();
    drop(clone);
    drop(next);

    let (done, returned) = mpsc::channel();
    std::thread::spawn(move || {
        drop(pool);
        done.send(()).unwrap();
    });
    let dropped = returned.recv_timeout(Duration::from_secs(5)).is_ok();

    if REAL {
        assert_eq!(seen, b"BBBB", "buffer_sv2 reused the clone's bytes");
        assert!(!dropped, "buffer_sv2's pool spins in Drop");
    } else {
        assert_eq!(seen, b"AAAA", "the clone must keep its bytes");
        assert!(dropped, "the pool must drop without waiting");
    }
}
