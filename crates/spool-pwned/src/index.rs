//! Reading an index: memory-mapped, read-only, a lookup in microseconds,
//! and never a wrong answer from a damaged file.
//!
//! # What a lookup checks
//!
//! A lookup searches without trusting the bytes, then checks the blocks
//! (`blocks.rs`) holding the bytes its answer rests on, and no others:
//!
//! - the two fanout entries `F[p]`, `F[p+1]`: they bound prefix `p`'s
//!   records;
//! - the records at `at − 1` and `at`, where `at` is where the search
//!   ended. The search guarantees that record `at − 1` compared below the
//!   hash (or `at` is the prefix's first) and record `at` not below it (or
//!   `at` is past the prefix's last). Once both are known intact, the
//!   file's order makes the answer exact: the hash is at `at` or nowhere.
//!
//! A flipped bit elsewhere can steer the search, but never to an answer
//! that passes these checks: it ends at a wrong place, whose neighbours
//! then do not bracket the hash, or it touches a damaged block, which is
//! reported as [`Damaged`].
//!
//! # Replacing an index
//!
//! The file is mapped: if it is truncated or rewritten in place while a
//! process has it mapped, that process reads the new bytes or dies of
//! SIGBUS (a read past the new end). Never write an index in place: build
//! it under another name in the same file system and rename it over the
//! old one (what `spool pwned build` does); a process that has the old one
//! open keeps reading the old file until it opens the path again (what
//! `spool pwned serve` does on reload).

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use crate::blocks::{BlockCheck, Damaged};
use crate::format::{self, Header, HeaderError, FANOUT_ENTRIES, HEADER_LEN, PREFIX_BYTES};
use crate::{HashKind, Records};

/// Offset of the first record.
const RECORDS_OFFSET: usize = format::RECORDS_OFFSET;

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
    /// A block of the file fails its checksum.
    #[error("{path}: {source}")]
    Damaged {
        /// The index path.
        path: String,
        /// Which block.
        source: Damaged,
    },
}

/// An open index.
///
/// # Examples
///
/// ```no_run
/// let index = spool_pwned::Index::open("pwned.idx").unwrap();
/// let hash = spool_pwned::HashKind::Sha1.hash_password("password");
/// println!("{:?}", index.lookup(&hash)); // Ok(Some(count)), Ok(None) or Err(damage)
/// ```
pub struct Index {
    map: Mmap,
    header: Header,
    path: String,
    blocks: BlockCheck,
}

