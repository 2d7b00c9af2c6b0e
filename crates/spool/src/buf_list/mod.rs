//! A queue of byte chunks: O(1) append, zero-copy pops at the front.
//!
//! A protocol receiver that keeps "all unhandled input" in one flat buffer
//! copies that buffer on every arriving chunk and again on every token it
//! cuts off: decoding an S-byte message that arrives in C-byte chunks costs
//! S²/C bytes of copying. [`BufList`] keeps the chunks as they arrived —
//! reference-counted [`Bytes`], never copied on the way in — and cuts tokens
//! off the front by adjusting the first chunk's start. A copy happens only
//! where a caller asks for a contiguous view that spans chunks, and then it
//! copies exactly the bytes asked for.
//!
//! ```text
//!   front                                                    back
//!   +---------+    +----------------+    +------+    +-----------+
//!   |xxx|  a  | -> |       b        | -> |  c   | -> |     d     |
//!   +---------+    +----------------+    +------+    +-----------+
//!    ^ consumed bytes are gone: the first `Bytes` starts after them
//!   len = |a| + |b| + |c| + |d|   (cached)
//! ```
//!
//! Peeking never pops and pushes back: [`BufList::peek_into`] copies only
//! the prefix it is asked for and [`BufList::position`] searches across
//! chunk edges in place, so a parser that looks at a 65-byte header window
//! costs 65 bytes, not the rest of the chunk.
//!
//! # Names and counts
//!
//! The name is hyper's for the same idea; `bytes::buf::Chain` is something
//! else (two buffers read one after the other). Where a method shares a
//! name with `bytes` it keeps `bytes`' contract: [`advance`](BufList::advance),
//! [`split_to`](BufList::split_to) and
//! [`split_to_bytes`](BufList::split_to_bytes) remove exactly the bytes
//! asked for and panic past the end, as [`Buf::advance`](bytes::Buf::advance)
//! and [`BytesMut::split_to`] do. Methods that only look —
//! [`peek_into`](BufList::peek_into), [`position`](BufList::position),
//! [`make_contiguous_prefix`](BufList::make_contiguous_prefix) — look at
//! what is there and say how much that was, as `io::Read` does.
//!
//! # Examples
//!
//! ```
//! use bytes::Bytes;
//! use spool::buf_list::BufList;
//!
//! let mut list = BufList::new();
//! list.push_back(Bytes::from_static(b"hello "));
//! list.push_back(Bytes::from_static(b"world"));
//! assert_eq!(list.len(), 11);
//! assert_eq!(list.find_byte(b'w'), Some(6));
//! assert_eq!(list.split_to_bytes(5), "hello");    // inside one chunk: no copy
//! assert_eq!(list.split_to_bytes(4), " wor");     // spans two chunks: one 4-byte copy
//! assert_eq!(list.len(), 2);
//! ```

mod convert;
mod io_impls;
mod views;

use alloc::collections::VecDeque;

use bytes::{Bytes, BytesMut};

/// A queue of [`Bytes`] chunks read from the front; see the [module
/// documentation](self).
///
/// Invariant: no chunk is empty, and `len` is the sum of the chunk lengths.
///
/// # Examples
///
/// ```
/// use spool::buf_list::BufList;
///
/// let mut list: BufList = [&b"ab"[..], b"cd"].into_iter().collect();
/// assert_eq!((list.len(), list.chunk_count()), (4, 2));
/// list.advance(3);
/// assert!(list == b"d"[..]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct BufList {
    chunks: VecDeque<Bytes>,
    len: usize,
}

