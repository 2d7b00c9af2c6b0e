//! The writing half of a [`ByteStream`].

#[cfg(feature = "std")]
use std::io;

use super::ByteStream;

/// The writing half of a [`ByteStream`]: push bytes, close, report errors.
///
/// A `Writer` is the stream itself seen through its writer methods; get one
/// with [`ByteStream::writer`].
#[repr(transparent)]
#[derive(Debug)]
pub struct Writer(ByteStream);

impl Writer {
    #[inline]
    pub(super) fn from_stream(stream: &ByteStream) -> &Self {
        // SAFETY: `Writer` is `#[repr(transparent)]` over `ByteStream`, so both
        // types have the same layout and the pointer cast keeps the borrow's
        // lifetime and validity.
        unsafe { &*(stream as *const ByteStream as *const Self) }
    }

    #[inline]
    pub(super) fn from_stream_mut(stream: &mut ByteStream) -> &mut Self {
        // SAFETY: as in `from_stream`; the unique borrow is passed through.
        unsafe { &mut *(stream as *mut ByteStream as *mut Self) }
    }

    /// Copies as much of `data` as fits into the stream and returns how many
    /// bytes were accepted; the rest is dropped. A closed stream accepts
    /// nothing.
    ///
    /// Cost: one `memcpy` of the accepted bytes (two if they wrap).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// assert_eq!(stream.writer().push(b"abcdef"), 4);
    /// assert_eq!(stream.writer().bytes_pushed(), 4);
    /// assert_eq!(stream.writer().available_capacity(), 0);
    /// ```
    #[inline]
    pub fn push(&mut self, data: &[u8]) -> usize {
        if self.0.closed {
            return 0;
        }
        self.0.rewind_if_empty();
        let n = data.len().min(self.0.available());
        self.0.append(&data[..n]);
        n
    }

    /// The free space after the buffered bytes, in stream order, as at most
    /// two slices (the second is non-empty only when the space wraps). Fill a
    /// prefix of it, then [`commit`](Self::commit) that many bytes: producers
    /// such as a socket read write straight into the stream's memory.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(8);
    /// let (first, _second) = stream.writer().spare_mut();
    /// first[..3].copy_from_slice(b"abc");
    /// stream.writer().commit(3);
    /// assert_eq!(stream.reader().peek(), b"abc");
    /// ```
    #[inline]
    pub fn spare_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        self.0.rewind_if_empty();
        let stream = &mut self.0;
        let cap = stream.buf.len();
        let tail = stream.tail();
        let avail = stream.available();
        if tail + avail <= cap {
            (&mut stream.buf[tail..tail + avail], &mut [])
        } else {
            let (front, back) = stream.buf.split_at_mut(tail);
            (back, &mut front[..avail - (cap - tail)])
        }
    }

    /// Marks the first `n` bytes of [`spare_mut`](Self::spare_mut) as written.
    ///
    /// # Panics
    ///
    /// If `n` exceeds [`available_capacity`](Self::available_capacity), or the
    /// stream is closed and `n > 0`.
    #[inline]
    pub fn commit(&mut self, n: usize) {
        assert!(n == 0 || !self.0.closed, "commit on a closed stream");
        self.0.commit(n);
    }

    /// Signals that no more bytes will be pushed.
    #[inline]
    pub fn close(&mut self) {
        self.0.closed = true;
    }

    /// Whether [`close`](Self::close) was called.
    #[inline]
    pub fn is_closed(&self) -> bool {
        self.0.closed
    }

    /// How many more bytes the stream can take right now.
    #[inline]
    pub fn available_capacity(&self) -> u64 {
        self.0.available() as u64
    }

    /// Total bytes pushed over the stream's life.
    #[inline]
    pub fn bytes_pushed(&self) -> u64 {
        self.0.pushed
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

/// `write` pushes what fits: `Ok(0)` for a non-empty buffer means the stream
/// is full. Writing to a closed stream is a `BrokenPipe` error.
#[cfg(feature = "std")]
impl io::Write for Writer {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.closed {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "write to a closed ByteStream",
            ));
        }
        Ok(self.push(buf))
    }

    #[inline]
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
