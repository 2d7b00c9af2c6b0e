//! Recycled fixed-size chunks with a hard budget.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};

/// A pool of at most `max_chunks` chunks of `chunk_len` bytes, allocated on
/// first use and recycled: a [`Chunk`] goes back to the pool when dropped,
/// on any thread. Cloning the pool shares it.
///
/// # Examples
///
/// ```
/// use spool_io::write::ChunkPool;
/// let pool = ChunkPool::new(4096, 2); // at most 8 KiB in chunks
/// let a = pool.try_take().unwrap();
/// let b = pool.try_take().unwrap();
/// assert!(pool.try_take().is_none()); // budget spent
/// drop(a);
/// let c = pool.try_take().unwrap(); // a's memory, recycled
/// assert_eq!(c.capacity(), 4096);
/// # drop((b, c));
/// ```
#[derive(Clone)]
pub struct ChunkPool {
    inner: Arc<Inner>,
}

struct Inner {
    chunk_len: usize,
    max_chunks: usize,
    allocated: AtomicUsize,
    free_tx: Sender<Vec<u8>>,
    free_rx: Receiver<Vec<u8>>,
}

impl ChunkPool {
    /// A pool of up to `max_chunks` (at least 1) chunks of `chunk_len`
    /// (at least 1) bytes.
    pub fn new(chunk_len: usize, max_chunks: usize) -> Self {
        let max_chunks = max_chunks.max(1);
        let (free_tx, free_rx) = bounded(max_chunks);
        ChunkPool {
            inner: Arc::new(Inner {
                chunk_len: chunk_len.max(1),
                max_chunks,
                allocated: AtomicUsize::new(0),
                free_tx,
                free_rx,
            }),
        }
    }

    /// A pool whose chunks total at most `budget` bytes (at least one chunk).
    pub fn with_budget(chunk_len: usize, budget: usize) -> Self {
        Self::new(chunk_len, budget / chunk_len.max(1))
    }

    /// Bytes in each chunk.
    pub fn chunk_len(&self) -> usize {
        self.inner.chunk_len
    }

    /// The most chunks that can exist at once.
    pub fn max_chunks(&self) -> usize {
        self.inner.max_chunks
    }

    /// Chunks allocated so far (never more than [`max_chunks`](Self::max_chunks)).
    pub fn allocated(&self) -> usize {
        self.inner.allocated.load(Ordering::Relaxed)
    }

    /// An empty chunk, or `None` if the budget is spent and none is free.
    pub fn try_take(&self) -> Option<Chunk> {
        let buf = match self.inner.free_rx.try_recv() {
            Ok(buf) => buf,
            Err(_) => self.allocate()?,
        };
        Some(self.wrap(buf))
    }

    /// An empty chunk, waiting up to `timeout` for one to come back.
    pub fn take_timeout(&self, timeout: Duration) -> Option<Chunk> {
        if let Some(chunk) = self.try_take() {
            return Some(chunk);
        }
        let buf = self.inner.free_rx.recv_timeout(timeout).ok()?;
        Some(self.wrap(buf))
    }

    fn allocate(&self) -> Option<Vec<u8>> {
        let inner = &self.inner;
        let mut n = inner.allocated.load(Ordering::Relaxed);
        loop {
            if n >= inner.max_chunks {
                return None;
            }
            match inner.allocated.compare_exchange_weak(
                n,
                n + 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(Vec::with_capacity(inner.chunk_len)),
                Err(now) => n = now,
            }
        }
    }

    fn wrap(&self, buf: Vec<u8>) -> Chunk {
        Chunk {
            buf,
            pool: Arc::clone(&self.inner),
        }
    }
}

/// A chunk from a [`ChunkPool`]: a `Vec<u8>` of fixed capacity that goes
/// back to its pool when dropped. Fill it up to
/// [`remaining`](Chunk::remaining) bytes; growing it past its capacity would
/// break the pool's budget, so [`push_slice`](Chunk::push_slice) refuses to.
pub struct Chunk {
    buf: Vec<u8>,
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
        // The channel has room for every chunk ever allocated.
        let _ = self.pool.free_tx.try_send(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_more_than_the_budget_across_threads() {
        let pool = ChunkPool::new(1024, 8);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        let mut held = Vec::new();
                        while let Some(c) = pool.try_take() {
                            held.push(c);
                            if held.len() == 3 {
                                break;
                            }
                        }
                        assert!(pool.allocated() <= 8);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(pool.allocated() <= 8);
        let all: Vec<_> = std::iter::from_fn(|| pool.try_take()).collect();
        assert_eq!(all.len(), 8, "every chunk came back");
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
}
