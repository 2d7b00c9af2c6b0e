//! A remote object read from start to end as a [`Read`], by ranged reads
//! started ahead of the reader, so that the network and the store work
//! while the run routes the bytes already here.
//!
//! # Bounds
//!
//! At most [`AHEAD`] ranges of [`RANGE_BYTES`] requested or held, and the
//! one being read: `(AHEAD + 1) × RANGE_BYTES` per object open, which is
//! [`REMOTE_READ_BYTES`](super::REMOTE_READ_BYTES), charged by the memory
//! plan for each of the `parallel_inputs` sources open at once.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::Arc;

use bytes::{Buf, Bytes};
use tokio::task::JoinHandle;

use super::object::Object;

/// The bytes of one ranged read.
pub(crate) const RANGE_BYTES: u64 = 4 << 20;
/// Ranged reads in flight ahead of the reader.
pub(crate) const AHEAD: usize = 3;

const _: () = assert!((AHEAD + 1) * RANGE_BYTES as usize <= super::REMOTE_READ_BYTES);

/// An object's bytes in order; see the module docs.
pub(crate) struct RangedRead {
    object: Arc<Object>,
    /// Where the next range to request starts.
    next: u64,
    pending: VecDeque<JoinHandle<io::Result<Bytes>>>,
    current: Bytes,
}

impl RangedRead {
    /// Reads `object` from its start (its first range already under way
    /// if it was read early).
    pub fn new(object: Arc<Object>) -> Self {
        let mut pending = VecDeque::with_capacity(AHEAD);
        let mut next = 0;
        if let Some(first) = object.take_first_range() {
            pending.push_back(first.read);
            next = first.end;
        }
        RangedRead {
            object,
            next,
            pending,
            current: Bytes::new(),
        }
    }

    /// Requests ranges until [`AHEAD`] are in flight or the object's end.
    fn request(&mut self) {
        while self.pending.len() < AHEAD && self.next < self.object.size {
            let end = (self.next + RANGE_BYTES).min(self.object.size);
            let fetch = self.object.fetch(self.next..end);
            self.pending.push_back(self.object.connection.spawn(fetch));
            self.next = end;
        }
    }
}

impl Read for RangedRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            self.request();
            let Some(range) = self.pending.pop_front() else {
                return Ok(0);
            };
            self.current = (self.object.connection.block_on(range)).map_err(io::Error::other)??;
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current.advance(n);
        Ok(n)
    }
}

impl Drop for RangedRead {
    /// Stops the reads no one will take.
    fn drop(&mut self) {
        for range in &self.pending {
            range.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use object_store::memory::InMemory;
    use object_store::path::Path as Key;
    use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

    use super::super::connection::Connection;
    use super::*;

    #[test]
    fn reads_every_range_in_order_and_fails_once_the_object_changes() {
        let connection = Connection::new(false).unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let key = Key::from("in/a.csv");
        let data: Vec<u8> = (0..(RANGE_BYTES as usize * 2 + 12345))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let put = |bytes: Vec<u8>| {
            let put = store.put(&key, PutPayload::from(bytes));
            connection.block_on(put).unwrap();
        };
        put(data.clone());
        let meta = connection.block_on(store.head(&key)).unwrap();
        let object = || {
            let url = "s3://b/in/a.csv".to_owned();
            Arc::new(Object::new(
                url,
                meta.clone(),
                store.clone(),
                connection.clone(),
            ))
        };
        let mut read = Vec::new();
        RangedRead::new(object()).read_to_end(&mut read).unwrap();
        assert!(read == data, "the object's bytes, in order");
        put(b"key\nother\n".to_vec());
        let e = RangedRead::new(object())
            .read_to_end(&mut read)
            .unwrap_err();
        assert!(e.to_string().contains("changed during the run"), "{e}");
    }
}
