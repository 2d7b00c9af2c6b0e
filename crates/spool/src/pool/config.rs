//! The sizes a [`BufferPool`](super::BufferPool) is made with.

/// Default number of slots: frames that can be live at once.
pub const DEFAULT_SLOTS: usize = 1024;

/// The sizes a [`BufferPool`](super::BufferPool) is made with, by name, so the two numbers
/// cannot be swapped.
///
/// # Examples
///
/// ```
/// use spool::pool::{BufferPool, PoolConfig};
///
/// let pool = BufferPool::with_config(PoolConfig { capacity: 4096, slots: 8 });
/// assert_eq!(pool.stats().capacity, 4096);
/// assert_eq!(PoolConfig::with_capacity(4096).slots, spool::pool::DEFAULT_SLOTS);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    /// Arena size in bytes, allocated up front.
    pub capacity: usize,
    /// Frames that may be live at once; past that, freezing falls back to
    /// the heap. At most `u32::MAX`.
    pub slots: usize,
}

impl PoolConfig {
    /// `capacity` bytes and [`DEFAULT_SLOTS`] slots.
    ///
    /// # Examples
    ///
    /// ```
    /// let config = spool::pool::PoolConfig::with_capacity(1 << 16);
    /// assert_eq!((config.capacity, config.slots), (1 << 16, 1024));
    /// ```
    #[must_use]
    pub const fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity,
            slots: DEFAULT_SLOTS,
        }
    }
}
