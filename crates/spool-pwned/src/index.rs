//! Reading an index: memory-mapped, read-only, a lookup in microseconds.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use crate::format::{
    self, Header, HeaderError, FANOUT_ENTRIES, HEADER_LEN, PREFIX_BYTES, RECORDS_OFFSET,
};
use crate::{HashKind, Records};

/// Why an index could not be opened or verified.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The file could not be opened or mapped.
    #[error("{path}: {source}")]
    Io {
        /// The index path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's header is not a valid index header.
    #[error("{path}: {source}")]
    Header {
        /// The index path.
        path: String,
        /// What is wrong with the header.
        source: HeaderError,
    },
    /// The file is not a valid index.
    #[error("{path}: {reason}")]
    Invalid {
        /// The index path.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// An open index.
///
/// # Examples
///
/// ```no_run
/// let index = spool_pwned::Index::open("pwned.idx").unwrap();
/// let hash = spool_pwned::HashKind::Sha1.hash_password("password");
/// println!("{:?}", index.lookup(&hash)); // Some(count) or None
/// ```
pub struct Index {
    map: Mmap,
    header: Header,
    path: String,
}

impl Index {
    /// Opens and maps `path` read-only and checks its header and its size —
    /// reading one page, so a CLI call stays fast on a cold cache. The
    /// fanout table and the checksums are checked by
    /// [`verify`](Self::verify); until then every lookup range-checks the
    /// table entries it uses, so a damaged table gives wrong answers at
    /// worst, never a read outside the file.
    ///
    /// # Errors
    ///
    /// An [`IndexError`] naming the file and the problem.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IndexError> {
        let path_ref = path.as_ref();
        let name = path_ref.display().to_string();
        let io = |source| IndexError::Io {
            path: name.clone(),
            source,
        };
        let file = File::open(path_ref).map_err(io)?;
        // SAFETY: the map is read-only and private to this process; an index
        // is only ever written under a temporary name and renamed, so a file
        // opened here is complete and is not modified in place.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        // Lookups jump around: ask the kernel not to read ahead around each
        // page they touch (a cold lookup then reads a few pages, not a few
        // hundred kilobytes). Only a hint, so a failure is ignored.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let invalid = |reason: String| IndexError::Invalid {
            path: name.clone(),
            reason,
        };
        let header = Header::decode(&map).map_err(|source| IndexError::Header {
            path: name.clone(),
            source,
        })?;
        let record_len = format::record_len(header.kind) as u64;
        let expected =
            (RECORDS_OFFSET as u64).checked_add(header.records.saturating_mul(record_len));
        if expected != Some(map.len() as u64) {
            return Err(invalid(format!(
                "file is {} bytes but its header describes {} records ({} bytes): truncated or corrupt",
                map.len(),
                header.records,
                expected.map_or("too many".into(), |e| e.to_string())
            )));
        }
        Ok(Index {
            map,
            header,
            path: name,
        })
    }

    /// The header fields.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path as given to [`open`](Self::open).
    pub fn path(&self) -> &str {
        &self.path
    }

    fn fanout(&self, p: usize) -> u64 {
        let at = HEADER_LEN + 8 * p;
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The prevalence count of `hash` (20 bytes for SHA-1, 16 for NTLM),
    /// or `None` if it is not in the index (or has the wrong length).
    ///
    /// Touches two fanout entries (one page) and the records near the
    /// interpolated position of `hash` within its prefix: hashes are
    /// uniform, so that guess is off by about √n/2 records for a prefix of
    /// n records (20 at 100 million hashes, 60 at a billion) and the search
    /// widens from it step by step, usually staying within one page.
    pub fn lookup(&self, hash: &[u8]) -> Option<u32> {
        if hash.len() != self.header.kind.byte_len() {
            return None;
        }
        let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
        let (lo, hi) = (self.fanout(p), self.fanout(p + 1));
        if lo > hi || hi > self.header.records {
            return None; // a corrupt table: `verify` reports it
        }
        let (lo, hi) = (lo as usize, hi as usize);
        let len = format::record_len(self.header.kind);
        let key_len = len - 4;
        let records = &self.map[RECORDS_OFFSET..];
        let want = &hash[PREFIX_BYTES..];
        let key_at = |i: usize| &records[i * len..i * len + key_len];
        let count_at = |i: usize| {
            u32::from_le_bytes(
                records[i * len + key_len..(i + 1) * len]
                    .try_into()
                    .expect("4 bytes"),
            )
        };
        // Guess the rank from the hash's share of the prefix's range, then
        // search outward from the guess: the pages touched stay near it.
        let v = u64::from_be_bytes(want[..8].try_into().expect("8 bytes"));
        let guess = lo + ((u128::from(v) * (hi - lo) as u128) >> 64) as usize;
        let at = partition_near(lo, hi, guess, |i| key_at(i) < want);
        (at < hi && key_at(at) == want).then(|| count_at(at))
    }

    /// The records whose hashes start with the 20 bits `prefix` — the five
    /// hex digits of a Pwned Passwords range query — in hash order, as a
    /// view into the map: nothing is copied.
    ///
    /// Reads two fanout entries, then finds the 16-bit prefix's records
    /// whose next four bits match: hashes are uniform, so records of digit
    /// `d` start near `d/16` of the way through, and the search widens from
    /// there (pages touched stay near the answer, as in
    /// [`lookup`](Self::lookup)). Like `lookup`, it range-checks the table
    /// entries it uses: a damaged table gives wrong records at worst, never
    /// a read outside the file.
    ///
    /// # Panics
    ///
    /// If `prefix` does not fit in 20 bits.
    pub fn range(&self, prefix: u32) -> Records<'_> {
        assert!(
            prefix < 1 << 20,
            "a range prefix has 20 bits, got {prefix:#x}"
        );
        let kind = self.header.kind;
        let p = (prefix >> 4) as usize;
        let (lo, hi) = (self.fanout(p), self.fanout(p + 1));
        if lo > hi || hi > self.header.records {
            return Records::new(&[], kind); // a corrupt table: `verify` reports it
        }
        let len = format::record_len(kind);
        let bucket =
            &self.map[RECORDS_OFFSET + lo as usize * len..RECORDS_OFFSET + hi as usize * len];
        let n = bucket.len() / len;
        let digit = (prefix & 0xF) as u8;
        // The bucket is sorted: records whose hash digit 5 is below `digit`
        // come first, then those of `digit` (about n/16 of them).
        let start = partition_near(0, n, n * usize::from(digit) / 16, |i| {
            bucket[i * len] >> 4 < digit
        });
        let end = partition_near(start, n, start + n / 16, |i| bucket[i * len] >> 4 <= digit);
        Records::new(&bucket[start * len..end * len], kind)
    }

    /// Checks the checksum of the fanout table and the records (reads the
    /// whole file) and that the table is monotonic.
    ///
    /// # Errors
    ///
    /// [`IndexError::Invalid`] naming what is wrong.
    pub fn verify(&self) -> Result<(), IndexError> {
        let invalid = |reason: &str| IndexError::Invalid {
            path: self.path.clone(),
            reason: reason.into(),
        };
        let crc = crc32fast::hash(&self.map[HEADER_LEN..]);
        if crc != self.header.data_crc {
            return Err(invalid("data checksum mismatch: the index is corrupt"));
        }
        let mut prev = 0;
        for p in 0..FANOUT_ENTRIES {
            let v = self.fanout(p);
            if v < prev || v > self.header.records {
                return Err(invalid(
                    "fanout table is not monotonic: the index is corrupt",
                ));
            }
            prev = v;
        }
        Ok(())
    }

    /// Hash kind of the index.
    pub fn kind(&self) -> HashKind {
        self.header.kind
    }
}

