//! Writing an index file of any layout: the body (records, fingerprints)
//! streams to the file behind a gap for the header and table, which are
//! known only at the end and written last.
//!
//! ```text
//!  0        64         front_len                          E
//!  ├ header ┼── table ──┼──────── body (streamed) ────────┼ block checksums ┤
//!  written last          written first, in order            appended by finish
//! ```
//!
//! The format's data checksum covers the table and then the body, so the
//! body's CRC-32 is computed as it goes and joined to the table's with
//! `crc32fast`'s `combine` instead of reading the file back; the block
//! checksums (`block_sums.rs`) are computed as it goes too. The bytes are
//! staged in one buffer and written at their offsets through the page
//! cache (writing around it with `O_DIRECT` did not pay for its code:
//! docs/perf/pwned-build.md). The file is a [`PartialFile`] (a hidden temporary name next to the
//! target), flushed to disk and renamed by [`finish`](BodyWriter::finish);
//! dropping the writer unfinished removes it.

use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use spool_io::input::with_path;
use spool_io::write::PartialFile;

use crate::format::{Header, HEADER_LEN};

use super::block_sums::BlockSums;

/// Size of the write buffer.
const BUFFER: usize = 768 << 10;

/// Streams the body of an index file; see the module docs.
pub(crate) struct BodyWriter {
    file: PartialFile,
    /// The bytes of the file from `base` on, not yet written.
    staged: Vec<u8>,
    base: u64,
    /// Where the staged bytes not yet in `crc` and `sums` start.
    fresh: usize,
    front_len: usize,
    /// CRC of the body bytes written to the file so far.
    crc: crc32fast::Hasher,
    sums: BlockSums,
}

impl BodyWriter {
    /// Starts writing `target` (via `.NAME.partial` beside it), with
    /// `front_len` bytes of header and table before the body and checksum
    /// blocks of `2^block_shift` bytes.
    ///
    /// # Errors
    ///
    /// If the temporary files cannot be created.
    pub fn create(target: &Path, front_len: usize, block_shift: u8) -> io::Result<Self> {
        let file = PartialFile::create(target)?;
        let dir = match file.temp().parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => ".".into(),
        };
        let sums = BlockSums::new(block_shift, front_len, &dir).map_err(|e| with_path(e, &dir))?;
        Ok(BodyWriter {
            file,
            staged: Vec::with_capacity(BUFFER),
            base: front_len as u64,
            fresh: 0,
            front_len,
            crc: crc32fast::Hasher::new(),
            sums,
        })
    }

    /// The temporary file being written.
    pub fn temp(&self) -> &Path {
        self.file.temp()
    }

    /// An I/O error on the temporary file, told as one on the target (see
    /// [`PartialFile::error`]).
    pub fn error(&self, err: io::Error) -> io::Error {
        self.file.error(err)
    }

    /// Appends body bytes (buffered).
    #[inline]
    pub fn write(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        let room = BUFFER - self.staged.len();
        if bytes.len() < room {
            self.staged.extend_from_slice(bytes);
            if room - bytes.len() <= 64 {
                self.spill()?;
            }
            return Ok(());
        }
        while !bytes.is_empty() {
            let n = bytes.len().min(BUFFER - self.staged.len());
            self.staged.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.staged.len() == BUFFER {
                self.spill()?;
            }
        }
        Ok(())
    }

    /// Checksums the staged bytes and writes them out.
    fn spill(&mut self) -> io::Result<()> {
        self.checksum()?;
        self.write_staged()
    }

    /// Writes the staged bytes at their offset (checksummed or not).
    fn write_staged(&mut self) -> io::Result<()> {
        let written = self.file.file().write_all_at(&self.staged, self.base);
        written.map_err(|e| self.file.error(e))?;
        self.base += self.staged.len() as u64;
        self.staged.clear();
        self.fresh = 0;
        Ok(())
    }

    /// Writes every byte so far to the file (for reading the file back).
    pub fn flush(&mut self) -> io::Result<()> {
        self.spill()
    }

    /// Adds the staged bytes not yet checksummed to `crc` and `sums`.
    fn checksum(&mut self) -> io::Result<()> {
        let fresh = &self.staged[self.fresh..];
        self.crc.update(fresh);
        self.sums.update(fresh).map_err(|e| self.file.error(e))?;
        self.fresh = self.staged.len();
        Ok(())
    }

    /// Appends `bytes`, checksummed already or not to be: staged when they
    /// fit, else written out after what is staged.
    fn append_unchecked(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() > BUFFER - self.staged.len() {
            self.write_staged()?;
        }
        if bytes.len() >= BUFFER {
            let written = self.file.file().write_all_at(bytes, self.base);
            written.map_err(|e| self.file.error(e))?;
            self.base += bytes.len() as u64;
        } else {
            self.staged.extend_from_slice(bytes);
        }
        self.fresh = self.staged.len();
        Ok(())
    }

    /// Appends `bytes`, whose CRC-32 the caller computed (`crc`), past the
    /// checksumming of the buffer: for runs encoded on another thread.
    pub fn append_with_crc(&mut self, bytes: &[u8], crc: &crc32fast::Hasher) -> io::Result<()> {
        self.checksum()?;
        self.sums.update(bytes).map_err(|e| self.file.error(e))?;
        self.crc.combine(crc);
        self.append_unchecked(bytes)
    }

    /// Writes the block checksums, then `header` (its data checksum set to
    /// that of `table` and the body) and `table` at the front; syncs, and
    /// renames the file into place. Returns the header as written.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    ///
    /// # Panics
    ///
    /// If `table` does not fill the front the writer was created with.
    pub fn finish(mut self, table: &[u8], header: Header) -> io::Result<Header> {
        assert_eq!(HEADER_LEN + table.len(), self.front_len, "header and table");
        self.spill()?;
        let mut data_crc = crc32fast::Hasher::new();
        data_crc.update(table);
        data_crc.combine(&self.crc);
        let header = Header {
            data_crc: data_crc.finalize(),
            ..header
        };
        let mut front = Vec::with_capacity(self.front_len);
        front.extend_from_slice(&header.encode());
        front.extend_from_slice(table);
        // The block checksums after the body (`finish` takes them whole),
        // then the front.
        let finished = self.sums.finish(&front, &mut self.staged);
        finished.map_err(|e| self.file.error(e))?;
        let file = self.file.file();
        let written = (file.write_all_at(&self.staged, self.base))
            .and_then(|()| file.write_all_at(&front, 0));
        written.map_err(|e| self.file.error(e))?;
        self.file.sync()?;
        self.file.commit()?;
        Ok(header)
    }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
