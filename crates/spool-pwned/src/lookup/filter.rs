//! Lookups in a mapped filter index (layout in the format's `filter.rs`).
//!
//! A lookup is three reads at unrelated places of the fingerprint array:
//! once the array outgrows the CPU caches each is a cache miss, and the
//! misses are what a lookup costs. So the reader is arranged around them:
//!
//! - **Shard entries are decoded once, at open.** The table is small (32
//!   bytes a shard: 4 KiB for the SHA-1 corpus at the default memory, at
//!   most 2 MiB), so [`FilterIndex::open`] checks its blocks and decodes
//!   and bounds-checks every entry, and a lookup takes its shard from a
//!   decoded array instead of checking and parsing 32 bytes each time. An
//!   entry whose block fails its checksum, or that does not decode, is
//!   kept as damaged: lookups in its shard are errors, as before, and
//!   opening still reads only the table.
//! - **The three reads come first, the checks after.** The fingerprints
//!   are read before their blocks' checksum bits are tested, so the three
//!   misses are in flight together; the answer is returned only once the
//!   three blocks have passed (a bit test each, after the first time: see
//!   the format's `blocks.rs`). The bytes are read from a bounds-checked
//!   slice, so a read that comes before its check is still a read inside
//!   the file.
//! - **A batch prefetches ahead.** [`FilterIndex::prefetch`] computes a
//!   hash's three slots and asks the CPU to fetch their cache lines;
//!   [`AnyIndex::check_many`](super::AnyIndex::check_many) does so a few
//!   hashes ahead of the one it answers, so that the misses of several
//!   lookups overlap.
//!
//! The hashing (`Shard::slots`) stays `xorf`'s: the builder retries seeds
//! until a filter builds, and the seed enters through it. It is a few
//! multiplications, small beside one miss.

use crate::format::filter::{key_of, shard_of, Shard, SHARD_ENTRY_LEN};
use crate::format::{Damaged, IndexError, HEADER_LEN};

use super::mapped::Mapped;

/// A mapped filter index, its shard entries decoded.
pub(crate) struct FilterIndex {
    pub m: Mapped,
    /// Shard `s`'s entry, or `None` if its block fails its checksum or it
    /// does not decode (lookups in the shard are then [`Damaged`]).
    shards: Box<[Option<Shard>]>,
    /// File offset of the first fingerprint.
    fingerprints_at: usize,
}

impl FilterIndex {
    /// Decodes every shard entry of `m` (a filter layout), checking the
    /// table's blocks: one pass over the table.
    pub fn open(m: Mapped) -> Self {
        let shards = (0..1usize << m.header.prefix_bits)
            .map(|s| {
                let at = HEADER_LEN + s * SHARD_ENTRY_LEN;
                let bytes = at..at + SHARD_ENTRY_LEN;
                m.check(bytes.clone()).ok()?;
                Shard::decode(&m.map[bytes], m.header.items)
            })
            .collect();
        let fingerprints_at = HEADER_LEN + m.header.table_len();
        FilterIndex {
            m,
            shards,
            fingerprints_at,
        }
    }

    /// The shard of `key` and the file offsets of its three fingerprints,
    /// with the fingerprint `key` must match; `Ok(None)` for an empty
    /// shard.
    #[inline]
    fn locate(&self, key: u64) -> Result<Option<(u16, [usize; 3])>, Damaged> {
        let s = shard_of(key, self.m.header.prefix_bits);
        let Some(shard) = &self.shards[s] else {
            let at = HEADER_LEN + s * SHARD_ENTRY_LEN;
            return Err(self.m.damaged(at..at + SHARD_ENTRY_LEN));
        };
        if shard.len == 0 {
            return Ok(None);
        }
        let (fingerprint, slots) = shard.slots(key);
        let base = self.fingerprints_at + 2 * shard.first as usize;
        Ok(Some((
            fingerprint,
            slots.map(|slot| base + 2 * slot as usize),
        )))
    }

    /// Whether the first 64 bits of `hash` (at least 8 bytes) are probably
    /// in the filter.
    ///
    /// # Errors
    ///
    /// [`Damaged`] if the shard entry or a fingerprint read fails its
    /// block checksum.
    #[inline]
    pub fn contains(&self, hash: &[u8]) -> Result<bool, Damaged> {
        let Some((fingerprint, at)) = self.locate(key_of(hash))? else {
            return Ok(false);
        };
        let read = |at: usize| u16::from_le_bytes([self.m.map[at], self.m.map[at + 1]]);
        // All three reads before any check, so that their misses overlap.
        let x = fingerprint ^ read(at[0]) ^ read(at[1]) ^ read(at[2]);
        for at in at {
            self.m.check(at..at + 2)?;
        }
        Ok(x == 0)
    }

    /// Asks the CPU to fetch the three fingerprints of `hash` (at least 8
    /// bytes) into its caches, so that a [`contains`](Self::contains) a
    /// little later does not wait for them. Only a hint: a damaged or
    /// empty shard is left alone.
    #[inline]
    pub fn prefetch(&self, hash: &[u8]) {
        if let Ok(Some((_, at))) = self.locate(key_of(hash)) {
            for at in at {
                self.m.prefetch(at);
            }
        }
    }

    /// Checks every checksum, and that the shards' entries are valid and
    /// their fingerprints follow each other and fill the array.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the file.
    pub fn verify(&self) -> Result<(), IndexError> {
        self.m.verify_blocks()?;
        let mut next = 0;
        for s in 0..1usize << self.m.header.prefix_bits {
            let at = HEADER_LEN + s * SHARD_ENTRY_LEN;
            let entry = &self.m.map[at..at + SHARD_ENTRY_LEN];
            match Shard::decode(entry, self.m.header.items) {
                Some(shard) if shard.first == next => next += u64::from(shard.len),
                _ => {
                    return Err(self.m.invalid(&format!(
                        "shard {s}'s entry is invalid: the index is corrupt"
                    )))
                }
            }
        }
        if next != self.m.header.items {
            return Err(self
                .m
                .invalid("the shards do not cover the fingerprints: the index is corrupt"));
        }
        Ok(())
    }
}
