//! Where a block reader may cut: after the last complete record of the
//! bytes read so far.
//!
//! ```text
//!   input:   a,"b  ␊ c",d␊ e,f␍␊ g,"h␊ ...
//!   read 1:  [a,"b␊c",d␊e,f␍␊g,"h]         scan → cut after e,f␍␊
//!   read 2:                    [␊ ...]     scan continues inside "h…
//! ```
//!
//! A read-ahead reader fills a buffer, hands the cutter only the bytes it
//! has not seen, and cuts the buffer after the last record end the cutter
//! reported; the rest moves to the front of the next buffer. The cutter
//! keeps its state between calls (inside quotes or not, the opening quote
//! of an open quoted field, the line count), so every byte is scanned once
//! however many buffers a long record spans, and a cut never falls inside
//! a quoted field or between the CR and LF of a CRLF — at any block size.

use super::scan::{scalar, Carry, Splitter};
use super::{Dialect, UnterminatedQuote, BOM};
use crate::text::Position;

/// Finds record boundaries in an input that arrives in pieces; see the
/// module docs.
///
/// A UTF-8 byte order mark at the very start of the input is skipped (not
/// part of the first record for quoting), even when it arrives split
/// across calls.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, RecordCutter};
/// use spool::text::Position;
/// let mut cutter = RecordCutter::new(Dialect::CSV);
/// // A quoted field spans the two reads: the first read holds one record.
/// assert_eq!(cutter.scan(b"id,note\n1,\"two\nlines"), Some(Position { offset: 8, line: 2 }));
/// assert_eq!(cutter.open_quote(), Some(Position { offset: 10, line: 2 }));
/// assert_eq!(cutter.scan(b"\"\n2,x"), Some(Position { offset: 22, line: 4 }));
/// assert_eq!(cutter.open_quote(), None);
/// assert!(cutter.finish().is_ok()); // "2,x" is the last record
/// ```
#[derive(Clone, Debug)]
pub struct RecordCutter {
    splitter: Splitter,
    carry: Carry,
    /// Offset and line after the bytes scanned so far.
    at: Position,
    /// The last quote that opened a quoted field: the open field's
    /// opening quote whenever `carry.inside`.
    open: Position,
    /// A record ended at a CR that was the last byte scanned: its end if
    /// the next byte is not an LF.
    pending_cr: Option<Position>,
    /// Bytes of a byte order mark seen at the start, or `None` once the
    /// start of the input is behind.
    bom: Option<usize>,
}

impl RecordCutter {
    /// A cutter for an input that starts with the next byte scanned.
    pub fn new(dialect: Dialect) -> Self {
        RecordCutter {
            splitter: Splitter::new(dialect),
            carry: Carry::START,
            at: Position::START,
            open: Position::START,
            pending_cr: None,
            bom: Some(0),
        }
    }

    /// Scans the next bytes of the input and returns the end of the last
    /// record that is now known to be complete, if one ended since the last
    /// call: the offset just past its line break, and the line there.
    ///
    /// A record ending in CR at the end of `bytes` is reported by the next
    /// call, which sees whether an LF follows.
    pub fn scan(&mut self, mut bytes: &[u8]) -> Option<Position> {
        if self.bom.is_some() {
            bytes = self.skip_bom(bytes);
        }
        let mut last = None;
        if let Some(end) = self.pending_cr.take() {
            match bytes.first() {
                None => self.pending_cr = Some(end),
                Some(b'\n') => {
                    last = Some(Position {
                        offset: end.offset + 1,
                        line: end.line + 1,
                    })
                }
                Some(_) => last = Some(end),
            }
        }
        for (k, piece) in bytes.chunks(64).enumerate() {
            let mut padded = [0u8; 64];
            let chunk = match piece.first_chunk::<64>() {
                Some(chunk) => chunk,
                None => {
                    padded[..piece.len()].copy_from_slice(piece);
                    &padded
                }
            };
            let s = self.splitter.scan(&mut self.carry, chunk, piece.len());
            let line_at =
                |bit: u32| self.at.line + u64::from((s.lf & ((1u64 << bit) - 1)).count_ones());
            if s.opens != 0 {
                let bit = 63 - s.opens.leading_zeros();
                self.open = Position {
                    offset: self.at.offset + u64::from(bit),
                    line: line_at(bit),
                };
            }
            let mut ends = s.ends;
            while ends != 0 {
                let bit = 63 - ends.leading_zeros();
                ends &= !(1u64 << bit);
                let i = bit as usize;
                let mut end = Position {
                    offset: self.at.offset + u64::from(bit) + 1,
                    line: line_at(bit) + u64::from(piece[i] == b'\n'),
                };
                if piece[i] == b'\r' {
                    match bytes.get(64 * k + i + 1) {
                        Some(b'\n') => {
                            end.offset += 1;
                            end.line += 1;
                        }
                        Some(_) => {}
                        None => {
                            // Wait for the next byte; the record before
                            // this one (if it ended here) is complete.
                            self.pending_cr = Some(end);
                            continue;
                        }
                    }
                }
                last = Some(end);
                break;
            }
            self.at.offset += piece.len() as u64;
            self.at.line += u64::from(s.lf_count);
        }
        last
    }

    /// Consumes the start of the input while it may be a byte order mark;
    /// returns the bytes to scan.
    fn skip_bom<'b>(&mut self, mut bytes: &'b [u8]) -> &'b [u8] {
        while let Some(seen) = self.bom {
            if seen == BOM.len() {
                self.bom = None;
                self.at.offset = BOM.len() as u64;
                break;
            }
            match bytes.split_first() {
                None => break,
                Some((&b, rest)) if b == BOM[seen] => {
                    self.bom = Some(seen + 1);
                    bytes = rest;
                }
                Some(_) => {
                    // Not a byte order mark: its first bytes were data.
                    self.bom = None;
                    let s = scalar(self.splitter.dialect(), &mut self.carry, &BOM[..seen]);
                    if s.opens != 0 {
                        self.open = Position::START;
                    }
                    self.at.offset = seen as u64;
                }
            }
        }
        bytes
    }

    /// The opening quote of a quoted field still open after the bytes
    /// scanned, if any: what to name when a record grows too long (an
    /// unterminated quote is the usual cause).
    pub fn open_quote(&self) -> Option<Position> {
        self.carry.inside.then_some(self.open)
    }

    /// Offset and line after the bytes scanned so far.
    pub fn scanned(&self) -> Position {
        self.at
    }

    /// Checks the end of the input: everything after the last record end
    /// is one last record, unless a quoted field is still open.
    ///
    /// # Errors
    ///
    /// [`UnterminatedQuote`] naming the opening quote.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, RecordCutter, UnterminatedQuote};
    /// let mut cutter = RecordCutter::new(Dialect::CSV);
    /// cutter.scan(b"a\n\"b\nc\n");
    /// assert_eq!(cutter.finish(), Err(UnterminatedQuote { offset: 2, line: 2 }));
    /// ```
    pub fn finish(&self) -> Result<(), UnterminatedQuote> {
        match self.open_quote() {
            Some(Position { offset, line }) => Err(UnterminatedQuote { offset, line }),
            None => Ok(()),
        }
    }
}
