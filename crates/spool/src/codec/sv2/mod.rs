//! A Stratum V2 frame decoder that writes frames straight into a
//! [`Buffer`] (a [`BufferPool`](crate::pool::BufferPool) or a
//! [`HeapBuffer`](crate::pool::HeapBuffer)).
//!
//! Unlike the decoders on a [`BufList`](crate::buf_list::BufList), which cut
//! frames out of chunks that already arrived, this one owns where the
//! bytes land: a mining proxy reads each frame straight into pool memory
//! and hands the frozen frame to another thread without a copy.
//!
//! A frame is a 6-byte header — extension type (u16 LE), message type
//! (u8), payload length (u24 LE) — then the payload. The decoder asks for
//! exactly the bytes it is missing (header, then payload), so input can be
//! read straight into the buffer ([`Sv2Decoder::writable`]), pushed in
//! chunks of any size ([`Sv2Decoder::push`]), or pulled from any
//! [`io::Read`] ([`Sv2Decoder::read_frame`]).
//!
//! # Examples
//!
//! ```
//! use spool::codec::sv2::Sv2Decoder;
//! use spool::pool::BufferPool;
//!
//! let mut decoder = Sv2Decoder::new(BufferPool::new(1 << 16));
//! let wire = [0x00, 0x00, 0x15, 3, 0, 0, b'a', b'b', b'c'];
//! let mut frames = Vec::new();
//! let mut input = &wire[..];
//! while !input.is_empty() {
//!     let used = decoder.push(input, &mut frames).unwrap();
//!     input = &input[used..];
//! }
//! assert_eq!(frames[0].msg_type(), 0x15);
//! assert_eq!(frames[0].payload(), b"abc");
//! ```

use alloc::vec::Vec;

#[cfg(feature = "std")]
use std::io;

use crate::pool::Buffer;

mod frame;

pub use frame::{Frame, PayloadTooLarge};

/// Bytes in a Stratum V2 frame header.
pub const HEADER_LEN: usize = 6;

/// The largest payload a u24 length can announce.
pub const MAX_PAYLOAD: usize = (1 << 24) - 1;

/// Decodes Stratum V2 frames into a [`Buffer`]; see the [module
/// documentation](self).
///
/// # Examples
///
/// ```
/// use spool::codec::sv2::Sv2Decoder;
/// use spool::pool::{BufferPool, HeapBuffer};
///
/// // The same decoder over the pool or over a Vec per message.
/// let mut on_pool = Sv2Decoder::new(BufferPool::new(4096));
/// let mut on_heap = Sv2Decoder::new(HeapBuffer::new());
/// let wire = [0, 0, 5, 0, 0, 0];
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// on_pool.push(&wire, &mut a).unwrap();
/// on_heap.push(&wire, &mut b).unwrap();
/// assert_eq!((a[0].msg_type(), b[0].msg_type()), (5, 5));
/// ```
#[derive(Debug)]
pub struct Sv2Decoder<B: Buffer> {
    buffer: B,
    max_payload: usize,
    /// Payload length once the header is complete.
    payload_len: Option<usize>,
}

impl<B: Buffer> Sv2Decoder<B> {
    /// A decoder accepting payloads up to the u24 maximum.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::{Sv2Decoder, HEADER_LEN};
    /// use spool::pool::BufferPool;
    /// let decoder = Sv2Decoder::new(BufferPool::new(1 << 16));
    /// assert_eq!(decoder.missing(), HEADER_LEN);
    /// ```
    #[must_use]
    pub fn new(buffer: B) -> Self {
        Self::with_max_payload(buffer, MAX_PAYLOAD)
    }

    /// A decoder rejecting payloads over `max_payload` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    /// let mut decoder = Sv2Decoder::with_max_payload(HeapBuffer::new(), 0);
    /// assert!(decoder.push(&[0, 0, 1, 0, 0, 0], &mut Vec::new()).is_ok()); // empty payload
    /// assert!(decoder.push(&[0, 0, 1, 1, 0, 0], &mut Vec::new()).is_err());
    /// ```
    #[must_use]
    pub fn with_max_payload(buffer: B, max_payload: usize) -> Self {
        Self {
            buffer,
            max_payload,
            payload_len: None,
        }
    }

    /// How many more bytes the current frame needs.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    /// let mut decoder = Sv2Decoder::new(HeapBuffer::new());
    /// decoder.push(&[0, 0, 1, 3, 0, 0, b'a'], &mut Vec::new()).unwrap();
    /// assert_eq!(decoder.missing(), 2); // two payload bytes to go
    /// ```
    #[must_use]
    pub fn missing(&self) -> usize {
        match self.payload_len {
            None => HEADER_LEN - self.buffer.len(),
            Some(n) => HEADER_LEN + n - self.buffer.len(),
        }
    }

