//! The arena's short form of a record: the bits its bucket already says
//! are dropped, and the count moves into the room they leave.
//!
//! The sorting arena holds every record of a build until it is sorted, and
//! its size is the build's peak memory: at 24 bytes a record
//! ([`HashCount`](super::hash_count::HashCount)) ten million hashes take 229
//! MiB, and the kernel zeroes every one of those pages on first touch. A
//! record of bucket `b` (of `bits` bits, 8 to 16) starts with the bits of
//! `b`, so the arena need not store them: the hash's first byte goes, and the
//! bucket's bits past it leave room for a `bits`-bit count field.
//!
//! ```text
//!  record (24 bytes):   [h0][h1][h2 … h19               ][count, u32 LE]
//!  SHA-1, 20 bytes:         [c|h1'][h2 … h19             ][c low byte][ext …]
//!        c = the count field's bits above the low 8 (bits − 8 of them),
//!        h1' = h1 without its top bits − 8 bits (the bucket's)
//!  NTLM, 20 bytes:          [h1 … h15    ][count, u32 LE][unused]
//! ```
//!
//! A SHA-1 count below `LIMIT = 2^bits − 64` (4032 with 4096 buckets) is
//! the field itself. A larger one escapes: the field holds `LIMIT` plus
//! the low 6 bits of `count − LIMIT`, and the bits above them follow as a
//! LEB128 number of 1 to 4 bytes (`ext`): a count up to 12,223 takes 21
//! bytes, up to 1,052,607 22 bytes, any `u32` at most 24. An entry's
//! length is known from its first 20 bytes, so a bucket is a plain stream
//! of entries, read front to back. An NTLM hash is 4 bytes shorter and
//! keeps a whole `u32`; with fewer than 8 or more than 16 bucket bits
//! (tiny arenas) an entry is the whole 24-byte record.
//!
//! Entries never leave the build's memory and spill files: a bucket is
//! turned back into whole records ([`Packing::unpack`]) as it is gathered
//! for sorting, so sorting, merging and encoding see the same records as
//! without packing, and the index is byte for byte the same.

use crate::build::hash_count::{HashCount, HASH_BYTES, HASH_COUNT_BYTES};

/// Bytes of an entry without an escaped count.
pub const COMPACT_BYTES: usize = 20;

/// The most bytes an entry takes.
pub const MAX_ENTRY_BYTES: usize = HASH_COUNT_BYTES;

/// The fewest and most bucket bits with a short form.
const MIN_BITS: u32 = 8;
const MAX_BITS: u32 = 16;

/// Low bits of an escaped count kept in the count field.
const ESCAPE_BITS: u32 = 6;

