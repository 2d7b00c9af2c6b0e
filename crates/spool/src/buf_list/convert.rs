//! A [`BufList`] from chunks: `From` one chunk, `Extend` and
//! `FromIterator` over many; and comparison with a byte slice.

use alloc::vec::Vec;

use bytes::{Bytes, BytesMut};

use super::BufList;

impl From<Bytes> for BufList {
    fn from(chunk: Bytes) -> Self {
        let mut list = BufList::new();
        list.push_back(chunk);
        list
    }
}

impl From<Vec<u8>> for BufList {
    fn from(v: Vec<u8>) -> Self {
        BufList::from(Bytes::from(v))
    }
}

impl From<&'static [u8]> for BufList {
    fn from(s: &'static [u8]) -> Self {
        BufList::from(Bytes::from_static(s))
    }
}

impl From<BytesMut> for BufList {
    fn from(b: BytesMut) -> Self {
        BufList::from(b.freeze())
    }
}

impl<B: Into<Bytes>> Extend<B> for BufList {
    fn extend<I: IntoIterator<Item = B>>(&mut self, iter: I) {
        for chunk in iter {
            self.push_back(chunk);
        }
    }
}

impl<B: Into<Bytes>> FromIterator<B> for BufList {
    fn from_iter<I: IntoIterator<Item = B>>(iter: I) -> Self {
        let mut list = BufList::new();
        list.extend(iter);
        list
    }
}

impl PartialEq<[u8]> for BufList {
    fn eq(&self, other: &[u8]) -> bool {
        self.len == other.len() && {
            let mut rest = other;
            self.chunks.iter().all(|c| {
                let (head, tail) = rest.split_at(c.len());
                rest = tail;
                head == &c[..]
            })
        }
    }
}
