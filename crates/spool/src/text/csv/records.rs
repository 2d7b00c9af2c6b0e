//! The records of a block of CSV as borrowed views.

use super::fields::{Field, Fields};
use super::scan::{Carry, Scanned, Splitter};
use super::{Dialect, UnterminatedQuote};

/// One record: a view into its block, exactly as read, with where it came
/// from.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records};
/// let block = b"name,city\r\n\"Smith, John\",\"Paris\"\r\n";
/// let record = Records::new(block, Dialect::CSV, 1, 0).nth(1).unwrap()?;
/// assert_eq!(record.raw(), b"\"Smith, John\",\"Paris\"\r\n");
/// assert_eq!(record.bytes(), b"\"Smith, John\",\"Paris\"");
/// assert_eq!((record.line(), record.offset()), (2, 11));
/// assert_eq!(record.field(0).unwrap().value(), &b"Smith, John"[..]);
/// assert_eq!(record.field(1).unwrap().raw(), b"\"Paris\"");
/// assert!(record.field(2).is_none());
/// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    raw: &'a [u8],
    /// The line is counted when asked for: `line` plus the LFs in
    /// `lf_before` (the LFs of one chunk before the record's start).
    line: u64,
    lf_before: u64,
    offset: u64,
    dialect: Dialect,
    /// Bit `i`: byte `i` is a delimiter outside quotes, for the first
    /// `known` bytes of the record (from the splitter's masks).
    delims: u64,
    known: u32,
}

impl<'a> Record<'a> {
    /// The record exactly as read, with its line break (LF, CRLF or CR;
    /// absent only on an input's last record).
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The record without its line break. Line breaks inside quoted fields
    /// stay.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        match self.raw {
            [rest @ .., b'\r', b'\n'] | [rest @ .., b'\n' | b'\r'] => rest,
            raw => raw,
        }
    }

    /// Line of the record's first byte, counting from 1 (lines end at LF,
    /// as the `csv` crate counts them).
    #[inline]
    pub fn line(&self) -> u64 {
        self.line + u64::from(self.lf_before.count_ones())
    }

    /// Physical lines the record spans: 1, plus one for each LF inside its
    /// quoted fields. Computed on demand.
    pub fn lines(&self) -> u64 {
        1 + memchr::memchr_iter(b'\n', self.bytes()).count() as u64
    }

    /// Byte offset of the record's first byte in the input.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The dialect the record was split with.
    #[inline]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Field `index` (from 0), or `None` if the record has fewer fields.
    ///
    /// The splitter already knows where the delimiters outside quotes are
    /// in the record's first 64 bytes, so a field that ends there is found
    /// by counting bits; past them the bytes are scanned, from the last
    /// known field start and only as far as the field asked for.
    #[inline]
    pub fn field(&self, index: usize) -> Option<Field<'a>> {
        let bytes = self.bytes();
        let known = (self.known as usize).min(bytes.len());
        let mut delims = self.delims & low_bits(known);
        let mut start = 0;
        for skipped in 0..index {
            if delims == 0 {
                return Fields::new(&bytes[start..], self.dialect).nth(index - skipped);
            }
            start = delims.trailing_zeros() as usize + 1;
            delims &= delims - 1;
        }
        if delims != 0 {
            let end = delims.trailing_zeros() as usize;
            Some(Field::new(&bytes[start..end], self.dialect.quote()))
        } else if known == bytes.len() {
            Some(Field::new(&bytes[start..], self.dialect.quote()))
        } else {
            Fields::new(&bytes[start..], self.dialect).next()
        }
    }

    /// All fields, in order.
    #[inline]
    pub fn fields(&self) -> Fields<'a> {
        Fields::new(self.bytes(), self.dialect)
    }
}

/// Iterator over the records of a block of whole records.
///
/// Blank lines (a line break right after another, or at the start) are not
/// records, as in the `csv` crate; they still count for line numbers. An
/// input's last record may lack its line break.
///
/// Yields an [`UnterminatedQuote`] (and then nothing) if the block ends
/// inside a quoted field; a block cut by a [`RecordCutter`] never does,
/// except at the end of the input.
///
/// [`RecordCutter`]: super::RecordCutter
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records};
/// let block = b"a,\"b\nc\"\n\nd,e";
/// let got: Vec<_> = Records::new(block, Dialect::CSV, 1, 0)
///     .map(|r| r.map(|r| (r.raw(), r.line(), r.offset(), r.lines())))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(got, [(&b"a,\"b\nc\"\n"[..], 1, 0, 2), (b"d,e", 4, 9, 1)]);
/// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
/// ```
#[derive(Clone, Debug)]
pub struct Records<'a> {
    data: &'a [u8],
    splitter: Splitter,
    /// Offset of `data` in the input.
    offset: u64,
    /// Where the current chunk starts in `data`, and its length (0 before
    /// the first).
    base: usize,
    len: usize,
    /// What is left of the current chunk's masks.
    chunk: Scanned,
    carry: Carry,
    /// Line of `data[base]`.
    line: u64,
    /// Start of a record whose end is not found yet, or `NONE`.
    start: usize,
    /// That record's line (`line` of its start's chunk, plus the LFs in
    /// `start_lf`), and the delimiters outside quotes in its first `known`
    /// bytes.
    start_line: u64,
    start_lf: u64,
    delims: u64,
    known: u32,
    /// The last chunk with a quote that opened a quoted field: its start,
    /// line, opening quotes and LFs (for the error, computed only then).
    open: (usize, u64, u64, u64),
    done: bool,
}

