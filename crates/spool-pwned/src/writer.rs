//! Writes a full index from records that arrive sorted by hash, in one
//! pass: the records stream through a [`BodyWriter`] (which computes the
//! checksums as they go), the fanout table is counted on the way and
//! written last, at the front.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom};
use std::path::Path;

use crate::body::BodyWriter;
use crate::format::{self, Header, Layout, BLOCK_SHIFT, FANOUT_ENTRIES, PREFIX_BITS, PREFIX_BYTES};
use crate::record::{self, sort_key, MergeCounts, Record, SortKey, HASH_BYTES};
use crate::HashKind;

/// Buffer for reading records back.
const BUFFER: usize = 1 << 20;

/// Builds an index file from sorted, distinct hashes. The file is written
/// under a hidden temporary name next to the target, flushed to disk and
/// renamed by [`finish`](IndexWriter::finish); dropping the writer
/// unfinished removes it.
pub struct IndexWriter {
    kind: HashKind,
    body: BodyWriter,
    fanout: Vec<u64>,
    records: u64,
    total: u64,
    /// The last hash written.
    last: Option<SortKey>,
}

impl IndexWriter {
    /// Starts writing `target` (via `.NAME.partial` beside it).
    ///
    /// # Errors
    ///
    /// If the temporary file cannot be created.
    pub fn create(target: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(Self {
            kind,
            body: BodyWriter::create(target, format::RECORDS_OFFSET, BLOCK_SHIFT)?,
            fanout: vec![0; FANOUT_ENTRIES],
            records: 0,
            total: 0,
            last: None,
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
        let mut rec = [0u8; HASH_BYTES + 4];
        let rec_len = len - PREFIX_BYTES + 4;
        rec[..len - PREFIX_BYTES].copy_from_slice(&key[PREFIX_BYTES..]);
        rec[len - PREFIX_BYTES..rec_len].copy_from_slice(&count.to_le_bytes());
        self.body.write(&rec[..rec_len])?;
        self.records += 1;
        self.total += u64::from(count);
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

    /// Writes the block checksums, the table and the header, syncs, and
    /// renames the file into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn finish(mut self) -> io::Result<Header> {
        let table = format::fanout_table(&mut self.fanout);
        let header = Header {
            kind: self.kind,
            records: self.records,
            total_count: self.total,
            data_crc: 0,
            block_shift: BLOCK_SHIFT,
            layout: Layout::Sorted,
            prefix_bits: PREFIX_BITS,
            items: 0,
        };
        self.body.finish(&table, header)
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
        self.body.flush()?;
        let opened = File::open(self.body.temp()).map_err(|e| self.body.error(e))?;
        let mut input = io::BufReader::with_capacity(BUFFER, opened);
        input.seek(SeekFrom::Start(format::RECORDS_OFFSET as u64))?;
        let len = format::record_len(self.kind);
        let key_len = self.kind.byte_len();
        let mut rec = vec![0u8; len];
        let mut key = [0u8; 20];
        for p in 0..FANOUT_ENTRIES - 1 {
            key[..PREFIX_BYTES].copy_from_slice(&(p as u16).to_be_bytes());
            for _ in 0..self.fanout[p + 1] {
                input.read_exact(&mut rec).map_err(|e| self.body.error(e))?;
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
    /// The encoded records are `bytes[..len]`; the rest is room kept for
    /// the next run that reuses the buffer.
    bytes: Vec<u8>,
    len: usize,
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
    /// of `kind`, into `bytes` (emptied first: a vector handed back by
    /// [`into_bytes`](Self::into_bytes), so that runs reuse their buffers).
    pub fn new(sorted: &[Record], kind: HashKind, mut bytes: Vec<u8>) -> Self {
        // Sized up front (zero-filled only where it grows), so that each
        // record is a copy of a fixed size, not a call to `memcpy`.
        let most = sorted.len() * (HASH_BYTES - PREFIX_BYTES + 4);
        if bytes.len() < most {
            bytes.resize(most, 0);
        }
        let mut run = EncodedRun {
            bytes,
            len: 0,
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
        run.crc.update(&run.bytes[..run.len]);
        run
    }

    /// The buffer of the encoded bytes, for the next run.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
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
        // A whole longest form always fits (see `new`); a shorter one is
        // cut back by the length.
        let at = self.len;
        self.bytes[at..at + out.len()].copy_from_slice(&out);
        self.len = at + suffix + 4;
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
        self.body.append_with_crc(&run.bytes[..run.len], &run.crc)?;
        for &(prefix, n) in &run.prefixes {
            self.fanout[usize::from(prefix) + 1] += n;
        }
        self.records += run.records;
        self.total += run.total;
        self.last = run.last;
        Ok(())
    }
}
