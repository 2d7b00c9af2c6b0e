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
mod pending;

use pending::{PendingSet, RingMap};

use crate::stream::{ByteStream, Reader, Writer};

/// Reorders substrings of a byte stream into a [`ByteStream`]; see the
/// [module documentation](self).
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
    /// assert_eq!(r.writer().available_capacity(), 1500);
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
    pub fn insert(&mut self, first_index: u64, data: &[u8], is_last: bool) {
        let pushed = self.output.writer_ref().bytes_pushed();
        let window_end = pushed.saturating_add(self.output.writer_ref().available_capacity());
        let (data_end, overflowed) = first_index.overflowing_add(data.len() as u64);
        let data_end = if overflowed { u64::MAX } else { data_end };

        if is_last && !overflowed && (data_end <= window_end || data.is_empty()) {
            self.fix_end(data_end);
        }

        let start = first_index.max(pushed);
        let stop = data_end.min(window_end).min(self.end.unwrap_or(u64::MAX));
        if start < stop {
            let skip = (start - first_index) as usize;
            let piece = &data[skip..skip + (stop - start) as usize];
            if start == pushed && self.pending.count() == 0 {
                // In order with nothing pending: a plain push.
                self.output.writer().push(piece);
            } else {
                self.store(start, piece);
                if start == pushed {
                    self.write_out_ready();
                }
            }
        }
        if self.end == Some(self.output.writer_ref().bytes_pushed()) {
            self.output.writer().close();
        }
    }

    /// Bytes received and stored but not yet written to the output. O(1).
    pub fn bytes_pending(&self) -> u64 {
        self.pending.count()
    }

    /// Index of the first byte not yet written to the output.
    pub fn first_unassembled_index(&self) -> u64 {
        self.output.writer_ref().bytes_pushed()
    }

    /// The output's reading half.
    pub fn reader(&mut self) -> &mut Reader {
        self.output.reader()
    }

    /// The output's reading half, for queries only.
    pub fn reader_ref(&self) -> &Reader {
        self.output.reader_ref()
    }

    /// The output's writing half, for queries only: pushing around the
    /// reassembler would overwrite its pending bytes.
    pub fn writer(&self) -> &Writer {
        self.output.writer_ref()
    }

    /// Marks the output stream as failed.
    pub fn set_error(&mut self) {
        self.output.set_error();
    }

    /// Gives back the output stream; pending bytes are discarded.
    pub fn into_output(self) -> ByteStream {
        self.output
    }

    /// Records the stream's end, dropping pending bytes at or past it. An end
    /// before what was already written, or a second end, is ignored.
    fn fix_end(&mut self, end: u64) {
        let map = self.ring_map();
        if self.end.is_some() || end < map.pushed {
            return;
        }
        self.end = Some(end);
        let window_end = map.pushed + self.output.writer_ref().available_capacity();
        if end < window_end {
            self.pending.truncate(&map, end, window_end);
        }
    }

    /// Copies the bytes of `piece` (stream indices `start..`, inside the
    /// window) that are not already pending into the ring.
    fn store(&mut self, start: u64, piece: &[u8]) {
        let map = self.ring_map();
        let ring = self.output.ring_mut();
        self.pending
            .insert(&map, start, start + piece.len() as u64, |a, b| {
                let bytes = &piece[(a - start) as usize..(b - start) as usize];
                let pos = pending::wrap(map.tail + (a - map.pushed) as usize, map.capacity);
                let first = bytes.len().min(map.capacity - pos);
                ring[pos..pos + first].copy_from_slice(&bytes[..first]);
                ring[..bytes.len() - first].copy_from_slice(&bytes[first..]);
            });
    }

    /// Writes out the run of pending bytes at the front of the window.
    fn write_out_ready(&mut self) {
        let map = self.ring_map();
        let room = self.output.writer_ref().available_capacity();
        let ready = self.pending.take_front(&map, room);
        self.output.commit(ready as usize);
    }

    /// How stream indices map to ring positions right now.
    fn ring_map(&self) -> RingMap {
        let pushed = self.output.writer_ref().bytes_pushed();
        RingMap {
            pushed,
            tail: self.output.tail(),
            capacity: self.output.capacity(),
        }
    }
}
