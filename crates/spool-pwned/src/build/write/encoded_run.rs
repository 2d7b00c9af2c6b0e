//! A sorted bucket encoded as index records on the sorting thread that
//! sorted it, duplicates merged and checksummed there, so that the thread
//! writing the index only copies bytes and joins checksums.

use crate::build::hash_count::{self, sort_key, HashCount, SortKey, HASH_BYTES, HASH_COUNT_BYTES};
use crate::format::{HashKind, PREFIX_BYTES};

/// Index records encoded from one sorted stretch of records, duplicates
/// merged — made on a worker thread, so that the writer only copies bytes
/// and joins checksums.
pub(crate) struct EncodedRun {
    /// The encoded records are `bytes[..len]`; the rest is room kept for
    /// the next run that reuses the buffer.
    pub(super) bytes: Vec<u8>,
    pub(super) len: usize,
    pub(super) crc: crc32fast::Hasher,
    /// Records per 16-bit prefix, ascending.
    pub(super) prefixes: Vec<(u16, u64)>,
    /// First and last hash.
    pub(super) first: Option<SortKey>,
    pub(super) last: Option<SortKey>,
    pub(super) records: u64,
    pub(super) total: u64,
    /// Records merged into an equal hash before them.
    pub duplicates: u64,
}

/// Bytes of a record's index form for the longest hash (SHA-1): the hash
/// after its prefix bytes, and the count.
const ENCODED_MOST: usize = HASH_COUNT_BYTES - PREFIX_BYTES;

impl EncodedRun {
    /// Encodes `sorted` (in hash order; equal hashes adjacent) for an index
    /// of `kind`, into `bytes` (emptied first: a vector handed back by
    /// [`into_bytes`](Self::into_bytes), so that runs reuse their buffers).
    pub fn new(sorted: &[HashCount], kind: HashKind, mut bytes: Vec<u8>) -> Self {
        // Sized up front (zero-filled only where it grows), so that each
        // record is a copy of a fixed size, not a call to `memcpy`.
        let most = sorted.len() * ENCODED_MOST;
        if bytes.len() < most {
            bytes.resize(most, 0);
        }
        let mut run = EncodedRun {
            bytes,
            len: 0,
            crc: crc32fast::Hasher::new(),
            prefixes: Vec::new(),
            first: sorted.first().map(|r| sort_key(r)),
            last: sorted.last().map(|r| sort_key(r)),
            records: 0,
            total: 0,
            duplicates: 0,
        };
        let suffix = kind.byte_len() - PREFIX_BYTES;
        let encoded = encode_merged(sorted, suffix, &mut run.bytes, &mut run.prefixes);
        (run.len, run.total, run.duplicates) = encoded;
        run.records = run.prefixes.iter().map(|p| p.1).sum();
        run.crc.update(&run.bytes[..run.len]);
        run
    }

