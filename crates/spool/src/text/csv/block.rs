//! One pass over the bytes: the reader that cuts blocks between records
//! also writes down where each record is, and whoever reads the block
//! takes the records from that index instead of scanning the bytes again.
//!
//! ```text
//!  read-ahead thread                          consumer of the block
//!  buffer ──► BlockCutter::scan ──► cut ──►   IndexedRecords: one entry per
//!             (stage one, state carried       record (start, end, line,
//!              from the last buffer)          delimiters and quotes of its
//!                  │                          first 64 bytes), no byte read
//!                  └──► BlockIndex ─────────► again
//! ```
//!
//! # Why
//!
//! A quote-aware cut needs every byte scanned in order (a line break ends
//! a record only outside quotes, and a backwards search cannot know the
//! quote parity), and splitting the block into records and fields needs
//! the same masks. [`RecordCutter`](super::RecordCutter) followed by
//! [`Records`](super::Records) computes them twice; here the cutter runs
//! [`Records`]' own stage one and keeps its output.
//!
//! # Bounds
//!
//! An index holds at most one entry per [`BYTES_PER_ENTRY`] bytes of the
//! block it was made for, so it costs at most half that block's memory
//! whatever the input (an entry is 32 bytes). Records beyond that (only
//! when they average fewer than 64 bytes), the input's last record when it
//! has no line break, and a quote never closed are not indexed: the
//! consumer finds them by scanning the bytes after the last indexed record,
//! as [`Records`] would.
//!
//! [`Records`]: super::Records

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::index::RecordIndex;
use super::scan::Splitter;
use super::{Dialect, BOM};
use crate::text::Position;

/// Bytes of a block per entry its index may hold: an entry is 32 bytes,
/// so an index is at most half the size of its block.
pub const BYTES_PER_ENTRY: usize = 64;

/// One record of a block: what [`Records`](super::Records)' stage one
/// knows about it, positions relative to the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub start: u32,
    /// Just past its line break (CRLF counted whole).
    pub end: u32,
    /// Lines before it in the block.
    pub line: u32,
    /// Delimiters outside quotes and quotes, in its first 64 bytes.
    pub delims: u64,
    pub quotes: u64,
}

/// The records of one block, as its [`BlockCutter`] found them; read them
/// with [`IndexedRecords`](super::IndexedRecords).
///
/// Reused from block to block (its allocation stays); see the module docs
/// for its bound.
#[derive(Clone, Debug, Default)]
pub struct BlockIndex {
    pub(crate) entries: Vec<Entry>,
    cap: usize,
}

impl BlockIndex {
    /// An index for blocks of about `block_len` bytes: room for
    /// `block_len / BYTES_PER_ENTRY` records (at least one), allocated on
    /// first use.
    pub fn for_block_len(block_len: usize) -> Self {
        BlockIndex {
            entries: Vec::new(),
            cap: (block_len / BYTES_PER_ENTRY).max(1),
        }
    }

    /// Most bytes an index for blocks of `block_len` bytes holds.
    pub fn memory(block_len: usize) -> usize {
        (block_len / BYTES_PER_ENTRY).max(1) * core::mem::size_of::<Entry>()
    }