impl Index {
    /// Opens and maps `path` read-only and checks its header and its size —
    /// reading one page, so a CLI call stays fast on a cold cache. The rest
    /// is checked block by block as lookups read it (see the module docs),
    /// and all at once by [`verify`](Self::verify).
    ///
    /// # Errors
    ///
    /// An [`IndexError`] naming the file and the problem; a path that is
    /// not a regular file (a FIFO, a directory, a device) is refused before
    /// it is opened, since opening a FIFO would wait for a writer.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IndexError> {
        let path_ref = path.as_ref();
        let name = path_ref.display().to_string();
        let io = |source| IndexError::Io {
            path: name.clone(),
            source,
        };
        let not_regular = || IndexError::Invalid {
            path: name.clone(),
            reason: "not a regular file (an index is a file built by `spool pwned build`)".into(),
        };
        if !std::fs::metadata(path_ref).map_err(io)?.is_file() {
            return Err(not_regular());
        }
        let file = File::open(path_ref).map_err(io)?;
        // The path could have been replaced between the two calls.
        if !file.metadata().map_err(io)?.is_file() {
            return Err(not_regular());
        }
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
        let checked = format::checked_len(header.kind, header.records);
        let expected = checked.and_then(|c| {
            c.checked_add(format::block_count(c, header.block_shift).checked_mul(4)?)
        });
        if expected != Some(map.len() as u64) {
            return Err(invalid(format!(
                "file is {} bytes but its header describes {} records ({} bytes): truncated or corrupt",
                map.len(),
                header.records,
                expected.map_or("too many".into(), |e| e.to_string())
            )));
        }
        let blocks = BlockCheck::new(checked.expect("checked above") as usize, header.block_shift);
        Ok(Index {
            map,
            header,
            path: name,
            blocks,
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

    /// Records `lo..hi` of prefix `p`, its fanout entries checked: the
    /// range is then exactly the prefix's records.
    fn prefix_records(&self, p: usize) -> Result<(usize, usize), Damaged> {
        let at = HEADER_LEN + 8 * p;
        self.blocks.check(&self.map, at..at + 16)?;
        let (lo, hi) = (self.fanout(p), self.fanout(p + 1));
        if lo > hi || hi > self.header.records {
            // Only a checksum that matches damaged bytes gets here.
            return Err(Damaged {
                block: (at >> self.header.block_shift) as u64,
                bytes: at as u64..at as u64 + 16,
            });
        }
        Ok((lo as usize, hi as usize))
    }

    /// Checks the blocks holding records `from..to`.
    fn check_records(&self, from: usize, to: usize) -> Result<(), Damaged> {
        let len = format::record_len(self.header.kind);
        let start = RECORDS_OFFSET + from * len;
        self.blocks
            .check(&self.map, start..RECORDS_OFFSET + to * len)
    }

    /// The prevalence count of `hash` (20 bytes for SHA-1, 16 for NTLM),
    /// or `None` if it is not in the index (or has the wrong length).
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block the answer rests on fails its checksum
    /// (see the module docs): a damaged index gives an error, never a
    /// wrong count.
    ///
    /// Touches two fanout entries (one page) and the records near the
    /// interpolated position of `hash` within its prefix: hashes are
    /// uniform, so that guess is off by about √n/2 records for a prefix of
    /// n records (20 at 100 million hashes, 60 at a billion) and the search
    /// widens from it step by step, usually staying within one page.
    pub fn lookup(&self, hash: &[u8]) -> Result<Option<u32>, Damaged> {
        if hash.len() != self.header.kind.byte_len() {
            return Ok(None);
        }
        let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
        let (lo, hi) = self.prefix_records(p)?;
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
        // The answer rests on records at - 1 and at (see the module docs).
        self.check_records(at.saturating_sub(1).max(lo), (at + 1).min(hi))?;
        Ok((at < hi && key_at(at) == want).then(|| count_at(at)))
    }

    /// The records whose hashes start with the 20 bits `prefix` — the five
    /// hex digits of a Pwned Passwords range query — in hash order, as a
    /// view into the map: nothing is copied.
    ///
    /// Reads two fanout entries, then finds the 16-bit prefix's records
    /// whose next four bits match: hashes are uniform, so records of digit
    /// `d` start near `d/16` of the way through, and the search widens from
    /// there (pages touched stay near the answer, as in
    /// [`lookup`](Self::lookup)).
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block holding a record handed out, or one of the
    /// records just outside them or the prefix's fanout entries, fails its
    /// checksum (as for `lookup`, the records around the answer prove that
    /// nothing is left out).
    ///
    /// # Panics
    ///
    /// If `prefix` does not fit in 20 bits.
    pub fn range(&self, prefix: u32) -> Result<Records<'_>, Damaged> {
        assert!(
            prefix < 1 << 20,
            "a range prefix has 20 bits, got {prefix:#x}"
        );
        let kind = self.header.kind;
        let p = (prefix >> 4) as usize;
        let (lo, hi) = self.prefix_records(p)?;
        let len = format::record_len(kind);
        let bucket = &self.map[RECORDS_OFFSET + lo * len..RECORDS_OFFSET + hi * len];
        let n = bucket.len() / len;
        let digit = (prefix & 0xF) as u8;
        // The bucket is sorted: records whose hash digit 5 is below `digit`
        // come first, then those of `digit` (about n/16 of them).
        let start = partition_near(0, n, n * usize::from(digit) / 16, |i| {
            bucket[i * len] >> 4 < digit
        });
        let end = partition_near(start, n, start + n / 16, |i| bucket[i * len] >> 4 <= digit);
        self.check_records(lo + start.saturating_sub(1), lo + (end + 1).min(n))?;
        Ok(Records::new(&bucket[start * len..end * len], kind))
    }

    /// Checks every block checksum and the checksum of the fanout table
    /// and the records (reads the whole file), and that the table is
    /// monotonic.
    ///
    /// # Errors
    ///
    /// [`IndexError::Damaged`] naming the first damaged block, or
    /// [`IndexError::Invalid`] naming what is wrong.
    pub fn verify(&self) -> Result<(), IndexError> {
        let invalid = |reason: &str| IndexError::Invalid {
            path: self.path.clone(),
            reason: reason.into(),
        };
        for block in 0..self.blocks.blocks() {
            self.blocks
                .check_block(&self.map, block)
                .map_err(|source| IndexError::Damaged {
                    path: self.path.clone(),
                    source,
                })?;
        }
        let checked = self.map.len() - 4 * self.blocks.blocks();
        let crc = crc32fast::hash(&self.map[HEADER_LEN..checked]);
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

    /// Forgets which blocks lookups have checked, so that the next
    /// lookups check them again: for a long-lived process that wants to
    /// notice a disk gone bad under pages the kernel read again, and for
    /// timing the checks.
    pub fn forget_checked_blocks(&self) {
        self.blocks.forget();
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
/// sorted) gives some `i` in `lo..=hi`, having probed only `lo..hi`, and
/// having seen `before(i - 1)` true (unless `i == lo`) and `before(i)`
/// false (unless `i == hi`): lookups rely on this to check only the two
/// records around the answer.
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
            let seen = std::cell::RefCell::new(std::collections::HashMap::new());
            let before = |i: usize| {
                let b = before(i);
                seen.borrow_mut().insert(i, b);
                b
            };
            let at = partition_near(lo, hi, guess, before);
            prop_assert!((lo..=hi).contains(&at));
            let seen = seen.into_inner();
            if at > lo {
                prop_assert_eq!(seen.get(&(at - 1)), Some(&true), "left neighbour not seen before");
            }
            if at < hi {
                prop_assert_eq!(seen.get(&at), Some(&false), "answer not seen not-before");
            }
        }
    }
}
