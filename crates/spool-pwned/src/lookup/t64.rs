//! Lookups in a mapped t64 index (layout in the format's `t64.rs`): the
//! full layout's search over 8-byte records, and the escape table for
//! the rare counts of 65,535 or more.
//!
//! A lookup checks the blocks it answers from, as in the full layout
//! (`full.rs`): the fanout entries, the records around the answer and,
//! for an escaped count, the escape table.

use crate::format::t64::{ESCAPED, ESCAPE_LEN, KEY_LEN, RECORD_LEN};
use crate::format::{Damaged, IndexError, PREFIX_BYTES, RECORDS_OFFSET};

use super::mapped::Mapped;
use super::search::partition_near;

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
