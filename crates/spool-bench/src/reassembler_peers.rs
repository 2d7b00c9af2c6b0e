//! The reassemblers spool's is measured against, behind one trait with the
//! CS144 semantics (a window of `capacity` bytes past the last byte read).
//!
//! - [`SpoolPeer`]: spool's [`Reassembler`].
//! - [`S2nPeer`]: `s2n-quic-core`'s stream reassembler (AWS's QUIC stack),
//!   which has no capacity of its own, so the adapter clips to the window.
//! - [`SmoltcpPeer`]: `smoltcp`'s `Assembler` + `RingBuffer`, wired as its
//!   TCP socket wires them. Its assembler tracks a fixed number of holes
//!   (32 here, the largest its features allow); a segment that would need
//!   more is refused, as the socket refuses it, and the adapter resends it
//!   after the front next advances, as a TCP sender eventually would.
//! - [`BTreeMapPeer`]: the textbook reassembler: a `BTreeMap<u64, Vec<u8>>`
//!   of non-overlapping pending pieces, written out into a `VecDeque<u8>`.
//! - [`DropAll`]: accepts every segment and does nothing (harness floor).

use std::collections::{BTreeMap, VecDeque};

use smoltcp::storage::{Assembler, RingBuffer};
use spool::{reassembler::Reassembler, stream::ByteStream};

/// A reassembler under test.
pub trait Peer {
    /// Takes the substring `data` starting at stream index `index`.
    fn insert(&mut self, index: u64, data: &[u8], last: bool);
    /// Appends every assembled byte to `out` and consumes it.
    fn drain_into(&mut self, out: &mut Vec<u8>);
}

/// spool's reassembler.
pub struct SpoolPeer(pub Reassembler);

impl SpoolPeer {
    /// A reassembler over a stream of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self(Reassembler::new(ByteStream::new(capacity)))
    }
}

impl Peer for SpoolPeer {
    #[inline]
    fn insert(&mut self, index: u64, data: &[u8], last: bool) {
        self.0.insert(index, data, last);
    }

    #[inline]
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        let reader = self.0.reader();
        while reader.bytes_buffered() > 0 {
            let front = reader.peek();
            out.extend_from_slice(front);
            let n = front.len();
            reader.pop(n);
        }
    }
}

/// Clips `index..index + data.len()` to `[lo, hi)`; returns the new index and
/// bytes, or `None` if nothing is left.
fn clip(index: u64, data: &[u8], lo: u64, hi: u64) -> Option<(u64, &[u8])> {
    let start = index.max(lo);
    let end = (index + data.len() as u64).min(hi);
    (start < end).then(|| {
        (
            start,
            &data[(start - index) as usize..(end - index) as usize],
        )
    })
}

/// `s2n-quic-core`'s reassembler, clipped to the window.
pub struct S2nPeer {
    inner: s2n_quic_core::buffer::Reassembler,
    capacity: u64,
}

impl S2nPeer {
    /// A reassembler whose window is `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: s2n_quic_core::buffer::Reassembler::new(),
            capacity: capacity as u64,
        }
    }
}

impl Peer for S2nPeer {
    #[inline]
    fn insert(&mut self, index: u64, data: &[u8], last: bool) {
        let read = self.inner.consumed_len();
        let Some((at, bytes)) = clip(index, data, read, read + self.capacity) else {
            return;
        };
        let offset = s2n_quic_core::varint::VarInt::new(at).expect("index fits a VarInt");
        let whole = at + bytes.len() as u64 == index + data.len() as u64;
        let result = if last && whole {
            self.inner.write_at_fin(offset, bytes)
        } else {
            self.inner.write_at(offset, bytes)
        };
        result.expect("consistent stream");
    }

    #[inline]
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        while let Some(chunk) = self.inner.pop() {
            out.extend_from_slice(&chunk);
        }
    }
}

/// `smoltcp`'s assembler and ring buffer.
pub struct SmoltcpPeer {
    assembler: Assembler,
    ring: RingBuffer<'static, u8>,
    /// Bytes enqueued into the ring so far (the first unassembled index).
    assembled: u64,
    /// Segments refused for too many holes, to be sent again.
    refused: Vec<(u64, Vec<u8>)>,
    /// How many segments were refused over the run.
    pub refusals: u64,
}

