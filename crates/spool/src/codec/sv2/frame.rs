//! What the Stratum V2 decoder hands out: a [`Frame`] that owns its bytes
//! in one pool [`Slice`], or the [`PayloadTooLarge`] error.

#[cfg(feature = "std")]
use std::io;

use super::HEADER_LEN;
use crate::pool::Slice;

/// A Stratum V2 header announced a payload length above the decoder's
/// limit. (The length-delimited decoder's counterpart, which also names a
/// stream offset, is [`FrameTooLarge`](crate::codec::FrameTooLarge).)
///
/// # Examples
///
/// ```
/// use spool::codec::sv2::{PayloadTooLarge, Sv2Decoder};
/// use spool::pool::HeapBuffer;
///
/// let mut decoder = Sv2Decoder::with_max_payload(HeapBuffer::new(), 2);
/// let err = decoder.push(&[0, 0, 1, 3, 0, 0], &mut Vec::new()).unwrap_err();
/// assert_eq!(err, PayloadTooLarge { size: 3, limit: 2 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Stratum V2 frame announces a {size}-byte payload, over the limit of {limit} bytes")]
pub struct PayloadTooLarge {
    /// The announced payload length.
    pub size: usize,
    /// The configured limit.
    pub limit: usize,
}

#[cfg(feature = "std")]
impl From<PayloadTooLarge> for io::Error {
    fn from(e: PayloadTooLarge) -> Self {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// One decoded frame; owns its header and payload bytes in one [`Slice`].
///
/// # Examples
///
/// ```
/// use spool::codec::sv2::{Frame, Sv2Decoder};
/// use spool::pool::BufferPool;
///
/// let mut frames: Vec<Frame> = Vec::new();
/// let mut decoder = Sv2Decoder::new(BufferPool::new(4096));
/// decoder.push(&[0, 0, 3, 1, 0, 0, b'x'], &mut frames).unwrap();
/// let frame = frames.pop().unwrap();
/// std::thread::spawn(move || assert_eq!(frame.payload(), b"x")).join().unwrap();
/// ```
#[derive(Debug)]
pub struct Frame {
    bytes: Slice,
}

impl Frame {
    /// A frame of `bytes`, header and payload, as the decoder froze them.
    pub(super) fn new(bytes: Slice) -> Self {
        Frame { bytes }
    }

    /// The extension type.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut frames = Vec::new();
    /// Sv2Decoder::new(HeapBuffer::new())
    ///     .push(&[0x01, 0x80, 0x15, 2, 0, 0, b'o', b'k'], &mut frames)
    ///     .unwrap();
    /// assert_eq!(frames[0].extension_type(), 0x8001);
    /// ```
    #[must_use]
    pub fn extension_type(&self) -> u16 {
        u16::from_le_bytes([self.bytes[0], self.bytes[1]])
    }

    /// The message type.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut frames = Vec::new();
    /// Sv2Decoder::new(HeapBuffer::new())
    ///     .push(&[0x01, 0x80, 0x15, 2, 0, 0, b'o', b'k'], &mut frames)
    ///     .unwrap();
    /// assert_eq!(frames[0].msg_type(), 0x15);
    /// ```
    #[must_use]
    pub fn msg_type(&self) -> u8 {
        self.bytes[2]
    }

    /// The payload.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut frames = Vec::new();
    /// Sv2Decoder::new(HeapBuffer::new())
    ///     .push(&[0x01, 0x80, 0x15, 2, 0, 0, b'o', b'k'], &mut frames)
    ///     .unwrap();
    /// assert_eq!(frames[0].payload(), b"ok");
    /// ```
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..]
    }

    /// Header and payload, as they arrived.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut frames = Vec::new();
    /// Sv2Decoder::new(HeapBuffer::new())
    ///     .push(&[0x01, 0x80, 0x15, 2, 0, 0, b'o', b'k'], &mut frames)
    ///     .unwrap();
    /// let slice = frames.pop().unwrap().into_slice();
    /// assert_eq!(&slice[..], [0x01, 0x80, 0x15, 2, 0, 0, b'o', b'k']);
    /// ```
    #[must_use]
    pub fn into_slice(self) -> Slice {
        self.bytes
    }
}