    /// Records indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no record is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets the records, keeping the allocation.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// Cuts an input that arrives in buffers after the last whole record, as
/// [`RecordCutter`](super::RecordCutter) does, and indexes the records of
/// each buffer on the way; see the module docs.
///
/// Each buffer starts at the last cut (the bytes after it carried over)
/// and may grow between calls to [`scan`](Self::scan). It is scanned in
/// whole 64-byte chunks, one byte short of its end (that byte says whether
/// a CR before it is followed by an LF), until the input ends. Only when
/// those chunks hold no record end are the few bytes after them scanned,
/// on a copy of the state, to find one. After a cut the scan starts again
/// at the cut, from the state every record end has (outside quotes, at a
/// record start): the carried bytes (usually part of one record) are
/// scanned twice, and no position or partial mask is ever moved.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{BlockCutter, BlockIndex, Dialect, IndexedRecords};
/// use spool::text::Position;
/// let input = b"id,note\n1,\"two\nlines\"\n2,x\n3,y";
/// let mut cutter = BlockCutter::new(Dialect::CSV);
/// let mut index = BlockIndex::for_block_len(1 << 20);
/// // The whole input in one buffer: the cut is after "2,x\n".
/// let cut = cutter.scan(input, false, &mut index).unwrap();
/// assert_eq!(cut, 26);
/// let records = IndexedRecords::new(&input[..cut], &index, Dialect::CSV);
/// let ids: Vec<_> = records.map(|r| r.unwrap().field(0).unwrap().raw()).collect();
/// assert_eq!(ids, [&b"id"[..], b"1", b"2"]);
/// // The next buffer starts with what was cut off.
/// cutter.cut(input, cut);
/// assert_eq!(cutter.first_line(), 5);
/// index.clear();
/// assert_eq!(cutter.scan(&input[cut..], true, &mut index), None);
/// let start = Position { offset: cut as u64, line: cutter.first_line() };
/// let last: Vec<_> = IndexedRecords::new(&input[cut..], &index, Dialect::CSV)
///     .starting_at(start)
///     .map(|r| r.unwrap().raw())
///     .collect();
/// assert_eq!(last, [&b"3,y"[..]]);
/// ```
#[derive(Clone, Debug)]
pub struct BlockCutter {
    splitter: Splitter,
    /// Stage one of `Records` over the current buffer: positions relative
    /// to it, lines counted from the input's start.
    index: Box<RecordIndex>,
    /// Line of the current buffer's first byte.
    first_line: u64,
    /// The first and last record ends found in the current buffer.
    first_end: Option<usize>,
    last_end: Option<usize>,
    /// Whether the input's start was checked for a byte order mark.
    bom_checked: bool,
}

impl BlockCutter {
    /// A cutter for an input that starts with the first buffer scanned.
    pub fn new(dialect: Dialect) -> Self {
        BlockCutter {
            splitter: Splitter::new(dialect),
            index: Box::new(RecordIndex::new(1)),
            first_line: 1,
            first_end: None,
            last_end: None,
            bom_checked: false,
        }
    }

    /// Scans what is new in `buf` (the current buffer, from the last cut)
    /// — all of it if `eof` — appending the records that end in it to
    /// `index` while it has room, and returns the end of the last record
    /// found in the buffer so far (where to cut it), if any.
    ///
    /// A UTF-8 byte order mark at the start of the input is skipped.
    pub fn scan(&mut self, buf: &[u8], eof: bool, index: &mut BlockIndex) -> Option<usize> {
        if !self.bom_checked {
            if !eof && buf.len() < BOM.len() && BOM.starts_with(buf) {
                return None; // a byte order mark, or its first bytes
            }
            self.bom_checked = true;
            if buf.starts_with(BOM) {
                self.index.base = BOM.len();
            }
        }
        let base = self.index.base;
        // Keep the last byte back: it may be the LF of a CRLF.
        let ready = if eof {
            buf.len()
        } else {
            buf.len().saturating_sub(1).max(base)
        };
        let stop = if eof {
            ready
        } else {
            base + (ready - base) / 64 * 64
        };
        self.scan_to(buf, stop, index);
        if self.last_end.is_none() && stop < ready {
            // No record ends in the whole chunks: look in the bytes after
            // them, on a copy, kept only if a record ends there (the
            // buffer is then cut, and the scan starts again at the cut).
            let whole = self.index.clone();
            self.scan_to(buf, ready, index);
            if self.last_end.is_none() {
                self.index = whole;
            }
        }
        self.last_end
    }

    /// Runs stage one up to `stop`, moving the ends it finds into `index`.
    fn scan_to(&mut self, buf: &[u8], stop: usize, index: &mut BlockIndex) {
        while self.index.base < stop {
            self.index.refill_to(buf, stop, &self.splitter);
            self.take(index);
        }
    }