    /// The buffer of the encoded bytes, for the next run.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Encodes `sorted` (equal hashes adjacent) into `bytes` (room for
/// [`ENCODED_MOST`] bytes per record) as index records of `suffix` hash
/// bytes and a count, the counts of equal hashes added up as
/// [`MergeCounts`](hash_count::MergeCounts) does; appends the records per
/// prefix to `prefixes`. Returns the bytes written, the sum of the counts
/// and the records merged into an equal hash before them.
fn encode_merged(
    sorted: &[HashCount],
    suffix: usize,
    bytes: &mut [u8],
    prefixes: &mut Vec<(u16, u64)>,
) -> (usize, u64, u64) {
    // The suffix a constant in each copy of the loop: fewer values live
    // in it, none of them spilled to the stack.
    match suffix {
        18 => encode_merged_of::<18>(sorted, bytes, prefixes),
        14 => encode_merged_of::<14>(sorted, bytes, prefixes),
        _ => unreachable!("a hash suffix of {suffix} bytes"),
    }
}

/// [`encode_merged`] for hashes of `SUFFIX` bytes after the prefix: the
/// hot loop of the final phase.
fn encode_merged_of<const SUFFIX: usize>(
    sorted: &[HashCount],
    bytes: &mut [u8],
    prefixes: &mut Vec<(u16, u64)>,
) -> (usize, u64, u64) {
    let lead = |r: &HashCount| u64::from_ne_bytes(r[..8].try_into().expect("8 bytes"));
    let prefix_of = |r: &HashCount| u16::from_be_bytes([r[0], r[1]]);
    let Some(first) = sorted.first() else {
        return (0, 0, 0);
    };
    // Records written so far, and where the current prefix's began.
    let (mut written, mut prefix_start, mut prefix) = (0u64, 0u64, prefix_of(first));
    let mut total = 0u64;
    let mut i = 0;
    while let Some(r) = sorted.get(i) {
        let mut n = hash_count::count(r);
        i += 1;
        while let Some(next) = sorted.get(i) {
            if lead(next) != lead(r) || next[..HASH_BYTES] != r[..HASH_BYTES] {
                break;
            }
            n = n.saturating_add(hash_count::count(next));
            i += 1;
        }
        if prefix_of(r) != prefix {
            prefixes.push((prefix, written - prefix_start));
            (prefix, prefix_start) = (prefix_of(r), written);
        }
        // The hash after its prefix, then the count: one copy of a fixed
        // size (a shorter hash's record runs over; the next one overwrites
        // it), then the merged count in its place.
        let at = written as usize * (SUFFIX + 4);
        let out: &mut [u8; ENCODED_MOST] = (&mut bytes[at..at + ENCODED_MOST])
            .try_into()
            .expect("room for the longest form");
        *out = r[PREFIX_BYTES..].try_into().expect("22 bytes");
        out[SUFFIX..SUFFIX + 4].copy_from_slice(&n.to_le_bytes());
        written += 1;
        total += u64::from(n);
    }
    prefixes.push((prefix, written - prefix_start));
    let duplicates = sorted.len() as u64 - written;
    (written as usize * (SUFFIX + 4), total, duplicates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::hash_count::{hash_count, MergeCounts};
    use proptest::prelude::*;

    proptest! {
        /// Against `MergeCounts` and the record format written out field
        /// by field: equal hashes merged, prefixes counted, both hash
        /// lengths.
        #[test]
        fn encodes_like_merged_records_written_one_by_one(
            mut raw in proptest::collection::vec((0u16..6, 0u8..3, any::<u32>()), 0..200),
            ntlm: bool,
        ) {
            let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
            let len = kind.byte_len();
            raw.sort();
            let sorted: Vec<HashCount> = raw
                .iter()
                .map(|&(prefix, rest, count)| {
                    let mut k = [0u8; 20];
                    k[..2].copy_from_slice(&prefix.to_be_bytes());
                    k[2] = rest;
                    k[len - 1] = rest ^ 0x5A;
                    hash_count(&k, count)
                })
                .collect();
            let mut merge = MergeCounts::default();
            let mut merged: Vec<HashCount> = sorted.iter().filter_map(|r| merge.push(r)).collect();
            merged.extend(merge.finish());
            let mut want = Vec::new();
            let mut want_prefixes: Vec<(u16, u64)> = Vec::new();
            for r in &merged {
                want.extend_from_slice(&r[PREFIX_BYTES..len]);
                want.extend_from_slice(&hash_count::count(r).to_le_bytes());
                let p = u16::from_be_bytes([r[0], r[1]]);
                match want_prefixes.last_mut() {
                    Some((q, n)) if *q == p => *n += 1,
                    _ => want_prefixes.push((p, 1)),
                }
            }
            let run = EncodedRun::new(&sorted, kind, vec![1, 2, 3]);
            prop_assert_eq!(&run.bytes[..run.len], &want[..]);
            prop_assert_eq!(&run.prefixes, &want_prefixes);
            prop_assert_eq!(run.records, merged.len() as u64);
            prop_assert_eq!(run.duplicates, merge.duplicates);
            let total: u64 = merged.iter().map(|r| u64::from(hash_count::count(r))).sum();
            prop_assert_eq!(run.total, total);
            prop_assert_eq!(run.crc.clone().finalize(), crc32fast::hash(&want));
        }
    }
}
