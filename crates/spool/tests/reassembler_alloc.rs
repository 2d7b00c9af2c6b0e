//! An insert never allocates: the reassembler's memory is all taken when it
//! is made. A counting global allocator checks it over schedules that use
//! the range mode, the bitmap mode and both ends of the window.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use spool::{reassembler::Reassembler, stream::ByteStream};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting has no effect on the memory returned.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc`, passed through.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed through.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `realloc`, passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Segments `(index, len)` of a stream of `total` bytes: each window of
/// `capacity` filled back to front in `step`-byte pieces, as the CS144
/// speed test does, then a scatter of one-byte pieces that needs the bitmap.
fn schedule(total: u64, capacity: u64, step: u64) -> Vec<(u64, u64)> {
    let mut segments = Vec::new();
    let mut i = 0;
    while i < total {
        let mut start = i + capacity - 1;
        loop {
            segments.push((start, 1500));
            if start == i {
                break;
            }
            start = start.saturating_sub(step).max(i);
        }
        i += capacity;
    }
    segments.extend((0..200).map(|k| (total + 1 + 2 * k, 1)));
    segments.extend((0..3).map(|k| (u64::MAX - k, 5)));
    segments
}

#[test]
fn inserts_never_allocate() {
    let data: Vec<u8> = (0..=255).cycle().take(1 << 20).collect();
    for (capacity, step) in [(4096u64, 1500u64), (4096, 150), (1000, 7)] {
        let segments = schedule(200_000, capacity, step);
        let mut r = Reassembler::new(ByteStream::new(capacity as usize));
        let before = allocations();
        for &(index, len) in &segments {
            let at = (index % 1000) as usize;
            r.insert(index, &data[at..at + len as usize], false);
            let n = r.reader_ref().peek().len();
            r.reader().pop(n);
        }
        assert_eq!(
            allocations() - before,
            0,
            "allocations over {} inserts (capacity {capacity})",
            segments.len()
        );
        assert!(r.writer_ref().bytes_pushed() >= 200_000);
    }
}
