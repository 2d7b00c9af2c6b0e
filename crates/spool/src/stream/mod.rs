//! A bounded byte pipe: one fixed ring buffer seen through a [`Writer`] half
//! and a [`Reader`] half.
//!
//! [`ByteStream`] is the in-order byte stream of a TCP-like receiver: a
//! producer pushes bytes in, a consumer peeks and pops them out, and the
//! capacity bounds how much may sit in between. The memory is allocated once,
//! when the stream is made, and never moves: pops advance a read position,
//! pushes copy into the free space after the write position, and neither ever
//! shifts the buffered bytes (no `memmove`).
//!
//! ```text
//!            head                      head + buffered
//!             v                              v
//!  +----------+==============================+--------------+
//!  |  free    |  buffered (peek / pop here)  |  spare (push |
//!  |  (spare) |                              |  lands here) |
//!  +----------+==============================+--------------+
//!  0                                                      capacity
//! ```
//!
//! The buffered bytes may wrap around the end of the buffer, so they are two
//! slices at most ([`Reader::as_slices`]); likewise the spare capacity
//! ([`Writer::spare_mut`]). Byte positions are fixed while bytes are
//! buffered, which is what lets the
//! [`Reassembler`](crate::reassembler::Reassembler) write out-of-order bytes
//! straight into the spare capacity at their final place.
//!
//! # Rewind when empty
//!
//! When nothing is buffered, the writer starts again at position 0 (in
//! [`Writer::push`] and [`Writer::spare_mut`]). A pipe that is drained as it
//! is filled — the common case — then keeps reusing the same few
//! cache-warm lines at the front of the buffer instead of walking the whole
//! capacity, and its pushes and peeks rarely wrap. Nothing moves: an empty
//! stream has no bytes to keep in place.
//!
//! # Halves
//!
//! [`Writer`] and [`Reader`] are views of the same stream (the same object
//! with a different set of methods, as in the CS144 lab's C++ API):
//! [`ByteStream::writer`] and [`ByteStream::reader`] hand them out. Both are
//! `#[repr(transparent)]` wrappers, so switching views costs nothing.
//!
//! The accessors follow one rule, here and on the
//! [`Reassembler`](crate::reassembler::Reassembler): `writer()` and
//! `reader()` take `&mut self` and hand out a `&mut` view; `writer_ref()`
//! and `reader_ref()` take `&self` and hand out a `&` view, for queries.
//!
//! # Examples
//!
//! ```
//! use spool::stream::ByteStream;
//!
//! let mut stream = ByteStream::new(8);
//! assert_eq!(stream.writer().push(b"hello, world"), 8); // only 8 bytes fit
//! assert_eq!(stream.reader().peek(), b"hello, w");
//! stream.reader().pop(7);
//! stream.writer().push(b"orld");
//! stream.writer().close();
//!
//! let mut out = Vec::new();
//! while !stream.reader().is_finished() {
//!     let chunk = stream.reader().peek().to_vec();
//!     stream.reader().pop(chunk.len());
//!     out.extend(chunk);
//! }
//! assert_eq!(out, b"world");
//! ```

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

mod reader;
mod writer;

pub use reader::Reader;
pub use writer::Writer;

/// A bounded, in-order byte pipe over one ring buffer of fixed capacity.
///
/// See the [module documentation](self) for the layout. Cloning makes a
/// deep copy of the buffer and the counters.
///
/// # Examples
///
/// ```
/// let mut stream = spool::stream::ByteStream::new(8);
/// stream.writer().push(b"ab");
/// let copy = stream.clone();
/// stream.reader().pop(2);
/// assert_eq!(copy.reader_ref().peek(), b"ab");
/// ```
#[derive(Clone, Debug)]
pub struct ByteStream {
    buf: Box<[u8]>,
    /// Position of the first buffered byte.
    head: usize,
    /// Number of buffered bytes.
    len: usize,
    /// Bytes pushed over the stream's life; `pushed - len` were popped, so
    /// a pop updates two fields, not three.
    pushed: u64,
    closed: bool,
    error: bool,
}

impl ByteStream {
    /// Makes a stream that buffers at most `capacity` bytes. This is the only
    /// allocation the stream ever makes.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(1500);
    /// assert_eq!(stream.capacity(), 1500);
    /// assert_eq!(stream.writer().available_capacity(), 1500);
    /// ```
    #[inline]
    pub fn new(capacity: usize) -> Self {
        Self::from_buffer(vec![0; capacity].into_boxed_slice())
    }

    /// Like [`new`](Self::new), but reports an allocation failure instead of
    /// aborting: for capacities that come from outside (a C caller, a
    /// configuration file).
    ///
    /// # Errors
    ///
    /// If the buffer cannot be allocated.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::stream::ByteStream;
    /// assert!(ByteStream::try_new(usize::MAX).is_err());
    /// assert_eq!(ByteStream::try_new(16).unwrap().capacity(), 16);
    /// ```
    #[inline]
    pub fn try_new(capacity: usize) -> Result<Self, alloc::collections::TryReserveError> {
        let mut buf = Vec::new();
        buf.try_reserve_exact(capacity)?;
        buf.resize(capacity, 0);
        Ok(Self::from_buffer(buf.into_boxed_slice()))
    }