/// The first `i` in `lo..hi` for which `before(i)` is false, `before` being
/// true then false across the range; searched from `guess` outward with
/// doubling steps, then by bisection, so that the indexes probed stay near
/// the answer when the guess is good. Any `before` (a damaged index is not
/// sorted) gives some `i` in `lo..=hi`, having probed only `lo..hi`.
fn partition_near(lo: usize, hi: usize, guess: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (lo, hi);
    let guess = guess.clamp(lo, hi);
    let mut step = 1;
    if guess < hi && before(guess) {
        lo = guess + 1;
        while lo + step <= hi && before(lo + step - 1) {
            lo += step;
            step *= 2;
        }
        hi = hi.min(lo + step - 1);
    } else {
        hi = guess;
        while hi >= lo + step && !before(hi - step) {
            hi -= step;
            step *= 2;
        }
        if hi >= lo + step {
            lo = hi - step + 1;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::partition_near;
    use proptest::prelude::*;

    proptest! {
        /// Against the plain partition point, from any guess, probing only
        /// inside the range.
        #[test]
        fn partition_near_finds_the_partition_point(
            hi in 0usize..300, split in 0usize..300, lo in 0usize..300, guess in 0usize..600,
        ) {
            let (lo, split) = (lo.min(hi), split.min(hi));
            let before = |i: usize| {
                assert!((lo..hi).contains(&i), "probed {i} outside {lo}..{hi}");
                i < split
            };
            prop_assert_eq!(partition_near(lo, hi, guess, before), split.max(lo));
        }

        /// A damaged (unsorted) range: still an answer in bounds, no probe
        /// outside.
        #[test]
        fn partition_near_stays_in_bounds_on_any_predicate(
            bits in prop::collection::vec(any::<bool>(), 0..300), lo in 0usize..300, guess in 0usize..600,
        ) {
            let (hi, lo) = (bits.len(), lo.min(bits.len()));
            let before = |i: usize| {
                assert!((lo..hi).contains(&i), "probed {i} outside {lo}..{hi}");
                bits[i]
            };
            let at = partition_near(lo, hi, guess, before);
            prop_assert!((lo..=hi).contains(&at));
        }
    }
}
