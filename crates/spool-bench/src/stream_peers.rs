//! The byte pipe spool's [`ByteStream`](spool::stream::ByteStream) is
//! measured against: a `VecDeque<u8>` with the same API.

use std::collections::VecDeque;

/// A bounded pipe over `VecDeque<u8>`: push what fits, peek the front
/// slice, pop from the front.
pub struct VecDequePipe {
    buf: VecDeque<u8>,
    capacity: usize,
}

impl VecDequePipe {
    /// A pipe holding at most `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            buf: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    /// Pushes what fits; returns how many bytes were taken.
    pub fn push(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(self.capacity - self.buf.len());
        self.buf.extend(&data[..n]);
        n
    }

    /// The contiguous front.
    pub fn peek(&self) -> &[u8] {
        self.buf.as_slices().0
    }

    /// Removes `n` bytes from the front.
    pub fn pop(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
    }

    /// Bytes buffered.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
