//! The full layout's parts (layout 1): a 16-bit fanout table, then whole
//! records sorted by hash.
//!
//! ```text
//! offset              size        field
//! 64                  8 * 65537   fanout table F, u64 LE: F[p] is the index
//!                                 of the first record whose hash starts with
//!                                 the 16 bits p; F[65536] is the record count
//! RECORDS_OFFSET      n * len     records: hash bytes 2.. then the count,
//!                                 u32 LE (len = 22 for SHA-1, 18 for NTLM)
//! ```
//!
//! The table implies each record's first two hash bytes, so they are not
//! stored; with uniform hashes it narrows a lookup to one prefix's records
//! (about 15,000 for the whole corpus) in one read. t64 shares the table.

use super::frame::HEADER_LEN;
use super::hash_kind::HashKind;

/// Bits of the hash that index the fanout table.
pub const PREFIX_BITS: u8 = 16;
/// Entries in the fanout table (one per prefix, plus the end).
pub const FANOUT_ENTRIES: usize = (1 << PREFIX_BITS) + 1;
/// Offset of the first record.
pub const RECORDS_OFFSET: usize = HEADER_LEN + 8 * FANOUT_ENTRIES;
/// Bytes of the hash implied by the fanout table (not stored per record).
pub const PREFIX_BYTES: usize = (PREFIX_BITS / 8) as usize;

/// The fanout table's bytes from counts per prefix (`counts[p + 1]`
/// records have prefix `p`): turned into running sums in place, so entry
/// `p` is the index of the first record with prefix `p`, then written
/// little-endian.
pub(crate) fn fanout_table(counts: &mut [u64]) -> Vec<u8> {
    for p in 1..counts.len() {
        counts[p] += counts[p - 1];
    }
    counts.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Bytes per record of a full index for a hash kind.
///
/// # Examples
///
/// ```
/// use spool_pwned::{format::record_len, HashKind};
/// assert_eq!(record_len(HashKind::Sha1), 22);
/// assert_eq!(record_len(HashKind::Ntlm), 18);
/// ```
pub fn record_len(kind: HashKind) -> usize {
    kind.byte_len() - PREFIX_BYTES + 4
}

/// Bytes covered by block checksums: the header, the table and `records`
/// records of `kind` (everything but the checksums themselves) of a full
/// index; `None` on overflow.
pub fn checked_len(kind: HashKind, records: u64) -> Option<u64> {
    (records.checked_mul(record_len(kind) as u64)?).checked_add(RECORDS_OFFSET as u64)
}
