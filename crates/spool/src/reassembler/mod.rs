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
//! stream's own spare capacity at their final position (stream index `i`
//! lives at ring position `i % capacity`). A [`Bitmap`] with one bit per
//! byte of capacity records which of those positions hold a byte. When the
//! first missing byte arrives, writing the run that follows it out is a
//! counter bump: [`Writer::commit`](crate::stream::Writer::commit).
//!
//! ```text
//!  stream index:  popped        pushed                      popped + capacity
//!                   v             v                               v
//!  ring:         [ buffered ...  | . . X X X . . X X . . . . . .  ]
//!                  (reader side)   ^ pending bytes, at their final places
//!  bitmap:                       | 0 0 1 1 1 0 0 1 1 0 0 0 0 0 0 |
//! ```
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
//! Memory is the stream's buffer plus the bitmap (capacity / 8 bytes), both
//! allocated when the reassembler is made; an insert never allocates. There is
//! no limit on the number of holes: a hostile sender of one-byte segments
//! with gaps between them costs one bit per byte like anyone else, so no
//! segment is refused (smoltcp's assembler drops segments past a fixed hole
//! count) and nothing needs defragmenting (quinn's assembler compacts past a
//! threshold). An insert of `n` bytes costs `O(n / 64)` word operations plus
//! one copy of the bytes that were missing; each byte is written out once.
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

use bitmap::Bitmap;

use crate::stream::{ByteStream, Reader, Writer};

/// Reorders substrings of a byte stream into a [`ByteStream`]; see the
/// [module documentation](self).
#[derive(Clone, Debug)]
pub struct Reassembler {
    output: ByteStream,
    /// Ring positions holding a pending byte.
    present: Bitmap,
    /// Number of bits set in `present`.
    pending: u64,
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
            present: Bitmap::new(output.capacity()),
            output,
            pending: 0,
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
            if start == pushed {
                self.write_in_order(piece);
            } else {
                self.store(start, piece);
            }
        }
        if self.end == Some(self.output.writer_ref().bytes_pushed()) {
            self.output.writer().close();
        }
    }

    /// Bytes received and stored but not yet written to the output. O(1).
    pub fn bytes_pending(&self) -> u64 {
        self.pending
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
        if self.end.is_some() || end < self.output.writer_ref().bytes_pushed() {
            return;
        }
        self.end = Some(end);
        let window_end =
            self.output.writer_ref().bytes_pushed() + self.output.writer_ref().available_capacity();
        if end < window_end {
            let dropped = self.for_ring_ranges(end, window_end - end, |this, lo, hi, _| {
                this.present.remove_range(lo, hi)
            });
            self.pending -= dropped as u64;
        }
    }

    /// Copies the bytes of `data` (stream indices `start..`, inside the
    /// window) that are not already present into the ring.
    fn store(&mut self, start: u64, data: &[u8]) {
        let added = self.for_ring_ranges(start, data.len() as u64, |this, lo, hi, offset| {
            let ring = this.output.ring_mut();
            let piece = &data[offset..offset + (hi - lo)];
            this.present.insert_range(lo, hi, |run, len| {
                ring[run..run + len].copy_from_slice(&piece[run - lo..run - lo + len]);
            })
        });
        self.pending += added as u64;
    }

    /// Writes `piece`, which starts at the first unassembled index, straight
    /// to the output (the in-order fast path: one copy, no bitmap work when
    /// nothing is pending), then any pending run that now follows it.
    fn write_in_order(&mut self, piece: &[u8]) {
        let start = self.output.writer_ref().bytes_pushed();
        if self.pending > 0 {
            // Bytes of `piece` that were pending are written by the push below.
            let overlap = self.for_ring_ranges(start, piece.len() as u64, |this, lo, hi, _| {
                this.present.remove_range(lo, hi)
            });
            self.pending -= overlap as u64;
        }
        let pushed = self.output.writer().push(piece);
        debug_assert_eq!(pushed, piece.len(), "the piece lies inside the window");
        if self.pending > 0 {
            self.write_out_ready();
        }
    }

    /// Writes out the run of pending bytes at the front of the window.
    fn write_out_ready(&mut self) {
        let room = self.output.writer_ref().available_capacity() as usize;
        if room == 0 {
            return;
        }
        let cap = self.output.capacity();
        let lo = self
            .output
            .position_of(self.output.writer_ref().bytes_pushed());
        let first_hi = (lo + room).min(cap);
        let mut ready = self.present.take_run(lo, first_hi);
        if ready == first_hi - lo && lo + room > cap {
            ready += self.present.take_run(0, lo + room - cap);
        }
        self.pending -= ready as u64;
        self.output.commit(ready);
    }

    /// Splits the stream indices `start..start + len` (inside the window, so
    /// `len <= capacity`) into at most two ring ranges and calls
    /// `f(self, lo, hi, offset)` for each, where `offset` is the range's
    /// distance from `start`. Returns the sum of what `f` returned.
    fn for_ring_ranges(
        &mut self,
        start: u64,
        len: u64,
        mut f: impl FnMut(&mut Self, usize, usize, usize) -> usize,
    ) -> usize {
        if len == 0 {
            return 0;
        }
        let cap = self.output.capacity();
        let len = len as usize;
        let lo = self.output.position_of(start);
        if lo + len <= cap {
            f(self, lo, lo + len, 0)
        } else {
            let first = cap - lo;
            f(self, lo, cap, 0) + f(self, 0, len - first, first)
        }
    }
}
