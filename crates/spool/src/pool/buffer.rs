//! The [`Buffer`] trait — where a decoder writes a message before
//! freezing it — implemented by the pool and by a plain heap buffer, so a
//! decoder written against it runs on either.
//!
//! Its names are spool's: [`reserve`](Buffer::reserve),
//! [`freeze`](Buffer::freeze), [`pending`](Buffer::pending) (and
//! [`pending_ref`](Buffer::pending_ref) through `&self`),
//! [`truncate`](Buffer::truncate), [`discard`](Buffer::discard). `buffer_sv2`'s names for the same jobs are
//! in [`compat`](super::compat), with the table of how the two crates'
//! types correspond.

use alloc::vec::Vec;

use super::{BufferPool, Slice};

/// Where a decoder writes a message before freezing it.
///
/// Contract for implementers: [`reserve`](Buffer::reserve) grows the pending
/// message by exactly `len` bytes and [`len`](Buffer::len) counts them;
/// [`freeze`](Buffer::freeze) hands every pending byte over, in order, and
/// leaves the pending message empty; [`pending`](Buffer::pending) and
/// [`pending_ref`](Buffer::pending_ref) see the first `min(len, self.len())`
/// pending bytes; [`truncate`](Buffer::truncate) keeps the first `len` and
/// never grows the message; [`discard`](Buffer::discard) empties it without
/// handing anything over.
///
/// # Examples
///
/// ```
/// use spool::pool::{Buffer, BufferPool, HeapBuffer, Slice};
///
/// fn message<B: Buffer>(buffer: &mut B) -> Slice {
///     buffer.reserve(2).copy_from_slice(b"hi");
///     buffer.freeze()
/// }
/// assert_eq!(&message(&mut BufferPool::new(64))[..], b"hi");
/// assert_eq!(&message(&mut HeapBuffer::new())[..], b"hi");
/// ```
pub trait Buffer {
    /// Appends `len` bytes to the pending message and returns them to be
    /// written.
    #[doc(alias = "get_writable")]
    fn reserve(&mut self, len: usize) -> &mut [u8];
    /// Freezes the pending message into an owned [`Slice`].
    #[doc(alias = "get_data_owned")]
    fn freeze(&mut self) -> Slice;
    /// The first `min(len, pending)` bytes of the pending message.
    #[doc(alias = "get_data_by_ref")]
    fn pending(&mut self, len: usize) -> &mut [u8];
    /// The first `min(len, pending)` bytes of the pending message, through
    /// a shared borrow.
    ///
    /// ```
    /// use spool::pool::{Buffer, HeapBuffer};
    /// fn header<B: Buffer>(buffer: &B) -> &[u8] {
    ///     buffer.pending_ref(2)
    /// }
    /// let mut buffer = HeapBuffer::new();
    /// buffer.reserve(3).copy_from_slice(b"abc");
    /// assert_eq!(header(&buffer), b"ab");
    /// ```
    #[doc(alias = "get_data_by_ref_")]
    fn pending_ref(&self, len: usize) -> &[u8];
    /// Shortens the pending message to its first `len` bytes (no effect if
    /// it is not longer).
    ///
    /// ```
    /// use spool::pool::{Buffer, BufferPool};
    /// let mut pool = BufferPool::new(64);
    /// Buffer::reserve(&mut pool, 5).copy_from_slice(b"hello");
    /// Buffer::truncate(&mut pool, 4);
    /// assert_eq!(Buffer::pending_ref(&pool, 9), b"hell");
    /// ```
    fn truncate(&mut self, len: usize);
    /// Length of the pending message.
    fn len(&self) -> usize;
    /// Whether the pending message is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Drops the pending message.
    fn discard(&mut self);
}

impl Buffer for BufferPool {
    fn reserve(&mut self, len: usize) -> &mut [u8] {
        BufferPool::reserve(self, len)
    }

    fn freeze(&mut self) -> Slice {
        BufferPool::freeze(self)
    }

    fn pending(&mut self, len: usize) -> &mut [u8] {
        BufferPool::pending(self, len)
    }

    fn pending_ref(&self, len: usize) -> &[u8] {
        BufferPool::pending_ref(self, len)
    }

    fn truncate(&mut self, len: usize) {
        BufferPool::truncate(self, len)
    }

    fn len(&self) -> usize {
        BufferPool::len(self)
    }

    fn discard(&mut self) {
        BufferPool::discard(self)
    }
}

/// A [`Buffer`] on the heap: a `Vec<u8>` per message (`buffer_sv2`'s
/// `BufferFromSystemMemory`).
///
/// # Examples
///
/// ```
/// use spool::pool::{Buffer, HeapBuffer};
/// let mut b = HeapBuffer::new();
/// b.reserve(3).copy_from_slice(b"abc");
/// assert_eq!(&b.freeze()[..], b"abc");
/// assert!(b.is_empty());
/// ```
#[derive(Debug, Default)]
pub struct HeapBuffer {
    pending: Vec<u8>,
}

impl HeapBuffer {
    /// An empty buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{Buffer, HeapBuffer};
    /// assert!(HeapBuffer::new().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Buffer for HeapBuffer {
    fn reserve(&mut self, len: usize) -> &mut [u8] {
        let at = self.pending.len();
        self.pending.resize(at + len, 0);
        &mut self.pending[at..]
    }

    fn freeze(&mut self) -> Slice {
        Slice::from(core::mem::take(&mut self.pending))
    }

    fn pending(&mut self, len: usize) -> &mut [u8] {
        let n = len.min(self.pending.len());
        &mut self.pending[..n]
    }

    fn pending_ref(&self, len: usize) -> &[u8] {
        &self.pending[..len.min(self.pending.len())]
    }

    fn truncate(&mut self, len: usize) {
        self.pending.truncate(len);
    }

    fn len(&self) -> usize {
        self.pending.len()
    }

    fn discard(&mut self) {
        self.pending.clear();
    }
}
