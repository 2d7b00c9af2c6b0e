//! The filter layout: a binary fuse filter (16-bit fingerprints) of the
//! hashes' first 64 bits — "probably pwned" or "not pwned" in about
//! 2.25 bytes per hash, with no counts.
//!
//! ```text
//! offset  size         field
//! 0       64           header (layout 3, prefix bits b, record length 2,
//!                      item count = fingerprints F)
//! 64      32 * 2^b     shard table: shard s holds the hashes whose first b
//!                      bits are s; its entry is
//!                        0  u64 first fingerprint (index into the array)
//!                        8  u32 fingerprints
//!                        12 u32 segment length (a power of two)
//!                        16 u32 segment length mask (length - 1)
//!                        20 u32 segment count length
//!                        24 u64 seed
//! T       2 * F        fingerprints, u16 LE, shard after shard
//! E       4 * blocks   block checksums (CRC-32C per 1 KiB of 0..E)
//! ```
//!
//! # Why shards
//!
//! Building a binary fuse filter needs all its keys in memory (about 40
//! bytes each while it is built): 40 GB for a billion hashes. Keys arrive
//! in hash order, so a filter per b-bit prefix is built as soon as the
//! prefix's last key has passed, and memory holds one shard; b is the
//! least that keeps a shard within the build's memory (`build/convert.rs`).
//! Shards of a million keys or more cost nothing in size: a filter of n
//! keys takes 1.125·n fingerprints once n ≥ 10^6 (the construction's
//! size factor), more for smaller n.
//!
//! # False positives
//!
//! An absent hash is reported present when its fingerprint equals the XOR
//! of the three slots it maps to: 1/65536 for 16-bit fingerprints, plus
//! n / 2^64 for agreeing with a stored hash in all 64 bits (negligible).
//! About 15 in a million lookups of absent passwords say "probably pwned".
//!
//! # Lookups and damage
//!
//! The filters are built with the `xorf` crate; a lookup is computed on
//! the mapped bytes without copying them (the same arithmetic as `xorf`'s
//! `contains`, pinned by a test against it) so that it can check the
//! blocks of the shard entry and of the three fingerprints it reads: a
//! flipped fingerprint bit is an error, never a silent "not pwned". The
//! reader is `lookup/filter.rs`, the writer `build/write/filter.rs`.

/// Log2 of the checksum block size of a filter: 1 KiB blocks. With the
/// full layout's 256-byte blocks the checksums would add 1.6% (0.035
/// bytes per hash, pushing a filter past 2.28 bytes per hash); at 1 KiB
/// they add 0.4%. A lookup checks three blocks, each once per process: a
/// CRC of 1 KiB the first time, a bit test afterwards.
pub const BLOCK_SHIFT: u8 = 10;

/// Bytes per shard table entry.
pub const SHARD_ENTRY_LEN: usize = 32;

/// Bytes per fingerprint (16 bits).
pub const FINGERPRINT_LEN: usize = 2;

/// The 64-bit key of a hash: its first 8 bytes, big-endian, so that keys
/// sort as hashes do.
///
/// # Panics
///
/// If `hash` is shorter than 8 bytes.
pub(crate) fn key_of(hash: &[u8]) -> u64 {
    u64::from_be_bytes(hash[..8].try_into().expect("8 bytes"))
}

/// The shard of `key` among `2^bits`.
pub(crate) fn shard_of(key: u64, bits: u8) -> usize {
    key.checked_shr(64 - u32::from(bits)).unwrap_or(0) as usize
}

/// One shard's filter parameters, as in its table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    pub first: u64,
    pub len: u32,
    pub segment_length: u32,
    pub segment_length_mask: u32,
    pub segment_count_length: u32,
    pub seed: u64,
}

impl Shard {
    /// The table entry's bytes.
    pub fn encode(&self) -> [u8; SHARD_ENTRY_LEN] {
        let mut e = [0u8; SHARD_ENTRY_LEN];
        e[..8].copy_from_slice(&self.first.to_le_bytes());
        e[8..12].copy_from_slice(&self.len.to_le_bytes());
        e[12..16].copy_from_slice(&self.segment_length.to_le_bytes());
        e[16..20].copy_from_slice(&self.segment_length_mask.to_le_bytes());
        e[20..24].copy_from_slice(&self.segment_count_length.to_le_bytes());
        e[24..32].copy_from_slice(&self.seed.to_le_bytes());
        e
    }

