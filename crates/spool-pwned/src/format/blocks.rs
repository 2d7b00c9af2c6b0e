//! Block checksums: the CRC-32C of every 2^S-byte block of an index (the
//! header, the fanout table and the records), so that a lookup can check
//! the few bytes it answers from instead of trusting them.
//!
//! ```text
//!  file offset 0          2^S        2·2^S              E = end of records
//!              ├──block 0──┼──block 1──┼── … ──┼─ last ─┤ crc 0 │ crc 1 │ … │
//!              header, table, records          (short)   block checksums
//! ```
//!
//! Blocks are aligned to file offsets (not to records) so that a block lies
//! within one 4 KiB page: checking it touches no page that the lookup did
//! not touch, but for the checksum's own.
//!
//! The writers compute the checksums as they write
//! (`build::write::block_sums`); [`BlockCheck`] checks them while it is read,
//! remembering which blocks it has checked (one bit each) so that a
//! long-lived process checks each block once. That trusts a checked block for
//! the life of the map: the page cache could still hand back a different page
//! later (the file rewritten in place, which an index never is; a page
//! evicted and re-read from a failing disk), and `verify` reads everything
//! again for that.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// A block whose checksum does not match its bytes: the index is damaged
/// and no answer that rests on the block can be trusted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block {block} (bytes {}..{}) fails its checksum: the index is damaged; rebuild it", .bytes.start, .bytes.end)]
pub struct Damaged {
    /// The block's number.
    pub block: u64,
    /// The bytes of the file it covers.
    pub bytes: Range<u64>,
}

/// Checks block checksums for a mapped index.
pub(crate) struct BlockCheck {
    shift: u8,
    /// Bytes covered by checksums (the checksum table starts here).
    checked: usize,
    /// One bit per block: set once the block has passed its check.
    passed: Box<[AtomicU64]>,
}

impl BlockCheck {
    /// For an index of `checked` bytes before its checksum table, with
    /// blocks of `2^shift` bytes.
    pub fn new(checked: usize, shift: u8) -> Self {
        let blocks = block_count(checked as u64, shift) as usize;
        // Zeroed memory comes lazily from the kernel: a bitmap of 10 MB for
        // a billion hashes costs only the pages that lookups touch.
        let passed = (0..blocks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        BlockCheck {
            shift,
            checked,
            passed,
        }
    }

    /// Checks every block that holds a byte of `bytes` (file offsets
    /// within the checked area), each at most once per `BlockCheck`.
    ///
    /// # Errors
    ///
    /// The first block whose checksum does not match.
    #[inline]
    pub fn check(&self, map: &[u8], bytes: Range<usize>) -> Result<(), Damaged> {
        if bytes.is_empty() {
            return Ok(());
        }
        let first = bytes.start >> self.shift;
        let last = (bytes.end - 1) >> self.shift;
        for block in first..=last {
            let (word, bit) = (&self.passed[block / 64], 1u64 << (block % 64));
            // Relaxed is enough: a block checked twice by two threads is
            // only wasted work, and its bytes never change.
            if word.load(Ordering::Relaxed) & bit == 0 {
                self.check_block(map, block)?;
                word.fetch_or(bit, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Checks one block without consulting or updating the bitmap.
    pub fn check_block(&self, map: &[u8], block: usize) -> Result<(), Damaged> {
        let start = block << self.shift;
        let end = (start + (1 << self.shift)).min(self.checked);
        let at = self.checked + 4 * block;
        let want = u32::from_le_bytes(map[at..at + 4].try_into().expect("4 bytes"));
        if crc32c::crc32c(&map[start..end]) == want {
            Ok(())
        } else {
            Err(Damaged {
                block: block as u64,
                bytes: start as u64..end as u64,
            })
        }
    }

    /// Forgets every check passed so far.
    pub fn forget(&self) {
        for word in &self.passed[..] {
            word.store(0, Ordering::Relaxed);
        }
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        block_count(self.checked as u64, self.shift) as usize
    }
}

/// Number of checksum blocks over `checked` bytes with blocks of
/// `2^block_shift` bytes.
pub(crate) fn block_count(checked: u64, block_shift: u8) -> u64 {
    checked.div_ceil(1 << block_shift)
}