impl<'a> Records<'a> {
    /// The records of `data`, which starts at a record boundary, numbered
    /// from line `first_line` with offsets counted from `offset`.
    pub fn new(data: &'a [u8], dialect: Dialect, first_line: u64, offset: u64) -> Self {
        Records {
            data,
            splitter: Splitter::new(dialect),
            offset,
            base: 0,
            len: 0,
            chunk: Scanned::default(),
            carry: Carry::START,
            line: first_line,
            start: NONE,
            start_line: 0,
            start_lf: 0,
            delims: 0,
            known: 0,
            open: (0, 0, 0, 0),
            done: false,
        }
    }

    /// Scans the next chunk; `false` at the end of the data.
    #[inline]
    fn advance(&mut self) -> bool {
        self.line += u64::from(self.chunk.lf_count);
        self.base += self.len;
        let rest = &self.data[self.base..];
        if rest.is_empty() {
            self.len = 0;
            self.chunk = Scanned::default();
            return false;
        }
        self.len = rest.len().min(64);
        self.chunk = match rest.first_chunk::<64>() {
            Some(chunk) => self.splitter.scan(&mut self.carry, chunk, 64),
            None => {
                let mut padded = [0u8; 64];
                padded[..self.len].copy_from_slice(rest);
                self.splitter.scan(&mut self.carry, &padded, self.len)
            }
        };
        // The open record's first 64 bytes may reach into this chunk
        // (without a branch: whether a record is open here is as random as
        // the record lengths).
        let extend = self.start != NONE && self.known < 64;
        let more = self.chunk.fields << (self.known & 63);
        self.delims |= if extend { more } else { 0 };
        self.known = if extend { 64 } else { self.known };
        // Without a branch: whether a chunk opens a quoted field is as
        // random as the data.
        let c = &self.chunk;
        let opens = c.opens != 0;
        self.open = if opens {
            (self.base, self.line, c.opens, c.lf)
        } else {
            self.open
        };
        true
    }

    /// The open record, ending before `end`.
    #[inline]
    fn record(&mut self, end: usize) -> Record<'a> {
        let start = core::mem::replace(&mut self.start, NONE);
        Record {
            raw: &self.data[start..end],
            line: self.start_line,
            lf_before: self.start_lf,
            offset: self.offset + start as u64,
            dialect: self.splitter.dialect(),
            delims: self.delims,
            known: self.known,
        }
    }
}

/// `Records::start` when no record is open.
const NONE: usize = usize::MAX;

/// The lowest `n` bits (all 64 for `n >= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, UnterminatedQuote>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.start == NONE && self.chunk.starts != 0 {
                let bit = self.chunk.starts.trailing_zeros();
                self.chunk.starts &= self.chunk.starts - 1;
                self.start = self.base + bit as usize;
                self.start_line = self.line;
                self.start_lf = self.chunk.lf & low_bits(bit as usize);
                self.delims = self.chunk.fields >> bit;
                self.known = 64 - bit;
            }
            if self.start != NONE && self.chunk.ends != 0 {
                let bit = self.chunk.ends.trailing_zeros();
                self.chunk.ends &= self.chunk.ends - 1;
                let mut end = self.base + bit as usize + 1;
                if self.data[end - 1] == b'\r' && self.data.get(end) == Some(&b'\n') {
                    end += 1;
                }
                return Some(Ok(self.record(end)));
            }
            if self.done {
                return None;
            }
            if !self.advance() {
                self.done = true;
                if self.start == NONE {
                    return None;
                }
                if self.carry.inside {
                    let (base, line, opens, lf) = self.open;
                    let bit = 63 - opens.leading_zeros();
                    return Some(Err(UnterminatedQuote {
                        offset: self.offset + (base + bit as usize) as u64,
                        line: line + u64::from((lf & low_bits(bit as usize)).count_ones()),
                    }));
                }
                return Some(Ok(self.record(self.data.len())));
            }
        }
    }
}

impl core::iter::FusedIterator for Records<'_> {}
