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
//! checksums (`block_sums.rs`) are computed as it goes too. The file is a
//! [`PartialFile`] (a hidden temporary name next to the target), flushed
//! to disk and renamed by [`finish`](BodyWriter::finish); dropping the
//! writer unfinished removes it.

use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use spool_io::input::with_path;
use spool_io::write::PartialFile;

use crate::format::{Header, HEADER_LEN};

use super::block_sums::BlockSums;

/// Size of the write buffer: small records (22 bytes) are gathered here,
/// checksummed in one pass and written in one call.
const BUFFER: usize = 256 << 10;

/// Streams the body of an index file; see the module docs.
pub(crate) struct BodyWriter {
    file: PartialFile,
    /// Body bytes not yet checksummed nor written.
    buf: Vec<u8>,
    front_len: usize,
    /// CRC of the body bytes so far.
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
        let mut file = PartialFile::create(target)?;
        let dir = match file.temp().parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => ".".into(),
        };
        let sums = BlockSums::new(block_shift, front_len, &dir).map_err(|e| with_path(e, &dir))?;
        let at = file.file().seek(SeekFrom::Start(front_len as u64));
        at.map_err(|e| file.error(e))?;
        Ok(BodyWriter {
            file,
            buf: Vec::with_capacity(BUFFER),
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
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.buf.len() + bytes.len() > BUFFER {
            self.flush()?;
        }
        if bytes.len() > BUFFER {
            return self.write_through(bytes);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// Checksums and writes `bytes` without buffering them (the buffer
    /// must be empty).
    fn write_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.sums.update(bytes).map_err(|e| self.file.error(e))?;
        let written = self.file.file().write_all(bytes);
        written.map_err(|e| self.file.error(e))
    }

    /// Checksums and writes the buffered bytes to the file.
    pub fn flush(&mut self) -> io::Result<()> {
        let buf = std::mem::take(&mut self.buf);
        let written = self.write_through(&buf);
        self.buf = buf;
        self.buf.clear();
        written
    }

    /// Appends `bytes`, whose CRC-32 the caller computed (`crc`): for runs
    /// encoded on another thread.
    pub fn append_with_crc(&mut self, bytes: &[u8], crc: &crc32fast::Hasher) -> io::Result<()> {
        self.flush()?;
        self.sums.update(bytes).map_err(|e| self.file.error(e))?;
        self.crc.combine(crc);
        let written = self.file.file().write_all(bytes);
        written.map_err(|e| self.file.error(e))
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
        self.flush()?;
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
        let mut out = io::BufWriter::with_capacity(BUFFER, self.file.file());
        let sums = self.sums.finish(&front, &mut out);
        let written = sums.and_then(|()| {
            let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&front)
        });
        written.map_err(|e| self.file.error(e))?;
        self.file.sync()?;
        self.file.commit()?;
        Ok(header)
    }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
