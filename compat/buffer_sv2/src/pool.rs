//! [`BufferPool`]: buffer_sv2's pool type, as a thin layer over
//! [`spool::pool::BufferPool`] — one pre-allocated arena, 1024 slots,
//! frames that may outlive the pool, a drop that never waits.
//!
//! Its `Buffer` and `AeadBuffer` methods are `on_spool.rs`'s, shared with
//! the heap buffer.

use core::fmt;
use core::marker::PhantomData;

use crate::on_spool::buffer_on_spool;
use crate::{Buffer, BufferFromSystemMemory, Slice};

/// A pool of frame memory for Stratum V2's codec: buffer_sv2's
/// `BufferPool<T>`, backed by [`spool::pool::BufferPool`].
///
/// `T` is the type buffer_sv2 falls back to when its pool is full; it is
/// kept so that `BufferPool<BufferFromSystemMemory>` names the same type as
/// before, but spool's pool spills a message that fits nowhere to its own
/// heap buffer (and the next message tries the arena again).
///
/// Differences from buffer_sv2 3.x: up to 1024 frames live at once in the
/// arena instead of 8 (more go to the heap, still correct); dropping the
/// pool while frames live is safe and returns at once instead of spinning
/// until they are dropped; a frame's `clone` shares its bytes, which stay
/// as written until the last clone drops; there are no modes (see
/// [`is_back_mode`](Self::is_back_mode)).
///
/// # Examples
///
/// ```
/// use buffer_sv2::{Buffer, BufferPool};
///
/// let mut pool = BufferPool::new(1 << 16);
/// pool.get_writable(4).copy_from_slice(b"AAAA");
/// let frame = pool.get_data_owned();
/// let held = frame.clone();
/// drop(frame);
/// pool.get_writable(4).copy_from_slice(b"BBBB");
/// let next = pool.get_data_owned();
/// assert_eq!((held.as_ref(), next.as_ref()), (&b"AAAA"[..], &b"BBBB"[..]));
/// drop(pool); // frames may outlive the pool; nothing waits
/// assert_eq!(held.as_ref(), b"AAAA");
/// ```
pub struct BufferPool<T: Buffer> {
    spool: spool::pool::BufferPool,
    start: usize,
    fallback: PhantomData<fn() -> T>,
}

impl BufferPool<BufferFromSystemMemory> {
    /// A pool over one `capacity`-byte arena with spool's default 1024
    /// slots.
    ///
    /// # Examples
    ///
    /// ```
    /// use buffer_sv2::{Buffer, BufferPool};
    /// let pool = BufferPool::new(327_680);
    /// assert!(pool.is_empty());
    /// ```
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            spool: spool::pool::BufferPool::new(capacity),
            start: 0,
            fallback: PhantomData,
        }
    }
}

impl<T: Buffer> BufferPool<T> {
    /// buffer_sv2's "allocating from the arena's back" mode. spool's pool
    /// has no modes: true while the pending message is in the arena.
    ///
    /// # Examples
    ///
    /// ```
    /// let pool = buffer_sv2::BufferPool::new(64);
    /// assert!(pool.is_back_mode() && !pool.is_front_mode() && !pool.is_alloc_mode());
    /// ```
    #[must_use]
    pub fn is_back_mode(&self) -> bool {
        !self.spool.is_spilled()
    }

    /// buffer_sv2's "allocating from the arena's front" mode: always false
    /// (spool's pool places a message in any free gap, front or back).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!buffer_sv2::BufferPool::new(64).is_front_mode());
    /// ```
    #[must_use]
    pub fn is_front_mode(&self) -> bool {
        false
    }

    /// buffer_sv2's "allocating from the heap" mode: true while the pending
    /// message is on the heap because no gap in the arena fits it.
    ///
    /// # Examples
    ///
    /// ```
    /// use buffer_sv2::{Buffer, BufferPool};
    /// let mut pool = BufferPool::new(8);
    /// pool.get_writable(9);
    /// assert!(pool.is_alloc_mode());
    /// ```
    #[must_use]
    pub fn is_alloc_mode(&self) -> bool {
        self.spool.is_spilled()
    }

    /// Whether the pool may be dropped: always, since frames outlive it
    /// safely (buffer_sv2's is false while any frame lives).
    ///
    /// # Examples
    ///
    /// ```
    /// use buffer_sv2::{Buffer, BufferPool};
    /// let mut pool = BufferPool::new(64);
    /// pool.get_writable(1);
    /// let _frame = pool.get_data_owned();
    /// assert!(pool.droppable());
    /// ```
    #[must_use]
    pub fn droppable(&self) -> bool {
        true
    }
}

buffer_on_spool!([T: Buffer] BufferPool<T>, Slice, core::convert::identity);

impl<T: Buffer> fmt::Debug for BufferPool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferPool")
            .field("pool", &self.spool)
            .field("start", &self.start)
            .finish()
    }
}
