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

/// Bytes looked at a word at a time before handing over to `memchr`.
const SHORT: usize = 24;

/// `memchr`, with a word-at-a-time search of the first [`SHORT`] bytes:
/// fields are mostly short, and on an 8-byte field the search ends before
/// `memchr` has set up its vector search. The CSV field splitter uses it
/// too.
#[inline(always)]
pub(crate) fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
    let head = &haystack[..haystack.len().min(SHORT)];
    let mut words = head.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        if let Some(i) = first_byte_equal(word, needle) {
            return Some(at + i);
        }
        at += 8;
    }
    if let Some(i) = words.remainder().iter().position(|&b| b == needle) {
        return Some(at + i);
    }
    if haystack.len() > SHORT {
        return memchr::memchr(needle, &haystack[SHORT..]).map(|i| i + SHORT);
    }
    None
}

/// The first of the 8 bytes of `word` (little-endian: byte 0 lowest)
/// equal to `needle`.
///
/// `x = word ^ needle×8` has a zero byte where they are equal; `(x − 0x01…)
/// & !x & 0x80…` sets the high bit of each zero byte, and may set it in a
/// byte above a zero byte (a borrow), never below the first one: so its
/// lowest set bit is exact.
#[inline(always)]
fn first_byte_equal(word: u64, needle: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = word ^ (ONES * u64::from(needle));
    let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
    (zeros != 0).then(|| (zeros.trailing_zeros() / 8) as usize)
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

        #[test]
        fn find_agrees_with_position(haystack in proptest::collection::vec(any::<u8>(), 0..80), needle: u8) {
            prop_assert_eq!(find(needle, &haystack), haystack.iter().position(|&b| b == needle));
        }
    }
}