    /// Space for exactly the missing bytes, to be filled completely (by a
    /// `read_exact`, say) before calling [`next_frame`](Self::next_frame).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Read;
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::BufferPool;
    ///
    /// let mut wire = &[0, 0, 7, 1, 0, 0, b'!'][..];
    /// let mut decoder = Sv2Decoder::new(BufferPool::new(4096));
    /// wire.read_exact(decoder.writable())?; // the header
    /// assert!(decoder.next_frame()?.is_none());
    /// wire.read_exact(decoder.writable())?; // the payload
    /// assert_eq!(decoder.next_frame()?.unwrap().payload(), b"!");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn writable(&mut self) -> &mut [u8] {
        let missing = self.missing();
        self.buffer.reserve(missing)
    }

    /// After [`writable`](Self::writable) was filled: the finished frame, or
    /// `Ok(None)` if the header is now complete and the payload is missing.
    ///
    /// # Errors
    ///
    /// [`PayloadTooLarge`] when the header announces too large a payload; the
    /// pending frame is dropped and the decoder is ready for new input.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut decoder = Sv2Decoder::new(HeapBuffer::new());
    /// decoder.writable().copy_from_slice(&[0, 0, 4, 0, 0, 0]); // empty payload
    /// assert_eq!(decoder.next_frame()?.unwrap().msg_type(), 4);
    /// # Ok::<(), spool::codec::sv2::PayloadTooLarge>(())
    /// ```
    pub fn next_frame(&mut self) -> Result<Option<Frame>, PayloadTooLarge> {
        if self.payload_len.is_none() {
            if self.buffer.len() < HEADER_LEN {
                return Ok(None);
            }
            let h = self.buffer.pending(HEADER_LEN);
            let size = usize::from(h[3]) | usize::from(h[4]) << 8 | usize::from(h[5]) << 16;
            if size > self.max_payload {
                self.reset();
                return Err(PayloadTooLarge {
                    size,
                    limit: self.max_payload,
                });
            }
            self.payload_len = Some(size);
        }
        if self.missing() > 0 {
            return Ok(None);
        }
        self.payload_len = None;
        Ok(Some(Frame::new(self.buffer.freeze())))
    }

    /// Feeds `input`; pushes every completed frame onto `frames` and returns
    /// how many bytes it used (all of them unless an error stopped it).
    ///
    /// # Errors
    ///
    /// As for [`next_frame`](Self::next_frame).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::HeapBuffer;
    ///
    /// let mut decoder = Sv2Decoder::new(HeapBuffer::new());
    /// let mut frames = Vec::new();
    /// let wire = [0, 0, 1, 1, 0, 0, b'a', 0, 0, 2, 0, 0, 0];
    /// assert_eq!(decoder.push(&wire, &mut frames)?, wire.len());
    /// let types: Vec<u8> = frames.iter().map(|f| f.msg_type()).collect();
    /// assert_eq!(types, [1, 2]);
    /// # Ok::<(), spool::codec::sv2::PayloadTooLarge>(())
    /// ```
    pub fn push(
        &mut self,
        mut input: &[u8],
        frames: &mut Vec<Frame>,
    ) -> Result<usize, PayloadTooLarge> {
        let total = input.len();
        while !input.is_empty() {
            let n = self.missing().min(input.len());
            self.buffer.reserve(n).copy_from_slice(&input[..n]);
            input = &input[n..];
            if let Some(frame) = self.next_frame()? {
                frames.push(frame);
            }
        }
        Ok(total)
    }

    /// Reads one whole frame from `reader`, straight into the buffer.
    /// `Ok(None)` at a clean end of input (between frames).
    ///
    /// # Errors
    ///
    /// I/O errors (an end of input inside a frame is `UnexpectedEof`), and
    /// [`PayloadTooLarge`] as `InvalidData`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::BufferPool;
    ///
    /// let mut wire = &[0, 0, 9, 2, 0, 0, b'h', b'i'][..];
    /// let mut decoder = Sv2Decoder::new(BufferPool::new(4096));
    /// assert_eq!(decoder.read_frame(&mut wire)?.unwrap().payload(), b"hi");
    /// assert!(decoder.read_frame(&mut wire)?.is_none()); // a clean end
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn read_frame(&mut self, reader: &mut impl io::Read) -> io::Result<Option<Frame>> {
        loop {
            let missing = self.missing();
            let at_start = self.buffer.is_empty();
            let dst = self.buffer.reserve(missing);
            let mut filled = 0;
            while filled < missing {
                match reader.read(&mut dst[filled..]) {
                    Ok(0) if at_start && filled == 0 => {
                        self.reset();
                        return Ok(None);
                    }
                    Ok(0) => {
                        self.reset();
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.reset();
                        return Err(e);
                    }
                }
            }
            if let Some(frame) = self.next_frame()? {
                return Ok(Some(frame));
            }
        }
    }

    /// Drops any partial frame (for a new connection).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::{Sv2Decoder, HEADER_LEN};
    /// use spool::pool::HeapBuffer;
    /// let mut decoder = Sv2Decoder::new(HeapBuffer::new());
    /// decoder.push(&[0, 0, 1], &mut Vec::new()).unwrap();
    /// decoder.reset();
    /// assert_eq!(decoder.missing(), HEADER_LEN);
    /// ```
    pub fn reset(&mut self) {
        self.buffer.discard();
        self.payload_len = None;
    }

    /// The buffer, e.g. to read a pool's stats.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::sv2::Sv2Decoder;
    /// use spool::pool::BufferPool;
    /// let decoder = Sv2Decoder::new(BufferPool::new(4096));
    /// assert_eq!(decoder.buffer().stats().fallbacks, 0);
    /// ```
    #[must_use]
    pub fn buffer(&self) -> &B {
        &self.buffer
    }
}
