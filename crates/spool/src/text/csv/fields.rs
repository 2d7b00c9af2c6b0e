//! The fields of one record: raw views, and values with the quoting taken
//! off.
//!
//! A field is quoted when its first byte is the quote; it then runs to the
//! quote that closes it (one not doubled), and on to the next delimiter:
//! text after the closing quote belongs to the field, as in csv-core. Any
//! other field runs to the next delimiter, quotes and all. Finding the end
//! of a field is a `memchr` for the delimiter, plus one for the closing
//! quote when it is quoted, so asking for field 2 looks at the bytes up to
//! field 2's end and no further.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::Dialect;
use crate::text::fields::find;

/// One field of a record, as read.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Fields};
/// let mut fields = Fields::new(b"plain,\"a \"\"quote\"\"\",\"\"", Dialect::CSV);
/// let plain = fields.next().unwrap();
/// assert_eq!((plain.raw(), plain.is_quoted()), (&b"plain"[..], false));
/// let quoted = fields.next().unwrap();
/// assert_eq!(quoted.raw(), b"\"a \"\"quote\"\"\"");
/// assert_eq!(quoted.value(), &b"a \"quote\""[..]); // unescaped: a new buffer
/// let empty = fields.next().unwrap();
/// assert!(empty.is_quoted() && empty.value().is_empty());
/// assert!(fields.next().is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    raw: &'a [u8],
    quote: Option<u8>,
    /// Bit `i`: `raw[i]` is a quote, when the splitter's masks said so
    /// (fields in a record's first 64 bytes); `None` when not known.
    quotes: Option<u64>,
}

/// Fields are equal when they read the same bytes in the same dialect,
/// whether or not the masks came with them.
impl PartialEq for Field<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.raw, self.quote) == (other.raw, other.quote)
    }
}

impl Eq for Field<'_> {}

impl<'a> Field<'a> {
    #[inline]
    pub(crate) fn new(raw: &'a [u8], quote: Option<u8>) -> Self {
        Field {
            raw,
            quote,
            quotes: None,
        }
    }

    /// A field with the quotes in it known from the masks (`raw` is at
    /// most 64 bytes; bit `i` of `quotes` is set iff `raw[i]` is a quote).
    #[inline]
    pub(crate) fn with_quotes(raw: &'a [u8], quote: Option<u8>, quotes: u64) -> Self {
        debug_assert!(raw.len() <= 64);
        Field {
            raw,
            quote,
            quotes: Some(quotes),
        }
    }

    /// The field exactly as read, quotes included.
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Whether the field starts with the dialect's quote.
    #[inline]
    pub fn is_quoted(&self) -> bool {
        self.quote.is_some() && self.raw.first() == self.quote.as_ref()
    }

