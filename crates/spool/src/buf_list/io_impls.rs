//! [`BufList`] as a [`bytes::Buf`], an [`io::Read`] and an [`io::BufRead`].

#[cfg(feature = "std")]
use std::io;

use bytes::{Buf, Bytes};

use super::BufList;

/// `chunk` is the first chunk; `advance` and `copy_to_bytes` are
/// [`BufList::advance`] and [`BufList::split_to_bytes`] (so `copy_to_bytes`
/// is zero-copy whenever the bytes lie in one chunk), and like them they
/// panic past [`remaining`](Buf::remaining), as the `Buf` contract
/// requires.
impl Buf for BufList {
    fn remaining(&self) -> usize {
        self.len()
    }

    fn chunk(&self) -> &[u8] {
        self.front_chunk().map_or(&[], |c| &c[..])
    }

    #[cfg(feature = "std")]
    fn chunks_vectored<'a>(&'a self, dst: &mut [io::IoSlice<'a>]) -> usize {
        self.as_io_slices(dst)
    }

    fn advance(&mut self, cnt: usize) {
        BufList::advance(self, cnt);
    }

    fn copy_to_bytes(&mut self, len: usize) -> Bytes {
        self.split_to_bytes(len)
    }
}

/// Reads copy out of the front chunks and consume them. An empty list reads
/// as end of input (`Ok(0)`).
#[cfg(feature = "std")]
impl io::Read for BufList {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.peek_into(buf);
        BufList::advance(self, n);
        Ok(n)
    }
}

/// `fill_buf` is the first chunk; `consume` is [`BufList::advance`], so
/// it may consume past the first chunk and panics past the end.
#[cfg(feature = "std")]
impl io::BufRead for BufList {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(Buf::chunk(self))
    }

    fn consume(&mut self, amt: usize) {
        BufList::advance(self, amt);
    }
}
