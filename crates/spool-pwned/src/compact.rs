//! The arena's 20-byte form of a record: the bits its bucket already says
//! are dropped, and the count moves into the room they leave.
//!
//! The sorting arena holds every record of a build until it is sorted, and
//! its size is the build's peak memory: at 24 bytes a record
//! ([`record`](crate::record)) ten million hashes take 229 MiB, and the
//! kernel zeroes every one of those pages on first touch. A record of
//! bucket `b` (of `bits` bits, 8 to 16) starts with the bits of `b`, so
//! the arena need not store them: the hash's first byte goes, and the
//! bucket's bits past it leave room for the top of the count in the second.
//!
//! ```text
//!  record (24 bytes):   [h0][h1][h2 … h19               ][count, u32 LE]
//!  SHA-1, 20 bytes:         [c|h1'][h2 … h19             ][count low byte]
//!        c = the count's bits above the low 8 (bits − 8 of them),
//!        h1' = h1 without its top bits − 8 bits (the bucket's)
//!  NTLM, 20 bytes:          [h1 … h15    ][count, u32 LE][unused]
//! ```
//!
//! A SHA-1 record keeps `bits` bits for its count (12 with 4096 buckets:
//! counts up to 4095); an NTLM hash is 4 bytes shorter and keeps a whole
//! `u32`. A count too large for its field makes no compact form
//! ([`Packing::pack`] returns `None`), nor does any record when buckets
//! have fewer than 8 bits (tiny arenas): the record stays whole. The arena
//! keeps whole records apart (see `buckets.rs`), and with them any count
//! up to `u32::MAX` and any sum of counts come out exactly as before.
//!
//! Compact records never leave the build's memory and spill files: a
//! bucket is turned back into whole records ([`Packing::unpack`]) as it is
//! gathered for sorting, so sorting, merging and encoding see the same
//! records as without packing, and the index is byte for byte the same.

use crate::record::{Record, HASH_BYTES, RECORD_BYTES};

/// Bytes of a compact record.
pub const COMPACT_BYTES: usize = 20;

/// A record in its compact form; see the module docs.
pub type Compact = [u8; COMPACT_BYTES];

/// The fewest and most bucket bits with a compact form.
const MIN_BITS: u32 = 8;
const MAX_BITS: u32 = 16;

/// How the records of one build are packed: which leading bits the bucket
/// gives, and how wide the count field is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Leading hash bits given by the bucket.
    bits: u32,
    /// Whether hashes are 16 bytes (NTLM) rather than 20.
    short: bool,
    /// The largest count a compact record holds (`None`: no compact form).
    max_count: Option<u32>,
}

impl Packing {
    /// The packing for hashes of `hash_bytes` bytes (16 or 20) in buckets
    /// of `bits` leading bits.
    ///
    /// # Panics
    ///
    /// If `hash_bytes` is neither 16 nor 20.
    pub fn new(hash_bytes: usize, bits: u32) -> Self {
        assert!(
            hash_bytes == 16 || hash_bytes == HASH_BYTES,
            "hash bytes {hash_bytes}"
        );
        let short = hash_bytes == 16;
        let max_count = (MIN_BITS..=MAX_BITS).contains(&bits).then(|| {
            if short {
                u32::MAX
            } else {
                (1 << bits) - 1
            }
        });
        Packing {
            bits,
            short,
            max_count,
        }
    }

    /// The largest count a compact record holds, if there is a compact
    /// form at all.
    #[cfg(test)]
    pub fn max_count(&self) -> Option<u32> {
        self.max_count
    }

    /// Bits of the second hash byte that the bucket gives: the low
    /// `16 - bits` bits are stored.
    #[inline]
    fn kept(&self) -> u32 {
        16 - self.bits
    }

    /// Writes the compact form of `r` (an NTLM record's padding zero) to
    /// `out`; returns `false`, leaving `out` as it was, if its count does
    /// not fit.
    #[inline]
    pub fn pack_into(&self, r: &Record, out: &mut Compact) -> bool {
        // The record as two little-endian integers: byte i of the record is
        // bits 8i.. of `front` (i < 16) or 8(i − 16).. of `back`.
        let front = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
        let back = u64::from_le_bytes(r[16..].try_into().expect("8 bytes"));
        let count = (back >> 32) as u32;
        match self.max_count {
            Some(max) if count <= max => {}
            _ => return false,
        }
        // Bytes 1.. of the record: h1…h15, then h16…h19 and the count.
        let mut body = (front >> 8) | (u128::from(back as u8) << 120);
        let tail = if self.short {
            body = (front >> 8) | (u128::from(count as u8) << 120);
            count >> 8
        } else {
            let kept = self.kept();
            let h1 = (front >> 8) as u32 & ((1 << kept) - 1);
            body = (body & !0xFF) | u128::from(h1 | ((count >> 8) << kept));
            (back >> 8) as u32
        };
        out[..16].copy_from_slice(&body.to_le_bytes());
        out[16..].copy_from_slice(&tail.to_le_bytes());
        true
    }

