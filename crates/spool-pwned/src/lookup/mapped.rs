//! An index file mapped read-only, its header decoded and its length
//! checked against the header: what every layout's reader starts from.
//!
//! Opening reads one page (the header), so that a command that makes one
//! lookup stays fast on a cold cache; everything after the header is
//! checked block by block as lookups read it ([`BlockCheck`]), and all at
//! once by [`Mapped::verify_blocks`].
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
use std::ops::Range;
use std::path::Path;

use memmap2::Mmap;

use crate::format::{
    BlockCheck, Damaged, Header, IndexError, FANOUT_ENTRIES, HEADER_LEN, RECORDS_OFFSET,
};

use super::search::partition_near;

/// A mapped index file whose header is valid and whose length matches it.
pub(crate) struct Mapped {
    pub map: Mmap,
    pub header: Header,
    pub path: String,
    pub blocks: BlockCheck,
}

impl Mapped {
    /// Maps `path` and checks its header and length.
    ///
    /// # Errors
    ///
    /// An [`IndexError`] naming the file; a path that is not a regular
    /// file (a FIFO, a directory, a device) is refused before it is opened,
    /// since opening a FIFO would wait for a writer.
    pub fn open(path: &Path) -> Result<Self, IndexError> {
        let name = path.display().to_string();
        let io = |source| IndexError::Io {
            path: name.clone(),
            source,
        };
        let not_regular = || IndexError::Invalid {
            path: name.clone(),
            reason: "not a regular file (an index is a file built by `spool pwned build`)".into(),
        };
        if !std::fs::metadata(path).map_err(io)?.is_file() {
            return Err(not_regular());
        }
        let file = File::open(path).map_err(io)?;
        // The path could have been replaced between the two calls.
        if !file.metadata().map_err(io)?.is_file() {
            return Err(not_regular());
        }
        // SAFETY: the map is read-only and private to this process; an index
        // is only ever written under a temporary name and renamed, so a file
        // opened here is complete and is not modified in place (see the
        // module docs for what happens to a process that maps a file someone
        // then truncates: SIGBUS, not a wrong answer). Every read of the map
        // is a bounds-checked slice of `&[u8]`.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        // Lookups jump around: ask the kernel not to read ahead around each
        // page they touch (a cold lookup then reads a few pages, not a few
        // hundred kilobytes). Only a hint, so a failure is ignored.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let header = Header::decode(&map).map_err(|source| IndexError::Header {
            path: name.clone(),
            source,
        })?;
        let expected = header.file_len();
        if expected != Some(map.len() as u64) {
            return Err(IndexError::Invalid {
                path: name,
                reason: format!(
                    "file is {} bytes but its header describes {} records ({} bytes): truncated or corrupt",
                    map.len(),
                    header.records,
                    expected.map_or("too many".into(), |e| e.to_string())
                ),
            });
        }
        let checked = header.checked_len().expect("file_len checked it") as usize;
        let blocks = BlockCheck::new(checked, header.block_shift);
        Ok(Mapped {
            map,
            header,
            path: name,
            blocks,
        })
    }

    /// Checks the blocks holding `bytes` (file offsets).
    ///
    /// # Errors
    ///
    /// The first damaged block.
    #[inline]
    pub fn check(&self, bytes: Range<usize>) -> Result<(), Damaged> {
        self.blocks.check(&self.map, bytes)
    }

    /// Asks the CPU to bring the cache line holding file offset `at` into
    /// its caches (see [`prefetch`]).
    #[inline]
    pub fn prefetch(&self, at: usize) {
        prefetch(&self.map, at);
    }

    /// The u64 LE at file offset `at` (in bounds: the caller checked).
    #[inline]
    pub fn u64_at(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
    }

    /// Fanout entry `p` of a sorted layout.
    pub fn fanout(&self, p: usize) -> u64 {
        self.u64_at(HEADER_LEN + 8 * p)
    }

    /// Records `lo..hi` of 16-bit prefix `p` in a sorted layout, its two
    /// fanout entries checked: the range is then exactly the prefix's
    /// records.
    ///
    /// # Errors
    ///
    /// [`Damaged`] if the entries' block fails its checksum, or if they
    /// are out of order or past the record count (which only a checksum
    /// that matches damaged bytes lets through).
    pub fn prefix_records(&self, p: usize) -> Result<(usize, usize), Damaged> {
        let at = HEADER_LEN + 8 * p;
        self.check(at..at + 16)?;
        let (lo, hi) = (self.fanout(p), self.fanout(p + 1));
        if lo > hi || hi > self.header.records {
            return Err(self.damaged(at..at + 16));
        }
        Ok((lo as usize, hi as usize))
    }

    /// Finds `want` among the records of 16-bit prefix `p` of a sorted
    /// layout (records of `record_len` bytes, in order of their first
    /// `want.len()` bytes): the position of the record holding it, or
    /// `None`.
    ///
    /// Hashes are uniform, so the rank is guessed from `want`'s share of
    /// the prefix's range (off by about √n/2 records for a prefix of n)
    /// and the search widens from the guess, keeping the pages touched
    /// near it. The answer rests on records `at - 1` and `at`, where `at`
    /// is the first record not below `want`: their blocks are checked, so
    /// damage there is an error, never a wrong answer.
    ///
    /// `KEY` is a constant so that each caller's key compare compiles to a
    /// fixed-width compare rather than a `memcmp` call, whose call costs
    /// more than the compare of a t64 key.
    ///
    /// # Errors
    ///
    /// [`Damaged`] if the prefix's fanout entries or those records fail
    /// their checksums.
    #[inline]
    pub fn seek<const KEY: usize>(
        &self,
        p: usize,
        record_len: usize,
        want: &[u8; KEY],
    ) -> Result<Option<usize>, Damaged> {
        let (lo, hi) = self.prefix_records(p)?;
        let records = &self.map[RECORDS_OFFSET..];
        let key_at = |i: usize| -> &[u8; KEY] {
            records[i * record_len..i * record_len + KEY]
                .try_into()
                .expect("KEY bytes")
        };
        let mut lead = [0u8; 8];
        let n = KEY.min(8);
        lead[..n].copy_from_slice(&want[..n]);
        let share = u128::from(u64::from_be_bytes(lead));
        let guess = lo + ((share * (hi - lo) as u128) >> 64) as usize;
        let at = partition_near(lo, hi, guess, |i| key_at(i) < want);
        let (from, to) = (at.saturating_sub(1).max(lo), (at + 1).min(hi));
        self.check(RECORDS_OFFSET + from * record_len..RECORDS_OFFSET + to * record_len)?;
        Ok((at < hi && key_at(at) == want).then_some(at))
    }

    /// A [`Damaged`] for bytes that passed their checksum but do not make
    /// sense (the first block holding them is named).
    pub fn damaged(&self, bytes: Range<usize>) -> Damaged {
        Damaged {
            block: (bytes.start >> self.header.block_shift) as u64,
            bytes: bytes.start as u64..bytes.end as u64,
        }
    }

    /// Checks every block checksum and the CRC-32 of everything after the
    /// header (reads the whole file).
    ///
    /// # Errors
    ///
    /// [`IndexError::Damaged`] naming the first damaged block, or
    /// [`IndexError::Invalid`] if the data checksum does not match.
    pub fn verify_blocks(&self) -> Result<(), IndexError> {
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
            return Err(self.invalid("data checksum mismatch: the index is corrupt"));
        }
        Ok(())
    }

    /// Checks that the fanout table of a sorted layout never decreases and
    /// ends at most at the record count.
    ///
    /// # Errors
    ///
    /// [`IndexError::Invalid`] if it does not.
    pub fn verify_fanout(&self) -> Result<(), IndexError> {
        let mut prev = 0;
        for p in 0..FANOUT_ENTRIES {
            let v = self.fanout(p);
            if v < prev || v > self.header.records {
                return Err(self.invalid("fanout table is not monotonic: the index is corrupt"));
            }
            prev = v;
        }
        Ok(())
    }

    /// An [`IndexError::Invalid`] naming this file.
    pub fn invalid(&self, reason: &str) -> IndexError {
        IndexError::Invalid {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }
}

