//! What a record is: a line of unquoted delimited text, or an RFC 4180 CSV
//! record whose quoted fields may hold delimiters and line breaks; and the
//! one accessor every consumer reads a field's value through.
//!
//! The two formats split differently — lines at a byte with `memchr`, CSV
//! with [`spool::text::csv`]'s quote-aware splitter — but everything above
//! the reader (the partition router, a columnar writer) asks a record the
//! same questions: its bytes as read, where it came from, and the value of
//! field `n`. [`FieldRecord`] is that question set; [`FieldRecord::value`]
//! is *the* "unquoted value of field `n`", so `"Paris"` and `Paris` are
//! one key everywhere.
//!
//! Unquoted text keeps its own fast path: [`Line`] is a plain
//! [`PlainRecord`](spool::text::PlainRecord) plus its field delimiter, and its
//! values are always borrowed slices, so code generic over
//! [`FieldRecord`] compiles to the same field scan as before quoting
//! existed.

use std::borrow::Cow;

use spool::text::csv::{self, Dialect};
use spool::text::{fields, PlainRecord};

/// How an input splits into records.
///
/// # Examples
///
/// ```
/// use spool::text::csv::Dialect;
/// use spool_io::read::RecordFormat;
/// assert_eq!(RecordFormat::default(), RecordFormat::Lines);
/// assert_eq!(RecordFormat::for_dialect(Dialect::TSV), RecordFormat::Lines);
/// assert_eq!(RecordFormat::for_dialect(Dialect::CSV), RecordFormat::Csv(Dialect::CSV));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordFormat {
    /// Records end at [`ReadOptions::delimiter`](super::ReadOptions::delimiter)
    /// (CRLF aware); no quoting, every byte is data (IANA TSV, logs).
    #[default]
    Lines,
    /// RFC 4180 records: they end at LF, CRLF or CR outside quotes, blank
    /// lines are not records, and a UTF-8 byte order mark before the first
    /// record is skipped.
    Csv(Dialect),
}

impl RecordFormat {
    /// [`RecordFormat::Csv`] for a dialect with a quote, [`RecordFormat::Lines`] for
    /// one without (whose records are lines: no quote can hide a line
    /// break).
    pub fn for_dialect(dialect: Dialect) -> RecordFormat {
        match dialect.quote() {
            Some(_) => RecordFormat::Csv(dialect),
            None => RecordFormat::Lines,
        }
    }
}

/// A record of either [`RecordFormat`], as the layers above the reader see it.
///
/// Implemented by [`Line`] (unquoted text) and by
/// [`csv::Record`](spool::text::csv::Record); code generic over it is
/// compiled once per format, so neither pays for the other.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records};
/// use spool::text::PlainRecords;
/// use spool_io::read::{FieldRecord, Line};
///
/// fn city<'a>(record: impl FieldRecord<'a>) -> Vec<u8> {
///     record.value(1).unwrap().into_owned()
/// }
/// let csv = Records::new(b"\"Smith, John\",\"Paris\"\n", Dialect::CSV).next().unwrap()?;
/// let tsv = PlainRecords::new(b"Smith, John\tParis\n", b'\n').next().unwrap();
/// assert_eq!(city(csv), b"Paris");
/// assert_eq!(city(Line::new(tsv, b'\t')), b"Paris");
/// assert_eq!(csv.field_count(), 2);
/// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
/// ```
pub trait FieldRecord<'a>: Copy {
    /// The record exactly as read, with its line break (absent only on an
    /// input's last record).
    fn raw(&self) -> &'a [u8];
    /// The record without its line break.
    fn bytes(&self) -> &'a [u8];
    /// Line of the record's first byte, counting from 1.
    fn line(&self) -> u64;
    /// Byte offset of the record's first byte in the (decompressed) input.
    fn offset(&self) -> u64;
    /// The value of field `index` (from 0) with any quoting taken off, or
    /// `None` if the record has fewer fields. Borrowed from the record
    /// unless a quoted field holds an escaped quote.
    fn value(&self, index: usize) -> Option<Cow<'a, [u8]>>;
    /// Number of fields.
    fn field_count(&self) -> usize;
}

/// A line of unquoted delimited text: a [`PlainRecord`] and the byte between
/// its fields.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    record: PlainRecord<'a>,
    delimiter: u8,
}

impl<'a> Line<'a> {
    /// `record`, its fields separated by `delimiter`.
    #[inline]
    pub fn new(record: PlainRecord<'a>, delimiter: u8) -> Self {
        Line { record, delimiter }
    }
}

impl<'a> FieldRecord<'a> for Line<'a> {
    #[inline]
    fn raw(&self) -> &'a [u8] {
        self.record.raw()
    }
    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.record.bytes()
    }
    #[inline]
    fn line(&self) -> u64 {
        self.record.line()
    }
    #[inline]
    fn offset(&self) -> u64 {
        self.record.offset()
    }
    #[inline]
    fn value(&self, index: usize) -> Option<Cow<'a, [u8]>> {
        fields::field(self.record.bytes(), self.delimiter, index).map(Cow::Borrowed)
    }
    fn field_count(&self) -> usize {
        fields::count(self.record.bytes(), self.delimiter)
    }
}

impl<'a> FieldRecord<'a> for csv::Record<'a> {
    #[inline]
    fn raw(&self) -> &'a [u8] {
        csv::Record::raw(self)
    }
    #[inline]
    fn bytes(&self) -> &'a [u8] {
        csv::Record::bytes(self)
    }
    #[inline]
    fn line(&self) -> u64 {
        csv::Record::line(self)
    }
    #[inline]
    fn offset(&self) -> u64 {
        csv::Record::offset(self)
    }
    // Always inlined: the value is cut from the masks in registers, and a
    // call returns it through memory.
    #[inline(always)]
    fn value(&self, index: usize) -> Option<Cow<'a, [u8]>> {
        csv::Record::value(self, index)
    }
    fn field_count(&self) -> usize {
        self.fields().count()
    }
}
