//! The byte pipes spool's [`ByteStream`] is measured against, and the one
//! workload loop ([`pump`]) all of them run.
//!
//! - [`ByteStream`]: spool's ring buffer.
//! - [`VecDequePipe`]: a `VecDeque<u8>` with the same API (also a ring).
//! - [`CopyPipe`]: the copy floor — a flat buffer that takes each byte in
//!   with one `memcpy` and hands it out with one, restarting at its front
//!   whenever it is empty. It shifts its contents when a push would run
//!   past the end, so it is a correct pipe for any pattern, and the fastest
//!   possible one for the benchmark's (every write is drained before the
//!   next).

use std::collections::VecDeque;

use spool::stream::ByteStream;

/// A bounded byte pipe under test.
pub trait Pipe {
    /// Pushes what fits; returns how many bytes were taken.
    fn push(&mut self, data: &[u8]) -> usize;
    /// The contiguous front of the buffered bytes (non-empty if any are).
    fn peek(&self) -> &[u8];
    /// Removes `n` bytes (at most the buffered count) from the front.
    fn pop(&mut self, n: usize);
    /// Whether nothing is buffered.
    fn is_empty(&self) -> bool;
}

impl Pipe for ByteStream {
    #[inline]
    fn push(&mut self, data: &[u8]) -> usize {
        self.writer().push(data)
    }

    #[inline]
    fn peek(&self) -> &[u8] {
        self.reader_ref().peek()
    }

    #[inline]
    fn pop(&mut self, n: usize) {
        self.reader().pop(n);
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.reader_ref().bytes_buffered() == 0
    }
}

/// The stream benchmark's loop: pushes `data` in writes of `write` bytes,
/// and after each write reads everything buffered in reads of at most
/// `read` bytes (peek, copy out, pop), appending to `out`. Returns the
/// number of bytes read.
#[inline(never)] // one call per run; keeps it visible to profilers
pub fn pump<P: Pipe>(
    pipe: &mut P,
    data: &[u8],
    write: usize,
    read: usize,
    out: &mut Vec<u8>,
) -> usize {
    out.clear();
    let mut at = 0;
    while at < data.len() {
        at += pipe.push(&data[at..(at + write).min(data.len())]);
        while !pipe.is_empty() {
            let front = pipe.peek();
            let n = front.len().min(read);
            out.extend_from_slice(&front[..n]);
            pipe.pop(n);
        }
    }
    out.len()
}

/// A bounded pipe over `VecDeque<u8>`: push what fits, peek the front
/// slice, pop from the front.
pub struct VecDequePipe {
    buf: VecDeque<u8>,
    capacity: usize,
}

impl VecDequePipe {
    /// A pipe holding at most `capacity` bytes.
    #[inline]
    pub fn new(capacity: usize) -> Self {
        Self {
            buf: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    /// Pushes what fits; returns how many bytes were taken.
    #[inline]
    pub fn push(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(self.capacity - self.buf.len());
        self.buf.extend(&data[..n]);
        n
    }

    /// The contiguous front.
    #[inline]
    pub fn peek(&self) -> &[u8] {
        self.buf.as_slices().0
    }

    /// Removes `n` bytes from the front.
    #[inline]
    pub fn pop(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
    }

    /// Bytes buffered.
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is buffered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

impl Pipe for VecDequePipe {
    #[inline]
    fn push(&mut self, data: &[u8]) -> usize {
        VecDequePipe::push(self, data)
    }

    #[inline]
    fn peek(&self) -> &[u8] {
        VecDequePipe::peek(self)
    }

    #[inline]
    fn pop(&mut self, n: usize) {
        VecDequePipe::pop(self, n);
    }

    #[inline]
    fn is_empty(&self) -> bool {
        VecDequePipe::is_empty(self)
    }
}

/// The copy floor for pipes; see the [module documentation](self).
pub struct CopyPipe {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

impl CopyPipe {
    /// A pipe holding at most `capacity` bytes.
    #[inline]
    pub fn new(capacity: usize) -> Self {
        Self {
            buf: vec![0; capacity].into_boxed_slice(),
            start: 0,
            end: 0,
        }
    }
}

impl Pipe for CopyPipe {
    #[inline]
    fn push(&mut self, data: &[u8]) -> usize {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        let n = data.len().min(self.buf.len() - (self.end - self.start));
        if self.end + n > self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        self.buf[self.end..self.end + n].copy_from_slice(&data[..n]);
        self.end += n;
        n
    }

    #[inline]
    fn peek(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    #[inline]
    fn pop(&mut self, n: usize) {
        self.start += n.min(self.end - self.start);
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedules::{random_bytes, Rng};

    /// Every pipe, fed random pushes and pops, agrees with a model.
    fn check<P: Pipe>(mut pipe: P, capacity: usize) {
        let mut model = VecDeque::new();
        let mut rng = Rng(42);
        let data = random_bytes(64, 5);
        for _ in 0..20_000 {
            if rng.below(2) == 0 {
                let piece = &data[..rng.below(40) as usize];
                let n = pipe.push(piece);
                assert_eq!(n, piece.len().min(capacity - model.len()));
                model.extend(&piece[..n]);
            } else {
                let n = rng.below(30) as usize;
                let front = pipe.peek();
                assert_eq!(front.is_empty(), model.is_empty());
                let k = front.len().min(n);
                assert!(front[..k].iter().eq(model.iter().take(k)));
                pipe.pop(n);
                model.drain(..n.min(model.len()));
            }
            assert_eq!(pipe.is_empty(), model.is_empty());
        }
    }

    #[test]
    fn pipes_agree_with_a_model() {
        check(ByteStream::new(50), 50);
        check(VecDequePipe::new(50), 50);
        check(CopyPipe::new(50), 50);
    }

    #[test]
    fn pump_reads_everything_in_order() {
        let data = random_bytes(100_000, 1);
        let mut out = Vec::new();
        for read in [4096, 128, 32] {
            assert_eq!(
                pump(&mut CopyPipe::new(4096), &data, 1500, read, &mut out),
                data.len()
            );
            assert!(out == data);
        }
    }
}
