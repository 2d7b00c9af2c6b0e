//! What a [`BufferPool`](super::BufferPool) reports about its use.

/// Counters of a pool's use.
///
/// # Examples
///
/// ```
/// let mut pool = spool::pool::BufferPool::new(64);
/// pool.reserve(8);
/// let frame = pool.freeze();
/// let stats = pool.stats();
/// assert_eq!((stats.capacity, stats.in_use, stats.live), (64, 8, 1));
/// drop(frame);
/// assert_eq!(pool.stats().live, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Arena size in bytes.
    pub capacity: usize,
    /// Bytes of the arena held by live slices right now.
    pub in_use: usize,
    /// The most bytes live slices ever held at once (as seen at freezes).
    pub high_water: usize,
    /// Messages that had to live on the heap because the arena was full.
    pub fallbacks: u64,
    /// Slices currently alive in the arena.
    pub live: usize,
}
