//! Which of the three layouts a file holds (header byte 15), and what
//! that makes of its sizes: record length, table, body.
//!
//! | code | layout   | table after the header        | body                        |
//! |------|----------|-------------------------------|-----------------------------|
//! | 1    | full     | fanout table, 8 × 65,537 bytes | records of 22 (18) bytes    |
//! | 2    | t64      | the same fanout table         | 8-byte records, escapes     |
//! | 3    | filter   | shard table, 32 × 2^b bytes   | 16-bit fingerprints         |

use super::filter::{FINGERPRINT_LEN, SHARD_ENTRY_LEN};
use super::full::{record_len, FANOUT_ENTRIES};
use super::hash_kind::HashKind;
use super::t64;

/// How the records of an index are laid out after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexLayout {
    /// A 16-bit fanout table, then records sorted by hash, then block
    /// checksums (code 1): whole hashes and counts.
    Sorted,
    /// Hashes truncated to 64 bits, with counts (code 2; `t64.rs`).
    T64,
    /// A binary fuse filter of the hashes' first 64 bits: membership
    /// only, no counts (code 3; `filter.rs`).
    Filter,
}

impl IndexLayout {
    /// The code stored in the header.
    pub fn code(self) -> u8 {
        match self {
            IndexLayout::Sorted => 1,
            IndexLayout::T64 => 2,
            IndexLayout::Filter => 3,
        }
    }

    /// The layout with this code, if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::format::IndexLayout;
    /// assert_eq!(IndexLayout::from_code(2), Some(IndexLayout::T64));
    /// assert_eq!(IndexLayout::from_code(9), None);
    /// assert_eq!(IndexLayout::T64.code(), 2);
    /// ```
    pub fn from_code(code: u8) -> Option<IndexLayout> {
        match code {
            1 => Some(IndexLayout::Sorted),
            2 => Some(IndexLayout::T64),
            3 => Some(IndexLayout::Filter),
            _ => None,
        }
    }

    /// The name `spool pwned build --format` takes.
    pub fn name(self) -> &'static str {
        match self {
            IndexLayout::Sorted => "full",
            IndexLayout::T64 => "t64",
            IndexLayout::Filter => "filter",
        }
    }

    /// The header's record-length byte for this layout: bytes per record
    /// (full, t64) or per fingerprint (filter).
    pub fn record_len(self, kind: HashKind) -> usize {
        match self {
            IndexLayout::Sorted => record_len(kind),
            IndexLayout::T64 => t64::RECORD_LEN,
            IndexLayout::Filter => FINGERPRINT_LEN,
        }
    }

    /// Bytes of the table after the header: a fanout table for the sorted
    /// layouts, a shard table of `2^prefix_bits` entries for a filter.
    pub fn table_len(self, prefix_bits: u8) -> usize {
        match self {
            IndexLayout::Sorted | IndexLayout::T64 => 8 * FANOUT_ENTRIES,
            IndexLayout::Filter => SHARD_ENTRY_LEN << prefix_bits,
        }
    }

    /// Bytes of the body after the table: `records` records of `kind`
    /// and the layout's `items` (t64 escapes, filter fingerprints); `None`
    /// on overflow.
    pub fn body_len(self, kind: HashKind, records: u64, items: u64) -> Option<u64> {
        match self {
            IndexLayout::Sorted => records.checked_mul(record_len(kind) as u64),
            IndexLayout::T64 => t64::body_len(records, items),
            IndexLayout::Filter => items.checked_mul(FINGERPRINT_LEN as u64),
        }
    }
}
