//! Writes a t64 index (layout in the format's `t64.rs`) from hashes in hash
//! order, in one pass: hashes that agree in their first 64 bits become one
//! record whose count is their sum; counts of 65,535 or more are written as
//! the escape value and kept in memory (12 bytes each, a few thousand in the
//! HIBP corpus) until the escape table is appended after the records.

use std::io;
use std::path::Path;

use crate::format::filter::key_of;
use crate::format::t64::{ESCAPED, ESCAPE_LEN, KEY_LEN, RECORD_LEN};
use crate::format::{
    self, HashKind, Header, IndexLayout, BLOCK_SHIFT, FANOUT_ENTRIES, PREFIX_BITS,
};

use super::body::BodyWriter;

/// Writes a t64 index; see the module docs.
pub(crate) struct T64Writer {
    kind: HashKind,
    body: BodyWriter,
    fanout: Vec<u64>,
    /// The last 64-bit key and its count so far (equal keys are merged).
    pending: Option<(u64, u32)>,
    escapes: Vec<u8>,
    records: u64,
    total: u64,
}

impl T64Writer {
    /// Starts writing `target` (via a temporary name beside it).
    ///
    /// # Errors
    ///
    /// If the temporary files cannot be created.
    pub fn create(target: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(T64Writer {
            kind,
            body: BodyWriter::create(target, format::RECORDS_OFFSET, BLOCK_SHIFT)?,
            fanout: vec![0; FANOUT_ENTRIES],
            pending: None,
            escapes: Vec::new(),
            records: 0,
            total: 0,
        })
    }

    /// Adds `hash` (at least 8 bytes; hashes in non-decreasing order) with
    /// its count.
    ///
    /// # Errors
    ///
    /// I/O errors, and `InvalidInput` if hashes are out of order.
    pub fn push(&mut self, hash: &[u8], count: u32) -> io::Result<()> {
        let key = key_of(hash);
        self.total += u64::from(count);
        match self.pending {
            Some((last, ref mut sum)) if last == key => {
                *sum = sum.saturating_add(count);
                return Ok(());
            }
            Some((last, _)) if last > key => return Err(out_of_order()),
            Some((last, sum)) => self.emit(last, sum)?,
            None => {}
        }
        self.pending = Some((key, count));
        Ok(())
    }

    fn emit(&mut self, key: u64, count: u32) -> io::Result<()> {
        self.fanout[(key >> 48) as usize + 1] += 1;
        let mut rec = [0u8; RECORD_LEN];
        rec[..KEY_LEN].copy_from_slice(&key.to_be_bytes()[8 - KEY_LEN..]);
        let stored = if count >= u32::from(ESCAPED) {
            self.escapes.extend_from_slice(&self.records.to_le_bytes());
            self.escapes.extend_from_slice(&count.to_le_bytes());
            ESCAPED
        } else {
            count as u16
        };
        rec[KEY_LEN..].copy_from_slice(&stored.to_le_bytes());
        self.records += 1;
        self.body.write(&rec)
    }

    /// Writes the last record, the escapes, the table and the header, and
    /// renames the file into place.
    ///
    /// # Errors
    ///
    /// I/O errors, naming the file.
    pub fn finish(mut self) -> io::Result<Header> {
        if let Some((key, count)) = self.pending.take() {
            self.emit(key, count)?;
        }
        self.body.write(&self.escapes)?;
        let table = format::fanout_table(&mut self.fanout);
        let header = Header {
            kind: self.kind,
            records: self.records,
            total_count: self.total,
            data_crc: 0,
            block_shift: BLOCK_SHIFT,
            layout: IndexLayout::T64,
            prefix_bits: PREFIX_BITS,
            items: (self.escapes.len() / ESCAPE_LEN) as u64,
        };
        self.body.finish(&table, header)
    }
}

/// The error for a hash that sorts before the one written last.
pub(crate) fn out_of_order() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "hashes must arrive in hash order",
    )
}
