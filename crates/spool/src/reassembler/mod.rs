//! Puts out-of-order substrings of a byte stream back in order, writing each
//! byte straight into the output [`ByteStream`]'s memory.
//!
//! A TCP or QUIC receiver gets a stream as substrings (segments, frames)
//! tagged with the index of their first byte; they may arrive in any order,
//! overlap, repeat, or go missing and come again. [`Reassembler::insert`]
//! takes each one and writes a byte to the output as soon as every earlier
//! byte is known.
//!
//! # No second copy
//!
//! Most reassemblers keep early bytes in a side structure (a map of
//! segments, a second ring) and copy them again when the hole before them
//! fills. Here the bytes that arrive early are copied once, into the output
//! stream's own spare capacity at their final position, and a pending set
//! records which of those positions hold a byte. When the first missing byte
//! arrives, writing the run that follows it out is a counter bump:
//! [`Writer::commit`](crate::stream::Writer::commit). A substring that
//! arrives in order while nothing is pending is a plain push.
//!
//! ```text
//!  stream index:  popped        pushed                      popped + capacity
//!                   v             v                               v
//!  ring:         [ buffered ...  | . . X X X . . X X . . . . . .  ]
//!                  (reader side)   ^ pending bytes, at their final places
//!  pending set:                  | {[2,5), [7,9)}  or, with many holes,
//!                                | 0 0 1 1 1 0 0 1 1 0 0 0 0 0 0  (bitmap)
//! ```
//!
//! Only the bytes that were missing are copied: a segment that overlaps
//! pending bytes costs a copy of its new bytes, not of all of them.
//!
//! # The window
//!
//! Only bytes with index in `[first_unassembled, first_unassembled +
//! available_capacity)` are kept, where `first_unassembled` is the output's
//! `bytes_pushed`. Earlier bytes were written already; later ones do not fit
//! and are dropped (the sender will send them again).
//!
//! # Bounds
//!
//! Memory is the stream's buffer, a bitmap of capacity / 8 bytes and an
//! inline array of 64 ranges, all allocated when the reassembler is made; an
//! insert never allocates. The pending set normally holds sorted ranges (an
//! insert is a binary search and a merge, whatever its length). A segment
//! that would need a 65th range switches the set to the bitmap, one bit per
//! byte of capacity, until every pending byte has been written out. So there
//! is no limit on holes: a hostile sender of one-byte segments with gaps
//! between them costs one bit per byte like anyone else, no segment is ever
//! refused (smoltcp's assembler refuses segments past a fixed hole count) and
//! nothing needs defragmenting (quinn's assembler compacts buffered chunks
//! past an over-allocation threshold). In bitmap mode an insert of `n` bytes
//! costs `O(n / 64)` word operations plus the copy of the missing bytes.
//!
//! # End of stream
//!
//! A substring with `is_last` fixes the stream's end at `first_index +
//! data.len()` — unless the window cut its tail off, in which case the sender
//! must send the end again. An empty last substring fixes the end too, even
//! beyond the bytes received so far. The first end fixed wins; bytes at or
//! past it are dropped, and the output is closed once its last byte is
//! written.
//!
//! # Examples
//!
//! ```
//! use spool::{reassembler::Reassembler, stream::ByteStream};
//!
//! let mut r = Reassembler::new(ByteStream::new(64));
//! r.insert(6, b"world", true);
//! r.insert(0, b"hello ", false);
//! assert_eq!(r.bytes_pending(), 0);
//! assert_eq!(r.reader().peek(), b"hello world");
//! r.reader().pop(11);
//! assert!(r.reader().is_finished());
//! ```

mod bitmap;
mod intervals;
mod output;
mod pending;

use pending::{PendingSet, RingMap};

use crate::stream::ByteStream;

/// Reorders substrings of a byte stream into a [`ByteStream`]; see the
/// [module documentation](self).
///
/// # Examples
///
/// ```
/// use spool::{reassembler::Reassembler, stream::ByteStream};
/// let mut r = Reassembler::new(ByteStream::new(8));
/// r.insert(1, b"b", false);
/// r.insert(0, b"a", false);
/// assert_eq!(r.reader().peek(), b"ab");
/// ```
#[derive(Clone, Debug)]
pub struct Reassembler {
    output: ByteStream,
    /// Stream indices in the window that hold a pending byte.
    pending: PendingSet,
    /// Index one past the stream's last byte, once known.
    end: Option<u64>,
}

impl Reassembler {
    /// Makes a reassembler that writes into `output`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let r = Reassembler::new(ByteStream::new(1500));
    /// assert_eq!(r.writer_ref().available_capacity(), 1500);
    /// ```
    pub fn new(output: ByteStream) -> Self {
        Self {
            pending: PendingSet::new(output.capacity()),
            output,
            end: None,
        }
    }

