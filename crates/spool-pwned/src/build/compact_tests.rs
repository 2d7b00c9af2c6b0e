//! The arena's entries against the records they pack: every bucket
//! width, both hash lengths, any count, any cut of a stream.

use super::*;
use crate::build::hash_count::{digit, hash_count};
use proptest::prelude::*;

fn hash(bytes: &[u8], len: usize) -> [u8; HASH_BYTES] {
    let mut k = [0u8; HASH_BYTES];
    k[..len].copy_from_slice(&bytes[..len]);
    k
}

/// Packs `r`, checks the length against the count, and unpacks it from
/// a stream where other bytes follow.
fn round_trip(packing: &Packing, r: &HashCount) -> (HashCount, usize) {
    let mut entry = [0xA5u8; MAX_ENTRY_BYTES];
    let len = packing.pack(r, &mut entry);
    let mut stream = entry[..len].to_vec();
    stream.extend_from_slice(&[0xFF; 30]);
    let (back, used) = packing.unpack(digit(r, 0, packing.bits), &stream);
    assert_eq!(used, len);
    (back, len)
}

proptest! {
    /// Packing then unpacking gives the record back, for every bucket
    /// width, both hash lengths and any count; an entry is 20 bytes
    /// exactly when its count is at most `max_count`.
    #[test]
    fn unpack_inverts_pack(
        bytes in proptest::array::uniform20(any::<u8>()),
        count in prop_oneof![0u32..70_000, any::<u32>(), u32::MAX - 5..=u32::MAX],
        bits in 0u32..=17,
        ntlm in any::<bool>(),
    ) {
        let len = if ntlm { 16 } else { 20 };
        let r = hash_count(&hash(&bytes, len), count);
        let packing = Packing::new(len, bits);
        let (back, used) = round_trip(&packing, &r);
        prop_assert_eq!(back, r);
        match packing.max_count() {
            Some(max) => prop_assert_eq!(used == COMPACT_BYTES, count <= max),
            None => prop_assert_eq!(used, HASH_COUNT_BYTES),
        }
        prop_assert!(used <= MAX_ENTRY_BYTES);
    }
}

proptest! {
    /// A stream cut into pieces anywhere unpacks like the whole stream.
    #[test]
    fn pieces_unpack_like_the_whole_stream(
        counts in proptest::collection::vec(prop_oneof![0u32..5000, any::<u32>()], 0..40),
        cuts in proptest::collection::vec(0usize..1000, 0..12),
        bits in prop_oneof![Just(4u32), 8u32..=16],
        ntlm in any::<bool>(),
    ) {
        let len = if ntlm { 16 } else { 20 };
        let packing = Packing::new(len, bits);
        let mut want = Vec::new();
        let mut stream = Vec::new();
        for (i, &count) in counts.iter().enumerate() {
            let mut k = hash(&[(i as u8).wrapping_mul(37); HASH_BYTES], len);
            k[..2].fill(0);
            let r = hash_count(&k, count);
            let mut entry = [0u8; MAX_ENTRY_BYTES];
            let n = packing.pack(&r, &mut entry);
            stream.extend_from_slice(&entry[..n]);
            want.push(r);
        }
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (stream.len() + 1)).collect();
        cuts.push(0);
        cuts.push(stream.len());
        cuts.sort_unstable();
        let pieces = cuts.windows(2).map(|w| &stream[w[0]..w[1]]);
        let mut got = Vec::new();
        packing.unpack_pieces(0, pieces, &mut got, |_| {});
        prop_assert_eq!(got, want);
    }
}

#[test]
fn entry_lengths() {
    assert_eq!(Packing::new(20, 12).max_count(), Some(4031));
    assert_eq!(Packing::new(20, 8).max_count(), Some(191));
    assert_eq!(Packing::new(20, 16).max_count(), Some(65_471));
    assert_eq!(Packing::new(20, 7).max_count(), None);
    assert_eq!(Packing::new(16, 0).max_count(), None);
    assert_eq!(Packing::new(16, 12).max_count(), Some(u32::MAX));
    let packing = Packing::new(20, 12);
    for (count, len) in [
        (0, 20),
        (4031, 20),
        (4032, 21),
        (12_223, 21),
        (12_224, 22),
        (1_052_607, 22),
        (1_052_608, 23),
        (u32::MAX, 24),
    ] {
        let r = hash_count(&[0xFF; HASH_BYTES], count);
        assert_eq!(round_trip(&packing, &r), (r, len), "count {count}");
    }
    let r = hash_count(&hash(&[0xFF; HASH_BYTES], 16), u32::MAX);
    assert_eq!(round_trip(&Packing::new(16, 12), &r), (r, 20));
}
