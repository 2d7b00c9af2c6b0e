//! Where the read-ahead thread may cut a buffer: after the last whole
//! record, for either [`RecordFormat`].
//!
//! Lines end at one byte, so the last record end of a buffer is one
//! `memrchr` and the bytes after it hold no delimiter at all. CSV records
//! end at a line break *outside quotes*, and whether a byte is inside
//! quotes depends on every quote before it, so a backwards search cannot
//! tell. The reader thread reads the input sequentially, so it always
//! knows the quote state where its next read starts: the cutter is handed
//! each byte in order, carries the state (inside quotes or not, the open
//! field's opening quote, the line count) from one read to the next, holds
//! back the last byte read (it may be the LF of a CRLF), and reports the
//! last record end. A cut
//! therefore never falls inside a quoted field, nor between the CR and LF
//! of a CRLF, at any buffer size; and the parser of each block starts at a
//! record boundary, outside quotes.
//!
//! The cutter is a [`BlockCutter`]: the scan that finds the cut is
//! `Records`' own stage one, and it writes each record's place (and the
//! delimiters and quotes of its first 64 bytes) into the block's
//! [`BlockIndex`], so the block's consumer reads its records without a
//! second pass over the bytes.
//!
//! Guessing the state from the middle of a buffer (DuckDB's parallel CSV
//! reader, simdjson's chunk stitching) serves many threads starting at
//! once in one file; one sequential reader gains nothing from it.

use std::io;

use spool::text::csv::{BlockCutter, BlockIndex};

use super::RecordFormat;

/// Finds record ends in the bytes a reader thread has read; see the
/// module docs.
pub(super) enum Cutter {
    /// Records end at this byte.
    Lines(u8),
    /// RFC 4180 records, with the quote state carried across reads; the
    /// records of each block are indexed on the way, so that its reader
    /// does not scan the bytes again. Boxed: one per input.
    Csv(Box<BlockCutter>),
}

impl Cutter {
    pub fn new(format: RecordFormat, delimiter: u8) -> Self {
        match format {
            RecordFormat::Lines => Cutter::Lines(delimiter),
            RecordFormat::Csv(dialect) => Cutter::Csv(Box::new(BlockCutter::new(dialect))),
        }
    }

    /// Scans `buf[scanned..]` (`buf[..scanned]` was scanned before; `buf`
    /// starts at input offset `offset`) and returns the end of the last
    /// whole record in `buf`, if one ended in the new bytes, or an error
    /// if the buffer's first record is longer than `limit`. CSV records
    /// found are added to `index`.
    pub fn last_end(
        &mut self,
        buf: &[u8],
        scanned: usize,
        offset: u64,
        limit: usize,
        index: &mut BlockIndex,
    ) -> io::Result<Option<usize>> {
        match self {
            Cutter::Lines(delimiter) => {
                let new = &buf[scanned..];
                let Some(i) = memchr::memrchr(*delimiter, new) else {
                    return Ok(None);
                };
                // Only the buffer's first record (carried over, perhaps
                // grown for) can be longer than a buffer: measure it.
                let first = memchr::memchr(*delimiter, new).unwrap_or(i);
                if scanned + first + 1 > limit {
                    return Err(too_long(offset, limit));
                }
                Ok(Some(scanned + i + 1))
            }
            Cutter::Csv(cutter) => {
                let end = cutter.scan(buf, false, index);
                // A record longer than `limit` can only be the first, and
                // only once the buffer holds more than `limit` bytes (it
                // grew for that record).
                if buf.len() > limit && cutter.first_end().is_some_and(|first| first > limit) {
                    return Err(csv_too_long(cutter, offset, limit));
                }
                Ok(end)
            }
        }
    }

    /// At the end of the input: indexes the last records of the last
    /// block, `buf` (CSV only).
    pub fn last_block(&mut self, buf: &[u8], index: &mut BlockIndex) {
        if let Cutter::Csv(cutter) = self {
            cutter.scan(buf, true, index);
        }
    }

    /// Line number just after a block cut from `buf` at `cut`, a record end
    /// [`last_end`](Self::last_end) returned (or the end of the input),
    /// when the block started at line `line`; the next buffer starts at
    /// `cut`.
    pub fn cut(&mut self, buf: &[u8], cut: usize, line: u64, eof: bool) -> u64 {
        match self {
            Cutter::Lines(delimiter) => {
                let data = &buf[..cut];
                line + memchr::memchr_iter(*delimiter, data).count() as u64
                    + u64::from(eof && data.last() != Some(delimiter))
            }
            Cutter::Csv(_) if eof => line, // nothing follows
            Cutter::Csv(cutter) => {
                cutter.cut(buf, cut);
                cutter.first_line()
            }
        }
    }

    /// The error for a buffer whose first record, starting at `offset`,
    /// is longer than `limit`: for CSV, usually a quote never closed, so
    /// the opening quote is named when one is open.
    pub fn too_long(&self, offset: u64, limit: usize) -> io::Error {
        match self {
            Cutter::Csv(cutter) => csv_too_long(cutter, offset, limit),
            Cutter::Lines(_) => too_long(offset, limit),
        }
    }
}

/// [`Cutter::too_long`] for CSV.
fn csv_too_long(cutter: &BlockCutter, offset: u64, limit: usize) -> io::Error {
    match cutter.open_quote(offset) {
        Some(quote) => io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "line {}, byte offset {}: unterminated quote? the quoted field opened there \
                 is still open after {limit} bytes, the limit for one record (the record \
                 starts at byte offset {offset})",
                quote.line, quote.offset
            ),
        ),
        None => too_long(offset, limit),
    }
}

/// The error for a record longer than `limit`, starting at `offset`.
fn too_long(offset: u64, limit: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("record at byte offset {offset} is longer than the limit of {limit} bytes"),
    )
}
