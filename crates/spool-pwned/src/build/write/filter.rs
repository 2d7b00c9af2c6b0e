//! Writes a filter index (layout in the format's `filter.rs`) from hashes in
//! hash order: the 64-bit keys of one shard are collected, and when the first
//! key of a later shard arrives the shard's binary fuse filter is built with
//! `xorf`, its fingerprints written, and the keys dropped. Memory holds one
//! shard.

use std::io;
use std::path::Path;

use xorf::BinaryFuse16;

use crate::format::filter::{key_of, shard_of, Shard, BLOCK_SHIFT, SHARD_ENTRY_LEN};
use crate::format::{HashKind, Header, IndexLayout, HEADER_LEN};

use super::body::BodyWriter;
use super::t64::out_of_order;

/// Writes a filter index; see the module docs.
pub(crate) struct FilterWriter {
    kind: HashKind,
    body: BodyWriter,
    bits: u8,
    /// The shard whose keys are being collected.
    shard: usize,
    keys: Vec<u64>,
    table: Vec<u8>,
    fingerprints: u64,
    records: u64,
    total: u64,
}

impl FilterWriter {
    /// Starts writing `target` (via a temporary name beside it) with
    /// `2^bits` shards; `shard_keys` is the expected number of keys per
    /// shard (memory for them is reserved once).
    ///
    /// # Errors
    ///
    /// If the temporary files cannot be created.
    ///
    /// # Panics
    ///
    /// If `bits` is over 16.
    pub fn create(target: &Path, kind: HashKind, bits: u8, shard_keys: usize) -> io::Result<Self> {
        assert!(bits <= 16, "at most 16 shard bits");
        let table_len = SHARD_ENTRY_LEN << bits;
        Ok(FilterWriter {
            kind,
            body: BodyWriter::create(target, HEADER_LEN + table_len, BLOCK_SHIFT)?,
            bits,
            shard: 0,
            keys: Vec::with_capacity(shard_keys),
            table: Vec::with_capacity(table_len),
            fingerprints: 0,
            records: 0,
            total: 0,
        })
    }

    /// Adds `hash` (at least 8 bytes; hashes in non-decreasing order); its
    /// count only adds to the header's total.
    ///
    /// # Errors
    ///
    /// I/O errors, `InvalidInput` if hashes are out of order, and `Other`
    /// if a shard's filter cannot be built.
    pub fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        let key = key_of(hash);
        self.total += u64::from(count);
        match self.keys.last() {
            Some(&last) if last == key => return Ok(()),
            Some(&last) if last > key => return Err(out_of_order()),
            _ => {}
        }
        let shard = shard_of(key, self.bits);
        if shard < self.shard {
            return Err(out_of_order());
        }
        while self.shard < shard {
            self.close_shard()?;
        }
        self.keys.push(key);
        Ok(())
    }

    /// Builds the current shard's filter, writes it, and moves to the next
    /// shard.
    fn close_shard(&mut self) -> io::Result<()> {
        let mut shard = Shard {
            first: self.fingerprints,
            len: 0,
            segment_length: 0,
            segment_length_mask: 0,
            segment_count_length: 0,
            seed: 0,
        };
        if !self.keys.is_empty() {
            let filter = BinaryFuse16::try_from(&self.keys).map_err(|e| {
                io::Error::other(format!("building the filter of shard {}: {e}", self.shard))
            })?;
            let d = &filter.descriptor;
            (shard.segment_length, shard.segment_length_mask) =
                (d.segment_length, d.segment_length_mask);
            (shard.segment_count_length, shard.seed) = (d.segment_count_length, d.seed);
            shard.len = u32::try_from(filter.fingerprints.len())
                .map_err(|_| io::Error::other(format!("shard {} has too many keys", self.shard)))?;
            let mut bytes = Vec::with_capacity(2 * filter.fingerprints.len());
            for f in filter.fingerprints.iter() {
                bytes.extend_from_slice(&f.to_le_bytes());
            }
            self.body.write(&bytes)?;
            self.fingerprints += u64::from(shard.len);
            self.records += self.keys.len() as u64;
            self.keys.clear();
        }
        self.table.extend_from_slice(&shard.encode());
        self.shard += 1;
        Ok(())
    }

    /// Builds the remaining shards, writes the table and the header, and
    /// renames the file into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file, and `Other` if a filter cannot be
    /// built.
    pub fn finish(mut self) -> io::Result<Header> {
        while self.shard < 1 << self.bits {
            self.close_shard()?;
        }
        let header = Header {
            kind: self.kind,
            records: self.records,
            total_count: self.total,
            data_crc: 0,
            block_shift: BLOCK_SHIFT,
            layout: IndexLayout::Filter,
            prefix_bits: self.bits,
            items: self.fingerprints,
        };
        let table = std::mem::take(&mut self.table);
        self.body.finish(&table, header)
    }
}
