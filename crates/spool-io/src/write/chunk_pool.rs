//! Recycled chunks in power-of-two size classes under one byte budget.
//!
//! A buffer per group cannot have one fixed size: a thousand groups in
//! 64 MiB can each fill 64 KiB before writing, a hundred thousand groups
//! get 670 bytes each. So chunks come in classes (`min_len`, `2*min_len`,
//! … `max_len`); a group starts small and moves up a class as it fills, and
//! the pool counts every allocated byte against `budget`. Freed chunks go
//! back to their class's free list; when a class is empty and the budget is
//! spent, free chunks of *other* classes are released to make room. What
//! the pool never does is allocate past its budget.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};
use crossbeam_queue::SegQueue;

/// Chunks of `min_len..=max_len` bytes (powers of two apart) with at most
/// `budget` bytes allocated at once, recycled: a [`Chunk`] goes back to the
/// pool when dropped, on any thread. Cloning the pool shares it.
///
/// # Examples
///
/// ```
/// use spool_io::write::ChunkPool;
/// let pool = ChunkPool::new(4096, 2); // one class, at most 8 KiB
/// let a = pool.try_take().unwrap();
/// let b = pool.try_take().unwrap();
/// assert!(pool.try_take().is_none()); // budget spent
/// drop(a);
/// let c = pool.try_take().unwrap(); // a's memory, recycled
/// assert_eq!(c.capacity(), 4096);
/// # drop((b, c));
///
/// let classes = ChunkPool::with_classes(1024, 64 << 10, 1 << 20);
/// let small = classes.try_take_at_least(100).unwrap();
/// assert_eq!(small.capacity(), 1024);
/// let big = classes.try_take_at_least(5000).unwrap();
/// assert_eq!(big.capacity(), 8192);
/// ```
#[derive(Clone)]
pub struct ChunkPool {
    inner: Arc<Inner>,
}

struct Inner {
    min_len: usize,
    /// Free chunks of class `i` have capacity `min_len << i`.
    classes: Vec<SegQueue<Vec<u8>>>,
    budget: usize,
    /// Bytes of every chunk in existence, free or taken.
    allocated: AtomicUsize,
    /// A token per chunk returned, for waiters (lossy: only wakes them).
    returned_tx: Sender<()>,
    returned_rx: Receiver<()>,
}

impl ChunkPool {
    /// A pool of up to `max_chunks` (at least 1) chunks of `chunk_len`
    /// (at least 1) bytes: one class.
    pub fn new(chunk_len: usize, max_chunks: usize) -> Self {
        let chunk_len = chunk_len.max(1);
        Self::build(chunk_len, 1, chunk_len * max_chunks.max(1))
    }

    /// A one-class pool whose chunks total at most `budget` bytes (room for
    /// at least one chunk).
    pub fn with_budget(chunk_len: usize, budget: usize) -> Self {
        Self::new(chunk_len, budget / chunk_len.max(1))
    }

    /// Classes from `min_len` up to `max_len` (both rounded up to powers of
    /// two), `budget` bytes in all (at least one `max_len` chunk).
    pub fn with_classes(min_len: usize, max_len: usize, budget: usize) -> Self {
        let min_len = min_len.max(1).next_power_of_two();
        let max_len = max_len.max(min_len).next_power_of_two();
        let classes = (max_len / min_len).trailing_zeros() as usize + 1;
        Self::build(min_len, classes, budget.max(max_len))
    }

    fn build(min_len: usize, classes: usize, budget: usize) -> Self {
        let (returned_tx, returned_rx) = bounded(1);
        ChunkPool {
            inner: Arc::new(Inner {
                min_len,
                classes: (0..classes).map(|_| SegQueue::new()).collect(),
                budget,
                allocated: AtomicUsize::new(0),
                returned_tx,
                returned_rx,
            }),
        }
    }

    /// Bytes in the largest chunk.
    pub fn chunk_len(&self) -> usize {
        self.inner.class_len(self.inner.classes.len() - 1)
    }

    /// Bytes in the smallest chunk.
    pub fn min_len(&self) -> usize {
        self.inner.min_len
    }

    /// The most bytes all chunks together may hold.
    pub fn budget(&self) -> usize {
        self.inner.budget
    }

    /// Bytes allocated to chunks now (never more than the budget).
    pub fn allocated_bytes(&self) -> usize {
        self.inner.allocated.load(Ordering::Relaxed)
    }

    /// Capacity of the chunk [`try_take_at_least(len)`](Self::try_take_at_least)
    /// hands out.
    pub fn capacity_for(&self, len: usize) -> usize {
        self.inner.class_len(self.inner.class_for(len))
    }

    /// An empty chunk of the largest class, or `None` if the budget is
    /// spent and none is free.
    pub fn try_take(&self) -> Option<Chunk> {
        self.take_class(self.inner.classes.len() - 1)
    }

    /// An empty chunk of the smallest class that holds `len` bytes (the
    /// largest class if none does), or `None` if the budget is spent.
    pub fn try_take_at_least(&self, len: usize) -> Option<Chunk> {
        self.take_class(self.inner.class_for(len))
    }