    /// Takes the substring of the stream that starts at index `first_index`.
    /// `is_last` says it ends the stream. See the [module
    /// documentation](self) for what is kept and when the output closes.
    ///
    /// Never panics and never allocates, whatever the indices.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    ///
    /// let mut r = Reassembler::new(ByteStream::new(4));
    /// r.insert(2, b"cdef", false); // "ef" is past the window and dropped
    /// assert_eq!(r.bytes_pending(), 2);
    /// r.insert(0, b"ab", false);
    /// assert_eq!(r.reader().peek(), b"abcd");
    /// ```
    #[inline]
    pub fn insert(&mut self, first_index: u64, data: &[u8], is_last: bool) {
        let pushed = self.output.pushed();
        let window_end = pushed.saturating_add(self.output.room() as u64);
        if is_last {
            self.take_last(first_index, data.len(), window_end);
        }
        // Saturating: a substring whose end overflows `u64` is cut by the
        // window like any other (and cannot end the stream, see take_last).
        let data_end = first_index.saturating_add(data.len() as u64);
        let stop = data_end.min(window_end).min(self.end.unwrap_or(u64::MAX));
        if first_index <= pushed {
            if stop > pushed {
                let skip = (pushed - first_index) as usize;
                let piece = &data[skip..skip + (stop - pushed) as usize];
                if self.pending.count() == 0 {
                    // In order with nothing pending: a plain push.
                    self.output.writer().push(piece);
                } else {
                    self.store(pushed, piece);
                    self.write_out_ready();
                }
                self.close_at_end();
            }
        } else if first_index < stop {
            self.store(first_index, &data[..(stop - first_index) as usize]);
        }
    }

    /// Bytes received and stored but not yet written to the output. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(2, b"cd", false);
    /// assert_eq!(r.bytes_pending(), 2);
    /// ```
    #[must_use]
    pub fn bytes_pending(&self) -> u64 {
        self.pending.count()
    }

    /// Index of the first byte not yet written to the output.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(0, b"ab", false);
    /// assert_eq!(r.first_unassembled_index(), 2);
    /// ```
    #[must_use]
    pub fn first_unassembled_index(&self) -> u64 {
        self.output.writer_ref().bytes_pushed()
    }

    /// Handles a substring marked last: it fixes the stream's end at
    /// `first_index + len` if that end is known to be right (the window did
    /// not cut the substring's tail, and the sum does not overflow), or if
    /// the substring is empty.
    #[cold]
    fn take_last(&mut self, first_index: u64, len: usize, window_end: u64) {
        if let Some(end) = first_index.checked_add(len as u64) {
            if end <= window_end || len == 0 {
                self.fix_end(end, window_end);
            }
        }
    }

    /// Records the stream's end, dropping pending bytes at or past it, and
    /// closes the output if every byte before the end is written. An end
    /// before what was already written, or a second end, is ignored.
    fn fix_end(&mut self, end: u64, window_end: u64) {
        let map = self.ring_map();
        if self.end.is_some() || end < map.pushed {
            return;
        }
        self.end = Some(end);
        if end < window_end {
            self.pending.truncate(&map, end, window_end);
        }
        self.close_at_end();
    }

    /// Closes the output once its last byte is written.
    #[inline]
    fn close_at_end(&mut self) {
        if self.end == Some(self.output.pushed()) {
            self.output.writer().close();
        }
    }

    /// Copies the bytes of `piece` (stream indices `start..`, inside the
    /// window) that are not already pending into the ring.
    #[inline]
    fn store(&mut self, start: u64, piece: &[u8]) {
        if self.pending.count() == 0 {
            // Nothing stored beyond the tail: start at the ring's front.
            self.output.rewind_if_empty();
        }
        let map = self.ring_map();
        let ring = self.output.ring_mut();
        self.pending
            .insert(&map, start, start + piece.len() as u64, |a, b| {
                map.write(ring, a, &piece[(a - start) as usize..(b - start) as usize]);
            });
    }

    /// Writes out the run of pending bytes at the front of the window.
    #[inline]
    fn write_out_ready(&mut self) {
        let map = self.ring_map();
        let room = self.output.room() as u64;
        let ready = self.pending.take_front(&map, room);
        self.output.commit(ready as usize);
    }

    /// How stream indices map to ring positions right now.
    #[inline]
    fn ring_map(&self) -> RingMap {
        RingMap {
            pushed: self.output.pushed(),
            tail: self.output.tail(),
            capacity: self.output.capacity(),
        }
    }
}
