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
//! [`BlockSums`] computes the checksums while an index is written;
//! [`BlockCheck`] checks them while it is read, remembering which blocks it
//! has checked (one bit each) so that a long-lived process checks each
//! block once. That trusts a checked block for the life of the map: the
//! page cache could still hand back a different page later (the file
//! rewritten in place, which an index never is; a page evicted and re-read
//! from a failing disk), and `verify` reads everything again for that.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom, Write as _};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::format;

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
        let blocks = format::block_count(checked as u64, shift) as usize;
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
        format::block_count(self.checked as u64, self.shift) as usize
    }
}

/// Computes block checksums while an index is written. The header and the
/// table are written last, so the bytes after them (the body) are fed
/// from the body's offset on and those of the block the table shares with
/// the body are kept until the table is known. The checksums go to an unnamed temporary file (a billion hashes
/// have 300 MB of them), which vanishes whatever way the process ends.
pub(crate) struct BlockSums {
    shift: u8,
    /// Bytes of header and table before the body.
    front_len: usize,
    /// The first record bytes, up to the first block boundary after the
    /// table.
    head: Vec<u8>,
    head_len: usize,
    /// CRC and length of the block being fed.
    crc: u32,
    filled: usize,
    /// Checksums of whole blocks after `head`, LE, waiting to be written.
    buf: Vec<u8>,
    spool: File,
}

/// Checksums kept in memory before going to the temporary file.
const SUMS_BUFFER: usize = 64 << 10;

impl BlockSums {
    /// Starts with blocks of `2^shift` bytes, for a body that starts at
    /// file offset `front_len`; the temporary file goes into `dir`.
    pub fn new(shift: u8, front_len: usize, dir: &std::path::Path) -> io::Result<Self> {
        let block = 1usize << shift;
        let head_len = (block - front_len % block) % block;
        Ok(BlockSums {
            shift,
            front_len,
            head: Vec::with_capacity(head_len),
            head_len,
            crc: 0,
            filled: 0,
            buf: Vec::with_capacity(SUMS_BUFFER),
            spool: tempfile::tempfile_in(dir)?,
        })
    }

    /// Feeds body bytes, in file order.
    pub fn update(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        let take = (self.head_len - self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        let block = 1usize << self.shift;
        while !bytes.is_empty() {
            let take = (block - self.filled).min(bytes.len());
            self.crc = crc32c::crc32c_append(self.crc, &bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled == block {
                self.push_sum()?;
            }
        }
        Ok(())
    }

    fn push_sum(&mut self) -> io::Result<()> {
        self.buf.extend_from_slice(&self.crc.to_le_bytes());
        (self.crc, self.filled) = (0, 0);
        if self.buf.len() >= SUMS_BUFFER {
            self.spool.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Appends every checksum, in block order, to `out` (positioned at the
    /// end of the body), given the header and table (`front`, the file's
    /// first `front_len` bytes).
    pub fn finish(mut self, front: &[u8], out: &mut impl io::Write) -> io::Result<()> {
        assert_eq!(front.len(), self.front_len, "header and table");
        if self.filled > 0 {
            self.push_sum()?;
        }
        self.spool.write_all(&self.buf)?;
        let block = 1usize << self.shift;
        let mut front = front.to_vec();
        front.extend_from_slice(&self.head);
        let mut first = Vec::with_capacity(4 * front.len().div_ceil(block));
        for piece in front.chunks(block) {
            first.extend_from_slice(&crc32c::crc32c(piece).to_le_bytes());
        }
        out.write_all(&first)?;
        self.spool.seek(SeekFrom::Start(0))?;
        let mut chunk = vec![0u8; SUMS_BUFFER];
        loop {
            let n = self.spool.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            out.write_all(&chunk[..n])?;
        }
        Ok(())
    }
}
