//! How buffered text splits into records, and records into field values:
//! the one reading of a record's fields that the router's check and the
//! writer threads' columns share.
//!
//! A Parquet run's writer threads get the router's buffered text, not its
//! records, and split it again; if they split or unquoted it differently,
//! a value the router checked would not be the value written. So the run
//! fixes its [`Syntax`] once, from its input format, and every field
//! value either side reads goes through [`for_each_value`] (or
//! `RecordText::for_each_value`, which is the same with a CSV record's
//! masks reused): a quoted CSV field's value has its quotes taken off and
//! its doubled quotes undone, as the router reads keys
//! ([`FieldRecord::value`]).
//!
//! [`FieldRecord::value`]: spool_io::read::FieldRecord::value

use std::borrow::Cow;
use std::io;

use spool::text::csv::{self, Dialect};
use spool::text::fields::PlainFields;
use spool_io::read::RecordFormat;

/// How buffered text splits into records, and records into field values:
/// the run's input format, so that the writer threads read back exactly
/// the values the router checked.
///
/// # Examples
///
/// ```
/// use spool::text::csv::Dialect;
/// use spool_partition::parquet::syntax::Syntax;
/// use spool_io::read::RecordFormat;
/// assert_eq!(
///     Syntax::new(RecordFormat::Lines, b'\t', b'\n'),
///     Syntax::Lines { field: b'\t', record: b'\n' }
/// );
/// assert_eq!(Syntax::new(RecordFormat::Csv(Dialect::CSV), b',', b'\n'), Syntax::Csv(Dialect::CSV));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Unquoted text: records end at `record`, fields at `field`; every
    /// byte is data.
    Lines {
        /// The byte between fields.
        field: u8,
        /// The byte that ends a record.
        record: u8,
    },
    /// RFC 4180 records in a dialect with a quote.
    Csv(Dialect),
}

impl Syntax {
    /// The syntax of a run reading `format` with these delimiters (the
    /// delimiters only matter for [`RecordFormat::Lines`]; a CSV dialect has
    /// its own).
    pub fn new(format: RecordFormat, field: u8, record: u8) -> Self {
        match format {
            RecordFormat::Lines => Syntax::Lines { field, record },
            RecordFormat::Csv(dialect) => Syntax::Csv(dialect),
        }
    }

    /// Whether every byte that splits a record into values (delimiters,
    /// quote) is ASCII: then a value of a valid UTF-8 record is valid
    /// UTF-8 (it is the record's bytes between such bytes, less quotes).
    pub fn splits_on_ascii(self) -> bool {
        match self {
            Syntax::Lines { field, record } => field.is_ascii() && record.is_ascii(),
            Syntax::Csv(dialect) => {
                dialect.delimiter().is_ascii() && dialect.quote().is_none_or(|q| q.is_ascii())
            }
        }
    }

    /// Calls `each(record)` for every whole record at the start of `text`
    /// (records as the router buffered them, each ending with its line
    /// break), each without its line break; returns the length of those
    /// records. What is left is the start of a record longer than a
    /// buffer, cut where the buffer ended (a piece without its line
    /// break, or one ending inside a quoted field): its rest comes with
    /// the group's next buffer.
    ///
    /// # Errors
    ///
    /// `each`'s error.
    pub(crate) fn for_each_record<'a>(
        self,
        text: &'a [u8],
        mut each: impl FnMut(RecordText<'a>) -> io::Result<()>,
    ) -> io::Result<usize> {
        let mut whole = 0;
        match self {
            Syntax::Lines { field, record } => {
                for r in spool::text::PlainRecords::new(text, record) {
                    if r.raw().last() != Some(&record) {
                        break;
                    }
                    each(RecordText::Line(r.bytes(), field))?;
                    whole = r.offset() as usize + r.raw().len();
                }
            }
            Syntax::Csv(dialect) => {
                // An unterminated quote here is a record cut inside a
                // quoted field: the whole records before it are kept.
                for r in csv::Records::new(text, dialect).map_while(Result::ok) {
                    if !matches!(r.raw().last(), Some(b'\n' | b'\r')) {
                        break;
                    }
                    each(RecordText::Csv(r))?;
                    whole = r.offset() as usize + r.raw().len();
                }
            }
        }
        Ok(whole)
    }
}

/// One whole record as [`Syntax::for_each_record`] hands it out.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RecordText<'a> {
    /// A line, without its record delimiter, and the field delimiter.
    Line(&'a [u8], u8),
    /// A CSV record, with the masks its splitter found (see
    /// [`csv::Record::for_each_value`]).
    Csv(csv::Record<'a>),
}

impl<'a> RecordText<'a> {
    /// The record without its line break.
    pub fn bytes(&self) -> &'a [u8] {
        match self {
            RecordText::Line(bytes, _) => bytes,
            RecordText::Csv(record) => record.bytes(),
        }
    }

    /// What [`for_each_value`] gives for the record's bytes, with a CSV
    /// record's fields in its first 64 bytes cut from the splitter's masks
    /// rather than scanned for again.
    #[inline]
    pub fn for_each_value(&self, mut each: impl FnMut(usize, Cow<'a, [u8]>)) {
        match self {
            RecordText::Line(bytes, field) => {
                for (index, value) in PlainFields::new(bytes, *field).enumerate() {
                    each(index, Cow::Borrowed(value));
                }
            }
            RecordText::Csv(record) => record.for_each_value(each),
        }
    }
}

/// Calls `each(index, value)` for every field of `record` (a record
/// without its line break) in order, with its quoting taken off. Every
/// field value the Parquet writer reads, and every value the router
/// checks, goes through here, so that a change in how a field is
/// delimited or unquoted is made in one place.
///
/// # Examples
///
/// ```
/// use spool::text::csv::Dialect;
/// use spool_partition::parquet::syntax::{for_each_value, Syntax};
/// let mut got = Vec::new();
/// for_each_value(b"\"Smith, John\",\"say \"\"hi\"\"\",7", Syntax::Csv(Dialect::CSV), |i, v| {
///     got.push((i, v.into_owned()))
/// });
/// assert_eq!(got, [(0, b"Smith, John".to_vec()), (1, b"say \"hi\"".to_vec()), (2, b"7".to_vec())]);
/// ```
#[inline]
pub fn for_each_value<'a>(
    record: &'a [u8],
    syntax: Syntax,
    mut each: impl FnMut(usize, Cow<'a, [u8]>),
) {
    match syntax {
        Syntax::Lines { field, .. } => {
            for (index, value) in PlainFields::new(record, field).enumerate() {
                each(index, Cow::Borrowed(value));
            }
        }
        Syntax::Csv(dialect) => {
            for (index, value) in csv::Fields::new(record, dialect).enumerate() {
                each(index, value.value());
            }
        }
    }
}
