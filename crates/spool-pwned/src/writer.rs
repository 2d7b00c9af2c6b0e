//! Writes a full index from records that arrive sorted by hash, in one
//! pass: the records stream through a [`BodyWriter`] (which computes the
//! checksums as they go), the fanout table is counted on the way and
//! written last, at the front.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom};
use std::path::Path;

use crate::body::BodyWriter;
use crate::format::{self, Header, Layout, BLOCK_SHIFT, FANOUT_ENTRIES, PREFIX_BITS, PREFIX_BYTES};
use crate::record::{self, sort_key, Record, SortKey, HASH_BYTES, RECORD_BYTES};
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

/// Bytes of a record's index form for the longest hash (SHA-1): the hash
/// after its prefix bytes, and the count.
const ENCODED_MOST: usize = RECORD_BYTES - PREFIX_BYTES;

impl EncodedRun {
    /// Encodes `sorted` (in hash order; equal hashes adjacent) for an index
    /// of `kind`, into `bytes` (emptied first: a vector handed back by
    /// [`into_bytes`](Self::into_bytes), so that runs reuse their buffers).
    pub fn new(sorted: &[Record], kind: HashKind, mut bytes: Vec<u8>) -> Self {
        // Sized up front (zero-filled only where it grows), so that each
        // record is a copy of a fixed size, not a call to `memcpy`.
        let most = sorted.len() * ENCODED_MOST;
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
        let suffix = kind.byte_len() - PREFIX_BYTES;
        let encoded = encode_merged(sorted, suffix, &mut run.bytes, &mut run.prefixes);
        (run.len, run.total, run.duplicates) = encoded;
        run.records = run.prefixes.iter().map(|p| p.1).sum();
        run.crc.update(&run.bytes[..run.len]);
        run
    }

    /// The buffer of the encoded bytes, for the next run.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Encodes `sorted` (equal hashes adjacent) into `bytes` (room for
/// [`ENCODED_MOST`] bytes per record) as index records of `suffix` hash
/// bytes and a count, the counts of equal hashes added up as
/// [`MergeCounts`](record::MergeCounts) does; appends the records per
/// prefix to `prefixes`. Returns the bytes written, the sum of the counts
/// and the records merged into an equal hash before them.
fn encode_merged(
    sorted: &[Record],
    suffix: usize,
    bytes: &mut [u8],
    prefixes: &mut Vec<(u16, u64)>,
) -> (usize, u64, u64) {
    // The suffix a constant in each copy of the loop: fewer values live
    // in it, none of them spilled to the stack.
    match suffix {
        18 => encode_merged_of::<18>(sorted, bytes, prefixes),
        14 => encode_merged_of::<14>(sorted, bytes, prefixes),
        _ => unreachable!("a hash suffix of {suffix} bytes"),
    }
}

/// [`encode_merged`] for hashes of `SUFFIX` bytes after the prefix: the
/// hot loop of the final phase.
fn encode_merged_of<const SUFFIX: usize>(
    sorted: &[Record],
    bytes: &mut [u8],
    prefixes: &mut Vec<(u16, u64)>,
) -> (usize, u64, u64) {
    let lead = |r: &Record| u64::from_ne_bytes(r[..8].try_into().expect("8 bytes"));
    let prefix_of = |r: &Record| u16::from_be_bytes([r[0], r[1]]);
    let Some(first) = sorted.first() else {
        return (0, 0, 0);
    };
    // Records written so far, and where the current prefix's began.
    let (mut written, mut prefix_start, mut prefix) = (0u64, 0u64, prefix_of(first));
    let mut total = 0u64;
    let mut i = 0;
    while let Some(r) = sorted.get(i) {
        let mut n = record::count(r);
        i += 1;
        while let Some(next) = sorted.get(i) {
            if lead(next) != lead(r) || next[..HASH_BYTES] != r[..HASH_BYTES] {
                break;
            }
            n = n.saturating_add(record::count(next));
            i += 1;
        }
        if prefix_of(r) != prefix {
            prefixes.push((prefix, written - prefix_start));
            (prefix, prefix_start) = (prefix_of(r), written);
        }
        // The hash after its prefix, then the count: one copy of a fixed
        // size (a shorter hash's record runs over; the next one overwrites
        // it), then the merged count in its place.
        let at = written as usize * (SUFFIX + 4);
        let out: &mut [u8; ENCODED_MOST] = (&mut bytes[at..at + ENCODED_MOST])
            .try_into()
            .expect("room for the longest form");
        *out = r[PREFIX_BYTES..].try_into().expect("22 bytes");
        out[SUFFIX..SUFFIX + 4].copy_from_slice(&n.to_le_bytes());
        written += 1;
        total += u64::from(n);
    }
    prefixes.push((prefix, written - prefix_start));
    let duplicates = sorted.len() as u64 - written;
    (written as usize * (SUFFIX + 4), total, duplicates)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{record, MergeCounts};
    use proptest::prelude::*;

    proptest! {
        /// Against `MergeCounts` and the record format written out field
        /// by field: equal hashes merged, prefixes counted, both hash
        /// lengths.
        #[test]
        fn encodes_like_merged_records_written_one_by_one(
            mut raw in proptest::collection::vec((0u16..6, 0u8..3, any::<u32>()), 0..200),
            ntlm: bool,
        ) {
            let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
            let len = kind.byte_len();
            raw.sort();
            let sorted: Vec<Record> = raw
                .iter()
                .map(|&(prefix, rest, count)| {
                    let mut k = [0u8; 20];
                    k[..2].copy_from_slice(&prefix.to_be_bytes());
                    k[2] = rest;
                    k[len - 1] = rest ^ 0x5A;
                    record(&k, count)
                })
                .collect();
            let mut merge = MergeCounts::default();
            let mut merged: Vec<Record> = sorted.iter().filter_map(|r| merge.push(r)).collect();
            merged.extend(merge.finish());
            let mut want = Vec::new();
            let mut want_prefixes: Vec<(u16, u64)> = Vec::new();
            for r in &merged {
                want.extend_from_slice(&r[PREFIX_BYTES..len]);
                want.extend_from_slice(&record::count(r).to_le_bytes());
                let p = u16::from_be_bytes([r[0], r[1]]);
                match want_prefixes.last_mut() {
                    Some((q, n)) if *q == p => *n += 1,
                    _ => want_prefixes.push((p, 1)),
                }
            }
            let run = EncodedRun::new(&sorted, kind, vec![1, 2, 3]);
            prop_assert_eq!(&run.bytes[..run.len], &want[..]);
            prop_assert_eq!(&run.prefixes, &want_prefixes);
            prop_assert_eq!(run.records, merged.len() as u64);
            prop_assert_eq!(run.duplicates, merge.duplicates);
            let total: u64 = merged.iter().map(|r| u64::from(record::count(r))).sum();
            prop_assert_eq!(run.total, total);
            prop_assert_eq!(run.crc.clone().finalize(), crc32fast::hash(&want));
        }
    }
}
