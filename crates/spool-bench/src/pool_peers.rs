//! Message buffers the pool is measured against, behind one trait: append
//! writable bytes to a pending message, freeze it into an owned frame that
//! can go to another thread.
//!
//! - spool's [`BufferPool`](spool::pool::BufferPool)
//! - `buffer_sv2::BufferPool` (Stratum V2's pool, 3.x)
//! - a fresh `Vec<u8>` per message
//! - `bytes::BytesMut` with `split().freeze()`
//! - `lockfree_object_pool::LinearObjectPool<Vec<u8>>` (a pool of `Vec`s)

use std::sync::Arc;

use buffer_sv2::Buffer as _;
use bytes::BytesMut;
use lockfree_object_pool::{LinearObjectPool, LinearOwnedReusable};

/// A producer of frames.
pub trait MessageBuffer {
    /// The frozen, owned frame.
    type Frame: AsRef<[u8]> + Send + 'static;
    /// Appends `len` writable bytes to the pending message.
    fn writable(&mut self, len: usize) -> &mut [u8];
    /// Freezes the pending message.
    fn freeze(&mut self) -> Self::Frame;
}

impl MessageBuffer for spool::pool::BufferPool {
    type Frame = spool::pool::Slice;
    fn writable(&mut self, len: usize) -> &mut [u8] {
        spool::pool::BufferPool::reserve(self, len)
    }
    fn freeze(&mut self) -> Self::Frame {
        spool::pool::BufferPool::freeze(self)
    }
}

/// `buffer_sv2`'s pool over system memory, as its own benchmarks use it.
pub struct Sv2Pool(pub buffer_sv2::BufferPool<buffer_sv2::BufferFromSystemMemory>);

impl Sv2Pool {
    /// A pool of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self(buffer_sv2::BufferPool::new(capacity))
    }
}

/// A `buffer_sv2` slice as a frame.
pub struct Sv2Frame(pub buffer_sv2::Slice);

impl AsRef<[u8]> for Sv2Frame {
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref()
    }
}

impl MessageBuffer for Sv2Pool {
    type Frame = Sv2Frame;
    fn writable(&mut self, len: usize) -> &mut [u8] {
        self.0.get_writable(len)
    }
    fn freeze(&mut self) -> Self::Frame {
        Sv2Frame(self.0.get_data_owned())
    }
}

/// A fresh `Vec<u8>` per message.
#[derive(Default)]
pub struct VecPerMessage(Vec<u8>);

impl MessageBuffer for VecPerMessage {
    type Frame = Vec<u8>;
    fn writable(&mut self, len: usize) -> &mut [u8] {
        let at = self.0.len();
        self.0.resize(at + len, 0);
        &mut self.0[at..]
    }
    fn freeze(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }
}

/// One `BytesMut`; each message is `split().freeze()`n off it.
#[derive(Default)]
pub struct BytesMutSplit(BytesMut);

impl MessageBuffer for BytesMutSplit {
    type Frame = bytes::Bytes;
    fn writable(&mut self, len: usize) -> &mut [u8] {
        let at = self.0.len();
        self.0.resize(at + len, 0);
        &mut self.0[at..]
    }
    fn freeze(&mut self) -> bytes::Bytes {
        self.0.split().freeze()
    }
}

/// A lock-free pool of reusable `Vec<u8>`s.
pub struct ObjectPool {
    pool: Arc<LinearObjectPool<Vec<u8>>>,
    pending: Option<LinearOwnedReusable<Vec<u8>>>,
}

impl Default for ObjectPool {
    fn default() -> Self {
        Self {
            pool: Arc::new(LinearObjectPool::new(Vec::new, |v| v.clear())),
            pending: None,
        }
    }
}

/// A pooled `Vec` as a frame.
pub struct PooledVec(pub LinearOwnedReusable<Vec<u8>>);

impl AsRef<[u8]> for PooledVec {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl MessageBuffer for ObjectPool {
    type Frame = PooledVec;
    fn writable(&mut self, len: usize) -> &mut [u8] {
        let v = self.pending.get_or_insert_with(|| self.pool.pull_owned());
        let at = v.len();
        v.resize(at + len, 0);
        &mut v[at..]
    }
    fn freeze(&mut self) -> PooledVec {
        PooledVec(
            self.pending
                .take()
                .unwrap_or_else(|| self.pool.pull_owned()),
        )
    }
}

/// Writes a `len`-byte message from `input` in 10-byte `writable(10)` calls
/// (buffer_sv2's `add_random_bytes`).
pub fn write_in_tens(buf: &mut impl MessageBuffer, len: usize, input: &[u8]) {
    for i in 0..len / 10 {
        buf.writable(10).copy_from_slice(&input[i..i + 10]);
    }
}
