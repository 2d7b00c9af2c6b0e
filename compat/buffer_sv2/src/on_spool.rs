//! buffer_sv2's `Buffer`, `AsRef`, `AsMut` and `AeadBuffer` on a spool
//! [`Buffer`](spool::pool::Buffer), written once for both buffer types.
//!
//! Each method is one call into spool: `get_writable` is `reserve`,
//! `get_data_owned` is `freeze`, `get_data_by_ref` is `pending`,
//! `get_data_by_ref_` is `pending_ref`, `AeadBuffer::truncate` is
//! `truncate`. The one piece of state added is the start offset
//! `danger_set_start` sets: a view into the pending message, not part of
//! it. codec_sv2's Noise path appends a sealed chunk after the plaintext it
//! has already opened, sets the start to where the chunk begins, and hands
//! the buffer to the cipher as an `AeadBuffer`: the cipher opens `as_mut()`
//! in place and `truncate`s the tag off, so nothing is copied.

/// Implements buffer_sv2's `Buffer` (with `type Slice = $slice`, frames
/// made by `$into` from spool's `Slice`), `AsRef<[u8]>`, `AsMut<[u8]>` and
/// `AeadBuffer` for a type with fields `spool: impl spool::pool::Buffer`
/// and `start: usize`.
macro_rules! buffer_on_spool {
    ([$($generics:tt)*] $ty:ty, $slice:ty, $into:path) => {
        impl<$($generics)*> $crate::Buffer for $ty {
            type Slice = $slice;

            #[inline]
            fn get_writable(&mut self, len: usize) -> &mut [u8] {
                spool::pool::Buffer::reserve(&mut self.spool, len)
            }

            #[inline]
            fn get_data_owned(&mut self) -> $slice {
                $into(spool::pool::Buffer::freeze(&mut self.spool))
            }

            #[inline]
            fn get_data_by_ref(&mut self, len: usize) -> &mut [u8] {
                spool::pool::Buffer::pending(&mut self.spool, len)
            }

            #[inline]
            fn get_data_by_ref_(&self, len: usize) -> &[u8] {
                spool::pool::Buffer::pending_ref(&self.spool, len)
            }

            #[inline]
            fn len(&self) -> usize {
                spool::pool::Buffer::len(&self.spool)
            }

            #[inline]
            fn danger_set_start(&mut self, index: usize) {
                self.start = index;
            }

            #[inline]
            fn is_droppable(&self) -> bool {
                true
            }
        }

        impl<$($generics)*> AsRef<[u8]> for $ty {
            /// The pending message from the start offset on.
            ///
            /// # Panics
            ///
            /// If the start offset is past the pending message's end.
            fn as_ref(&self) -> &[u8] {
                &spool::pool::Buffer::pending_ref(&self.spool, usize::MAX)[self.start..]
            }
        }

        impl<$($generics)*> AsMut<[u8]> for $ty {
            /// The pending message from the start offset on.
            ///
            /// # Panics
            ///
            /// If the start offset is past the pending message's end.
            fn as_mut(&mut self) -> &mut [u8] {
                &mut spool::pool::Buffer::pending(&mut self.spool, usize::MAX)[self.start..]
            }
        }

        impl<$($generics)*> $crate::AeadBuffer for $ty {
            fn extend_from_slice(&mut self, other: &[u8]) -> aead::Result<()> {
                spool::pool::Buffer::reserve(&mut self.spool, other.len()).copy_from_slice(other);
                Ok(())
            }

            /// Keeps the first `len` bytes after the start offset (never
            /// grows the message).
            fn truncate(&mut self, len: usize) {
                spool::pool::Buffer::truncate(&mut self.spool, self.start.saturating_add(len));
            }
        }
    };
}

pub(crate) use buffer_on_spool;
