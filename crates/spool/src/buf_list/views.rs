//! Looking at the front of a [`BufList`] without consuming it: peeks and
//! searches across chunk edges in place, the chunks as they are, and
//! contiguous prefixes merged on request. These count what is there (a
//! peek past the end copies what there is), unlike the methods that remove
//! bytes, which panic past the end.

#[cfg(feature = "std")]
use std::io::IoSlice;

use bytes::Bytes;

use super::BufList;

impl BufList {
    /// Copies the first `min(dst.len(), len)` bytes into `dst` without
    /// consuming them and returns how many were copied. Copies only that
    /// prefix, never whole chunks; O(chunks spanned).
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"ab"[..], b"cdef"].into_iter().collect();
    /// let mut header = [0u8; 3];
    /// assert_eq!(list.peek_into(&mut header), 3);
    /// assert_eq!(&header, b"abc");
    /// assert_eq!(list.len(), 6);
    /// ```
    pub fn peek_into(&self, dst: &mut [u8]) -> usize {
        let mut copied = 0;
        for chunk in &self.chunks {
            if copied == dst.len() {
                break;
            }
            let n = chunk.len().min(dst.len() - copied);
            dst[copied..copied + n].copy_from_slice(&chunk[..n]);
            copied += n;
        }
        copied
    }

    /// Offset of the first byte equal to `byte`, searching across chunk
    /// edges with `memchr`. O(offset) plus O(chunks searched).
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"ab"[..], b"c\n"].into_iter().collect();
    /// assert_eq!(list.find_byte(b'\n'), Some(3));
    /// assert_eq!(list.find_byte(b'x'), None);
    /// ```
    #[must_use]
    pub fn find_byte(&self, byte: u8) -> Option<usize> {
        let mut base = 0;
        for chunk in &self.chunks {
            if let Some(i) = memchr::memchr(byte, chunk) {
                return Some(base + i);
            }
            base += chunk.len();
        }
        None
    }

    /// Offset of the first byte, among the first `limit`, for which `pred`
    /// holds. Looks at no more than `limit` bytes. O(limit).
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"\x01\x02"[..], b"\x03\x82rest"].into_iter().collect();
    /// assert_eq!(list.position(|b| b & 0x80 != 0, 65), Some(3));
    /// assert_eq!(list.position(|b| b & 0x80 != 0, 3), None);
    /// ```
    pub fn position(&self, mut pred: impl FnMut(u8) -> bool, limit: usize) -> Option<usize> {
        let mut base = 0;
        for chunk in &self.chunks {
            if base >= limit {
                break;
            }
            let window = &chunk[..chunk.len().min(limit - base)];
            if let Some(i) = window.iter().position(|&b| pred(b)) {
                return Some(base + i);
            }
            base += window.len();
        }
        None
    }

    /// The chunks, front to back. Chunk boundaries are those of the pushes
    /// (after front consumption), unless [`make_contiguous`](Self::make_contiguous)
    /// merged them.
    ///
    /// # Examples
    ///
    /// ```
    /// let list: spool::buf_list::BufList = [&b"ab"[..], b"c"].into_iter().collect();
    /// let chunks: Vec<&[u8]> = list.chunks().map(|c| &c[..]).collect();
    /// assert_eq!(chunks, [&b"ab"[..], b"c"]);
    /// ```
    pub fn chunks(&self) -> impl ExactSizeIterator<Item = &Bytes> + DoubleEndedIterator {
        self.chunks.iter()
    }

    /// Fills `dst` with the chunks as `IoSlice`s for `write_vectored`;
    /// returns how many were filled. The same as
    /// [`Buf::chunks_vectored`](bytes::Buf::chunks_vectored).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::IoSlice;
    /// let list: spool::buf_list::BufList = [&b"ab"[..], b"c"].into_iter().collect();
    /// let mut slices = [IoSlice::new(&[]); 4];
    /// assert_eq!(list.as_io_slices(&mut slices), 2);
    /// assert_eq!(&*slices[1], b"c");
    /// ```
    #[cfg(feature = "std")]
    pub fn as_io_slices<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (slot, chunk) in dst.iter_mut().zip(&self.chunks) {
            *slot = IoSlice::new(chunk);
            n += 1;
        }
        n
    }

    /// Merges the first `min(n, len)` bytes into one chunk and returns them
    /// as a slice. Copies only when they span chunks (then exactly those
    /// bytes, once).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"ab"[..], b"cd"].into_iter().collect();
    /// assert_eq!(list.make_contiguous_prefix(3), b"abc");
    /// assert_eq!(list.chunk_count(), 2); // "abc", "d"
    /// assert_eq!(list.make_contiguous_prefix(9), b"abcd"); // all there is
    /// ```
    pub fn make_contiguous_prefix(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.len);
        if self.chunks.front().is_some_and(|c| c.len() < n) {
            let merged = self.split_to_bytes(n);
            self.push_front(merged);
        }
        match self.chunks.front() {
            Some(first) => &first[..n],
            None => &[],
        }
    }

    /// Merges every chunk into one (one copy of all bytes when there is more
    /// than one chunk) and returns the whole contents as a slice.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut list: spool::buf_list::BufList = [&b"ab"[..], b"cd"].into_iter().collect();
    /// assert_eq!(list.make_contiguous(), b"abcd");
    /// assert_eq!(list.chunk_count(), 1);
    /// ```
    pub fn make_contiguous(&mut self) -> &[u8] {
        self.make_contiguous_prefix(self.len)
    }
}