/// Asks the CPU to bring the cache line holding `bytes[at]` into its
/// caches: nothing for an offset past the end, or on a CPU without a
/// prefetch instruction here. A hint: it reads nothing, and cannot fault.
#[inline]
fn prefetch(bytes: &[u8], at: usize) {
    let Some(byte) = bytes.get(at) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: the intrinsic needs SSE, part of every x86_64 CPU. The
        // pointer is to a byte of `bytes` (no pointer arithmetic here),
        // and a prefetch does not dereference it anyway: a hint that
        // never faults.
        unsafe { _mm_prefetch(std::ptr::from_ref(byte).cast::<i8>(), _MM_HINT_T0) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    /// A prefetch anywhere, in a mapped file or past its end, is only a
    /// hint: it neither faults nor panics.
    #[test]
    fn prefetch_is_harmless_anywhere() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bytes");
        std::fs::write(&path, vec![7u8; 10_000]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: a read-only map of a file this test made and nobody
        // modifies; only its bytes' addresses are used.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let len = map.len();
        for at in [0, 1, len / 2, len - 1, len, len + 4096, usize::MAX] {
            prefetch(&map, at);
        }
        // Any slice, an empty one too.
        for at in [0, 1, 63, 64, usize::MAX] {
            prefetch(&[], at);
            prefetch(&[1, 2, 3], at);
        }
    }
}
