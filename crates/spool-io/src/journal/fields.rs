//! The fields a record's payload is made of: each journal's record types
//! are written and read with these, so none of them hand-rolls its own
//! integer or string encoding.
//!
//! Integers are little-endian and fixed-width; byte strings and strings
//! carry a `u32` length. A reader answers `None` for a payload that ends
//! early or holds a string that is not UTF-8 — a record of another
//! version, or a bug: the journal's checksums have already ruled out
//! damage.

/// Appends fields to a payload.
///
/// # Examples
///
/// ```
/// use spool_io::journal::{FieldReader, FieldWriter};
/// let mut payload = Vec::new();
/// FieldWriter(&mut payload).u8(1).u64(9 << 20).str("key=a/part-0.csv");
/// let mut fields = FieldReader::new(&payload);
/// assert_eq!(fields.u8(), Some(1));
/// assert_eq!(fields.u64(), Some(9 << 20));
/// assert_eq!(fields.str(), Some("key=a/part-0.csv"));
/// assert!(fields.is_empty());
/// ```
pub struct FieldWriter<'a>(pub &'a mut Vec<u8>);

impl FieldWriter<'_> {
    /// A byte.
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.0.push(value);
        self
    }

    /// Four bytes.
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Eight bytes.
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// A byte string, its length first.
    ///
    /// # Panics
    ///
    /// If `bytes` is 4 GiB or longer.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        let len = u32::try_from(bytes.len()).expect("a journal field under 4 GiB");
        self.u32(len);
        self.0.extend_from_slice(bytes);
        self
    }

    /// A string, its length first.
    pub fn str(&mut self, text: &str) -> &mut Self {
        self.bytes(text.as_bytes())
    }
}

/// Reads fields back from a payload, in the order they were written.
#[derive(Clone, Debug)]
pub struct FieldReader<'a> {
    rest: &'a [u8],
}

impl<'a> FieldReader<'a> {
    /// A reader at the start of `payload`.
    pub fn new(payload: &'a [u8]) -> Self {
        FieldReader { rest: payload }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.rest.len() < n {
            return None;
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(head)
    }

    /// A byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// Four bytes.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// Eight bytes.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A byte string.
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    /// A string.
    pub fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    /// Whether every field has been read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}