    /// The field's value: without its enclosing quotes, `""` read as `"`,
    /// and any text after the closing quote appended (csv-core's reading).
    /// Borrowed from the record unless there was a `""` or such text.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use spool::text::csv::{Dialect, Fields};
    /// let value = |raw: &'static [u8]| Fields::new(raw, Dialect::CSV).next().unwrap().value();
    /// assert!(matches!(value(b"\"Paris\""), Cow::Borrowed(b"Paris")));
    /// assert!(matches!(value(b"Paris"), Cow::Borrowed(b"Paris")));
    /// assert_eq!(value(b"\"6\"\" tall\""), &b"6\" tall"[..]);
    /// assert_eq!(value(b"\"a\"b\"c"), &b"ab\"c"[..]);
    /// assert_eq!(value(b"x\"y"), &b"x\"y"[..]);
    /// ```
    #[inline]
    pub fn value(&self) -> Cow<'a, [u8]> {
        if let Some(quotes) = self.quotes {
            // From the masks, without scanning: unquoted (no quote first:
            // the quoting off gives no quote bits), or quoted with its
            // only quotes at both ends. Few branches, as whether a field
            // is quoted is as random as the data.
            let len = self.raw.len();
            let quoted = quotes & 1 != 0;
            let enclosed = len >= 2 && quotes == 1 | 1 << (len - 1);
            if !quoted || enclosed {
                let trim = usize::from(quoted);
                return Cow::Borrowed(&self.raw[trim..len - trim]);
            }
        }
        self.scanned_value()
    }

    /// [`Field::value`] without the masks: the field's bytes scanned for
    /// its quotes.
    #[cold]
    #[inline(never)]
    fn scanned_value(&self) -> Cow<'a, [u8]> {
        if !self.is_quoted() {
            return Cow::Borrowed(self.raw);
        }
        match self.simple_value() {
            Some(value) => Cow::Borrowed(value),
            None => {
                let mut out = Vec::with_capacity(self.raw.len());
                self.unescape_into(&mut out);
                Cow::Owned(out)
            }
        }
    }

    /// Appends the field's [value](Self::value) to `out` (a buffer the
    /// caller reuses, so no allocation once it is large enough).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, Fields};
    /// let mut scratch = Vec::new();
    /// for field in Fields::new(b"\"a\"\"b\",c", Dialect::CSV) {
    ///     scratch.clear();
    ///     field.value_into(&mut scratch);
    ///     assert!(scratch == b"a\"b" || scratch == b"c");
    /// }
    /// ```
    pub fn value_into(&self, out: &mut Vec<u8>) {
        match self.simple_value() {
            Some(value) => out.extend_from_slice(value),
            None => self.unescape_into(out),
        }
    }

    /// The value when it is a plain slice of the field: unquoted, or
    /// quoted with nothing to unescape.
    #[inline]
    fn simple_value(&self) -> Option<&'a [u8]> {
        let Some(q) = self.quote.filter(|_| self.is_quoted()) else {
            return Some(self.raw);
        };
        let inner = &self.raw[1..];
        match find(q, inner) {
            // Closed by the field's last byte, nothing doubled before it.
            Some(i) if i + 1 == inner.len() => Some(&inner[..i]),
            // Never closed (only at the end of an input read leniently).
            None => Some(inner),
            Some(_) => None,
        }
    }

    /// Unquotes a quoted field into `out`: csv-core's rules.
    fn unescape_into(&self, out: &mut Vec<u8>) {
        let q = self.quote.expect("called on quoted fields only");
        let mut rest = &self.raw[1..];
        loop {
            match memchr::memchr(q, rest) {
                None => return out.extend_from_slice(rest),
                Some(i) => {
                    out.extend_from_slice(&rest[..i]);
                    if rest.get(i + 1) == Some(&q) {
                        out.push(q);
                        rest = &rest[i + 2..];
                    } else {
                        // Closed: whatever follows is literal text.
                        return out.extend_from_slice(&rest[i + 1..]);
                    }
                }
            }
        }
    }
}

/// Iterator over the fields of a record (without its line break); see
/// [`Record::fields`](super::Record::fields).
///
/// An empty record has one empty field.
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Fields};
/// let raw: Vec<&[u8]> = Fields::new(b"a,\"b,c\",,d", Dialect::CSV).map(|f| f.raw()).collect();
/// assert_eq!(raw, [&b"a"[..], b"\"b,c\"", b"", b"d"]);
/// ```
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    rest: Option<&'a [u8]>,
    dialect: Dialect,
}

impl<'a> Fields<'a> {
    /// The fields of `record`, a record without its line break.
    #[inline]
    pub fn new(record: &'a [u8], dialect: Dialect) -> Self {
        Fields {
            rest: Some(record),
            dialect,
        }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Field<'a>;

    #[inline]
    fn next(&mut self) -> Option<Field<'a>> {
        let rest = self.rest?;
        let quote = self.dialect.quote();
        let end = field_end(rest, self.dialect.delimiter(), quote);
        let (raw, next) = match end {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        self.rest = next;
        Some(Field::new(raw, quote))
    }
}

impl core::iter::FusedIterator for Fields<'_> {}

/// Position of the delimiter that ends the field at the start of `rest`, if
/// any.
#[inline]
fn field_end(rest: &[u8], delimiter: u8, quote: Option<u8>) -> Option<usize> {
    let mut from = 0;
    if let Some(q) = quote.filter(|&q| rest.first() == Some(&q)) {
        from = 1;
        // Skip to the closing quote: a quote not followed by another.
        loop {
            let i = from + memchr::memchr(q, &rest[from..])?;
            if rest.get(i + 1) == Some(&q) {
                from = i + 2;
            } else {
                from = i + 1;
                break;
            }
        }
    }
    find(delimiter, &rest[from..]).map(|i| from + i)
}
