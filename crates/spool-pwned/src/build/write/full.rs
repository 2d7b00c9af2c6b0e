//! Writes a full index from records that arrive sorted by hash, in one
//! pass: the records stream through a [`BodyWriter`] (which computes the
//! checksums as they go), the fanout table is counted on the way and
//! written last, at the front.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom};
use std::path::Path;

use crate::build::hash_count::{self, sort_key, HashCount, SortKey, HASH_BYTES};
use crate::format::{
    self, HashKind, Header, IndexLayout, BLOCK_SHIFT, FANOUT_ENTRIES, PREFIX_BITS, PREFIX_BYTES,
};

use super::body::BodyWriter;
use super::encoded_run::EncodedRun;

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
            layout: IndexLayout::Sorted,
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
        mut f: impl FnMut(HashCount) -> io::Result<()>,
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
                f(hash_count::hash_count(&key, count))?;
            }
        }
        Ok(())
    }
}

impl IndexWriter {
    /// Appends the records of 20-bit range `prefix` as an index stores
    /// them ([`RangeEntries::as_bytes`](crate::RangeEntries::as_bytes):
    /// hash bytes 2.. and the count), in one copy rather than a
    /// [`push`](Self::push) per hash: for ranges that arrive whole and
    /// checked, from another index or a download's journal.
    ///
    /// The records must be sorted and distinct, as in an index: only the
    /// first and the last are checked (that they belong to `prefix` and
    /// follow the last hash written), so the order within is the
    /// caller's to keep.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if `records` is not whole records of
    /// `prefix` or does not follow the last hash written.
    ///
    /// # Panics
    ///
    /// If `prefix` does not fit in 20 bits.
    pub fn append_range(&mut self, prefix: u32, records: &[u8]) -> io::Result<()> {
        assert!(
            prefix < 1 << 20,
            "a range prefix has 20 bits, got {prefix:#x}"
        );
        let len = format::record_len(self.kind);
        let key_len = len - 4;
        let (Some(first), Some(last)) = (records.get(..len), records.rchunks(len).next()) else {
            return Ok(());
        };
        let digit = (prefix & 0xF) as u8;
        if !records.len().is_multiple_of(len) || first[0] >> 4 != digit || last[0] >> 4 != digit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("records that are not those of range {prefix:05X}"),
            ));
        }
        let mut hash = [0u8; HASH_BYTES];
        hash[..PREFIX_BYTES].copy_from_slice(&((prefix >> 4) as u16).to_be_bytes());
        hash[PREFIX_BYTES..PREFIX_BYTES + key_len].copy_from_slice(&first[..key_len]);
        self.check_follows(sort_key(&hash))?;
        hash[PREFIX_BYTES..PREFIX_BYTES + key_len].copy_from_slice(&last[..key_len]);
        self.last = Some(sort_key(&hash));
        let n = (records.len() / len) as u64;
        self.fanout[(prefix >> 4) as usize + 1] += n;
        self.records += n;
        self.total += records
            .chunks_exact(len)
            .map(|r| {
                u64::from(u32::from_le_bytes(
                    r[key_len..].try_into().expect("4 bytes"),
                ))
            })
            .sum::<u64>();
        self.body.write(records)
    }

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
