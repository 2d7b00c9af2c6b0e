//! [`BufferFromSystemMemory`]: buffer_sv2's heap buffer — a `Vec<u8>` per
//! message — on spool's [`HeapBuffer`], handing frames over as `Vec<u8>`
//! (no copy) as buffer_sv2 does.

use alloc::vec::Vec;

use spool::pool::{Buffer as _, HeapBuffer};

use crate::views::pending_views;
use crate::Buffer;

/// A buffer on the heap: each message is a `Vec<u8>` handed over whole.
/// codec_sv2 uses it unless its `with_buffer_pool` feature is on.
///
/// # Examples
///
/// ```
/// use buffer_sv2::{Buffer, BufferFromSystemMemory};
///
/// let mut buffer = BufferFromSystemMemory::new(0);
/// buffer.get_writable(3).copy_from_slice(b"abc");
/// let frame: Vec<u8> = buffer.get_data_owned();
/// assert_eq!((frame, buffer.len()), (b"abc".to_vec(), 0));
/// ```
#[derive(Debug, Default)]
pub struct BufferFromSystemMemory {
    spool: HeapBuffer,
    start: usize,
}

impl BufferFromSystemMemory {
    /// An empty buffer (the argument is ignored, as in buffer_sv2).
    ///
    /// # Examples
    ///
    /// ```
    /// use buffer_sv2::{Buffer, BufferFromSystemMemory};
    /// assert!(BufferFromSystemMemory::new(0).is_empty());
    /// ```
    #[must_use]
    pub fn new(_: usize) -> Self {
        Self::default()
    }
}

impl Buffer for BufferFromSystemMemory {
    type Slice = Vec<u8>;

    #[inline]
    fn get_writable(&mut self, len: usize) -> &mut [u8] {
        self.spool.reserve(len)
    }

    #[inline]
    fn get_data_owned(&mut self) -> Vec<u8> {
        Vec::from(self.spool.freeze())
    }

    #[inline]
    fn get_data_by_ref(&mut self, len: usize) -> &mut [u8] {
        self.spool.pending(len)
    }

    #[inline]
    fn get_data_by_ref_(&self, len: usize) -> &[u8] {
        self.spool.pending_ref(len)
    }

    #[inline]
    fn len(&self) -> usize {
        self.spool.len()
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

pending_views!([] BufferFromSystemMemory);
