//! Stage one of [`Records`](super::Records): a run of chunks scanned in one
//! tight loop into a small index of record positions, which stage two (the
//! iterator) hands out without looking at the bytes again.
//!
//! # Why two stages
//!
//! The chunk scan costs the same per 64 bytes whatever the records; what
//! made the splitter slower than the unquoted line path was the work per
//! record around it: an iterator that kept every chunk's masks in `self`,
//! stored and reloaded them around each record, and branched on whether a
//! record was open at each chunk. Here, as in simdjson's stage one, the
//! loop keeps its state (offset, line, quote carry) in registers, turns
//! each chunk's masks into positions with a `tzcnt`/`blsr` loop written
//! into fixed arrays, and stops when the arrays are nearly full. On x86-64
//! with AVX2, PCLMULQDQ and POPCNT the whole loop is compiled for them, so
//! the chunk scan is inlined into it rather than called per chunk.
//!
//! # What is kept per record
//!
//! Starts and ends alternate (a record starts, then ends, then the next
//! starts: blank lines are neither), so entry `i` of `starts` pairs with
//! entry `i` of `ends`, and at most one start (a record still open) is
//! waiting for its end when the ends run out. Each start also keeps its
//! line (the line of its chunk plus the LFs before it in the chunk: the
//! count is made only when asked for) and the delimiters outside quotes in
//! its first 64 bytes, so [`Record::field`](super::Record::field) counts
//! bits instead of scanning, and the quotes there, so that
//! [`Field::value`](super::Field::value) knows without scanning whether a
//! quoted field has anything to unescape. Those 64 bytes reach into the next chunk, so
//! a start's masks are completed when the chunk after its own is
//! scanned; a record handed out has its end scanned, so that chunk was
//! scanned too whenever the record reaches into it.

use super::scan::{Carry, Scanned, Splitter};

/// Entries per index: enough to make the refill rare, small enough to
/// stay in the L1 cache (6 arrays of 1 KiB).
const CAP: usize = 128;

/// Another chunk is scanned only while there are fewer ends than this: a
/// chunk adds at most 32 of each (starts and ends alternate), plus the
/// start left open.
const FULL: usize = CAP - 33;

/// The positions of the records found so far; see the module docs.
#[derive(Clone, Debug)]
pub(crate) struct RecordIndex {
    /// Offset of each record's first byte in the data.
    pub starts: [usize; CAP],
    /// Offset just past each record's line break (CRLF counted whole).
    pub ends: [usize; CAP],
    /// Bit `j`: byte `j` of the record is a delimiter outside quotes.
    pub delims: [u64; CAP],
    /// Bit `j`: byte `j` of the record is a quote, for its first 64 bytes.
    pub quotes: [u64; CAP],
    /// The line of the chunk each record starts in, and the LFs of that
    /// chunk before its start.
    pub lines: [u64; CAP],
    pub lf_before: [u64; CAP],
    /// Entries filled in `starts` and in `ends`; `ends_taken` of the ends
    /// were handed out.
    pub n_starts: usize,
    pub n_ends: usize,
    pub ends_taken: usize,
    /// Where the next chunk starts, and its line.
    pub base: usize,
    pub line: u64,
    /// The quote state at `base`.
    pub carry: Carry,
    /// The last chunk with a quote that opened a quoted field: its start,
    /// line, opening quotes and LFs (for the error, computed only then).
    pub open: (usize, u64, u64, u64),
    /// The starts made by the last chunk scanned, which the next chunk's
    /// delimiters complete: from this entry on.
    prev_from: usize,
}

impl RecordIndex {
    /// An empty index for data starting at line `first_line`.
    pub(crate) fn new(first_line: u64) -> Self {
        RecordIndex {
            starts: [0; CAP],
            ends: [0; CAP],
            delims: [0; CAP],
            quotes: [0; CAP],
            lines: [0; CAP],
            lf_before: [0; CAP],
            n_starts: 0,
            n_ends: 0,
            ends_taken: 0,
            base: 0,
            line: first_line,
            carry: Carry::START,
            open: (0, 0, 0, 0),
            prev_from: 0,
        }
    }

    /// Whether the start of a record still open (no end yet) is kept.
    #[inline]
    pub(crate) fn open_record(&self) -> bool {
        self.n_starts > self.n_ends
    }

    /// Once every end was handed out: drops the records handed out (keeps
    /// the open one) and scans on through `data` until the index is nearly
    /// full or the data ends.
    pub(crate) fn refill(&mut self, data: &[u8], splitter: &Splitter) {
        self.refill_to(data, data.len(), splitter);
    }

