//! Spill files: the arena written out when it is full, bucket after
//! bucket, and each bucket's piece read back once when it is sorted.
//!
//! ```text
//!  spill file:  [ bucket 0's entries | bucket 1's | ... | bucket n-1's ]
//!  segments:      (offset, bytes) per bucket
//! ```
//!
//! A spill file has no name: `O_TMPFILE` on Linux, elsewhere a file
//! unlinked as soon as it is created, read back through its handle. There
//! is nothing to remove or to leave behind: the kernel frees it when the
//! process ends, on success, on error and on `kill -9` alike.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use spool_io::input::with_path;

/// Write buffer of a spill file.
const WRITE_BUFFER: usize = 1 << 20;

/// Where a bucket's piece of a spill file is: a stream of entries.
#[derive(Clone, Copy, Default)]
struct SpillSegment {
    offset: u64,
    bytes: u64,
}

/// One spill file and where each bucket's piece of it is.
pub(super) struct SpillFile {
    file: File,
    /// What messages call it (it has no name on disk).
    path: PathBuf,
    segments: Vec<SpillSegment>,
}

impl SpillFile {
    /// Writes a new spill file into `dir` (created if missing), numbered
    /// `number` for messages: bucket after bucket, each bucket's entries
    /// given as pieces.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the spill file.
    pub fn write<'a, P>(
        dir: &Path,
        number: usize,
        buckets: impl Iterator<Item = P>,
    ) -> io::Result<Self>
    where
        P: IntoIterator<Item = &'a [u8]>,
    {
        std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
        let path = dir.join(format!("(spill file {number} of spool pwned build)"));
        let file = tempfile::tempfile_in(dir).map_err(|e| with_path(e, &path))?;
        let mut out = BufWriter::with_capacity(WRITE_BUFFER, file);
        let mut segments = Vec::new();
        let mut offset = 0u64;
        for pieces in buckets {
            let mut bytes = 0u64;
            for piece in pieces {
                out.write_all(piece).map_err(|e| with_path(e, &path))?;
                bytes += piece.len() as u64;
            }
            segments.push(SpillSegment { offset, bytes });
            offset += bytes;
        }
        let file = out
            .into_inner()
            .map_err(|e| with_path(e.into_error(), &path))?;
        Ok(SpillFile {
            file,
            path,
            segments,
        })
    }

    /// Bytes of bucket `b`'s entries in this file.
    pub fn bytes(&self, b: usize) -> u64 {
        self.segments[b].bytes
    }

    /// Reads bucket `b`'s entries into `buf` (resized to hold them).
    ///
    /// # Errors
    ///
    /// I/O errors, naming the spill file.
    pub fn read(&self, b: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let seg = self.segments[b];
        buf.clear();
        buf.resize(seg.bytes as usize, 0);
        read_exact_at(&self.file, buf, seg.offset).map_err(|e| with_path(e, &self.path))
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// The directory for spill files: `temp_dir`, or the one `output` goes to.
pub fn spill_dir(output: &Path, temp_dir: Option<&Path>) -> PathBuf {
    temp_dir.map(Path::to_path_buf).unwrap_or_else(|| {
        output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    })
}
