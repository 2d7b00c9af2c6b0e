//! [`BufferFromSystemMemory`]: buffer_sv2's heap buffer — a `Vec<u8>` per
//! message — on spool's [`HeapBuffer`], handing frames over as `Vec<u8>`
//! (no copy) as buffer_sv2 does.

use alloc::vec::Vec;

use spool::pool::HeapBuffer;

use crate::on_spool::buffer_on_spool;

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

buffer_on_spool!([] BufferFromSystemMemory, Vec<u8>, Vec::from);
