//! The reading half of a [`ByteStream`].

#[cfg(feature = "std")]
use std::io;

use super::ByteStream;

/// The reading half of a [`ByteStream`]: peek, pop, and learn whether the
/// stream is finished.
///
/// A `Reader` is the stream itself seen through its reader methods; get one
/// with [`ByteStream::reader`].
#[repr(transparent)]
#[derive(Debug)]
pub struct Reader(ByteStream);

impl Reader {
    #[inline]
    pub(super) fn from_stream(stream: &ByteStream) -> &Self {
        // SAFETY: `Reader` is `#[repr(transparent)]` over `ByteStream`, so both
        // types have the same layout and the pointer cast keeps the borrow's
        // lifetime and validity.
        unsafe { &*(stream as *const ByteStream as *const Self) }
    }

    #[inline]
    pub(super) fn from_stream_mut(stream: &mut ByteStream) -> &mut Self {
        // SAFETY: as in `from_stream`; the unique borrow is passed through.
        unsafe { &mut *(stream as *mut ByteStream as *mut Self) }
    }

    /// The contiguous front of the buffered bytes, without consuming them.
    /// Non-empty whenever anything is buffered; shorter than
    /// [`bytes_buffered`](Self::bytes_buffered) only when the bytes wrap
    /// around the ring (see [`as_slices`](Self::as_slices)).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// stream.writer().push(b"abc");
    /// stream.reader().pop(2);
    /// stream.writer().push(b"def");
    /// assert_eq!(stream.reader().peek(), b"cd"); // wraps after "cd"
    /// assert_eq!(stream.reader().as_slices(), (&b"cd"[..], &b"ef"[..]));
    /// ```
    #[inline]
    pub fn peek(&self) -> &[u8] {
        let s = &self.0;
        let after_head = &s.buf[s.head..];
        &after_head[..s.len.min(after_head.len())]
    }

    /// All buffered bytes in order, as at most two slices (the second is
    /// non-empty only when they wrap). For vectored reads and writes.
    #[inline]
    pub fn as_slices(&self) -> (&[u8], &[u8]) {
        let s = &self.0;
        let end = s.head + s.len;
        if end <= s.buf.len() {
            (&s.buf[s.head..end], &[])
        } else {
            (&s.buf[s.head..], &s.buf[..end - s.buf.len()])
        }
    }

    /// Removes up to `n` bytes from the front and returns how many were
    /// removed (fewer than `n` only if fewer were buffered). Never moves data.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// stream.writer().push(b"abc");
    /// assert_eq!(stream.reader().pop(10), 3);
    /// assert_eq!(stream.reader().bytes_popped(), 3);
    /// ```
    #[inline]
    pub fn pop(&mut self, n: usize) -> usize {
        self.0.consume(n)
    }

    /// Whether the writer closed the stream and every byte has been popped.
    #[inline]
    pub fn is_finished(&self) -> bool {
        self.0.closed && self.0.len == 0
    }

    /// Whether the writer closed the stream (bytes may still be buffered).
    #[inline]
    pub fn is_closed(&self) -> bool {
        self.0.closed
    }

    /// Bytes pushed but not yet popped.
    #[inline]
    pub fn bytes_buffered(&self) -> u64 {
        self.0.len as u64
    }

    /// Total bytes popped over the stream's life.
    #[inline]
    pub fn bytes_popped(&self) -> u64 {
        self.0.pushed - self.0.len as u64
    }

    /// Marks the stream as failed.
    #[inline]
    pub fn set_error(&mut self) {
        self.0.set_error();
    }

    /// Whether the stream was marked as failed.
    #[inline]
    pub fn has_error(&self) -> bool {
        self.0.error
    }
}

/// Copies buffered bytes out and pops them. An empty stream that is not yet
/// closed answers `WouldBlock` (more bytes may come); a finished stream
/// answers `Ok(0)`.
#[cfg(feature = "std")]
impl io::Read for Reader {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.len == 0 {
            if self.0.closed || buf.is_empty() {
                return Ok(0);
            }
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let (first, second) = self.as_slices();
        let n1 = first.len().min(buf.len());
        buf[..n1].copy_from_slice(&first[..n1]);
        let n2 = second.len().min(buf.len() - n1);
        buf[n1..n1 + n2].copy_from_slice(&second[..n2]);
        self.pop(n1 + n2);
        Ok(n1 + n2)
    }
}

/// The buffered bytes as a [`bytes::Buf`]: `chunk` is [`Reader::peek`],
/// `advance` is [`Reader::pop`], and `chunks_vectored` yields both slices.
impl bytes::Buf for Reader {
    #[inline]
    fn remaining(&self) -> usize {
        self.0.len
    }

    #[inline]
    fn chunk(&self) -> &[u8] {
        self.peek()
    }

    #[cfg(feature = "std")]
    #[inline]
    fn chunks_vectored<'a>(&'a self, dst: &mut [io::IoSlice<'a>]) -> usize {
        let (first, second) = self.as_slices();
        let mut n = 0;
        for slice in [first, second] {
            if !slice.is_empty() && n < dst.len() {
                dst[n] = io::IoSlice::new(slice);
                n += 1;
            }
        }
        n
    }

    /// # Panics
    ///
    /// If `cnt` exceeds [`remaining`](bytes::Buf::remaining), as the `Buf`
    /// contract requires.
    #[inline]
    fn advance(&mut self, cnt: usize) {
        assert!(
            cnt <= self.0.len,
            "advance({cnt}) past the {} buffered bytes",
            self.0.len
        );
        self.pop(cnt);
    }
}
