//! A journal in a file: appended to by one writer, replayed on the next
//! start, cut after its last whole record and appended to again.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::frame::{
    check_header, frame_checks, frame_len, header, payload_len, Kind, FRAME_OVERHEAD, HEADER_LEN,
};
use crate::input::{read_up_to, with_path};

/// The writing end of a journal file (see the [module docs](super) for
/// when an appended record is safe).
#[derive(Debug)]
pub struct Journal {
    out: BufWriter<File>,
    path: PathBuf,
}

impl Journal {
    /// Creates (or empties) the journal at `path` and writes its header.
    ///
    /// # Errors
    ///
    /// The file cannot be created or written; the error names it.
    pub fn create(path: &Path, kind: Kind) -> io::Result<Journal> {
        let file = File::create(path).map_err(|e| with_path(e, path))?;
        let mut journal = Journal::over(file, path);
        journal.write(&header(kind))?;
        Ok(journal)
    }

    /// Opens the journal at `path` to append after its first `len` bytes,
    /// cutting what follows: `len` is a [`Replay::valid_len`] of the same
    /// file, so the records kept are exactly those replayed up to there.
    ///
    /// # Errors
    ///
    /// The file cannot be opened, is not a journal of `kind`, or `len` is
    /// shorter than its header.
    pub fn resume(path: &Path, kind: Kind, len: u64) -> io::Result<Journal> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| with_path(e, path))?;
        let mut head = [0u8; HEADER_LEN];
        file.read_exact(&mut head)
            .and_then(|()| check_header(&head, kind))
            .map_err(|e| with_path(e, path))?;
        if len < HEADER_LEN as u64 {
            let e = io::Error::new(io::ErrorKind::InvalidInput, "cut inside the header");
            return Err(with_path(e, path));
        }
        file.set_len(len).map_err(|e| with_path(e, path))?;
        file.seek(SeekFrom::Start(len))
            .map_err(|e| with_path(e, path))?;
        Ok(Journal::over(file, path))
    }

    fn over(file: File, path: &Path) -> Journal {
        Journal {
            out: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
        }
    }

    /// Appends one record.
    ///
    /// # Errors
    ///
    /// The file cannot be written; the error names it.
    ///
    /// # Panics
    ///
    /// If `payload` is longer than [`MAX_RECORD_LEN`](super::MAX_RECORD_LEN).
    pub fn append(&mut self, payload: &[u8]) -> io::Result<()> {
        self.append_parts(&[payload])
    }

    /// Appends one record whose payload is `parts` one after another (a
    /// record's fixed fields and its bulk, say), without joining them
    /// first.
    ///
    /// # Errors
    ///
    /// The file cannot be written; the error names it.
    ///
    /// # Panics
    ///
    /// If the parts together are longer than
    /// [`MAX_RECORD_LEN`](super::MAX_RECORD_LEN).
    pub fn append_parts(&mut self, parts: &[&[u8]]) -> io::Result<()> {
        let len = parts.iter().map(|p| p.len()).sum::<usize>();
        let len_bytes = frame_len(len);
        let sum = parts.iter().fold(crc32c::crc32c(&len_bytes), |sum, p| {
            crc32c::crc32c_append(sum, p)
        });
        self.write(&len_bytes)?;
        for part in parts {
            self.write(part)?;
        }
        self.write(&sum.to_le_bytes())
    }

    /// Hands every appended record to the operating system: from here on
    /// they survive the process being killed.
    ///
    /// # Errors
    ///
    /// The file cannot be written; the error names it.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush().map_err(|e| with_path(e, &self.path))
    }

    /// Flushes, then waits until every appended record is on the disk:
    /// from here on they survive a power cut.
    ///
    /// # Errors
    ///
    /// The file cannot be written or synced; the error names it.
    pub fn sync(&mut self) -> io::Result<()> {
        self.flush()?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| with_path(e, &self.path))
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| with_path(e, &self.path))
    }
}

/// Reads a journal file's records back, in order, up to the first that is
/// not whole (see the [module docs](super)); one record in memory at a
/// time, however long the journal.
#[derive(Debug)]
pub struct Replay {
    input: BufReader<File>,
    path: PathBuf,
    payload: Vec<u8>,
    valid_len: u64,
    ended: bool,
}

impl Replay {
    /// Opens the journal at `path` and checks its header.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or read (`NotFound` if it does not exist),
    /// or its header is not a whole header of `kind` (`InvalidData`); the
    /// error names the file.
    pub fn open(path: &Path, kind: Kind) -> io::Result<Replay> {
        let file = File::open(path).map_err(|e| with_path(e, path))?;
        let mut input = BufReader::with_capacity(1 << 16, file);
        let mut head = [0u8; HEADER_LEN];
        read_up_to(&mut input, &mut head)
            .and_then(|n| check_header(&head[..n], kind))
            .map_err(|e| with_path(e, path))?;
        Ok(Replay {
            input,
            path: path.to_path_buf(),
            payload: Vec::new(),
            valid_len: HEADER_LEN as u64,
            ended: false,
        })
    }

    /// The next whole record, or `None` at the end of the journal or at
    /// its first record that is not whole.
    ///
    /// # Errors
    ///
    /// The file cannot be read; the error names it.
    pub fn next_record(&mut self) -> io::Result<Option<&[u8]>> {
        if self.ended || !self.read_frame()? {
            self.ended = true;
            return Ok(None);
        }
        Ok(Some(&self.payload))
    }

    /// Reads the next frame's payload into `self.payload`; false (and
    /// nothing counted) if it is not whole.
    fn read_frame(&mut self) -> io::Result<bool> {
        let mut len_bytes = [0u8; 4];
        if self.read(&mut len_bytes)? < 4 {
            return Ok(false);
        }
        let Some(len) = payload_len(len_bytes) else {
            return Ok(false);
        };
        self.payload.resize(len, 0);
        let mut payload = std::mem::take(&mut self.payload);
        let got = self.read(&mut payload)?;
        self.payload = payload;
        let mut sum = [0u8; 4];
        if got < len || self.read(&mut sum)? < 4 {
            return Ok(false);
        }
        if !frame_checks(len_bytes, &self.payload, sum) {
            return Ok(false);
        }
        self.valid_len += (len + FRAME_OVERHEAD) as u64;
        Ok(true)
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_up_to(&mut self.input, buf).map_err(|e| with_path(e, &self.path))
    }

    /// Where the last record returned ends (the header's end before the
    /// first): the length to [`Journal::resume`] at to keep exactly the
    /// records returned so far.
    pub fn valid_len(&self) -> u64 {
        self.valid_len
    }
}
