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
//! A lookup checks the blocks it answers from, as in the full layout
//! (`index.rs`): the fanout entries, the records around the answer and,
//! for an escaped count, the escape table.

use crate::blocks::Damaged;
use crate::format::{PREFIX_BYTES, RECORDS_OFFSET};
use crate::index::partition_near;
use crate::mapped::Mapped;
use crate::IndexError;

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

/// A mapped t64 index.
pub(crate) struct T64Index {
    pub m: Mapped,
}

impl T64Index {
    /// Where the escapes start.
    fn escapes_offset(&self) -> usize {
        RECORDS_OFFSET + self.m.header.records as usize * RECORD_LEN
    }

    /// The count stored for the first 64 bits of `hash` (at least 8
    /// bytes), or `None`.
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block the answer rests on fails its checksum.
    pub fn lookup(&self, hash: &[u8]) -> Result<Option<u32>, Damaged> {
        let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
        let want: &[u8; KEY_LEN] = hash[PREFIX_BYTES..PREFIX_BYTES + KEY_LEN]
            .try_into()
            .expect("KEY_LEN bytes");
        let Some(at) = self.m.seek(p, RECORD_LEN, want)? else {
            return Ok(None);
        };
        let records = &self.m.map[RECORDS_OFFSET..];
        let stored = u16::from_le_bytes(
            records[at * RECORD_LEN + KEY_LEN..(at + 1) * RECORD_LEN]
                .try_into()
                .expect("2 bytes"),
        );
        if stored != ESCAPED {
            return Ok(Some(u32::from(stored)));
        }
        self.escaped(at as u64).map(Some)
    }

    /// The escaped count of record `at`: a binary search of the escapes,
    /// whose blocks are all checked first (they are few: one per count of
    /// 65,535 or more).
    fn escaped(&self, at: u64) -> Result<u32, Damaged> {
        let start = self.escapes_offset();
        let end = start + self.m.header.items as usize * ESCAPE_LEN;
        self.m.check(start..end)?;
        let escapes = &self.m.map[start..end];
        let n = escapes.len() / ESCAPE_LEN;
        let record_of = |i: usize| {
            u64::from_le_bytes(
                escapes[i * ESCAPE_LEN..i * ESCAPE_LEN + 8]
                    .try_into()
                    .expect("8 bytes"),
            )
        };
        let i = partition_near(0, n, 0, |i| record_of(i) < at);
        if i == n || record_of(i) != at {
            // An escape value with no escape: a writer's bug or damage that
            // its checksum let through; either way no count to trust.
            return Err(self.m.damaged(start..end));
        }
        let count = &escapes[i * ESCAPE_LEN + 8..(i + 1) * ESCAPE_LEN];
        Ok(u32::from_le_bytes(count.try_into().expect("4 bytes")))
    }

    /// Checks every checksum, the fanout table, and that the escapes are
    /// sorted and each names a record that holds the escape value.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the file.
    pub fn verify(&self) -> Result<(), IndexError> {
        self.m.verify_blocks()?;
        self.m.verify_fanout()?;
        let start = self.escapes_offset();
        let records = self.m.header.records;
        let mut prev = None;
        for i in 0..self.m.header.items as usize {
            let at = self.m.u64_at(start + i * ESCAPE_LEN);
            let stored = (at < records).then(|| {
                let r = RECORDS_OFFSET + at as usize * RECORD_LEN + KEY_LEN;
                u16::from_le_bytes([self.m.map[r], self.m.map[r + 1]])
            });
            if prev.is_some_and(|p| p >= at) || stored != Some(ESCAPED) {
                return Err(self
                    .m
                    .invalid("the escaped counts do not match the records: the index is corrupt"));
            }
            prev = Some(at);
        }
        Ok(())
    }
}
