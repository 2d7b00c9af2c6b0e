//! Writes an index from records that arrive sorted by hash, in one pass.
//!
//! Records go through one buffer straight to the file, and the data
//! checksum is computed as they go: the format's CRC covers the fanout
//! table (written last, at the front) and then the records, so the two
//! checksums are joined with `crc32fast`'s `combine` instead of reading the
//! whole file back. The block checksums (`blocks.rs`) are computed as the
//! records go too, and appended after them.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom, Write};
use std::path::Path;

use spool_io::input::with_path;
use spool_io::write::PartialFile;

use crate::blocks::BlockSums;
use crate::format::{self, Header, BLOCK_SHIFT, FANOUT_ENTRIES, PREFIX_BYTES};
use crate::record::{self, sort_key, MergeCounts, Record, SortKey, HASH_BYTES};
use crate::HashKind;

/// Size of the write buffer.
const BUFFER: usize = 1 << 20;

/// Builds an index file from sorted, distinct hashes. The file is written
/// as a [`PartialFile`] (a hidden temporary name next to the target),
/// flushed to disk and renamed by [`finish`](IndexWriter::finish);
/// dropping the writer unfinished removes it.
pub struct IndexWriter {
    kind: HashKind,
    file: PartialFile,
    buf: Vec<u8>,
    fanout: Vec<u64>,
    records: u64,
    total: u64,
    /// The last hash written.
    last: Option<SortKey>,
    /// CRC of the records written to the file so far.
    crc: crc32fast::Hasher,
    /// Block checksums of the records written so far.
    sums: BlockSums,
}

impl IndexWriter {
    /// Starts writing `target` (via `.NAME.partial` beside it).
    ///
    /// # Errors
    ///
    /// If the temporary file cannot be created.
    pub fn create(target: &Path, kind: HashKind) -> io::Result<Self> {
        let mut file = PartialFile::create(target)?;
        let dir = file
            .temp()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let dir = if dir.as_os_str().is_empty() {
            ".".into()
        } else {
            dir
        };
        let sums = BlockSums::new(BLOCK_SHIFT, &dir).map_err(|e| with_path(e, &dir))?;
        // Header and table are written last; records start after them.
        file.file()
            .seek(SeekFrom::Start(format::RECORDS_OFFSET as u64))
            .map_err(|e| file.error(e))?;
        Ok(Self {
            kind,
            file,
            buf: Vec::with_capacity(BUFFER),
            fanout: vec![0; FANOUT_ENTRIES],
            records: 0,
            total: 0,
            last: None,
            crc: crc32fast::Hasher::new(),
            sums,
        })
    }

    /// Appends one hash (`kind.byte_len()` bytes, strictly greater than the
    /// previous one) and its count.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if hashes are out of order or of the
    /// wrong length.
    #[inline]
    pub fn push(&mut self, key: &[u8], count: u32) -> io::Result<()> {
        let len = self.kind.byte_len();
        if key.len() != len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a hash of {} bytes where {len} were expected", key.len()),
            ));
        }
        let mut padded = [0u8; HASH_BYTES];
        padded[..len].copy_from_slice(key);
        let order = sort_key(&padded);
        self.check_follows(order)?;
        self.last = Some(order);
        let prefix = usize::from(u16::from_be_bytes([key[0], key[1]]));
        self.fanout[prefix + 1] += 1;
        self.buf.extend_from_slice(&key[PREFIX_BYTES..]);
        self.buf.extend_from_slice(&count.to_le_bytes());
        self.records += 1;
        self.total += u64::from(count);
        if self.buf.len() >= BUFFER - 32 {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Fails unless `first` sorts after the last hash written.
    fn check_follows(&self, first: SortKey) -> io::Result<()> {
        if self.last.is_some_and(|last| first <= last) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "hashes must arrive sorted and distinct",
            ));
        }
        Ok(())
    }

    fn flush_buf(&mut self) -> io::Result<()> {
        self.crc.update(&self.buf);
        self.sums
            .update(&self.buf)
            .map_err(|e| self.file.error(e))?;
        write_all(&mut self.file, &self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Writes the block checksums, the table and the header, syncs, and
    /// renames the file into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn finish(mut self) -> io::Result<Header> {
        self.flush_buf()?;
        for p in 1..FANOUT_ENTRIES {
            self.fanout[p] += self.fanout[p - 1];
        }
        let table: Vec<u8> = self.fanout.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut data_crc = crc32fast::Hasher::new();
        data_crc.update(&table);
        data_crc.combine(&self.crc);
        let header = Header {
            kind: self.kind,
            records: self.records,
            total_count: self.total,
            data_crc: data_crc.finalize(),
            block_shift: BLOCK_SHIFT,
        };
        let mut front = Vec::with_capacity(format::RECORDS_OFFSET);
        front.extend_from_slice(&header.encode());
        front.extend_from_slice(&table);
        let finished = self.sums.finish(&front, self.file.file());
        finished.map_err(|e| self.file.error(e))?;
        let seek = self.file.file().seek(SeekFrom::Start(0));
        seek.map_err(|e| self.file.error(e))?;
        write_all(&mut self.file, &front)?;
        self.file.sync()?;
        self.file.commit()?;
        Ok(header)
    }

    /// Gives up on this index and hands every record written so far back,
    /// in order, to `f` (for the switch from streaming to sorting when the
    /// input turns out not to be sorted): the hash prefixes dropped from
    /// each record come back from the fanout counts. The temporary index is
    /// removed.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file, and whatever `f` returns.
    pub(crate) fn into_records(
        mut self,
        mut f: impl FnMut(Record) -> io::Result<()>,
    ) -> io::Result<()> {
        self.flush_buf()?;
        let mut input = io::BufReader::with_capacity(
            BUFFER,
            File::open(self.file.temp()).map_err(|e| self.file.error(e))?,
        );
        input.seek(SeekFrom::Start(format::RECORDS_OFFSET as u64))?;
        let len = format::record_len(self.kind);
        let key_len = self.kind.byte_len();
        let mut rec = vec![0u8; len];
        let mut key = [0u8; 20];
        for p in 0..FANOUT_ENTRIES - 1 {
            key[..PREFIX_BYTES].copy_from_slice(&(p as u16).to_be_bytes());
            for _ in 0..self.fanout[p + 1] {
                input.read_exact(&mut rec).map_err(|e| self.file.error(e))?;
                key[PREFIX_BYTES..key_len].copy_from_slice(&rec[..len - 4]);
                let count = u32::from_le_bytes(rec[len - 4..].try_into().expect("4 bytes"));
                f(record::record(&key, count))?;
            }
        }
        Ok(())
    }
}