    /// [`refill`](Self::refill) that stops scanning at `end`, reading the
    /// bytes after it only to see whether a CR there is followed by an LF.
    ///
    /// Unless `end` is `data.len()`, `end - base` must be a whole number
    /// of chunks, or this must be the index's last scan: a record that
    /// starts in a short chunk has its masks completed by the next chunk
    /// only, so two short chunks in a row would leave them incomplete.
    pub(crate) fn refill_to(&mut self, data: &[u8], end: usize, splitter: &Splitter) {
        self.compact();
        #[cfg(target_arch = "x86_64")]
        if splitter.fused() {
            // SAFETY: `fused` is set only when the CPU has AVX2, PCLMULQDQ
            // and POPCNT, the features `fill_fused` is compiled for.
            #[allow(unsafe_code)]
            unsafe {
                fill_fused(self, data, end, splitter)
            };
            return;
        }
        fill(self, data, end, |carry, chunk, len| {
            splitter.scan_unfused(carry, chunk, len)
        });
    }

    /// Once every end was handed out: drops the records handed out, keeping
    /// the one still open.
    fn compact(&mut self) {
        debug_assert_eq!(self.ends_taken, self.n_ends);
        let kept = self.n_starts - self.n_ends;
        if kept == 1 {
            let i = self.n_ends;
            self.starts[0] = self.starts[i];
            self.delims[0] = self.delims[i];
            self.quotes[0] = self.quotes[i];
            self.lines[0] = self.lines[i];
            self.lf_before[0] = self.lf_before[i];
        }
        // The kept start still waits for its next chunk only if it was
        // made by the last chunk scanned.
        self.prev_from = if self.prev_from <= self.n_ends {
            0
        } else {
            kept
        };
        self.n_starts = kept;
        self.n_ends = 0;
        self.ends_taken = 0;
    }
}

/// [`fill`] with the fused chunk scan inlined, all of it compiled for
/// AVX2, PCLMULQDQ and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq,popcnt")]
fn fill_fused(ix: &mut RecordIndex, data: &[u8], end: usize, splitter: &Splitter) {
    // The closure inherits this function's target features, so calling
    // the fused scan from it is safe, and it is inlined.
    fill(
        ix,
        data,
        end,
        #[inline(always)]
        |carry, chunk, len| super::scan::x86::scan(splitter, carry, chunk, len),
    );
}

/// Stage one's loop: scans chunks from `ix.base` with `scan` until the
/// index is nearly full or `stop` is reached (see [`RecordIndex::refill_to`]).
#[inline(always)]
fn fill(
    ix: &mut RecordIndex,
    data: &[u8],
    stop: usize,
    scan: impl Fn(&mut Carry, &[u8; 64], usize) -> Scanned,
) {
    debug_assert!(stop <= data.len());
    let (mut base, mut line, mut carry, mut open) = (ix.base, ix.line, ix.carry, ix.open);
    let (mut n_starts, mut n_ends, mut prev_from) = (ix.n_starts, ix.n_ends, ix.prev_from);
    while n_ends < FULL && base < stop {
        let rest = &data[base..];
        let len = (stop - base).min(64);
        // One call site, so that the scan is inlined into this loop.
        let tail;
        let chunk = match rest.first_chunk::<64>() {
            Some(chunk) => chunk,
            None => {
                tail = padded(rest);
                &tail
            }
        };
        let s = scan(&mut carry, chunk, len);
        // The last chunk's starts get this chunk's delimiters and quotes (a
        // start at bit 0 of its chunk had all 64 already: the shift drops
        // them).
        for i in prev_from..n_starts {
            let bit = ix.starts[i] + 64 - base;
            ix.delims[i] |= (u128::from(s.fields) << (64 - bit)) as u64;
            ix.quotes[i] |= (u128::from(s.quotes) << (64 - bit)) as u64;
        }
        prev_from = n_starts;
        let mut starts = s.starts;
        while starts != 0 {
            let bit = starts.trailing_zeros();
            starts &= starts - 1;
            ix.starts[n_starts] = base + bit as usize;
            ix.delims[n_starts] = s.fields >> bit;
            ix.quotes[n_starts] = s.quotes >> bit;
            ix.lines[n_starts] = line;
            ix.lf_before[n_starts] = s.lf & ((1u64 << bit) - 1);
            n_starts += 1;
        }
        let mut ends = s.ends;
        while ends != 0 {
            let bit = ends.trailing_zeros();
            ends &= ends - 1;
            let mut end = base + bit as usize + 1;
            // CRLF ends after the LF (which may be in the next chunk).
            if data[end - 1] == b'\r' && data.get(end) == Some(&b'\n') {
                end += 1;
            }
            ix.ends[n_ends] = end;
            n_ends += 1;
        }
        // Without a branch: whether a chunk opens a quoted field is as
        // random as the data.
        open = if s.opens != 0 {
            (base, line, s.opens, s.lf)
        } else {
            open
        };
        line += u64::from(s.lf_count);
        base += len;
    }
    (ix.base, ix.line, ix.carry, ix.open) = (base, line, carry, open);
    (ix.n_starts, ix.n_ends, ix.prev_from) = (n_starts, n_ends, prev_from);
}

/// The last, short chunk of the data, padded with zeros (its own
/// function, so the full chunks never pay for the zeroing).
#[cold]
fn padded(rest: &[u8]) -> [u8; 64] {
    let mut padded = [0u8; 64];
    padded[..rest.len()].copy_from_slice(rest);
    padded
}
