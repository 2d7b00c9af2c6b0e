//! [`Slice`]: an owned, frozen message — a span of a pool's arena, or a
//! heap buffer when the arena was full.

use alloc::boxed::Box;

use core::fmt;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use super::shared::Shared;

/// An owned, immutable-length message from a [`BufferPool`](super::BufferPool)
/// (or a [`HeapBuffer`](super::HeapBuffer)).
///
/// A `Slice` owns its bytes exclusively: it is `Send` and `Sync`, derefs to
/// `[u8]` (mutably too), and returns its space to the pool when dropped, on
/// whatever thread — one atomic swap, no lock. It has no `Clone`: two
/// handles to one span could not both own it. To share it, convert it into
/// [`bytes::Bytes`] (no copy) and clone that.
///
/// ```compile_fail
/// let mut pool = spool::pool::BufferPool::new(64);
/// pool.reserve(4).copy_from_slice(b"abcd");
/// let slice = pool.freeze();
/// let alias = slice.clone(); // no Clone: safe code cannot alias a slice
/// ```
pub struct Slice {
    inner: Inner,
}

enum Inner {
    Arena {
        shared: NonNull<Shared>,
        slot: u32,
        ptr: NonNull<u8>,
        len: usize,
    },
    Heap(Box<[u8]>),
}

// SAFETY: a slice is the only handle to its bytes (the pool does not touch a
// live span, and `Slice` has no `Clone`), so moving it to or sharing it with
// another thread is like doing so with a `Box<[u8]>`; its drop uses only
// atomics on the shared part.
unsafe impl Send for Slice {}
// SAFETY: `&Slice` gives only `&[u8]`; see `Send`.
unsafe impl Sync for Slice {}

impl Slice {
    /// # Safety
    ///
    /// `shared` is live, `slot` is a `LIVE` slot this slice now owns, and
    /// `ptr..ptr + len` is inside the arena and owned by that slot.
    pub(super) unsafe fn from_arena(
        shared: NonNull<Shared>,
        slot: u32,
        ptr: NonNull<u8>,
        len: usize,
    ) -> Self {
        Self {
            inner: Inner::Arena {
                shared,
                slot,
                ptr,
                len,
            },
        }
    }

    pub(super) fn from_heap(bytes: Box<[u8]>) -> Self {
        Self {
            inner: Inner::Heap(bytes),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Arena { len, .. } => *len,
            Inner::Heap(b) => b.len(),
        }
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the bytes live in a pool's arena (false for a heap fallback).
    pub fn is_pooled(&self) -> bool {
        matches!(self.inner, Inner::Arena { .. })
    }
}

impl Deref for Slice {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.inner {
            // SAFETY: the span is inside the live arena and owned by this
            // slice alone (`from_arena`'s contract).
            Inner::Arena { ptr, len, .. } => unsafe {
                core::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
            Inner::Heap(b) => b,
        }
    }
}

impl DerefMut for Slice {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.inner {
            // SAFETY: as in `deref`, and `&mut self` makes the access unique.
            Inner::Arena { ptr, len, .. } => unsafe {
                core::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
            Inner::Heap(b) => b,
        }
    }
}

impl AsRef<[u8]> for Slice {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl AsMut<[u8]> for Slice {
    fn as_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl Drop for Slice {
    fn drop(&mut self) {
        if let Inner::Arena { shared, slot, .. } = self.inner {
            // SAFETY: this slice owns the live slot, which keeps the shared
            // memory alive until the release below.
            unsafe { Shared::release(shared.as_ptr(), slot as usize) };
        }
    }
}

impl From<Slice> for bytes::Bytes {
    /// Wraps the slice without copying; the space returns to the pool when
    /// the last `Bytes` clone is dropped.
    fn from(slice: Slice) -> Self {
        bytes::Bytes::from_owner(slice)
    }
}

impl fmt::Debug for Slice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slice")
            .field("len", &self.len())
            .field("pooled", &self.is_pooled())
            .finish()
    }
}

impl PartialEq<[u8]> for Slice {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}
