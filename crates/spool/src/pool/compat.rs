//! `buffer_sv2`'s method names, for code ported from that crate.
//!
//! The pool's own API has one name per job: [`reserve`](Buffer::reserve),
//! [`freeze`](Buffer::freeze), [`pending`](Buffer::pending). Code written
//! against `buffer_sv2` calls the same jobs `get_writable`,
//! `get_data_owned` and `get_data_by_ref`; [`Sv2BufferExt`] gives every
//! [`Buffer`] those names, so such code needs one `use` line, and the
//! names stay out of the pool's inherent API.
//!
//! This is a renaming, not the `buffer_sv2` crate: the types are spool's,
//! so code generic over `buffer_sv2::Buffer` (Stratum V2's `codec_sv2`
//! decoders, say) does not take a spool pool through it. For that, spool's
//! repository has a crate named `buffer_sv2` (`compat/buffer_sv2`) with
//! buffer_sv2 3.x's API on this pool, switched in with one `[patch]` line
//! (docs/pool.md).
//!
//! | `buffer_sv2` | spool |
//! |---|---|
//! | `BufferPool::new(capacity)` | [`BufferPool::new`] (one allocation; 1024 slots instead of 8) |
//! | `BufferFromSystemMemory::new(0)` | [`HeapBuffer::new`] |
//! | `Buffer::get_writable(len)` | [`Buffer::reserve`] ([`Sv2BufferExt::get_writable`]) |
//! | `Buffer::get_data_owned()` → `Slice` | [`Buffer::freeze`] → [`Slice`] ([`Sv2BufferExt::get_data_owned`]) |
//! | `Buffer::get_data_by_ref(len)` | [`Buffer::pending`] ([`Sv2BufferExt::get_data_by_ref`]) |
//! | `Buffer::get_data_by_ref_(len)` | [`Buffer::pending_ref`] ([`Sv2BufferExt::get_data_by_ref_`]) |
//! | `Buffer::len()` | [`Buffer::len`] / [`Buffer::is_empty`] |
//! | `AeadBuffer::truncate` | [`Buffer::truncate`] |
//! | `Slice` (`Clone` copies the handle) | [`Slice`] (`Clone` shares the bytes by holder count; writing through a shared clone copies it first) |
//! | `danger_set_start`, `is_droppable` | no counterpart here (the `buffer_sv2` crate above keeps a start offset; a pool may be dropped while its slices live) |
//!
//! # Examples
//!
//! ```
//! use spool::pool::compat::Sv2BufferExt;
//! use spool::pool::BufferPool;
//!
//! let mut pool = BufferPool::new(4096);
//! pool.get_writable(5).copy_from_slice(b"hello");
//! assert_eq!(pool.get_data_by_ref(2), b"he");
//! assert_eq!(&pool.get_data_owned()[..], b"hello");
//! ```
//!
//! Without the `use` line the names are not there: the pool's inherent
//! API keeps one name per job.
//!
//! ```compile_fail
//! let mut pool = spool::pool::BufferPool::new(4096);
//! pool.get_writable(5);
//! ```
//!
//! [`BufferPool::new`]: super::BufferPool::new
//! [`HeapBuffer::new`]: super::HeapBuffer::new

use super::{Buffer, Slice};

/// `buffer_sv2`'s names for a [`Buffer`]'s jobs; implemented for every
/// `Buffer`. See the [module documentation](self) for the full table.
///
/// # Examples
///
/// ```
/// use spool::pool::compat::Sv2BufferExt;
/// use spool::pool::{Buffer, HeapBuffer};
///
/// fn frame(buffer: &mut impl Buffer) -> spool::pool::Slice {
///     buffer.get_writable(2).copy_from_slice(b"ok");
///     buffer.get_data_owned()
/// }
/// assert_eq!(&frame(&mut HeapBuffer::new())[..], b"ok");
/// ```
pub trait Sv2BufferExt: Buffer {
    /// `buffer_sv2`'s name for [`Buffer::reserve`].
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{compat::Sv2BufferExt, Buffer, HeapBuffer};
    /// let mut buffer = HeapBuffer::new();
    /// buffer.get_writable(3).copy_from_slice(b"abc");
    /// assert_eq!(buffer.len(), 3);
    /// ```
    #[inline]
    fn get_writable(&mut self, len: usize) -> &mut [u8] {
        self.reserve(len)
    }

    /// `buffer_sv2`'s name for [`Buffer::freeze`].
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{compat::Sv2BufferExt, Buffer, HeapBuffer};
    /// let mut buffer = HeapBuffer::new();
    /// buffer.reserve(2).copy_from_slice(b"ok");
    /// assert_eq!(&buffer.get_data_owned()[..], b"ok");
    /// ```
    #[inline]
    #[must_use = "dropping the frame at once gives its space back unread"]
    fn get_data_owned(&mut self) -> Slice {
        self.freeze()
    }

    /// `buffer_sv2`'s name for [`Buffer::pending`].
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{compat::Sv2BufferExt, Buffer, HeapBuffer};
    /// let mut buffer = HeapBuffer::new();
    /// buffer.reserve(2).copy_from_slice(b"ok");
    /// assert_eq!(buffer.get_data_by_ref(9), b"ok");
    /// ```
    #[inline]
    fn get_data_by_ref(&mut self, len: usize) -> &mut [u8] {
        self.pending(len)
    }

    /// `buffer_sv2`'s name for [`Buffer::pending_ref`].
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{compat::Sv2BufferExt, Buffer, HeapBuffer};
    /// let mut buffer = HeapBuffer::new();
    /// buffer.reserve(2).copy_from_slice(b"ok");
    /// let buffer = &buffer;
    /// assert_eq!(buffer.get_data_by_ref_(1), b"o");
    /// ```
    #[inline]
    fn get_data_by_ref_(&self, len: usize) -> &[u8] {
        self.pending_ref(len)
    }
}

impl<B: Buffer + ?Sized> Sv2BufferExt for B {}
