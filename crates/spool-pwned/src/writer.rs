//! Writes an index from records that arrive sorted by hash, in one pass.

use std::fs::File;
use std::io::{self, BufWriter, Read as _, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::format::{self, Header, FANOUT_ENTRIES, HEADER_LEN, PREFIX_BYTES};
use crate::HashKind;

/// Builds an index file from sorted, distinct hashes. The file is written
/// under a temporary name next to the target and renamed by
/// [`finish`](IndexWriter::finish); dropping the writer unfinished removes
/// it.
pub struct IndexWriter {
    kind: HashKind,
    out: BufWriter<File>,
    temp: PathBuf,
    target: PathBuf,
    fanout: Vec<u64>,
    records: u64,
    total: u64,
    last: Option<Vec<u8>>,
    crc: crc32fast::Hasher,
    record: Vec<u8>,
    finished: bool,
}

impl IndexWriter {
    /// Starts writing `target` (via `target.tmp-<pid>`).
    ///
    /// # Errors
    ///
    /// If the temporary file cannot be created.
    pub fn create(target: &Path, kind: HashKind) -> io::Result<Self> {
        let temp = PathBuf::from(format!("{}.tmp-{}", target.display(), std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .map_err(|e| with_path(e, &temp))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        // Header and table are written last; reserve their space now.
        out.write_all(&vec![0u8; format::RECORDS_OFFSET])
            .map_err(|e| with_path(e, &temp))?;
        Ok(Self {
            kind,
            out,
            temp,
            target: target.to_path_buf(),
            fanout: vec![0; FANOUT_ENTRIES],
            records: 0,
            total: 0,
            last: None,
            crc: crc32fast::Hasher::new(),
            record: Vec::with_capacity(format::record_len(kind)),
            finished: false,
        })
    }

    /// Appends one hash (strictly greater than the previous one) and count.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if hashes are out of order.
    pub fn push(&mut self, key: &[u8], count: u32) -> io::Result<()> {
        debug_assert_eq!(key.len(), self.kind.byte_len());
        if let Some(last) = &self.last {
            if key <= &last[..] {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "hashes must arrive sorted and distinct",
                ));
            }
        }
        let prefix = usize::from(u16::from_be_bytes([key[0], key[1]]));
        self.fanout[prefix + 1] += 1;
        self.record.clear();
        self.record.extend_from_slice(&key[PREFIX_BYTES..]);
        self.record.extend_from_slice(&count.to_le_bytes());
        self.out
            .write_all(&self.record)
            .map_err(|e| with_path(e, &self.temp))?;
        self.records += 1;
        self.total += u64::from(count);
        match &mut self.last {
            Some(last) => last.copy_from_slice(key),
            None => self.last = Some(key.to_vec()),
        }
        Ok(())
    }

    /// Writes the table and header, syncs, and renames the file into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn finish(mut self) -> io::Result<Header> {
        for p in 1..FANOUT_ENTRIES {
            self.fanout[p] += self.fanout[p - 1];
        }
        let table: Vec<u8> = self.fanout.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.out.flush().map_err(|e| with_path(e, &self.temp))?;
        let mut file = self
            .out
            .get_ref()
            .try_clone()
            .map_err(|e| with_path(e, &self.temp))?;
        // CRC over table then records: the records are re-read once.
        let mut crc = crc32fast::Hasher::new();
        crc.update(&table);
        file.seek(SeekFrom::Start(format::RECORDS_OFFSET as u64))?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = io::Read::read(&mut file, &mut buf).map_err(|e| with_path(e, &self.temp))?;
            if n == 0 {
                break;
            }
            crc.update(&buf[..n]);
        }
        self.crc = crc;
        let header = Header {
            kind: self.kind,
            records: self.records,
            total_count: self.total,
            data_crc: self.crc.clone().finalize(),
        };
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header.encode())
            .map_err(|e| with_path(e, &self.temp))?;
        debug_assert_eq!(HEADER_LEN, 64);
        file.write_all(&table)
            .map_err(|e| with_path(e, &self.temp))?;
        file.sync_all().map_err(|e| with_path(e, &self.temp))?;
        std::fs::rename(&self.temp, &self.target).map_err(|e| with_path(e, &self.target))?;
        self.finished = true;
        Ok(header)
    }
}

impl IndexWriter {
    /// Gives up on this index and turns what was written so far (sorted
    /// records) into a sorted run file at `run` for the external sort: the
    /// hash prefixes dropped from each record come back from the fanout
    /// counts. The temporary index is removed.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn into_run(mut self, run: &Path) -> io::Result<()> {
        self.out.flush().map_err(|e| with_path(e, &self.temp))?;
        let mut input = io::BufReader::with_capacity(
            1 << 20,
            File::open(&self.temp).map_err(|e| with_path(e, &self.temp))?,
        );
        io::copy(
            &mut (&mut input).take(format::RECORDS_OFFSET as u64),
            &mut io::sink(),
        )?;
        let mut out =
            BufWriter::with_capacity(1 << 20, File::create(run).map_err(|e| with_path(e, run))?);
        let len = format::record_len(self.kind);
        let mut rec = vec![0u8; len];
        let mut key = [0u8; 20];
        for p in 0..FANOUT_ENTRIES - 1 {
            key[..2].copy_from_slice(&(p as u16).to_be_bytes());
            for _ in 0..self.fanout[p + 1] {
                io::Read::read_exact(&mut input, &mut rec)?;
                key[2..self.kind.byte_len()].copy_from_slice(&rec[..len - 4]);
                out.write_all(&key)?;
                out.write_all(&rec[len - 4..])?;
            }
        }
        out.flush().map_err(|e| with_path(e, run))?;
        Ok(())
    }
}

impl Drop for IndexWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

pub(crate) fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