    /// Moves the ends stage one found into `index`.
    #[inline]
    fn take(&mut self, index: &mut BlockIndex) {
        let ix = &mut *self.index;
        let (from, to) = (ix.ends_taken, ix.n_ends);
        if from == to {
            return;
        }
        if ix.ends[to - 1] > u32::MAX as usize {
            index.cap = index.entries.len(); // positions no longer fit
        }
        let n = (to - from).min(index.cap - index.entries.len());
        if n > 0 {
            if index.entries.capacity() == 0 {
                index.entries.reserve_exact(index.cap);
            }
            #[cfg(target_arch = "x86_64")]
            if self.splitter.fused() {
                // SAFETY: `fused` is set only when the CPU has POPCNT
                // (with AVX2 and PCLMULQDQ), the feature `entries_popcnt`
                // is compiled for.
                #[allow(unsafe_code)]
                unsafe {
                    entries_popcnt(ix, from..from + n, self.first_line, &mut index.entries)
                };
            } else {
                entries(ix, from..from + n, self.first_line, &mut index.entries);
            }
            #[cfg(not(target_arch = "x86_64"))]
            entries(ix, from..from + n, self.first_line, &mut index.entries);
        }
        self.first_end.get_or_insert(ix.ends[from]);
        self.last_end = Some(ix.ends[to - 1]);
        ix.ends_taken = to;
    }

    /// The end of the first record found in the current buffer: what to
    /// check against a length limit.
    pub fn first_end(&self) -> Option<usize> {
        self.first_end
    }

    /// Cuts the current buffer `buf` at `end`, the last record end
    /// [`scan`](Self::scan) returned: the next buffer starts with
    /// `buf[end..]`.
    pub fn cut(&mut self, buf: &[u8], end: usize) {
        debug_assert_eq!(Some(end), self.last_end);
        let (base, line) = (self.index.base, self.index.line);
        // `end` is past `base` by the LF of a CRLF kept back.
        let line = if end <= base {
            line - memchr::memchr_iter(b'\n', &buf[end..base]).count() as u64
        } else {
            line + memchr::memchr_iter(b'\n', &buf[base..end]).count() as u64
        };
        self.first_line = line;
        *self.index = RecordIndex::new(line);
        (self.first_end, self.last_end) = (None, None);
    }

    /// Line of the current buffer's first byte (after a [`cut`](Self::cut),
    /// the line just after the cut).
    pub fn first_line(&self) -> u64 {
        self.first_line
    }

    /// The opening quote of a quoted field still open after the bytes
    /// scanned, if any, when the current buffer starts at input offset
    /// `offset`: what to name when a record grows too long.
    pub fn open_quote(&self, offset: u64) -> Option<Position> {
        let ix = &*self.index;
        if !ix.carry.inside {
            return None;
        }
        let (base, line, opens, lf) = ix.open;
        let bit = 63 - opens.leading_zeros();
        let below = lf & ((1u64 << bit) - 1);
        Some(Position {
            offset: offset + (base as u64) + u64::from(bit),
            line: line + u64::from(below.count_ones()),
        })
    }
}

/// Appends stage one's records `range` to `out`, their lines counted
/// from `first_line`.
#[inline(always)]
fn entries(
    ix: &RecordIndex,
    range: core::ops::Range<usize>,
    first_line: u64,
    out: &mut Vec<Entry>,
) {
    out.extend(range.map(|i| Entry {
        start: ix.starts[i] as u32,
        end: ix.ends[i] as u32,
        line: (ix.lines[i] + u64::from(ix.lf_before[i].count_ones()) - first_line) as u32,
        delims: ix.delims[i],
        quotes: ix.quotes[i],
    }));
}

/// [`entries`] compiled for POPCNT: a line is one instruction instead of
/// a dozen (the crate is built for baseline x86-64).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn entries_popcnt(
    ix: &RecordIndex,
    range: core::ops::Range<usize>,
    first_line: u64,
    out: &mut Vec<Entry>,
) {
    entries(ix, range, first_line, out);
}