    #[inline]
    fn from_buffer(buf: Box<[u8]>) -> Self {
        Self {
            buf,
            head: 0,
            len: 0,
            pushed: 0,
            closed: false,
            error: false,
        }
    }

    /// The fixed capacity given at construction.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(spool::stream::ByteStream::new(9).capacity(), 9);
    /// ```
    #[inline]
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The writing half.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// assert_eq!(stream.writer().push(b"abcdef"), 4);
    /// ```
    #[inline]
    pub fn writer(&mut self) -> &mut Writer {
        Writer::from_stream_mut(self)
    }

    /// The writing half, for queries only.
    ///
    /// # Examples
    ///
    /// ```
    /// let stream = spool::stream::ByteStream::new(4);
    /// assert_eq!(stream.writer_ref().available_capacity(), 4);
    /// ```
    #[inline]
    #[must_use]
    pub fn writer_ref(&self) -> &Writer {
        Writer::from_stream(self)
    }

    /// The reading half.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// stream.writer().push(b"ab");
    /// assert_eq!(stream.reader().pop(5), 2);
    /// ```
    #[inline]
    pub fn reader(&mut self) -> &mut Reader {
        Reader::from_stream_mut(self)
    }

    /// The reading half, for queries only.
    ///
    /// # Examples
    ///
    /// ```
    /// let stream = spool::stream::ByteStream::new(4);
    /// assert_eq!(stream.reader_ref().bytes_buffered(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub fn reader_ref(&self) -> &Reader {
        Reader::from_stream(self)
    }

    /// Marks the stream as failed; both halves then report
    /// [`has_error`](Reader::has_error).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = spool::stream::ByteStream::new(4);
    /// stream.set_error();
    /// assert!(stream.has_error() && stream.writer_ref().has_error());
    /// ```
    #[inline]
    pub fn set_error(&mut self) {
        self.error = true;
    }

    /// Whether [`set_error`](Self::set_error) was called.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!spool::stream::ByteStream::new(4).has_error());
    /// ```
    #[inline]
    #[must_use]
    pub fn has_error(&self) -> bool {
        self.error
    }

    /// Bytes that can be pushed before the stream is full.
    #[inline]
    fn available(&self) -> usize {
        self.buf.len() - self.len
    }

    /// Position just past the last buffered byte (where the next push
    /// lands): the ring position of stream index `bytes_pushed`.
    #[inline]
    pub(crate) fn tail(&self) -> usize {
        wrap(self.head + self.len, self.buf.len())
    }

    /// Total bytes pushed (the writer's count, without the view).
    #[inline]
    pub(crate) fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Bytes that can be pushed before the stream is full, for the
    /// reassembler's window.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.available()
    }

    /// Starts writing at position 0 again if nothing is buffered (see the
    /// [module documentation](self)). Callers that place bytes beyond the
    /// tail (the reassembler) call it only when no such bytes exist.
    #[inline]
    pub(crate) fn rewind_if_empty(&mut self) {
        if self.len == 0 {
            self.head = 0;
        }
    }

    /// Copies `data` (which must fit) to the tail, wrapping if needed, and
    /// commits it. One `memcpy`, two only when the bytes wrap.
    #[inline]
    pub(crate) fn append(&mut self, data: &[u8]) {
        debug_assert!(data.len() <= self.available());
        let cap = self.buf.len();
        let tail = self.tail();
        let first = data.len().min(cap - tail);
        self.buf[tail..tail + first].copy_from_slice(&data[..first]);
        if first < data.len() {
            self.buf[..data.len() - first].copy_from_slice(&data[first..]);
        }
        self.len += data.len();
        self.pushed += data.len() as u64;
    }

    /// The whole ring, for writers that place bytes by absolute position
    /// (the reassembler): stream index `bytes_pushed + k` is at
    /// `(tail + k) % capacity` while the stream is not rewound.
    #[inline]
    pub(crate) fn ring_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// The whole ring, for reading bytes placed by absolute position.
    #[inline]
    pub(crate) fn ring(&self) -> &[u8] {
        &self.buf
    }

    /// Marks `n` bytes after the buffered ones as written.
    ///
    /// # Panics
    ///
    /// If `n` exceeds the available capacity.
    #[inline]
    pub(crate) fn commit(&mut self, n: usize) {
        assert!(
            n <= self.available(),
            "commit of {n} bytes exceeds the available capacity of {}",
            self.available()
        );
        self.len += n;
        self.pushed += n as u64;
    }

    /// Drops `n` bytes (at most the buffered count) from the front.
    #[inline]
    fn consume(&mut self, n: usize) -> usize {
        let n = n.min(self.len);
        self.head = wrap(self.head + n, self.buf.len());
        self.len -= n;
        n
    }
}

/// `pos % cap` for `pos < 2 * cap`, without a division or a branch.
#[inline]
fn wrap(pos: usize, cap: usize) -> usize {
    pos - if pos >= cap { cap } else { 0 }
}
