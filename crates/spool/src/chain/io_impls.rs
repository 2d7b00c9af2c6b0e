//! [`Chain`] as a [`bytes::Buf`], an [`io::Read`] and an [`io::BufRead`].

#[cfg(feature = "std")]
use std::io;

use bytes::{Buf, Bytes};

use super::Chain;

/// `chunk` is the first chunk; `copy_to_bytes` is [`Chain::split_to_bytes`], so it is
/// zero-copy whenever the bytes lie in one chunk.
impl Buf for Chain {
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

    /// # Panics
    ///
    /// If `cnt` exceeds [`remaining`](Buf::remaining), as the `Buf` contract
    /// requires.
    fn advance(&mut self, cnt: usize) {
        assert!(
            cnt <= self.len(),
            "advance({cnt}) past the {} bytes of the chain",
            self.len()
        );
        Chain::advance(self, cnt);
    }

    /// # Panics
    ///
    /// If `len` exceeds [`remaining`](Buf::remaining).
    fn copy_to_bytes(&mut self, len: usize) -> Bytes {
        assert!(
            len <= self.len(),
            "copy_to_bytes({len}) past the {} bytes of the chain",
            self.len()
        );
        self.split_to_bytes(len)
    }
}

/// Reads copy out of the front chunks and consume them. An empty chain reads
/// as end of input (`Ok(0)`).
#[cfg(feature = "std")]
impl io::Read for Chain {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.peek_into(buf);
        Chain::advance(self, n);
        Ok(n)
    }
}

/// `fill_buf` is the first chunk; `consume` advances.
#[cfg(feature = "std")]
impl io::BufRead for Chain {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(Buf::chunk(self))
    }

    fn consume(&mut self, amt: usize) {
        Chain::advance(self, amt);
    }
}