/// How the records of one build are packed: which leading bits the bucket
/// gives, and how wide the count field is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Leading hash bits given by the bucket.
    bits: u32,
    /// Whether hashes are 16 bytes (NTLM) rather than 20.
    short: bool,
    /// Whether there is a short form at all (else entries are records).
    compact: bool,
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
        Packing {
            bits,
            short: hash_bytes == 16,
            compact: (MIN_BITS..=MAX_BITS).contains(&bits),
        }
    }

    /// The largest count whose entry takes [`COMPACT_BYTES`], if there is
    /// a short form at all.
    #[cfg(test)]
    pub fn max_count(&self) -> Option<u32> {
        self.compact.then(|| {
            if self.short {
                u32::MAX
            } else {
                self.limit() - 1
            }
        })
    }

    /// The first SHA-1 count that escapes.
    #[inline]
    fn limit(&self) -> u32 {
        (1 << self.bits) - (1 << ESCAPE_BITS)
    }

    /// Bits of the second hash byte that the bucket gives: the low
    /// `16 - bits` bits are stored.
    #[inline]
    fn kept(&self) -> u32 {
        16 - self.bits
    }

    /// Writes the entry of `r` to the front of `out` (what follows it in
    /// `out` is scratch); returns its length in bytes.
    #[inline]
    pub fn pack(&self, r: &HashCount, out: &mut [u8; MAX_ENTRY_BYTES]) -> usize {
        if !self.compact {
            *out = *r;
            return HASH_COUNT_BYTES;
        }
        let count = u32::from_le_bytes(r[HASH_BYTES..].try_into().expect("4 bytes"));
        if !self.short && count < self.limit() {
            // The common case as byte moves: bytes 1..21 of the record
            // (h1 … h19 and the count's low byte) are the entry, but for
            // the count's high bits in h1's top bits.
            out[..20].copy_from_slice(&r[1..21]);
            let kept = self.kept();
            out[0] = (u32::from(r[1]) & ((1 << kept) - 1) | ((count >> 8) << kept)) as u8;
            return COMPACT_BYTES;
        }
        // The record as two little-endian integers: byte i of the record is
        // bits 8i.. of `front` (i < 16) or 8(i − 16).. of `back`.
        let front = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
        let back = u64::from_le_bytes(r[16..].try_into().expect("8 bytes"));
        let count = (back >> 32) as u32;
        let (body, tail, mut escaped) = if self.short {
            let body = (front >> 8) | (u128::from(count as u8) << 120);
            (body, count >> 8, None)
        } else {
            let (field, escaped) = match count.checked_sub(self.limit()) {
                None => (count, None),
                Some(over) => (
                    self.limit() | (over & ((1 << ESCAPE_BITS) - 1)),
                    Some(over >> ESCAPE_BITS),
                ),
            };
            // Bytes 1.. of the record: h1…h15, then h16…h19 and the field.
            let body = (front >> 8) | (u128::from(back as u8) << 120);
            let kept = self.kept();
            let h1 = (front >> 8) as u32 & ((1 << kept) - 1);
            let body = (body & !0xFF) | u128::from(h1 | ((field >> 8) << kept));
            let tail = ((back >> 8) as u32 & 0x00FF_FFFF) | (field << 24);
            (body, tail, escaped)
        };
        out[..16].copy_from_slice(&body.to_le_bytes());
        out[16..20].copy_from_slice(&tail.to_le_bytes());
        let mut len = COMPACT_BYTES;
        while let Some(rest) = escaped {
            let more = rest >> 7;
            out[len] = (rest & 0x7F) as u8 | if more > 0 { 0x80 } else { 0 };
            len += 1;
            escaped = (more > 0).then_some(more);
        }
        len
    }

    /// The whole record of the entry at the front of `bytes`, of bucket
    /// `bucket`, and the entry's length.
    ///
    /// # Panics
    ///
    /// If `bytes` ends inside the entry.
    #[inline(always)]
    pub fn unpack(&self, bucket: usize, bytes: &[u8]) -> (HashCount, usize) {
        if !self.compact {
            let r: HashCount = bytes[..HASH_COUNT_BYTES].try_into().expect("24 bytes");
            return (r, HASH_COUNT_BYTES);
        }
        let kept = self.kept();
        let c0 = u32::from(bytes[0]);
        if !self.short && (u32::from(bytes[19]) | ((c0 >> kept) << 8)) < self.limit() {
            // The common case; see `pack`. As two little-endian integers,
            // the record is the entry moved up a byte, the bucket's bits
            // in the first two bytes and the count's high bits in byte 21
            // (integer moves, far fewer instructions than byte by byte).
            let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
            let tail = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
            let bucket = bucket as u32;
            let mask = (1u32 << kept) - 1;
            let h0 = bucket >> (self.bits - 8);
            let h1 = ((bucket << kept) & 0xFF & !mask) | (c0 & mask);
            let first = (lo << 8) & !0xFFFF | u64::from(h0 | (h1 << 8));
            let second = (hi << 8) | (lo >> 56);
            let third = (hi >> 56) | (u64::from(tail) << 8) | (u64::from(c0 >> kept) << 40);
            let mut r = [0u8; HASH_COUNT_BYTES];
            r[..8].copy_from_slice(&first.to_le_bytes());
            r[8..16].copy_from_slice(&second.to_le_bytes());
            r[16..].copy_from_slice(&third.to_le_bytes());
            return (r, COMPACT_BYTES);
        }
        let body = u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes"));
        let tail = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
        let bucket = bucket as u32;
        let h0 = u128::from((bucket >> (self.bits - 8)) as u8);
        let mut len = COMPACT_BYTES;
        let (front, back) = if self.short {
            let count = (body >> 120) as u32 | (tail << 8);
            ((body << 8) | h0, u64::from(count) << 32)
        } else {
            let kept = self.kept();
            let mask = (1u32 << kept) - 1;
            let c0 = body as u32 & 0xFF;
            let h1 = ((bucket << kept) & 0xFF & !mask) | (c0 & mask);
            let front = (((body & !0xFF) | u128::from(h1)) << 8) | h0;
            let field = (tail >> 24) | ((c0 >> kept) << 8);
            let count = match field.checked_sub(self.limit()) {
                None => field,
                Some(low) => {
                    let mut high = 0u32;
                    let mut shift = 0;
                    loop {
                        let byte = bytes[len];
                        len += 1;
                        high |= u32::from(byte & 0x7F) << shift;
                        shift += 7;
                        if byte < 0x80 {
                            break;
                        }
                    }
                    self.limit() + low + (high << ESCAPE_BITS)
                }
            };
            let back = (body >> 120) as u64
                | (u64::from(tail & 0x00FF_FFFF) << 8)
                | (u64::from(count) << 32);
            (front, back)
        };
        let mut r = [0u8; HASH_COUNT_BYTES];
        r[..16].copy_from_slice(&front.to_le_bytes());
        r[16..].copy_from_slice(&back.to_le_bytes());
        (r, len)
    }

    /// The length of the entry at the front of `bytes`, or `None` if
    /// `bytes` ends inside it.
    fn entry_len(&self, bytes: &[u8]) -> Option<usize> {
        if !self.compact || self.short {
            let len = if self.compact {
                COMPACT_BYTES
            } else {
                HASH_COUNT_BYTES
            };
            return (bytes.len() >= len).then_some(len);
        }
        let head = bytes.get(..COMPACT_BYTES)?;
        let field = u32::from(head[19]) | ((u32::from(head[0]) >> self.kept()) << 8);
        if field < self.limit() {
            return Some(COMPACT_BYTES);
        }
        let ext = bytes[COMPACT_BYTES..].iter().position(|&b| b < 0x80)?;
        Some(COMPACT_BYTES + ext + 1)
    }

    /// Appends the whole records of a stream of entries of bucket
    /// `bucket` to `out`, showing each to `each` as it goes (while it is
    /// still in a register: the bucket sort counts its digits there). The
    /// stream comes in pieces (a bucket's blocks), and an entry may run
    /// from one piece into the next: its bytes are put together in a small
    /// buffer, the rest is read in place.
    ///
    /// # Panics
    ///
    /// If the stream ends inside an entry.
    #[inline]
    pub fn unpack_pieces<'a>(
        &self,
        bucket: usize,
        pieces: impl IntoIterator<Item = &'a [u8]>,
        out: &mut Vec<HashCount>,
        mut each: impl FnMut(&HashCount),
    ) {
        let mut push = |r: HashCount| {
            each(&r);
            out.push(r);
        };
        let mut carry = [0u8; 2 * MAX_ENTRY_BYTES];
        let mut carried = 0;
        for piece in pieces {
            let mut rest = piece;
            if carried > 0 {
                // The entry begun in an earlier piece: in a bucket's blocks
                // it ends in the next one, in general in a later one.
                let take = rest.len().min(MAX_ENTRY_BYTES);
                carry[carried..carried + take].copy_from_slice(&rest[..take]);
                let Some(len) = self.entry_len(&carry[..carried + take]) else {
                    carried += take;
                    continue;
                };
                push(self.unpack(bucket, &carry[..len]).0);
                rest = &rest[len - carried..];
            }
            // An entry starting this far from the end ends inside.
            while rest.len() >= MAX_ENTRY_BYTES {
                let (r, len) = self.unpack(bucket, rest);
                push(r);
                rest = &rest[len..];
            }
            while let Some(len) = self.entry_len(rest) {
                push(self.unpack(bucket, &rest[..len]).0);
                rest = &rest[len..];
            }
            carry[..rest.len()].copy_from_slice(rest);
            carried = rest.len();
        }
        assert_eq!(carried, 0, "a stream of entries ends inside one");
    }
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
