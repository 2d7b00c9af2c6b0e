//! The builder's record, [`HashCount`]: a hash and its count in 24 bytes,
//! and the one routine that adds up the counts of a hash seen more than
//! once.
//!
//! ```text
//!  byte  0                  20        24
//!        [ hash, zero-padded ][ count  ]
//!          big-endian order     u32 LE
//! ```
//!
//! A plain byte array, so that the sorting arena can be allocated zeroed
//! (lazily, by the kernel) and written to a spill file as is; NTLM's 16-byte
//! hashes are padded with zeros, which keeps their order.

/// One record; see the module docs.
pub type HashCount = [u8; HASH_COUNT_BYTES];

/// Bytes per record.
pub const HASH_COUNT_BYTES: usize = 24;

/// Bytes of the (padded) hash at the front of a record.
pub const HASH_BYTES: usize = 20;

/// Makes a [`HashCount`].
#[inline]
pub fn hash_count(key: &[u8; HASH_BYTES], count: u32) -> HashCount {
    let mut r = [0u8; HASH_COUNT_BYTES];
    r[..HASH_BYTES].copy_from_slice(key);
    r[HASH_BYTES..].copy_from_slice(&count.to_le_bytes());
    r
}

/// The count of a record.
#[inline]
pub fn count(r: &HashCount) -> u32 {
    u32::from_le_bytes(r[HASH_BYTES..].try_into().expect("4 bytes"))
}

/// The hash of a record (or any slice of at least 20 bytes starting with
/// one) as integers that order like its bytes: two integer compares
/// instead of a `memcmp` call.
#[inline]
pub fn sort_key(r: &[u8]) -> SortKey {
    (
        u128::from_be_bytes(r[..16].try_into().expect("16 bytes")),
        u32::from_be_bytes(r[16..20].try_into().expect("4 bytes")),
    )
}

/// A hash as [`sort_key`] gives it.
pub type SortKey = (u128, u32);

/// The `bits` bits of a record's hash after its first `skip` bits (0 when
/// `bits` is 0): a digit of the radix sort, and a record's bucket. `bits`
/// is at most 32 and `skip + bits` at most 64. One shift and a mask (a
/// shift by 64 wraps to 0, masked to nothing when `bits` is 0): the
/// counting sorts compute it twice per record.
#[inline(always)]
pub fn digit(r: &HashCount, skip: u32, bits: u32) -> usize {
    debug_assert!(bits <= 32 && skip + bits <= 64, "{bits} bits after {skip}");
    let top = u64::from_be_bytes(r[..8].try_into().expect("8 bytes"));
    (top.wrapping_shr(64 - skip - bits) & ((1u64 << bits) - 1)) as usize
}

/// Adds up the counts of equal hashes as records arrive in hash order:
/// each distinct hash comes out once, with the sum of its counts
/// (saturating at `u32::MAX`, the most the index format stores). The
/// streaming build merges through it; the encoding of a sorted bucket
/// (`write/encoded_run.rs`) does the same in its own loop, tested against
/// it.
#[derive(Clone, Debug, Default)]
pub struct MergeCounts {
    pending: Option<HashCount>,
    /// Records added into an equal hash before them so far.
    pub duplicates: u64,
}

impl MergeCounts {
    /// Takes the next record (its hash not below the last one's); returns
    /// the previous hash's merged record once `r` shows it is complete.
    #[inline]
    pub fn push(&mut self, r: &HashCount) -> Option<HashCount> {
        match &mut self.pending {
            Some(p) if sort_key(p) == sort_key(r) => {
                let sum = count(p).saturating_add(count(r));
                p[HASH_BYTES..].copy_from_slice(&sum.to_le_bytes());
                self.duplicates += 1;
                None
            }
            Some(p) => Some(std::mem::replace(p, *r)),
            None => {
                self.pending = Some(*r);
                None
            }
        }
    }

    /// The record of the last hash pushed, counts merged so far.
    pub fn pending(&self) -> Option<&HashCount> {
        self.pending.as_ref()
    }

    /// The last hash's merged record: call after the last push.
    pub fn finish(&mut self) -> Option<HashCount> {
        self.pending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(first: u8) -> [u8; HASH_BYTES] {
        let mut k = [0u8; HASH_BYTES];
        k[0] = first;
        k[19] = first ^ 0x5A;
        k
    }

    #[test]
    fn merges_equal_neighbours_and_caps_the_sum() {
        let mut merge = MergeCounts::default();
        assert_eq!(merge.push(&hash_count(&key(1), 1)), None);
        assert_eq!(merge.push(&hash_count(&key(1), 2)), None);
        assert_eq!(
            merge.push(&hash_count(&key(2), u32::MAX)),
            Some(hash_count(&key(1), 3))
        );
        assert_eq!(merge.push(&hash_count(&key(2), 7)), None);
        assert_eq!(merge.pending(), Some(&hash_count(&key(2), u32::MAX)));
        assert_eq!(merge.finish(), Some(hash_count(&key(2), u32::MAX)));
        assert_eq!(merge.duplicates, 2);
        assert_eq!(merge.finish(), None);
    }

    proptest! {
        /// Against a map from hash to summed count.
        #[test]
        fn agrees_with_a_map(mut pairs in proptest::collection::vec((0u8..8, 0u32..u32::MAX / 4), 0..60)) {
            pairs.sort_by_key(|p| p.0);
            let mut want = std::collections::BTreeMap::<u8, u64>::new();
            for &(k, c) in &pairs {
                *want.entry(k).or_default() += u64::from(c);
            }
            let mut merge = MergeCounts::default();
            let mut got = Vec::new();
            for &(k, c) in &pairs {
                got.extend(merge.push(&hash_count(&key(k), c)));
            }
            got.extend(merge.finish());
            let want: Vec<HashCount> = want
                .into_iter()
                .map(|(k, c)| hash_count(&key(k), u32::try_from(c).unwrap_or(u32::MAX)))
                .collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(merge.duplicates as usize, pairs.len() - pairs.iter().map(|p| p.0).collect::<std::collections::BTreeSet<_>>().len());
        }
    }

    #[test]
    fn sort_keys_order_like_the_bytes() {
        let mut a = hash_count(&key(3), 1);
        let mut b = a;
        b[17] = 1;
        assert!(sort_key(&a) < sort_key(&b));
        a[0] = 4;
        assert!(sort_key(&a) > sort_key(&b));
        assert_eq!(digit(&a, 0, 4), 0);
        assert_eq!(digit(&a, 4, 4), 4);
        assert_eq!(digit(&a, 0, 0), 0);
    }
}