    /// Like [`try_take_at_least`](Self::try_take_at_least), waiting up to
    /// `timeout` for chunks to come back when the budget is spent.
    pub fn take_timeout(&self, len: usize, timeout: Duration) -> Option<Chunk> {
        let class = self.inner.class_for(len);
        if let Some(chunk) = self.take_class(class) {
            return Some(chunk);
        }
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let _ = self.inner.returned_rx.recv_timeout(left);
            if let Some(chunk) = self.take_class(class) {
                return Some(chunk);
            }
        }
    }

    fn take_class(&self, class: usize) -> Option<Chunk> {
        let inner = &self.inner;
        let buf = match inner.classes[class].pop() {
            Some(buf) => buf,
            None => {
                let len = inner.class_len(class);
                if !inner.make_room(len, Some(class)) {
                    return None;
                }
                Vec::with_capacity(len)
            }
        };
        Some(Chunk {
            buf,
            class,
            pool: Arc::clone(&self.inner),
        })
    }

    /// Charges `len` bytes of memory used outside the chunks (bookkeeping
    /// that grows with the data, such as a table of keys) against the
    /// budget, for good; `false` if the budget has no room even after
    /// releasing free chunks.
    pub fn try_charge(&self, len: usize) -> bool {
        self.inner.make_room(len, None)
    }

    /// Gives back `len` bytes [charged](Self::try_charge) before, waking
    /// anyone waiting for memory.
    ///
    /// ```
    /// use spool_io::write::ChunkPool;
    /// let pool = ChunkPool::new(4096, 1);
    /// assert!(pool.try_charge(4096));
    /// assert!(pool.try_take().is_none());
    /// pool.release_charge(4096);
    /// assert!(pool.try_take().is_some());
    /// ```
    pub fn release_charge(&self, len: usize) {
        self.inner.allocated.fetch_sub(len, Ordering::Relaxed);
        let _ = self.inner.returned_tx.try_send(());
    }

    /// Waits up to `timeout` for a chunk to come back to the pool.
    pub fn wait_returned(&self, timeout: Duration) {
        let _ = self.inner.returned_rx.recv_timeout(timeout);
    }
}

impl Inner {
    fn class_len(&self, class: usize) -> usize {
        self.min_len << class
    }

    fn class_for(&self, len: usize) -> usize {
        let last = self.classes.len() - 1;
        if len <= self.min_len {
            return 0;
        }
        let class = (len.div_ceil(self.min_len))
            .next_power_of_two()
            .trailing_zeros() as usize;
        class.min(last)
    }

    /// Counts `len` more bytes if the budget allows, releasing free chunks
    /// (of any class but `keep`) to make room.
    fn make_room(&self, len: usize, keep: Option<usize>) -> bool {
        if self.reserve(len) {
            return true;
        }
        for (i, queue) in self.classes.iter().enumerate() {
            if Some(i) == keep {
                continue;
            }
            while let Some(buf) = queue.pop() {
                self.allocated.fetch_sub(buf.capacity(), Ordering::Relaxed);
                drop(buf);
                if self.reserve(len) {
                    return true;
                }
            }
        }
        false
    }

    /// Counts `len` more bytes if the budget allows.
    fn reserve(&self, len: usize) -> bool {
        let mut n = self.allocated.load(Ordering::Relaxed);
        loop {
            if n + len > self.budget {
                return false;
            }
            match self.allocated.compare_exchange_weak(
                n,
                n + len,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => n = now,
            }
        }
    }
}

/// A chunk from a [`ChunkPool`]: a `Vec<u8>` of fixed capacity that goes
/// back to its pool when dropped. Fill it up to
/// [`remaining`](Chunk::remaining) bytes; growing it past its capacity would
/// break the pool's budget, so [`push_slice`](Chunk::push_slice) refuses to.
pub struct Chunk {
    buf: Vec<u8>,
    class: usize,
    pool: Arc<Inner>,
}

impl Chunk {
    /// Bytes that still fit.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.capacity() - self.buf.len()
    }

    /// Appends `data` if it fits in the remaining capacity; returns whether
    /// it did.
    #[inline]
    pub fn push_slice(&mut self, data: &[u8]) -> bool {
        if data.len() > self.remaining() {
            return false;
        }
        self.buf.extend_from_slice(data);
        true
    }
}

impl std::ops::Deref for Chunk {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.buf
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        self.pool.classes[self.class].push(buf);
        let _ = self.pool.returned_tx.try_send(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_more_than_the_budget_across_threads() {
        let pool = ChunkPool::with_classes(64, 1024, 4096);
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for i in 0..5_000usize {
                        let mut held = Vec::new();
                        while let Some(c) = pool.try_take_at_least((i * 7 + t * 13) % 1500) {
                            held.push(c);
                            assert!(pool.allocated_bytes() <= 4096);
                            if held.len() == 3 {
                                break;
                            }
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(pool.allocated_bytes() <= 4096);
        // Everything came back: the whole budget is available as 1 KiB chunks.
        let all: Vec<_> = std::iter::from_fn(|| pool.try_take()).collect();
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn classes_round_up() {
        let pool = ChunkPool::with_classes(1000, 5000, 1 << 20);
        assert_eq!((pool.min_len(), pool.chunk_len()), (1024, 8192));
        for (want, cap) in [
            (0, 1024),
            (1024, 1024),
            (1025, 2048),
            (8192, 8192),
            (100_000, 8192),
        ] {
            assert_eq!(
                pool.try_take_at_least(want).unwrap().capacity(),
                cap,
                "{want}"
            );
        }
    }

    #[test]
    fn push_slice_refuses_to_grow() {
        let pool = ChunkPool::new(4, 1);
        let mut c = pool.try_take().unwrap();
        assert!(c.push_slice(b"abc"));
        assert!(!c.push_slice(b"de"));
        assert!(c.push_slice(b"d"));
        assert_eq!(&c[..], b"abcd");
        assert_eq!(c.capacity(), 4);
    }

    #[test]
    fn waiting_taker_wakes_when_a_chunk_returns() {
        let pool = ChunkPool::new(16, 1);
        let held = pool.try_take().unwrap();
        let p = pool.clone();
        let t = std::thread::spawn(move || p.take_timeout(16, Duration::from_secs(10)).is_some());
        std::thread::sleep(Duration::from_millis(20));
        drop(held);
        assert!(t.join().unwrap());
    }
}