impl SmoltcpPeer {
    /// A ring of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            assembler: Assembler::new(),
            ring: RingBuffer::new(vec![0u8; capacity]),
            assembled: 0,
            refused: Vec::new(),
            refusals: 0,
        }
    }

    fn offer(&mut self, index: u64, data: &[u8]) -> bool {
        let window = self.ring.window() as u64;
        let Some((at, bytes)) = clip(index, data, self.assembled, self.assembled + window) else {
            return true;
        };
        let offset = (at - self.assembled) as usize;
        if self.assembler.add(offset, bytes.len()).is_err() {
            return false;
        }
        let written = self.ring.write_unallocated(offset, bytes);
        debug_assert_eq!(written, bytes.len(), "the window fits in the ring");
        let ready = self.assembler.remove_front();
        self.ring.enqueue_unallocated(ready);
        self.assembled += ready as u64;
        true
    }
}

impl Peer for SmoltcpPeer {
    #[inline]
    fn insert(&mut self, index: u64, data: &[u8], _last: bool) {
        let before = self.assembled;
        if !self.offer(index, data) {
            self.refusals += 1;
            self.refused.push((index, data.to_vec()));
        }
        if self.assembled != before && !self.refused.is_empty() {
            for (i, d) in std::mem::take(&mut self.refused) {
                if !self.offer(i, &d) {
                    self.refused.push((i, d));
                }
            }
        }
    }

    #[inline]
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        while !self.ring.is_empty() {
            let n = self.ring.dequeue_many_with(|buf| {
                out.extend_from_slice(buf);
                (buf.len(), ())
            });
            if n.0 == 0 {
                break;
            }
        }
    }
}

/// The textbook reassembler: pending pieces in a `BTreeMap`, merged on
/// overlap, written out into a bounded `VecDeque<u8>`.
pub struct BTreeMapPeer {
    pending: BTreeMap<u64, Vec<u8>>,
    output: VecDeque<u8>,
    capacity: u64,
    pushed: u64,
    popped: u64,
}

impl BTreeMapPeer {
    /// A reassembler whose output holds `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            pending: BTreeMap::new(),
            output: VecDeque::with_capacity(capacity),
            capacity: capacity as u64,
            pushed: 0,
            popped: 0,
        }
    }
}

impl Peer for BTreeMapPeer {
    #[inline]
    fn insert(&mut self, index: u64, data: &[u8], _last: bool) {
        let Some((mut start, bytes)) = clip(index, data, self.pushed, self.popped + self.capacity)
        else {
            return;
        };
        let mut piece = bytes.to_vec();
        // Merge with a piece that starts before and reaches into this one.
        if let Some((&s, prev)) = self.pending.range(..start).next_back() {
            if s + prev.len() as u64 >= start {
                let mut merged = self.pending.remove(&s).unwrap();
                let keep = (start - s) as usize;
                if merged.len() < keep + piece.len() {
                    merged.truncate(keep);
                    merged.extend_from_slice(&piece);
                }
                piece = merged;
                start = s;
            }
        }
        // Absorb the pieces that start inside this one.
        let end = start + piece.len() as u64;
        let inside: Vec<u64> = self.pending.range(start..=end).map(|(&k, _)| k).collect();
        for k in inside {
            let next = self.pending.remove(&k).unwrap();
            let next_end = k + next.len() as u64;
            if next_end > start + piece.len() as u64 {
                let from = (start + piece.len() as u64 - k) as usize;
                piece.extend_from_slice(&next[from..]);
            }
        }
        self.pending.insert(start, piece);
        while let Some(entry) = self.pending.first_entry() {
            if *entry.key() != self.pushed {
                break;
            }
            let piece = entry.remove();
            self.pushed += piece.len() as u64;
            self.output.extend(piece);
        }
    }

    #[inline]
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        let (a, b) = self.output.as_slices();
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        self.popped += self.output.len() as u64;
        self.output.clear();
    }
}

/// Accepts every segment and keeps nothing: the cost of the harness itself.
pub struct DropAll;

impl Peer for DropAll {
    #[inline]
    fn insert(&mut self, _index: u64, data: &[u8], _last: bool) {
        std::hint::black_box(data);
    }

    #[inline]
    fn drain_into(&mut self, _out: &mut Vec<u8>) {}
}

/// Runs a whole schedule through `peer`, draining after every segment as the
/// CS144 speed test does, and returns what came out.
#[inline(never)] // one call per run; keeps it visible to profilers
pub fn run<P: Peer>(peer: &mut P, schedule: &crate::schedules::Schedule, out: &mut Vec<u8>) {
    out.clear();
    for s in &schedule.segments {
        peer.insert(s.index, schedule.payload(s), s.last);
        peer.drain_into(out);
    }
}
