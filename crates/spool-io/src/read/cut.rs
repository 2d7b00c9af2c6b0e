//! Where the read-ahead thread may cut a buffer: after the last whole
//! record, for either [`Format`].
//!
//! Lines end at one byte, so the last record end of a buffer is one
//! `memrchr` and the bytes after it hold no delimiter at all. CSV records
//! end at a line break *outside quotes*, and whether a byte is inside
//! quotes depends on every quote before it, so a backwards search cannot
//! tell. The reader thread reads the input sequentially, so it always
//! knows the quote state where its next read starts: a
//! [`RecordCutter`](spool::text::csv::RecordCutter) is handed each byte
//! once, in order, carries the state (inside quotes or not, the open
//! field's opening quote, the line count, a CR that may be followed by an
//! LF) from one read to the next, and reports the last record end. A cut
//! therefore never falls inside a quoted field, nor between the CR and LF
//! of a CRLF, at any buffer size; and the parser of each block starts at a
//! record boundary, outside quotes.
//!
//! Guessing the state from the middle of a buffer (DuckDB's parallel CSV
//! reader, simdjson's chunk stitching) serves many threads starting at
//! once in one file; one sequential reader gains nothing from it.

use std::io;

use spool::text::csv::RecordCutter;

use super::Format;

/// Finds record ends in the bytes a reader thread has read; see the
/// module docs.
pub(super) enum Cutter {
    /// Records end at this byte.
    Lines(u8),
    /// RFC 4180 records, with the quote state carried across reads, and
    /// the line just after the last record end found. Boxed: one per
    /// input, and the cutter is a few hundred bytes.
    Csv(Box<RecordCutter>, u64),
}

impl Cutter {
    pub fn new(format: Format, delimiter: u8) -> Self {
        match format {
            Format::Lines => Cutter::Lines(delimiter),
            Format::Csv(dialect) => Cutter::Csv(Box::new(RecordCutter::new(dialect)), 1),
        }
    }

    /// Scans `buf[scanned..]` (`buf[..scanned]` was scanned before; `buf`
    /// starts at input offset `offset`) and returns the end of the last
    /// whole record in `buf`, if one ended in the new bytes, or an error
    /// if the buffer's first record is longer than `limit`.
    pub fn last_end(
        &mut self,
        buf: &[u8],
        scanned: usize,
        offset: u64,
        limit: usize,
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
            Cutter::Csv(cutter, line_after) => {
                // A record longer than `limit` can only be the first, and
                // only once the buffer holds more than `limit` bytes (it
                // grew for that record): then check that a record ends
                // within the limit, on a copy of the cutter's state.
                if buf.len() > limit && scanned < limit {
                    let mut probe = RecordCutter::clone(cutter);
                    if probe.scan(&buf[scanned..limit]).is_none() {
                        return Err(csv_too_long(cutter, offset, limit));
                    }
                }
                let end = cutter.scan(&buf[scanned..]);
                Ok(end.map(|end| {
                    *line_after = end.line;
                    (end.offset - offset) as usize
                }))
            }
        }
    }

    /// Line number just after a block `data` cut at a record end, when
    /// the block started at line `line`.
    pub fn line_after(&self, data: &[u8], line: u64, eof: bool) -> u64 {
        match self {
            Cutter::Lines(delimiter) => {
                line + memchr::memchr_iter(*delimiter, data).count() as u64
                    + u64::from(eof && data.last() != Some(delimiter))
            }
            // The cutter counted the lines up to the record end it
            // reported, where the block was cut.
            Cutter::Csv(_, line_after) => *line_after,
        }
    }

    /// The error for a buffer whose first record, starting at `offset`,
    /// is longer than `limit`: for CSV, usually a quote never closed, so
    /// the opening quote is named when one is open.
    pub fn too_long(&self, offset: u64, limit: usize) -> io::Error {
        match self {
            Cutter::Csv(cutter, _) => csv_too_long(cutter, offset, limit),
            Cutter::Lines(_) => too_long(offset, limit),
        }
    }
}

/// [`Cutter::too_long`] for CSV.
fn csv_too_long(cutter: &RecordCutter, offset: u64, limit: usize) -> io::Error {
    match cutter.open_quote() {
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
