//! The pending message seen from the start offset on — `AsRef`, `AsMut`
//! and `AeadBuffer` — written once for both buffer types.
//!
//! codec_sv2's Noise path appends a sealed chunk after the plaintext it has
//! already opened, sets the start offset (`danger_set_start`) to where the
//! chunk begins, and hands the buffer to the cipher as an `AeadBuffer`: the
//! cipher opens `as_mut()` in place and `truncate`s the tag off. Both types
//! here keep a spool [`Buffer`](spool::pool::Buffer) in a field `spool` and
//! the offset in a field `start`; these views slice the pending message
//! there, so nothing is copied.

/// Implements `AsRef<[u8]>`, `AsMut<[u8]>` and `AeadBuffer` for a type with
/// fields `spool: impl spool::pool::Buffer` and `start: usize`.
macro_rules! pending_views {
    ([$($generics:tt)*] $ty:ty) => {
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

pub(crate) use pending_views;
