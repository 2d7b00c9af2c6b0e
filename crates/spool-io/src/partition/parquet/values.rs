//! Field values as typed Parquet values: one accessor for a record's
//! fields and one parser per column type.
//!
//! Everything here is pure: bytes in, a value (or `None` for "does not
//! parse") out, so the writer threads building columns and the router
//! checking a record where it knows the file, line and byte offset (see
//! the router's `rescan` module) read the same bytes with the same
//! functions, and the two never disagree.
//!
//! Formats (the text forms DuckDB, Polars and Spark write by default):
//!
//! | type | accepted |
//! |---|---|
//! | `int64` | optional sign, decimal digits |
//! | `float64` | Rust's `f64` syntax: `1`, `-2.5`, `1e-3`, `inf`, `NaN` |
//! | `bool` | `true`/`false`, `t`/`f`, `1`/`0` (any case) |
//! | `date` | `YYYY-MM-DD` (a real calendar day) |
//! | `timestamp` | `YYYY-MM-DD` then `T` or a space, `HH:MM[:SS[.ffffff]]`, optional `Z`; microseconds, no time zone |
//!
//! An empty field is NULL in every column, strings included — text cannot
//! tell an empty string from a missing one, and DuckDB and Polars read an
//! empty CSV field as NULL too.
//!
//! Values are read as the router reads keys ([`FieldRecord::value`]): a
//! quoted CSV field's value has its quotes taken off and its doubled
//! quotes undone, so `"Smith, John"` is the string `Smith, John`. The
//! [`Syntax`] of the run says how; the router's check and the writer's
//! columns both go through [`for_each_value`].
//!
//! [`FieldRecord::value`]: crate::read::FieldRecord::value

use std::borrow::Cow;
use std::io;

use spool::text::csv::{self, Dialect};
use spool::text::fields::PlainFields;

use crate::read::Format;

