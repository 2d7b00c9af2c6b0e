//! The block checksums of an index being written: the CRC-32C of every
//! `2^S`-byte block (the format's `blocks.rs`), computed as the body
//! streams past, so that the file is never read back for them.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom, Write as _};

/// Computes block checksums while an index is written. The header and the
/// table are written last, so the bytes after them (the body) are fed from
/// the body's offset on and those of the block the table shares with the body
/// are kept until the table is known. The checksums go to an unnamed
/// temporary file (a billion hashes have 300 MB of them), which vanishes
/// whatever way the process ends.
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