/// Index records encoded from one sorted stretch of records, duplicates
/// merged — made on a worker thread, so that the writer only copies bytes
/// and joins checksums.
pub(crate) struct EncodedRun {
    bytes: Vec<u8>,
    crc: crc32fast::Hasher,
    /// Records per 16-bit prefix, ascending.
    prefixes: Vec<(u16, u64)>,
    /// First and last hash.
    first: Option<SortKey>,
    last: Option<SortKey>,
    records: u64,
    total: u64,
    /// Records merged into an equal hash before them.
    pub duplicates: u64,
}

impl EncodedRun {
    /// Encodes `sorted` (in hash order; equal hashes adjacent) for an index
    /// of `kind`.
    pub fn new(sorted: &[Record], kind: HashKind) -> Self {
        let mut run = EncodedRun {
            bytes: Vec::with_capacity(sorted.len() * format::record_len(kind)),
            crc: crc32fast::Hasher::new(),
            prefixes: Vec::new(),
            first: sorted.first().map(|r| sort_key(r)),
            last: sorted.last().map(|r| sort_key(r)),
            records: 0,
            total: 0,
            duplicates: 0,
        };
        let key_len = kind.byte_len();
        let mut merge = MergeCounts::default();
        for r in sorted {
            if let Some(done) = merge.push(r) {
                run.encode(&done, key_len);
            }
        }
        if let Some(done) = merge.finish() {
            run.encode(&done, key_len);
        }
        run.duplicates = merge.duplicates;
        run.crc.update(&run.bytes);
        run
    }

    /// Appends one distinct record's index form: its hash after the
    /// prefix bytes, then its count.
    #[inline]
    fn encode(&mut self, r: &Record, key_len: usize) {
        let prefix = u16::from_be_bytes([r[0], r[1]]);
        match self.prefixes.last_mut() {
            Some((p, n)) if *p == prefix => *n += 1,
            _ => self.prefixes.push((prefix, 1)),
        }
        // Fixed-size copies (the longest form, cut back for a shorter
        // hash) instead of two copies of run-time length per record.
        let mut out = [0u8; HASH_BYTES - PREFIX_BYTES + 4];
        let suffix = key_len - PREFIX_BYTES;
        out[..HASH_BYTES - PREFIX_BYTES].copy_from_slice(&r[PREFIX_BYTES..HASH_BYTES]);
        out[suffix..suffix + 4].copy_from_slice(&r[HASH_BYTES..]);
        if suffix + 4 == out.len() {
            self.bytes.extend_from_slice(&out);
        } else {
            self.bytes.extend_from_slice(&out[..suffix + 4]);
        }
        self.records += 1;
        self.total += u64::from(record::count(r));
    }
}

impl IndexWriter {
    /// Appends a run encoded by [`EncodedRun::new`], whose hashes must all
    /// follow the last one written.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if the run does not follow.
    pub(crate) fn append(&mut self, run: &EncodedRun) -> io::Result<()> {
        let Some(first) = run.first else {
            return Ok(());
        };
        self.check_follows(first)?;
        self.flush_buf()?;
        let summed = self.sums.update(&run.bytes);
        summed.map_err(|e| self.file.error(e))?;
        write_all(&mut self.file, &run.bytes)?;
        self.crc.combine(&run.crc);
        for &(prefix, n) in &run.prefixes {
            self.fanout[usize::from(prefix) + 1] += n;
        }
        self.records += run.records;
        self.total += run.total;
        self.last = run.last;
        Ok(())
    }
}

/// Writes `bytes` to `file`, naming it in an error.
fn write_all(file: &mut PartialFile, bytes: &[u8]) -> io::Result<()> {
    file.file().write_all(bytes).map_err(|e| file.error(e))
}
