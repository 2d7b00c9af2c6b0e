//! Records as borrowed views: split a buffer at a delimiter, keeping each
//! record's line number and byte offset for error messages.
//!
//! The splitter does not care where the bytes came from: `spool-io`'s chunk
//! reader hands it blocks of whole records read ahead from a file, the
//! pwned index builder whole range files. A record is a slice of the
//! caller's buffer, so splitting copies nothing and allocates nothing.

/// One record: a view into its block, with where it came from.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    raw: &'a [u8],
    line: u64,
    offset: u64,
    delimiter: u8,
}

impl<'a> Record<'a> {
    /// The record without its delimiter, and without the `\r` of a CRLF
    /// line ending when the delimiter is `\n`.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        let mut body = self.raw;
        if let [rest @ .., last] = body {
            if *last == self.delimiter {
                body = rest;
                if self.delimiter == b'\n' {
                    if let [rest @ .., b'\r'] = body {
                        body = rest;
                    }
                }
            }
        }
        body
    }

    /// The record exactly as read, with its delimiter (absent only on an
    /// input's last record).
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Line (record) number, counting from 1.
    #[inline]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Byte offset of the record's first byte in the input.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Iterator over the records of a byte slice.
///
/// Every record ends at the delimiter (included in [`Record::raw`]) except
/// possibly the last, which ends with the data. Empty data has no records.
///
/// # Examples
///
/// ```
/// use spool::text::Records;
/// let lines: Vec<_> = Records::new(b"one\r\ntwo\nthree", b'\n', 1, 0)
///     .map(|r| (r.bytes(), r.line(), r.offset()))
///     .collect();
/// assert_eq!(lines, [(&b"one"[..], 1, 0), (b"two", 2, 5), (b"three", 3, 9)]);
/// ```
#[derive(Clone, Debug)]
pub struct Records<'a> {
    rest: &'a [u8],
    delimiter: u8,
    line: u64,
    offset: u64,
}

impl<'a> Records<'a> {
    /// Records of `data` ended by `delimiter`, numbered from `first_line`,
    /// with offsets counted from `offset`.
    pub fn new(data: &'a [u8], delimiter: u8, first_line: u64, offset: u64) -> Self {
        Records {
            rest: data,
            delimiter,
            line: first_line,
            offset,
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    #[inline]
    fn next(&mut self) -> Option<Record<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let len = memchr::memchr(self.delimiter, self.rest).map_or(self.rest.len(), |i| i + 1);
        let (raw, rest) = self.rest.split_at(len);
        let record = Record {
            raw,
            line: self.line,
            offset: self.offset,
            delimiter: self.delimiter,
        };
        self.rest = rest;
        self.line += 1;
        self.offset += len as u64;
        Some(record)
    }
}

impl core::iter::FusedIterator for Records<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_delimiters_keep_carriage_returns() {
        let got: Vec<_> = Records::new(b"a\r\0b\0", 0, 1, 0)
            .map(|r| r.bytes())
            .collect();
        assert_eq!(got, [&b"a\r"[..], b"b"]);
    }

    #[test]
    fn a_lone_carriage_return_at_the_end_is_data() {
        let got: Vec<_> = Records::new(b"a\r", b'\n', 1, 0)
            .map(|r| r.bytes())
            .collect();
        assert_eq!(got, [&b"a\r"[..]]);
    }
}
