//! One entry point for every layout fed with hashes already in hash order:
//! [`SortedWriter`] picks the layout's writer and hands it the hashes.
//!
//! Two callers have such a stream and no need for the build's parsing and
//! sorting: [`convert`](crate::build::convert) reads a full index prefix by
//! prefix, and a download (`spool-download`) receives the range API's
//! answers, which are sorted within a range and come in prefix order.
//! Both must write the very bytes a build of the same hashes writes, so
//! both go through here.

use std::io;
use std::path::Path;

use crate::build::convert::{shard_bits, FILTER_BYTES_PER_KEY};
use crate::format::{self, HashKind, Header, IndexLayout, PREFIX_BYTES};

use super::filter::FilterWriter;
use super::t64::T64Writer;
use super::IndexWriter;

/// Writes an index of any layout from hashes that arrive in hash order.
/// Like every writer it writes under a hidden temporary name beside the
/// target and renames the file into place in [`finish`](Self::finish);
/// dropping it unfinished removes the temporary file. The caller holds the
/// output's lock ([`OutputLock`](spool_io::write::OutputLock)).
///
/// # Examples
///
/// ```
/// use spool_pwned::build::SortedWriter;
/// use spool_pwned::format::IndexLayout;
/// use spool_pwned::{AnyIndex, HashKind};
/// let dir = std::env::temp_dir().join(format!("spool-sorted-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let out = dir.join("index");
/// let mut writer = SortedWriter::create(&out, HashKind::Sha1, IndexLayout::T64, 2, 512 << 20).unwrap();
/// writer.push(&[0x11; 20], 3).unwrap();
/// writer.push(&[0x22; 20], 4).unwrap();
/// let header = writer.finish().unwrap();
/// assert_eq!(header.records, 2);
/// assert_eq!(AnyIndex::open(&out).unwrap().check(&[0x22; 20]).unwrap().count(), Some(4));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct SortedWriter {
    kind: HashKind,
    writer: Box<dyn LayoutWriter + Send>,
}

impl SortedWriter {
    /// Starts writing `output` in `layout`. `records` is the number of
    /// hashes that will be pushed: a filter needs it first to choose its
    /// shards within `memory` (see [`shard_bits`]), the other layouts
    /// ignore both.
    ///
    /// # Errors
    ///
    /// If the temporary file cannot be created.
    pub fn create(
        output: &Path,
        kind: HashKind,
        layout: IndexLayout,
        records: u64,
        memory: usize,
    ) -> io::Result<Self> {
        let writer: Box<dyn LayoutWriter + Send> = match layout {
            IndexLayout::Sorted => Box::new(IndexWriter::create(output, kind)?),
            IndexLayout::T64 => Box::new(T64Writer::create(output, kind)?),
            IndexLayout::Filter => {
                let bits = shard_bits(records, memory);
                let shard = records >> bits;
                let reserve = shard
                    .saturating_add(shard / 16)
                    .min((memory / FILTER_BYTES_PER_KEY) as u64);
                Box::new(FilterWriter::create(output, kind, bits, reserve as usize)?)
            }
        };
        Ok(SortedWriter { kind, writer })
    }

    /// Adds one hash (`kind.byte_len()` bytes, after the previous one in
    /// hash order) and its count.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if the hash is out of order.
    #[inline]
    pub fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        self.writer.push(hash, count)
    }

    /// Adds the records of 20-bit range `prefix` as a full index stores
    /// them, after the hashes pushed so far: copied in one piece into a
    /// full index (see [`IndexWriter::append_range`]), pushed hash by hash
    /// into the other layouts.
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push)'s, and `InvalidInput` if `records` is not
    /// whole records of `prefix`.
    pub fn push_range(&mut self, prefix: u32, records: &[u8]) -> io::Result<()> {
        self.writer.push_range(self.kind, prefix, records)
    }

    /// Finishes the index and renames it into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn finish(self) -> io::Result<Header> {
        self.writer.finish()
    }
}

/// A writer of some layout, fed hashes in order.
trait LayoutWriter {
    fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()>;
    fn finish(self: Box<Self>) -> io::Result<Header>;

    /// The records of a range, hash by hash.
    fn push_range(&mut self, kind: HashKind, prefix: u32, records: &[u8]) -> io::Result<()> {
        let len = format::record_len(kind);
        if !records.len().is_multiple_of(len) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("records that are not those of range {prefix:05X}"),
            ));
        }
        let mut hash = [0u8; 20];
        hash[..PREFIX_BYTES].copy_from_slice(&((prefix >> 4) as u16).to_be_bytes());
        for record in records.chunks_exact(len) {
            let (key, count) = record.split_at(len - 4);
            hash[PREFIX_BYTES..kind.byte_len()].copy_from_slice(key);
            let count = u32::from_le_bytes(count.try_into().expect("4 bytes"));
            self.push(&hash[..kind.byte_len()], count)?;
        }
        Ok(())
    }
}

impl LayoutWriter for IndexWriter {
    fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        IndexWriter::push(self, hash, count)
    }
    fn push_range(&mut self, _: HashKind, prefix: u32, records: &[u8]) -> io::Result<()> {
        IndexWriter::append_range(self, prefix, records)
    }
    fn finish(self: Box<Self>) -> io::Result<Header> {
        IndexWriter::finish(*self)
    }
}

impl LayoutWriter for T64Writer {
    fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        T64Writer::push(self, hash, count)
    }
    fn finish(self: Box<Self>) -> io::Result<Header> {
        T64Writer::finish(*self)
    }
}

impl LayoutWriter for FilterWriter {
    fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        FilterWriter::push(self, hash, count)
    }
    fn finish(self: Box<Self>) -> io::Result<Header> {
        FilterWriter::finish(*self)
    }
}
