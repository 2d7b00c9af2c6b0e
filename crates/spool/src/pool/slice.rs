//! [`Slice`]: an owned, frozen message — a span of a pool's arena, or a
//! heap buffer when the arena was full.
//!
//! A pool slice's clones share its span: a clone adds one to the slot's
//! holder count and the span goes back to the pool when the last of them
//! drops (see `shared.rs` for the protocol). Writing through a slice
//! ([`DerefMut`]) needs its bytes to itself, so a clone that still shares
//! its span first copies them to the heap — copy on write, as
//! `Arc::make_mut` does. Heap slices clone by copying.

use alloc::vec::Vec;

use core::fmt;
use core::ops::{Deref, DerefMut, Index, IndexMut};
use core::ptr::NonNull;
use core::slice::SliceIndex;

use super::shared::Shared;

/// An owned, immutable-length message from a [`BufferPool`](super::BufferPool)
/// (or a [`HeapBuffer`](super::HeapBuffer), or a `Vec<u8>`).
///
/// A `Slice` is `Send` and `Sync`, derefs to `[u8]`, and returns its space
/// to the pool when the last handle to it is dropped, on whatever thread —
/// one atomic operation, no lock. [`Clone`] is cheap for a pool slice: the
/// clone shares the span (one atomic add), so a cloned frame keeps exactly
/// the bytes written into it for as long as any clone lives. Writing
/// through a slice that shares its span copies it to the heap first, so no
/// clone ever sees another's writes.
///
/// # Examples
///
/// ```
/// let mut pool = spool::pool::BufferPool::new(4);
/// pool.reserve(4).copy_from_slice(b"AAAA");
/// let frame = pool.freeze();
/// let clone = frame.clone();
/// assert_eq!(clone.as_ptr(), frame.as_ptr()); // shared, not copied
/// drop(frame);
/// pool.reserve(4).copy_from_slice(b"BBBB"); // the clone still holds the span
/// let next = pool.freeze();
/// assert!(!next.is_pooled()); // so this one went to the heap
/// assert_eq!(&clone[..], b"AAAA");
/// drop(clone);
/// pool.reserve(4);
/// assert!(pool.freeze().is_pooled()); // the span is back
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
    Heap(Vec<u8>),
}

// SAFETY: the bytes of a slice are only written through `&mut Slice` when
// its handle is the span's only holder (`deref_mut` copies otherwise), and
// the pool does not touch a held span, so moving a slice to or sharing it
// with another thread is like doing so with an `Arc<[u8]>`; clone and drop
// use only atomics on the shared part.
unsafe impl Send for Slice {}
// SAFETY: `&Slice` gives only `&[u8]` and clones; see `Send`.
unsafe impl Sync for Slice {}

impl Slice {
    /// # Safety
    ///
    /// `shared` is live, `slot` is a claimed slot whose one holder this
    /// slice now is, and `ptr..ptr + len` is inside the arena and owned by
    /// that slot.
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

    /// Length in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(spool::pool::Slice::from(vec![1, 2, 3]).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Arena { len, .. } => *len,
            Inner::Heap(b) => b.len(),
        }
    }

    /// Whether the slice is empty.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(spool::pool::Slice::from(Vec::new()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the bytes live in a pool's arena (false for a heap fallback,
    /// a slice made from a `Vec` and a clone that copied on write).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(64);
    /// pool.reserve(1);
    /// assert!(pool.freeze().is_pooled());
    /// assert!(!spool::pool::Slice::from(vec![1]).is_pooled());
    /// ```
    pub fn is_pooled(&self) -> bool {
        matches!(self.inner, Inner::Arena { .. })
    }
}

impl From<Vec<u8>> for Slice {
    /// Takes the vector as a heap slice, without copying.
    ///
    /// ```
    /// let v = vec![1, 2, 3];
    /// let ptr = v.as_ptr();
    /// assert_eq!(spool::pool::Slice::from(v).as_ptr(), ptr);
    /// ```
    fn from(bytes: Vec<u8>) -> Self {
        Self {
            inner: Inner::Heap(bytes),
        }
    }
}

impl From<Slice> for Vec<u8> {
    /// The slice's bytes as a vector: the vector itself for a heap slice,
    /// a copy for a pool slice (whose span then goes back to the pool).
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(64);
    /// pool.reserve(2).copy_from_slice(b"hi");
    /// assert_eq!(Vec::from(pool.freeze()), b"hi");
    /// assert_eq!(pool.stats().live, 0);
    /// ```
    fn from(mut slice: Slice) -> Self {
        match &mut slice.inner {
            Inner::Heap(v) => core::mem::take(v),
            Inner::Arena { .. } => slice.to_vec(),
        }
    }
}

