//! The [`Buffer`] trait — the shape of `buffer_sv2::Buffer` — implemented by
//! the pool and by a plain heap buffer, so a decoder written against it runs
//! on either.
//!
//! # Porting from `buffer_sv2`
//!
//! The trait's own names are [`reserve`](Buffer::reserve),
//! [`freeze`](Buffer::freeze) and [`pending`](Buffer::pending); `buffer_sv2`'s
//! names are provided methods that call them, so ported code compiles
//! unchanged and implementers write only the first three.
//!
//! | `buffer_sv2` | spool |
//! |---|---|
//! | `BufferPool::new(capacity)` | [`BufferPool::new`] (one allocation; 1024 slots instead of 8) |
//! | `BufferFromSystemMemory::new(0)` | [`HeapBuffer::new`] |
//! | `Buffer::get_writable(len)` | [`Buffer::reserve`] (alias [`Buffer::get_writable`]) |
//! | `Buffer::get_data_owned()` → `Slice` | [`Buffer::freeze`] → [`Slice`] (alias [`Buffer::get_data_owned`]) |
//! | `Buffer::get_data_by_ref(len)` | [`Buffer::pending`] (alias [`Buffer::get_data_by_ref`]) |
//! | `Buffer::len()` | [`Buffer::len`] / [`Buffer::is_empty`] |
//! | `Slice` (`Clone` copies the handle) | [`Slice`] (no `Clone`; `Bytes::from(slice)` to share) |
//! | `danger_set_start`, `is_droppable` | not needed: [`Buffer::discard`] drops a pending message; a pool may be dropped at any time |

use alloc::vec::Vec;

use super::{BufferPool, Slice};

/// Where a decoder writes a message before freezing it.
///
/// Contract for implementers: [`reserve`](Buffer::reserve) grows the pending
/// message by exactly `len` bytes and [`len`](Buffer::len) counts them;
/// [`freeze`](Buffer::freeze) hands every pending byte over, in order, and
/// leaves the pending message empty; [`discard`](Buffer::discard) empties it
/// without handing anything over.
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
    /// Length of the pending message.
    fn len(&self) -> usize;
    /// Whether the pending message is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Drops the pending message.
    fn discard(&mut self);

    /// `buffer_sv2`'s name for [`reserve`](Buffer::reserve).
    fn get_writable(&mut self, len: usize) -> &mut [u8] {
        self.reserve(len)
    }
    /// `buffer_sv2`'s name for [`freeze`](Buffer::freeze).
    fn get_data_owned(&mut self) -> Slice {
        self.freeze()
    }
    /// `buffer_sv2`'s name for [`pending`](Buffer::pending).
    fn get_data_by_ref(&mut self, len: usize) -> &mut [u8] {
        self.pending(len)
    }
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

    fn len(&self) -> usize {
        BufferPool::len(self)
    }

    fn discard(&mut self) {
        BufferPool::discard(self)
    }
}

/// A [`Buffer`] on the heap: a `Vec<u8>` per message.
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
        Slice::from_heap(core::mem::take(&mut self.pending).into_boxed_slice())
    }

    fn pending(&mut self, len: usize) -> &mut [u8] {
        let n = len.min(self.pending.len());
        &mut self.pending[..n]
    }

    fn len(&self) -> usize {
        self.pending.len()
    }

    fn discard(&mut self) {
        self.pending.clear();
    }
}