/// How buffered text splits into records, and records into field values:
/// the run's input format, so that the writer threads read back exactly
/// the values the router checked.
///
/// # Examples
///
/// ```
/// use spool::text::csv::Dialect;
/// use spool_io::partition::parquet::values::Syntax;
/// use spool_io::read::Format;
/// assert_eq!(
///     Syntax::new(Format::Lines, b'\t', b'\n'),
///     Syntax::Lines { field: b'\t', record: b'\n' }
/// );
/// assert_eq!(Syntax::new(Format::Csv(Dialect::CSV), b',', b'\n'), Syntax::Csv(Dialect::CSV));
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
    /// delimiters only matter for [`Format::Lines`]; a CSV dialect has
    /// its own).
    pub fn new(format: Format, field: u8, record: u8) -> Self {
        match format {
            Format::Lines => Syntax::Lines { field, record },
            Format::Csv(dialect) => Syntax::Csv(dialect),
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
/// use spool_io::partition::parquet::values::{for_each_value, Syntax};
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

/// A decimal `i64`: an optional sign and digits, as `str::parse` takes
/// them, read straight from the bytes (no UTF-8 check first: every value
/// of an int64 column goes through here).
///
/// ```
/// # use spool_io::partition::parquet::values::parse_i64;
/// assert_eq!(parse_i64(b"-42"), Some(-42));
/// assert_eq!(parse_i64(b"+7"), Some(7));
/// assert_eq!(parse_i64(b"4x"), None);
/// assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
/// assert_eq!(parse_i64(b"9223372036854775808"), None);
/// ```
pub fn parse_i64(v: &[u8]) -> Option<i64> {
    let (negative, digits) = match v {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, v),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulated toward the sign, so that i64::MIN fits.
    let mut n: i64 = 0;
    for &b in digits {
        let d = i64::from(b.wrapping_sub(b'0'));
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?;
        n = if negative {
            n.checked_sub(d)?
        } else {
            n.checked_add(d)?
        };
    }
    Some(n)
}

/// An `f64` in Rust's syntax.
///
/// ```
/// # use spool_io::partition::parquet::values::parse_f64;
/// assert_eq!(parse_f64(b"2.5e1"), Some(25.0));
/// assert_eq!(parse_f64(b"2,5"), None);
/// ```
pub fn parse_f64(v: &[u8]) -> Option<f64> {
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// `true`/`false`, `t`/`f`, `1`/`0`, in any case.
///
/// ```
/// # use spool_io::partition::parquet::values::parse_bool;
/// assert_eq!(parse_bool(b"TRUE"), Some(true));
/// assert_eq!(parse_bool(b"0"), Some(false));
/// assert_eq!(parse_bool(b"yes"), None);
/// ```
pub fn parse_bool(v: &[u8]) -> Option<bool> {
    match v.len() {
        1 => match v[0].to_ascii_lowercase() {
            b't' | b'1' => Some(true),
            b'f' | b'0' => Some(false),
            _ => None,
        },
        4 if v.eq_ignore_ascii_case(b"true") => Some(true),
        5 if v.eq_ignore_ascii_case(b"false") => Some(false),
        _ => None,
    }
}

/// `YYYY-MM-DD` as days since 1970-01-01 (Arrow's `Date32`).
///
/// ```
/// # use spool_io::partition::parquet::values::parse_date;
/// assert_eq!(parse_date(b"1970-01-02"), Some(1));
/// assert_eq!(parse_date(b"2024-02-29"), Some(19_782));
/// assert_eq!(parse_date(b"2023-02-29"), None);
/// ```
pub fn parse_date(v: &[u8]) -> Option<i32> {
    if v.len() != 10 || v[4] != b'-' || v[7] != b'-' {
        return None;
    }
    let year = digits(&v[0..4])? as i64;
    let month = digits(&v[5..7])?;
    let day = digits(&v[8..10])?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    i32::try_from(days_from_civil(year, month, day)).ok()
}

/// `YYYY-MM-DD[T ]HH:MM[:SS[.f…]][Z]` as microseconds since the epoch
/// (Arrow's `Timestamp(Microsecond)`, no time zone). At most six fraction
/// digits: more would be cut, and a value is never changed silently.
///
/// ```
/// # use spool_io::partition::parquet::values::parse_timestamp;
/// assert_eq!(parse_timestamp(b"1970-01-01T00:00:01.5"), Some(1_500_000));
/// assert_eq!(parse_timestamp(b"1970-01-01 00:01"), Some(60_000_000));
/// assert_eq!(parse_timestamp(b"1970-01-01 24:00"), None);
/// assert_eq!(parse_timestamp(b"1970-01-01T00:0Z"), None);
/// ```
pub fn parse_timestamp(v: &[u8]) -> Option<i64> {
    // The zone suffix goes first: the length check is on what is left.
    let v = v.strip_suffix(b"Z").unwrap_or(v);
    if v.len() < 16 || !matches!(v[10], b'T' | b' ') || v[13] != b':' {
        return None;
    }
    let days = i64::from(parse_date(&v[..10])?);
    let hour = digits(&v[11..13])?;
    let minute = digits(&v[14..16])?;
    let (mut second, mut micros) = (0, 0);
    let rest = &v[16..];
    if !rest.is_empty() {
        if rest.len() < 3 || rest[0] != b':' {
            return None;
        }
        second = digits(&rest[1..3])?;
        let fraction = &rest[3..];
        if !fraction.is_empty() {
            let f = fraction.strip_prefix(b".")?;
            if f.is_empty() || f.len() > 6 {
                return None;
            }
            micros = digits(f)? * 10u32.pow(6 - f.len() as u32);
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Some(seconds * 1_000_000 + i64::from(micros))
}

/// ASCII digits only (no sign), as a number.
fn digits(v: &[u8]) -> Option<u32> {
    if v.is_empty() || v.len() > 9 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The oracle: count days one by one from the epoch.
    fn days_by_counting(year: i64, month: u32, day: u32) -> i64 {
        let mut days = 0;
        for y in 1970..year {
            days += if days_in_month(y, 2) == 29 { 366 } else { 365 };
        }
        for m in 1..month {
            days += i64::from(days_in_month(year, m));
        }
        days + i64::from(day) - 1
    }

    proptest! {
        #[test]
        fn dates_agree_with_counting(year in 1970i64..2200, month in 1u32..=12, day in 1u32..=31) {
            let text = format!("{year:04}-{month:02}-{day:02}");
            let got = parse_date(text.as_bytes());
            if day <= days_in_month(year, month) {
                prop_assert_eq!(got.map(i64::from), Some(days_by_counting(year, month, day)));
            } else {
                prop_assert_eq!(got, None);
            }
        }

        #[test]
        fn integers_round_trip(n in any::<i64>()) {
            prop_assert_eq!(parse_i64(n.to_string().as_bytes()), Some(n));
        }

        /// The oracle for any text, overflow and stray bytes included:
        /// `str::parse`.
        #[test]
        fn integers_agree_with_str_parse(text in "[-+]?[0-9]{0,21}[ x.]?|[-+0-9]{0,3}|\\PC{0,6}") {
            prop_assert_eq!(parse_i64(text.as_bytes()), text.parse::<i64>().ok());
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(
            parse_timestamp(b"2000-03-01T12:34:56.000001Z"),
            Some(951_914_096_000_001)
        );
        assert_eq!(parse_timestamp(b"1969-12-31 23:59:59"), Some(-1_000_000));
        for bad in [
            &b"2000-03-01"[..],
            b"2000-03-01T1:00",
            b"2000-03-01T10:00:00.",
            b"2000-03-01T10:00:00.1234567",
            b"2000-03-01T10:60",
        ] {
            assert_eq!(
                parse_timestamp(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
