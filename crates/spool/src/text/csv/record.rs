//! One CSV record: a view into its block, its place in the input, and the
//! splitter's masks, from which its first fields are found without a
//! second scan.

use super::fields::{Field, Fields};
use alloc::borrow::Cow;

use super::Dialect;

/// One record: a view into its block, exactly as read, with where it came
/// from.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records};
/// let block = b"name,city\r\n\"Smith, John\",\"Paris\"\r\n";
/// let record = Records::new(block, Dialect::CSV).nth(1).unwrap()?;
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
    pub(super) raw: &'a [u8],
    /// The line is counted when asked for: `line` plus the LFs in
    /// `lf_before` (the LFs of one chunk before the record's start).
    pub(super) line: u64,
    pub(super) lf_before: u64,
    pub(super) offset: u64,
    pub(super) dialect: Dialect,
    /// Bit `i`: byte `i` is a delimiter outside quotes, for the first 64
    /// bytes of the record (from the splitter's masks).
    pub(super) delims: u64,
    /// Bit `i`: byte `i` is a quote, for the same bytes.
    pub(super) quotes: u64,
}

impl<'a> Record<'a> {
    /// A record whose place and masks an index kept (see `block.rs`).
    #[inline(always)]
    pub(crate) fn indexed(
        raw: &'a [u8],
        line: u64,
        offset: u64,
        dialect: Dialect,
        delims: u64,
        quotes: u64,
    ) -> Self {
        Record {
            raw,
            line,
            lf_before: 0,
            offset,
            dialect,
            delims,
            quotes,
        }
    }

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
    #[inline(always)]
    pub fn field(&self, index: usize) -> Option<Field<'a>> {
        let bytes = self.bytes();
        match self.locate(bytes, index) {
            Located::Here { start, end, quotes } => Some(Field::with_quotes(
                &bytes[start..end],
                self.dialect.quote(),
                quotes,
            )),
            Located::Past { start, fields } => scan_fields(&bytes[start..], self.dialect, fields),
        }
    }

    /// The value of field `index` (from 0), as [`Field::value`] gives it,
    /// or `None` if the record has fewer fields.
    ///
    /// What [`field`](Self::field) then [`value`](Field::value) give,
    /// without the [`Field`] in between: a field in the record's first 64
    /// bytes that is unquoted, or quoted with nothing to unescape, is cut
    /// from the masks' bits alone, in registers; every other field takes
    /// an out-of-line path.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, Records};
    /// let record = Records::new(b"a,\"b,c\",\"d\"\"\"\n", Dialect::CSV).next().unwrap()?;
    /// assert_eq!(record.value(1).unwrap(), &b"b,c"[..]);
    /// assert_eq!(record.value(2).unwrap(), &b"d\""[..]);
    /// assert!(record.value(3).is_none());
    /// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
    /// ```
    #[inline(always)]
    pub fn value(&self, index: usize) -> Option<Cow<'a, [u8]>> {
        let bytes = self.bytes();
        let Located::Here { start, end, quotes } = self.locate(bytes, index) else {
            return self.value_scanned(index);
        };
        let len = end - start;
        let quoted = quotes & 1 != 0;
        let enclosed = len >= 2 && quotes == 1 | 1 << (len - 1);
        if quoted && !enclosed {
            return self.value_scanned(index);
        }
        let trim = usize::from(quoted);
        Some(Cow::Borrowed(&bytes[start + trim..end - trim]))
    }

    /// [`value`](Self::value) for the fields the masks cannot cut alone.
    #[cold]
    #[inline(never)]
    fn value_scanned(&self, index: usize) -> Option<Cow<'a, [u8]>> {
        self.field(index).map(|f| f.value())
    }

    /// Where field `index` is in `bytes` (the record's), as far as the
    /// masks of its first 64 bytes tell.
    #[inline(always)]
    fn locate(&self, bytes: &[u8], index: usize) -> Located {
        let known = bytes.len().min(64);
        let mut delims = self.delims & low_bits(known);
        let mut start = 0;
        for skipped in 0..index {
            if delims == 0 {
                let fields = index - skipped;
                return Located::Past { start, fields };
            }
            start = delims.trailing_zeros() as usize + 1;
            delims &= delims - 1;
        }
        let end = if delims != 0 {
            delims.trailing_zeros() as usize
        } else if known == bytes.len() {
            bytes.len()
        } else {
            return Located::Past { start, fields: 0 };
        };
        // `start` is 64 for an empty last field after a delimiter at byte 63.
        let quotes = self.quotes.checked_shr(start as u32).unwrap_or(0) & low_bits(end - start);
        Located::Here { start, end, quotes }
    }

    /// All fields, in order.
    #[inline]
    pub fn fields(&self) -> Fields<'a> {
        Fields::new(self.bytes(), self.dialect)
    }

    /// Calls `each(index, value)` for every field in order, with the value
    /// [`Field::value`] gives: what `fields()` then `value()` give, but
    /// the fields in the record's first 64 bytes are cut from the
    /// splitter's masks (no scan for their delimiters, and a quoted value
    /// with nothing to unescape taken without one), and only the rest of
    /// the record is scanned.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, Records};
    /// let record = Records::new(b"a,\"b,c\",\"d\"\"\",\n", Dialect::CSV).next().unwrap()?;
    /// let mut values = Vec::new();
    /// record.for_each_value(|i, value| values.push((i, value.into_owned())));
    /// assert_eq!(values, [(0, b"a".to_vec()), (1, b"b,c".to_vec()), (2, b"d\"".to_vec()), (3, Vec::new())]);
    /// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
    /// ```
    #[inline]
    pub fn for_each_value(&self, mut each: impl FnMut(usize, Cow<'a, [u8]>)) {
        let bytes = self.bytes();
        let quote = self.dialect.quote();
        let known = bytes.len().min(64);
        let mut delims = self.delims & low_bits(known);
        let (mut start, mut index) = (0, 0);
        let quotes_of = |start: usize, end: usize| {
            self.quotes.checked_shr(start as u32).unwrap_or(0) & low_bits(end - start)
        };
        while delims != 0 {
            let end = delims.trailing_zeros() as usize;
            each(
                index,
                Field::with_quotes(&bytes[start..end], quote, quotes_of(start, end)).value(),
            );
            (start, index) = (end + 1, index + 1);
            delims &= delims - 1;
        }
        if known == bytes.len() {
            // The last field, within the masks too.
            let end = bytes.len();
            each(
                index,
                Field::with_quotes(&bytes[start..], quote, quotes_of(start, end)).value(),
            );
            return;
        }
        for (i, field) in Fields::new(&bytes[start..], self.dialect).enumerate() {
            each(index + i, field.value());
        }
    }
}

/// Where [`Record::locate`] found a field.
enum Located {
    /// At `start..end` of the record's bytes, with these quote bits.
    Here {
        start: usize,
        end: usize,
        quotes: u64,
    },
    /// Not within the masks: `fields` fields on from the field that
    /// starts at `start`.
    Past { start: usize, fields: usize },
}

/// Field `n` of `rest` (a record's bytes from a field start), found by
/// scanning: for fields past the masks. Kept out of [`Record::field`] so
/// that the common case inlines into the caller, which then reads the
/// field from registers rather than from memory just written.
#[cold]
#[inline(never)]
fn scan_fields(rest: &[u8], dialect: Dialect, n: usize) -> Option<Field<'_>> {
    Fields::new(rest, dialect).nth(n)
}

/// The lowest `n` bits (all 64 for `n >= 64`).
#[inline(always)]
pub(super) fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