    /// The compact form of `r`, or `None` if its count does not fit.
    #[inline]
    pub fn pack(&self, r: &Record) -> Option<Compact> {
        let mut c = [0u8; COMPACT_BYTES];
        self.pack_into(r, &mut c).then_some(c)
    }

    /// The whole record of `c`, a compact record of bucket `bucket`.
    #[inline]
    pub fn unpack(&self, bucket: usize, c: &Compact) -> Record {
        let body = u128::from_le_bytes(c[..16].try_into().expect("16 bytes"));
        let tail = u32::from_le_bytes(c[16..].try_into().expect("4 bytes"));
        let bucket = bucket as u32;
        let h0 = u128::from((bucket >> (self.bits - 8)) as u8);
        let (front, back) = if self.short {
            let count = (body >> 120) as u32 | (tail << 8);
            ((body << 8) | h0, u64::from(count) << 32)
        } else {
            let kept = self.kept();
            let mask = (1u32 << kept) - 1;
            let c0 = body as u32 & 0xFF;
            let h1 = ((bucket << kept) & 0xFF & !mask) | (c0 & mask);
            let front = (((body & !0xFF) | u128::from(h1)) << 8) | h0;
            let back =
                (body >> 120) as u64 | (u64::from(tail) << 8) | (u64::from(c0 >> kept) << 40);
            (front, back)
        };
        let mut r = [0u8; RECORD_BYTES];
        r[..16].copy_from_slice(&front.to_le_bytes());
        r[16..].copy_from_slice(&back.to_le_bytes());
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{digit, record};
    use proptest::prelude::*;

    fn hash(bytes: &[u8], len: usize) -> [u8; HASH_BYTES] {
        let mut k = [0u8; HASH_BYTES];
        k[..len].copy_from_slice(&bytes[..len]);
        k
    }

    proptest! {
        /// Packing then unpacking gives the record back whenever the count
        /// fits, for every bucket width and both hash lengths; a count that
        /// does not fit makes no compact form.
        #[test]
        fn unpack_inverts_pack(
            bytes in proptest::array::uniform20(any::<u8>()),
            count in prop_oneof![0u32..70_000, any::<u32>()],
            bits in 0u32..=16,
            ntlm in any::<bool>(),
        ) {
            let len = if ntlm { 16 } else { 20 };
            let r = record(&hash(&bytes, len), count);
            let packing = Packing::new(len, bits);
            match packing.pack(&r) {
                Some(c) => {
                    prop_assert!(count <= packing.max_count().unwrap());
                    prop_assert_eq!(packing.unpack(digit(&r, 0, bits), &c), r);
                }
                None => prop_assert!(packing.max_count().is_none_or(|max| count > max)),
            }
        }
    }

    #[test]
    fn count_fields() {
        assert_eq!(Packing::new(20, 12).max_count(), Some(4095));
        assert_eq!(Packing::new(20, 8).max_count(), Some(255));
        assert_eq!(Packing::new(20, 16).max_count(), Some(65_535));
        assert_eq!(Packing::new(20, 7).max_count(), None);
        assert_eq!(Packing::new(16, 0).max_count(), None);
        assert_eq!(Packing::new(16, 12).max_count(), Some(u32::MAX));
        let r = record(&[0xFF; HASH_BYTES], 4096);
        assert_eq!(Packing::new(20, 12).pack(&r), None);
        let r = record(&[0xFF; HASH_BYTES], 4095);
        let packing = Packing::new(20, 12);
        assert_eq!(packing.unpack(4095, &packing.pack(&r).unwrap()), r);
        let r = record(&hash(&[0xFF; HASH_BYTES], 16), u32::MAX);
        let packing = Packing::new(16, 12);
        let c = packing.pack(&r).expect("an NTLM count always fits");
        assert_eq!(packing.unpack(4095, &c), r);
    }
}
