//! A view of consecutive index records, as stored: what a range query
//! (the five hex digits of the Pwned Passwords API's `/range/{prefix}`)
//! returns without copying a byte out of the map.
//!
//! ```text
//! one record (SHA-1: 22 bytes, NTLM: 18)
//! +-----------------------------+------------+
//! | hash bytes 2.. (18 or 14)   | count u32LE|
//! +-----------------------------+------------+
//!   ^ first byte: its high nibble is hex digit 5 of the hash (part of
//!     the 20-bit range prefix), its low nibble digit 6 (the first digit
//!     of a range line's suffix)
//! ```

use crate::format::{record_len, HashKind, PREFIX_BYTES};

/// Consecutive records of an index, in hash order.
///
/// # Examples
///
/// ```
/// use spool_pwned::build::{build, BuildOptions, Source};
/// use spool_pwned::Index;
/// let dir = std::env::temp_dir().join(format!("spool-records-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let text = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n5BAA6FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2\n";
/// let out = dir.join("index");
/// build(vec![Source::from_reader("doc", text.as_bytes())], &out, &BuildOptions::default()).unwrap();
/// let index = Index::open(&out).unwrap();
/// let range = index.range(0x5BAA6).unwrap();
/// assert_eq!(range.len(), 2);
/// let first = range.iter().next().unwrap();
/// assert_eq!((first.key()[0], first.count()), (0x61, 10));
/// assert!(index.range(0x5BAA7).unwrap().is_empty());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RangeEntries<'a> {
    bytes: &'a [u8],
    kind: HashKind,
}

/// One record of a [`RangeEntries`] view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeEntry<'a> {
    key: &'a [u8],
    count: u32,
}

impl<'a> RangeEntries<'a> {
    /// A view of `bytes`, whole records of `kind`.
    ///
    /// # Panics
    ///
    /// If `bytes` is not a whole number of records (a bug in the caller:
    /// the index hands out only whole records).
    pub(crate) fn new(bytes: &'a [u8], kind: HashKind) -> Self {
        assert_eq!(bytes.len() % record_len(kind), 0, "whole records");
        RangeEntries { bytes, kind }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.bytes.len() / record_len(self.kind)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The hash kind of the records.
    pub fn kind(&self) -> HashKind {
        self.kind
    }

    /// The records as the index stores them (see the module docs): what
    /// [`IndexWriter::append_range`](crate::build::IndexWriter::append_range)
    /// takes, for copying a range into a new index without decoding it.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The records in hash order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = RangeEntry<'a>> + 'a {
        let key_len = self.kind.byte_len() - PREFIX_BYTES;
        self.bytes
            .chunks_exact(record_len(self.kind))
            .map(move |r| RangeEntry {
                key: &r[..key_len],
                count: u32::from_le_bytes(r[key_len..].try_into().expect("4 bytes")),
            })
    }
}

impl<'a> RangeEntry<'a> {
    /// The hash without its first two bytes (which the index's fanout
    /// table implies): 18 bytes for SHA-1, 14 for NTLM.
    pub fn key(&self) -> &'a [u8] {
        self.key
    }

    /// The prevalence count.
    pub fn count(&self) -> u32 {
        self.count
    }
}
