//! Field splitting with `memchr`: a plain record's fields as views into
//! it (no quoting; CSV fields are [`csv::Fields`](super::csv::Fields)).
//!
//! [`field`] scans only as far as the field asked for: taking the first
//! column of a 100-byte line touches the bytes up to the first delimiter,
//! not the whole line.

/// Field `index` (from 0) of `record`, split at `delimiter`; `None` if the
/// record has fewer fields.
///
/// # Examples
///
/// ```
/// use spool::text::fields::field;
/// assert_eq!(field(b"a\tbb\tccc", b'\t', 1), Some(&b"bb"[..]));
/// assert_eq!(field(b"a\tbb\tccc", b'\t', 2), Some(&b"ccc"[..]));
/// assert_eq!(field(b"a\tbb", b'\t', 2), None);
/// assert_eq!(field(b"", b'\t', 0), Some(&b""[..]));
/// ```
#[inline]
pub fn field(record: &[u8], delimiter: u8, index: usize) -> Option<&[u8]> {
    let mut rest = record;
    for _ in 0..index {
        let i = find(delimiter, rest)?;
        rest = &rest[i + 1..];
    }
    Some(match find(delimiter, rest) {
        Some(i) => &rest[..i],
        None => rest,
    })
}

/// Bytes looked at one by one before handing over to `memchr`.
const SHORT: usize = 24;

/// `memchr`, with a plain loop over the first [`SHORT`] bytes: fields are
/// mostly short, and on an 8-byte field the loop ends before `memchr` has
/// set up its vector search (measured: 30% faster key extraction on the
/// 100-byte-line benchmark in BENCHMARKS.md). The CSV field splitter
/// uses it too.
#[inline(always)]
pub(crate) fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
    let head = &haystack[..haystack.len().min(SHORT)];
    match head.iter().position(|&b| b == needle) {
        Some(i) => Some(i),
        None if haystack.len() > SHORT => {
            memchr::memchr(needle, &haystack[SHORT..]).map(|i| i + SHORT)
        }
        None => None,
    }
}

/// Number of fields in `record` (at least 1: an empty record is one empty
/// field).
///
/// # Examples
///
/// ```
/// assert_eq!(spool::text::fields::count(b"a,b,,c", b','), 4);
/// assert_eq!(spool::text::fields::count(b"", b','), 1);
/// ```
pub fn count(record: &[u8], delimiter: u8) -> usize {
    memchr::memchr_iter(delimiter, record).count() + 1
}

/// Iterator over all fields of a plain record.
///
/// # Examples
///
/// ```
/// use spool::text::fields::PlainFields;
/// let got: Vec<&[u8]> = PlainFields::new(b"x,,y", b',').collect();
/// assert_eq!(got, [&b"x"[..], b"", b"y"]);
/// ```
#[derive(Clone, Debug)]
pub struct PlainFields<'a> {
    rest: Option<&'a [u8]>,
    delimiter: u8,
}

impl<'a> PlainFields<'a> {
    /// The fields of `record` split at `delimiter`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(spool::text::fields::PlainFields::new(b"a\tb", b'\t').count(), 2);
    /// ```
    #[must_use]
    pub fn new(record: &'a [u8], delimiter: u8) -> Self {
        PlainFields {
            rest: Some(record),
            delimiter,
        }
    }
}

impl<'a> Iterator for PlainFields<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        Some(match memchr::memchr(self.delimiter, rest) {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                &rest[..i]
            }
            None => {
                self.rest = None;
                rest
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn field_agrees_with_split(record in proptest::collection::vec(prop_oneof![Just(b','), Just(b'a'), Just(b'b')], 0..40), index in 0usize..8) {
            let model: Vec<&[u8]> = record.split(|&b| b == b',').collect();
            prop_assert_eq!(field(&record, b',', index), model.get(index).copied());
            prop_assert_eq!(count(&record, b','), model.len());
            prop_assert_eq!(PlainFields::new(&record, b',').collect::<Vec<_>>(), model);
        }
    }
}
