//! Records of plain delimited text as borrowed views: split a buffer at a
//! terminator byte, keeping each record's line number and byte offset for
//! error messages.
//!
//! "Plain" means no quoting: every byte is data and the terminator always
//! ends a record (IANA TSV, logs, Have I Been Pwned lines). Quoted CSV,
//! where a line break inside quotes is data, is [`csv`](super::csv)'s job;
//! the names differ ([`PlainRecord`] here, [`csv::Record`](super::csv::Record)
//! there) so the two never meet under one name.
//!
//! The splitter does not care where the bytes came from: `spool-io`'s chunk
//! reader hands it blocks of whole records read ahead from a file, the
//! pwned index builder whole range files. A record is a slice of the
//! caller's buffer, so splitting copies nothing and allocates nothing.

use super::Position;

/// One record of plain delimited text: a view into its block, with where
/// it came from.
///
/// # Examples
///
/// ```
/// use spool::text::PlainRecords;
/// let record = PlainRecords::new(b"a\tb\r\nc", b'\n').next().unwrap();
/// assert_eq!(record.raw(), b"a\tb\r\n");
/// assert_eq!(record.bytes(), b"a\tb");
/// assert_eq!((record.line(), record.offset()), (1, 0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PlainRecord<'a> {
    raw: &'a [u8],
    line: u64,
    offset: u64,
    terminator: u8,
}

impl<'a> PlainRecord<'a> {
    /// The record without its terminator, and without the `\r` of a CRLF
    /// line ending when the terminator is `\n`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::PlainRecords;
    /// let mut records = PlainRecords::new(b"a\r\nb\r\0", b'\0');
    /// assert_eq!(records.next().unwrap().bytes(), b"a\r\nb\r"); // only `\n` drops a `\r`
    /// ```
    #[inline]
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        let mut body = self.raw;
        if let [rest @ .., last] = body {
            if *last == self.terminator {
                body = rest;
                if self.terminator == b'\n' {
                    if let [rest @ .., b'\r'] = body {
                        body = rest;
                    }
                }
            }
        }
        body
    }

    /// The record exactly as read, with its terminator (absent only on an
    /// input's last record).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::PlainRecords;
    /// let raw: Vec<_> = PlainRecords::new(b"a\nb", b'\n').map(|r| r.raw()).collect();
    /// assert_eq!(raw, [&b"a\n"[..], b"b"]);
    /// ```
    #[inline]
    #[must_use]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Line (record) number, counting from 1 unless the records were
    /// numbered from elsewhere ([`PlainRecords::starting_at`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::PlainRecords;
    /// let lines: Vec<_> = PlainRecords::new(b"a\nb\n", b'\n').map(|r| r.line()).collect();
    /// assert_eq!(lines, [1, 2]);
    /// ```
    #[inline]
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Byte offset of the record's first byte in the input.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::PlainRecords;
    /// let offsets: Vec<_> = PlainRecords::new(b"ab\ncd\n", b'\n').map(|r| r.offset()).collect();
    /// assert_eq!(offsets, [0, 3]);
    /// ```
    #[inline]
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Iterator over the records of a byte slice of plain delimited text.
///
/// Every record ends at the terminator (included in [`PlainRecord::raw`])
/// except possibly the last, which ends with the data. Empty data has no
/// records.
///
/// # Examples
///
/// ```
/// use spool::text::PlainRecords;
/// let lines: Vec<_> = PlainRecords::new(b"one\r\ntwo\nthree", b'\n')
///     .map(|r| (r.bytes(), r.line(), r.offset()))
///     .collect();
/// assert_eq!(lines, [(&b"one"[..], 1, 0), (b"two", 2, 5), (b"three", 3, 9)]);
/// ```
#[derive(Clone, Debug)]
pub struct PlainRecords<'a> {
    rest: &'a [u8],
    terminator: u8,
    /// Where the next record starts.
    next: Position,
}

impl<'a> PlainRecords<'a> {
    /// The records of `data`, each ended by `terminator`, numbered as the
    /// start of an input ([`Position::START`]: line 1, offset 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::PlainRecords;
    /// assert_eq!(PlainRecords::new(b"a\0b\0", b'\0').count(), 2);
    /// ```
    #[must_use]
    pub fn new(data: &'a [u8], terminator: u8) -> Self {
        PlainRecords {
            rest: data,
            terminator,
            next: Position::START,
        }
    }

    /// Numbers the records as if `data` began at `start` in the input: the
    /// first record gets `start`'s line and offset, the next ones follow
    /// from it. For a block read from the middle of an input.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::{PlainRecords, Position};
    /// let first = PlainRecords::new(b"x\n", b'\n')
    ///     .starting_at(Position { offset: 100, line: 7 })
    ///     .next()
    ///     .unwrap();
    /// assert_eq!((first.line(), first.offset()), (7, 100));
    /// ```
    #[must_use]
    pub fn starting_at(mut self, start: Position) -> Self {
        self.next = start;
        self
    }
}

impl<'a> Iterator for PlainRecords<'a> {
    type Item = PlainRecord<'a>;

    #[inline]
    fn next(&mut self) -> Option<PlainRecord<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let len = memchr::memchr(self.terminator, self.rest).map_or(self.rest.len(), |i| i + 1);
        let (raw, rest) = self.rest.split_at(len);
        let record = PlainRecord {
            raw,
            line: self.next.line,
            offset: self.next.offset,
            terminator: self.terminator,
        };
        self.rest = rest;
        self.next.line += 1;
        self.next.offset += len as u64;
        Some(record)
    }
}

impl core::iter::FusedIterator for PlainRecords<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_terminators_keep_carriage_returns() {
        let got: Vec<_> = PlainRecords::new(b"a\r\0b\0", 0)
            .map(|r| r.bytes())
            .collect();
        assert_eq!(got, [&b"a\r"[..], b"b"]);
    }

    #[test]
    fn a_lone_carriage_return_at_the_end_is_data() {
        let got: Vec<_> = PlainRecords::new(b"a\r", b'\n')
            .map(|r| r.bytes())
            .collect();
        assert_eq!(got, [&b"a\r"[..]]);
    }

    #[test]
    fn numbering_starts_where_it_is_told() {
        let got: Vec<_> = PlainRecords::new(b"a\nbc\n", b'\n')
            .starting_at(Position {
                offset: 10,
                line: 4,
            })
            .map(|r| (r.line(), r.offset()))
            .collect();
        assert_eq!(got, [(4, 10), (5, 12)]);
    }
}
