//! Sorting records in bounded memory: in-memory chunks sorted in parallel
//! buckets, spilled as sorted runs, merged; already-sorted input streams
//! straight through without temporary files.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

/// One hash (zero-padded to 20 bytes) and its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Record {
    /// The hash, left-aligned, zero-padded.
    pub key: [u8; 20],
    /// Prevalence count.
    pub count: u32,
}

/// Bytes one buffered record costs.
pub const RECORD_BYTES: usize = std::mem::size_of::<Record>();

/// The key as integers, so comparisons are two integer compares instead of
/// a `memcmp` call (which dominated the sort's profile).
#[inline]
fn int_key(r: &Record) -> (u128, u32) {
    (
        u128::from_be_bytes(r.key[..16].try_into().expect("16 bytes")),
        u32::from_be_bytes(r.key[16..].try_into().expect("4 bytes")),
    )
}

/// Sorts a chunk: partitions it by the key's top bit, then sorts the two
/// buckets on two threads (already-sorted chunks are left alone).
pub fn sort_chunk(chunk: &mut [Record]) {
    if chunk.windows(2).all(|w| int_key(&w[0]) <= int_key(&w[1])) {
        return;
    }
    let mut split = 0;
    for i in 0..chunk.len() {
        if chunk[i].key[0] < 0x80 {
            chunk.swap(i, split);
            split += 1;
        }
    }
    let (low, high) = chunk.split_at_mut(split);
    std::thread::scope(|s| {
        s.spawn(|| low.sort_unstable_by_key(int_key));
        high.sort_unstable_by_key(int_key);
    });
}

/// Writes a sorted run to a temporary file.
pub fn write_run(dir: &std::path::Path, n: usize, chunk: &[Record]) -> io::Result<PathBuf> {
    let path = dir.join(format!("run-{n:05}"));
    let mut out = BufWriter::with_capacity(
        1 << 20,
        File::create(&path).map_err(|e| crate::writer::with_path(e, &path))?,
    );
    for r in chunk {
        out.write_all(&r.key)?;
        out.write_all(&r.count.to_le_bytes())?;
    }
    out.flush()
        .map_err(|e| crate::writer::with_path(e, &path))?;
    Ok(path)
}

struct RunReader(BufReader<File>);

impl RunReader {
    fn next(&mut self) -> io::Result<Option<Record>> {
        let mut buf = [0u8; 24];
        match self.0.read_exact(&mut buf) {
            Ok(()) => {
                let mut key = [0u8; 20];
                key.copy_from_slice(&buf[..20]);
                Ok(Some(Record {
                    key,
                    count: u32::from_le_bytes(buf[20..].try_into().expect("4 bytes")),
                }))
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Merges sorted runs and a sorted in-memory tail, calling `emit` for each
/// record in order (duplicates still adjacent, not yet merged).
pub fn merge(
    runs: &[PathBuf],
    tail: &[Record],
    mut emit: impl FnMut(Record) -> io::Result<()>,
) -> io::Result<()> {
    let mut readers = Vec::with_capacity(runs.len());
    for path in runs {
        let file = File::open(path).map_err(|e| crate::writer::with_path(e, path))?;
        readers.push(RunReader(BufReader::with_capacity(1 << 20, file)));
    }
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(rec) = r.next()? {
            heap.push(Reverse((rec.key, i, rec.count)));
        }
    }
    let tail_id = readers.len();
    let mut tail_iter = tail.iter();
    if let Some(rec) = tail_iter.next() {
        heap.push(Reverse((rec.key, tail_id, rec.count)));
    }
    while let Some(Reverse((key, i, count))) = heap.pop() {
        emit(Record { key, count })?;
        let next = if i == tail_id {
            tail_iter.next().copied()
        } else {
            readers[i].next()?
        };
        if let Some(rec) = next {
            heap.push(Reverse((rec.key, i, rec.count)));
        }
    }
    Ok(())
}