impl BufList {
    /// An empty list. Allocates nothing until the first push.
    ///
    /// # Examples
    ///
    /// ```
    /// let list = spool::buf_list::BufList::new();
    /// assert!(list.is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of bytes in the list. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let list = spool::buf_list::BufList::from(&b"abc"[..]);
    /// assert_eq!(list.len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list holds no bytes. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list = spool::buf_list::BufList::from(&b"a"[..]);
    /// assert!(!list.is_empty());
    /// list.clear();
    /// assert!(list.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of chunks. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"a"[..], b"", b"bc"].into_iter().collect();
    /// assert_eq!(list.chunk_count(), 2); // empty chunks are not kept
    /// ```
    #[must_use]
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Appends a chunk without copying its bytes. O(1) (amortized: the
    /// queue of chunk handles grows by doubling). Empty chunks are ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list = spool::buf_list::BufList::new();
    /// list.push_back(bytes::Bytes::from_static(b"hello"));
    /// list.push_back(&b" world"[..]);
    /// assert_eq!(list.split_to_bytes(11), "hello world");
    /// ```
    pub fn push_back(&mut self, chunk: impl Into<Bytes>) {
        let chunk = chunk.into();
        if !chunk.is_empty() {
            self.len += chunk.len();
            self.chunks.push_back(chunk);
        }
    }

    /// Puts a chunk back in front without copying its bytes. O(1)
    /// (amortized). Empty chunks are ignored.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list = spool::buf_list::BufList::from(&b"world"[..]);
    /// list.push_front(bytes::Bytes::from_static(b"hello "));
    /// assert_eq!(list.split_to_bytes(11), "hello world");
    /// ```
    pub fn push_front(&mut self, chunk: impl Into<Bytes>) {
        let chunk = chunk.into();
        if !chunk.is_empty() {
            self.len += chunk.len();
            self.chunks.push_front(chunk);
        }
    }

    /// Removes the first chunk whole. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"ab"[..], b"c"].into_iter().collect();
    /// assert_eq!(list.pop_front_chunk().unwrap(), "ab");
    /// assert_eq!(list.len(), 1);
    /// ```
    pub fn pop_front_chunk(&mut self) -> Option<Bytes> {
        let chunk = self.chunks.pop_front()?;
        self.len -= chunk.len();
        Some(chunk)
    }

    /// The first chunk, if any (non-empty). O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"ab"[..], b"c"].into_iter().collect();
    /// assert_eq!(list.front_chunk().unwrap(), "ab");
    /// ```
    #[must_use]
    pub fn front_chunk(&self) -> Option<&Bytes> {
        self.chunks.front()
    }

    /// Removes and returns the first `n` bytes as one contiguous [`Bytes`].
    ///
    /// Cost: zero-copy (a reference-count bump) when the bytes lie in the
    /// first chunk; otherwise exactly one copy of the bytes taken, plus
    /// O(chunks spanned).
    ///
    /// The name pairs it with [`split_to`](Self::split_to), which returns
    /// the same bytes as a list without copying; it is
    /// [`Buf::copy_to_bytes`](bytes::Buf::copy_to_bytes) under an inherent
    /// name.
    ///
    /// # Panics
    ///
    /// If `n` exceeds [`len`](Self::len), as `copy_to_bytes` does.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"hel"[..], b"lo"].into_iter().collect();
    /// assert_eq!(list.split_to_bytes(2), "he"); // inside one chunk: no copy
    /// assert_eq!(list.split_to_bytes(3), "llo"); // spans two: one copy
    /// assert!(list.is_empty());
    /// ```
    #[must_use = "use `advance` to drop bytes"]
    pub fn split_to_bytes(&mut self, n: usize) -> Bytes {
        self.check_count("split_to_bytes", n);
        let Some(first) = self.chunks.front_mut() else {
            return Bytes::new();
        };
        if n <= first.len() {
            self.len -= n;
            if n == first.len() {
                return self.chunks.pop_front().expect("front exists");
            }
            return first.split_to(n);
        }
        let mut out = BytesMut::with_capacity(n);
        let mut left = n;
        while left > 0 {
            let front = self.chunks.front_mut().expect("len covers n bytes");
            if front.len() <= left {
                left -= front.len();
                out.extend_from_slice(front);
                self.chunks.pop_front();
            } else {
                out.extend_from_slice(&front.split_to(left));
                left = 0;
            }
        }
        self.len -= n;
        out.freeze()
    }

    /// Removes the first `n` bytes and returns them as a list that shares
    /// the chunks. Copies no bytes; O(chunks moved).
    ///
    /// # Panics
    ///
    /// If `n` exceeds [`len`](Self::len), as
    /// [`BytesMut::split_to`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"ab"[..], b"cd", b"ef"].into_iter().collect();
    /// let head = list.split_to(3);
    /// assert_eq!((head.len(), head.chunk_count()), (3, 2));
    /// assert_eq!(list.len(), 3);
    /// ```
    #[must_use = "use `advance` to drop bytes"]
    pub fn split_to(&mut self, n: usize) -> BufList {
        self.check_count("split_to", n);
        let mut head = BufList::new();
        let mut left = n;
        while left > 0 {
            let front = self.chunks.front_mut().expect("len covers n bytes");
            if front.len() <= left {
                left -= front.len();
                head.push_back(self.chunks.pop_front().expect("front exists"));
            } else {
                head.push_back(front.split_to(left));
                left = 0;
            }
        }
        self.len -= n;
        head
    }

    /// Removes the first `n` bytes and drops them. O(chunks dropped);
    /// copies nothing. The same as [`Buf::advance`](bytes::Buf::advance).
    ///
    /// # Panics
    ///
    /// If `n` exceeds [`len`](Self::len), as `Buf::advance` does.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"ab"[..], b"cd"].into_iter().collect();
    /// list.advance(3);
    /// assert_eq!(list.split_to_bytes(1), "d");
    /// ```
    pub fn advance(&mut self, n: usize) {
        self.check_count("advance", n);
        let mut left = n;
        self.len -= left;
        while left > 0 {
            let front = self.chunks.front_mut().expect("len covers n bytes");
            if front.len() <= left {
                left -= front.len();
                self.chunks.pop_front();
            } else {
                bytes::Buf::advance(front, left);
                left = 0;
            }
        }
    }

    /// Panics, naming `method`, if `n` is more than the list holds.
    #[inline]
    #[track_caller]
    fn check_count(&self, method: &str, n: usize) {
        assert!(
            n <= self.len,
            "{method}({n}) past the end of a BufList of {} bytes",
            self.len
        );
    }

    /// Removes everything. O(chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list = spool::buf_list::BufList::from(&b"abc"[..]);
    /// list.clear();
    /// assert_eq!(list.len(), 0);
    /// ```
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }
}