    /// Parses an entry and checks that every slot a lookup can compute
    /// lies within the shard's fingerprints, and those within the file's
    /// `fingerprints`: after this, [`slots`](Self::slots) is in bounds.
    pub fn decode(e: &[u8], fingerprints: u64) -> Option<Shard> {
        let u32_at = |at: usize| u32::from_le_bytes(e[at..at + 4].try_into().expect("4 bytes"));
        let shard = Shard {
            first: u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
            len: u32_at(8),
            segment_length: u32_at(12),
            segment_length_mask: u32_at(16),
            segment_count_length: u32_at(20),
            seed: u64::from_le_bytes(e[24..32].try_into().expect("8 bytes")),
        };
        let in_file = shard.first.checked_add(u64::from(shard.len))? <= fingerprints;
        // Slot h0 lies in a segment below segment_count_length (a whole,
        // non-zero number of segments: with none, h0 would be 0 and not
        // below it); h1 and h2 in the next two segments, since the mask
        // changes only bits within a segment (see `slots`): every slot is
        // below segment_count_length + 2·segment_length.
        let reach = u64::from(shard.segment_count_length) + 2 * u64::from(shard.segment_length);
        let shape = shard.len == 0
            || (shard.segment_length.is_power_of_two()
                && shard.segment_length_mask == shard.segment_length - 1
                && shard.segment_count_length != 0
                && shard
                    .segment_count_length
                    .is_multiple_of(shard.segment_length)
                && reach <= u64::from(shard.len));
        (in_file && shape).then_some(shard)
    }

    /// The fingerprint of `key` and its three slots in the shard: binary
    /// fuse filter arithmetic as `xorf` 0.13 does it (murmur3's 64-bit
    /// finalizer of key + seed, then the hash's high bits pick a segment
    /// and its low bits offsets within the next two).
    #[inline]
    pub fn slots(&self, key: u64) -> (u16, [u32; 3]) {
        let hash = mix64(key.wrapping_add(self.seed));
        let fingerprint = (hash ^ (hash >> 32)) as u16;
        let h0 = ((u128::from(hash) * u128::from(self.segment_count_length)) >> 64) as u32;
        let h1 = (h0 + self.segment_length) ^ ((hash >> 18) as u32 & self.segment_length_mask);
        let h2 = (h0 + 2 * self.segment_length) ^ (hash as u32 & self.segment_length_mask);
        (fingerprint, [h0, h1, h2])
    }
}

/// murmur3's 64-bit finalizer.
#[inline]
fn mix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[cfg(test)]
mod tests {
    use super::{Shard, SHARD_ENTRY_LEN};
    use proptest::prelude::*;
    use xorf::{BinaryFuse16, Filter as _};

    /// This file's lookup arithmetic over a filter built by xorf.
    fn contains(filter: &BinaryFuse16, key: u64) -> bool {
        let d = &filter.descriptor;
        let shard = Shard {
            first: 0,
            len: filter.fingerprints.len() as u32,
            segment_length: d.segment_length,
            segment_length_mask: d.segment_length_mask,
            segment_count_length: d.segment_count_length,
            seed: d.seed,
        };
        let decoded = Shard::decode(&shard.encode(), u64::from(shard.len));
        assert_eq!(
            decoded,
            Some(shard),
            "xorf's parameters pass the bounds check"
        );
        let (fingerprint, slots) = shard.slots(key);
        slots
            .iter()
            .fold(fingerprint, |x, &s| x ^ filter.fingerprints[s as usize])
            == 0
    }

    /// No segments before the last two: h0 is 0, and h2 would reach a
    /// third segment past the fingerprints (found by the property below).
    #[test]
    fn an_entry_without_segments_is_refused() {
        let shard = Shard {
            first: 0,
            len: 2048,
            segment_length: 1024,
            segment_length_mask: 1023,
            segment_count_length: 0,
            seed: 0,
        };
        assert_eq!(Shard::decode(&shard.encode(), u64::MAX), None);
    }

    proptest! {
        /// Against xorf's own `contains`, for members and for other keys,
        /// over filter sizes where xorf's segment arithmetic changes.
        #[test]
        fn slots_match_xorf(
            keys in prop::collection::btree_set(any::<u64>(), 1..3000),
            probes in prop::collection::vec(any::<u64>(), 200),
        ) {
            let keys: Vec<u64> = keys.into_iter().collect();
            let filter = BinaryFuse16::try_from(&keys).unwrap();
            for &k in keys.iter().chain(&probes) {
                prop_assert_eq!(contains(&filter, k), filter.contains(&k), "key {}", k);
            }
        }

        /// Whatever an entry holds, one that decodes keeps every slot of
        /// every key inside its fingerprints.
        #[test]
        fn decoded_entries_stay_in_bounds(entry in prop::array::uniform32(any::<u8>()), key: u64) {
            let mut e = entry;
            // Small lengths, so that valid-looking shapes come up.
            let len = u32::from_le_bytes([e[8], e[9], 0, 0]);
            e[8..12].copy_from_slice(&len.to_le_bytes());
            let segment = 1u32 << (e[12] % 12);
            e[12..16].copy_from_slice(&segment.to_le_bytes());
            if e[13] % 2 == 0 {
                e[16..20].copy_from_slice(&(segment - 1).to_le_bytes());
            }
            if e[14] % 2 == 0 {
                let count_length = segment * u32::from(e[20] % 8);
                e[20..24].copy_from_slice(&count_length.to_le_bytes());
            }
            if let Some(shard) = Shard::decode(&e[..SHARD_ENTRY_LEN], u64::MAX) {
                if shard.len > 0 {
                    let (_, slots) = shard.slots(key);
                    for s in slots {
                        prop_assert!(s < shard.len, "slot {} of {}", s, shard.len);
                    }
                }
            }
        }
    }
}
