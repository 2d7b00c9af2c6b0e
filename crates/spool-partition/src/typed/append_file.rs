//! A part file that is open only while bytes are written to it, so a
//! writer thread can keep a Parquet writer per key — and each key one
//! part — with far fewer files open than keys.
//!
//! An [`ArrowWriter`](parquet::arrow::ArrowWriter) over an [`AppendFile`]
//! encodes its row group in memory as ever; what it writes out (a row
//! group, at its flush, or the footer) gathers in the `AppendFile`'s
//! buffer, and only [`flush`](Write::flush) — which the writer's `sync`
//! calls — opens the file, appends the buffer and closes the file again.
//!
//! # Invariants
//!
//! * The file is created (empty) by [`AppendFile::create`]; every byte
//!   written after reaches it in order, at the next flush.
//! * Between flushes the file is closed: no descriptor is held.
//! * Bytes not flushed when the `AppendFile` is dropped are lost — an
//!   aborted run leaves nothing it has not already left.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use spool_io::input::with_path;

/// A file appended to at each flush; see the module docs.
pub(crate) struct AppendFile {
    path: PathBuf,
    buffer: Vec<u8>,
}

impl AppendFile {
    /// Creates (or truncates) the file at `path`, and closes it.
    ///
    /// # Errors
    ///
    /// A file that cannot be created, naming it.
    pub fn create(path: &Path) -> io::Result<Self> {
        File::create(path).map_err(|e| with_path(e, path))?;
        Ok(AppendFile {
            path: path.to_owned(),
            buffer: Vec::new(),
        })
    }

    /// Bytes written and not flushed yet.
    #[cfg(test)]
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }
}

impl Write for AppendFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let mut file = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|e| with_path(e, &self.path))?;
        file.write_all(&self.buffer)
            .map_err(|e| with_path(e, &self.path))?;
        self.buffer = Vec::new();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_reach_the_file_at_each_flush_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.parquet");
        let mut file = AppendFile::create(&path).unwrap();
        file.write_all(b"PAR1").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        assert_eq!(file.buffered(), 4);
        file.flush().unwrap();
        file.write_all(b"rows").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"PAR1");
        file.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"PAR1rows");
        assert_eq!(file.buffered(), 0);
    }

    #[test]
    fn a_file_gone_between_flushes_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.parquet");
        let mut file = AppendFile::create(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file.write_all(b"x").unwrap();
        let e = file.flush().unwrap_err();
        assert!(e.to_string().contains("part.parquet"), "{e}");
    }
}
