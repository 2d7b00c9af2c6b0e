//! The t64 layout: every hash truncated to its first 64 bits, with its
//! count, in 8 bytes per hash instead of the full layout's 22.
//!
//! ```text
//! offset  size        field
//! 0       64          header (layout 2, record length 8, item count =
//!                     escapes m)
//! 64      8 * 65537   fanout table, as in the full layout (entry p: the
//!                     first record whose hash starts with the 16 bits p)
//! R       8 * n       records, sorted: hash bytes 2..8 (6 bytes), then the
//!                     count as u16 LE; 65535 means "see the escapes"
//! X       12 * m      escapes, sorted by record number: record number
//!                     u64 LE, count u32 LE — one per count >= 65535
//! E       4 * blocks  block checksums (CRC-32C per 256 bytes of 0..E)
//! ```
//!
//! # Why 64 bits, and what it costs
//!
//! The fanout table already holds each hash's first 16 bits, so a record
//! stores 48 more: 64 bits of the hash are compared in all. Two hashes
//! that agree in those 64 bits are one record, their counts added. An
//! absent hash is answered "found" only if it agrees with one of the n
//! stored hashes in all 64 bits: for uniform hashes that is n / 2^64 per
//! lookup — 5.4e-11 for a billion hashes, one false "pwned" in 18 billion
//! lookups of absent passwords. The count it then reports is another
//! password's.
//!
//! # Why a 16-bit count with escapes
//!
//! Most counts are small (in the HIBP corpus the great majority are below
//! a hundred; only the most common passwords pass 65,535), so a u16 holds
//! nearly all of them and the few larger ones go to a sorted side table
//! that a lookup searches only when it meets the escape value. Records
//! stay a fixed 8 bytes, so a lookup is the same interpolation search as
//! in the full layout. Per hash: 8 bytes, plus 1.6% of block checksums,
//! plus 12 bytes per escape, plus the 512 KiB table.
//!
//! The reader is `lookup/t64.rs`, the writer `build/write/t64.rs`.

use super::full::PREFIX_BYTES;

/// Bytes per record: 6 hash bytes and a u16 count.
pub const RECORD_LEN: usize = KEY_LEN + 2;
/// Hash bytes stored per record (bytes 2..8 of the hash).
pub const KEY_LEN: usize = 8 - PREFIX_BYTES;
/// Bytes per escape: record number u64 and count u32.
pub const ESCAPE_LEN: usize = 12;
/// The stored count that sends a lookup to the escapes.
pub const ESCAPED: u16 = u16::MAX;

/// Bytes of records and escapes after the table, or `None` on overflow.
pub fn body_len(records: u64, escapes: u64) -> Option<u64> {
    records
        .checked_mul(RECORD_LEN as u64)?
        .checked_add(escapes.checked_mul(ESCAPE_LEN as u64)?)
}