impl Clone for Slice {
    /// A pool slice's clone shares its span (one atomic add); a heap
    /// slice's clone copies it.
    ///
    /// # Panics
    ///
    /// Past 2^30 live clones of one pool slice.
    fn clone(&self) -> Self {
        match &self.inner {
            Inner::Arena {
                shared,
                slot,
                ptr,
                len,
            } => {
                // SAFETY: this slice holds the slot, which keeps the shared
                // memory alive and the span unreleased during the call.
                unsafe { Shared::share(shared.as_ptr(), *slot as usize) };
                // SAFETY: the clone is a new holder of the same slot, which
                // owns the same span.
                unsafe { Self::from_arena(*shared, *slot, *ptr, *len) }
            }
            Inner::Heap(v) => Self::from(v.clone()),
        }
    }
}

impl Deref for Slice {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.inner {
            // SAFETY: the span is inside the live arena and owned by this
            // slot, which this slice holds; only a unique holder writes it
            // (`deref_mut`), and not while this `&self` borrow lasts.
            Inner::Arena { ptr, len, .. } => unsafe {
                core::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
            Inner::Heap(b) => b,
        }
    }
}

impl DerefMut for Slice {
    /// The bytes to write. A pool slice whose span is shared with a clone
    /// first copies it to the heap (and lets go of the span), so the write
    /// is seen by this handle alone.
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(64);
    /// pool.reserve(4).copy_from_slice(b"AAAA");
    /// let frame = pool.freeze();
    /// let mut copy = frame.clone();
    /// copy[0] = b'B'; // shared: copied to the heap first
    /// assert!(!copy.is_pooled());
    /// assert_eq!((&frame[..], &copy[..]), (&b"AAAA"[..], &b"BAAA"[..]));
    /// let mut only = frame;
    /// only[0] = b'C'; // the only holder: written in place
    /// assert!(only.is_pooled());
    /// ```
    fn deref_mut(&mut self) -> &mut [u8] {
        if let Inner::Arena { shared, slot, .. } = self.inner {
            // SAFETY: this slice holds the slot, so the memory is alive.
            if !unsafe { shared.as_ref() }.is_unique(slot as usize) {
                let copy = Slice::from(self.to_vec());
                drop(core::mem::replace(self, copy));
            }
        }
        match &mut self.inner {
            // SAFETY: as in `deref`, and this handle is the slot's only
            // holder (checked above), so with `&mut self` the access is
            // unique.
            Inner::Arena { ptr, len, .. } => unsafe {
                core::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
            Inner::Heap(b) => b,
        }
    }
}

impl<I: SliceIndex<[u8]>> Index<I> for Slice {
    type Output = I::Output;

    /// Indexes the bytes, as `[u8]` does: `slice[i]`, `slice[a..b]`,
    /// `slice[a..]`, `slice[..]` and the other ranges. (Indexing works
    /// through [`Deref`] too; this impl is for code generic over
    /// `Index`, which `buffer_sv2`'s `Slice` implements.)
    ///
    /// # Panics
    ///
    /// If the index is out of bounds, as for `[u8]`.
    ///
    /// ```
    /// use core::ops::Index;
    /// fn first<T: Index<usize, Output = u8>>(bytes: &T) -> u8 {
    ///     bytes[0]
    /// }
    /// let slice = spool::pool::Slice::from(vec![7, 8, 9]);
    /// assert_eq!(first(&slice), 7);
    /// assert_eq!(&slice[1..], [8, 9]);
    /// ```
    fn index(&self, index: I) -> &I::Output {
        &(**self)[index]
    }
}

impl<I: SliceIndex<[u8]>> IndexMut<I> for Slice {
    /// As [`DerefMut`]: copies a shared span first.
    ///
    /// ```
    /// let mut slice = spool::pool::Slice::from(vec![7, 8, 9]);
    /// slice[0] = 1;
    /// slice[1..].fill(0);
    /// assert_eq!(&slice[..], [1, 0, 0]);
    /// ```
    fn index_mut(&mut self, index: I) -> &mut I::Output {
        &mut (**self)[index]
    }
}

impl AsRef<[u8]> for Slice {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl AsMut<[u8]> for Slice {
    /// As [`DerefMut`]: copies a shared span first.
    fn as_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl Drop for Slice {
    fn drop(&mut self) {
        if let Inner::Arena { shared, slot, .. } = self.inner {
            // SAFETY: this slice holds the slot, which keeps the shared
            // memory alive until the release below, and gives it up here.
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
