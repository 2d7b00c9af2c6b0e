//! The typed run's router: each batch's rows to their groups, as rows of
//! the input's own types, taken per group (`take`) and gathered until a
//! group has enough to send to its writer thread.
//!
//! The same job as the text router (`--where`, one key per grouping, a
//! group per new key), on columns rather than records: a key is its
//! column's value as text ([`for_each_key`]), a `--where` is matched on
//! that same text.
//!
//! # Bounds
//!
//! Rows waiting to be sent are charged by their Arrow buffers' size; a
//! group is sent once it holds `send_bytes`, and when all of them hold
//! more than `budget`, the largest are sent until half of it is left.

use arrow_array::{RecordBatch, UInt32Array};
use regex::bytes::Regex;

use super::arrow_error;
use super::keys::for_each_key;
use crate::key_table::KeyTable;
use crate::outputs::Outputs;
use crate::PartitionError;

/// Rows of one group waiting to be sent.
#[derive(Default)]
struct Pending {
    batches: Vec<RecordBatch>,
    bytes: usize,
}

/// A resolved `--where`: its column, pattern and sense.
pub(crate) struct TypedFilter {
    pub index: usize,
    pub regex: Regex,
    pub negate: bool,
}

/// Batches to groups; see the module docs.
pub(crate) struct TypedRouter {
    /// Per grouping: the key column, and the columns its files keep.
    by: Vec<usize>,
    keep: Vec<Vec<usize>>,
    filters: Vec<TypedFilter>,
    keys: Vec<KeyTable>,
    /// Per group: rows routed, rows waiting.
    rows: Vec<u64>,
    pending: Vec<Pending>,
    pending_bytes: usize,
    send_bytes: usize,
    budget: usize,
    /// This batch's rows of each group (scratch), and the groups it has.
    indices: Vec<Vec<u32>>,
    touched: Vec<u32>,
    records_in: u64,
    filtered: u64,
}

impl TypedRouter {
    /// A router keying grouping `g` on column `by[g]` and writing the
    /// columns `keep[g]`, sending a group at `send_bytes` and keeping all
    /// groups' rows within `budget`.
    pub fn new(
        by: Vec<usize>,
        keep: Vec<Vec<usize>>,
        filters: Vec<TypedFilter>,
        send_bytes: usize,
        budget: usize,
    ) -> Self {
        let keys = by.iter().map(|_| KeyTable::default()).collect();
        TypedRouter {
            by,
            keep,
            filters,
            keys,
            rows: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            send_bytes,
            budget,
            indices: Vec::new(),
            touched: Vec::new(),
            records_in: 0,
            filtered: 0,
        }
    }

    /// Rows read and rows dropped by `--where`.
    pub fn counts(&self) -> (u64, u64) {
        (self.records_in, self.filtered)
    }

    /// Rows routed to group `gid`.
    pub fn records(&self, gid: usize) -> u64 {
        self.rows[gid]
    }

    /// Routes `batch`'s rows, adding groups to `outputs` as keys appear.
    ///
    /// # Errors
    ///
    /// A key Arrow cannot display, a worker's failure or a cancellation.
    pub fn route(
        &mut self,
        batch: &RecordBatch,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let rows = batch.num_rows();
        self.records_in += rows as u64;
        let mut kept = vec![true; rows];
        for f in &self.filters {
            for_each_key(batch.column(f.index), |row, value| {
                kept[row] &= f.regex.is_match(value) != f.negate;
                Ok(())
            })?;
        }
        self.filtered += kept.iter().filter(|k| !**k).count() as u64;
        for grouping in 0..self.by.len() {
            let (keys, indices, touched) = (
                &mut self.keys[grouping],
                &mut self.indices,
                &mut self.touched,
            );
            let (rows_of, pending) = (&mut self.rows, &mut self.pending);
            for_each_key(batch.column(self.by[grouping]), |row, key| {
                if !kept[row] {
                    return Ok(());
                }
                let gid = match keys.get(key) {
                    Some(gid) => gid,
                    None => {
                        let gid = outputs.add(grouping, key);
                        keys.insert(key, gid);
                        rows_of.push(0);
                        pending.push(Pending::default());
                        indices.push(Vec::new());
                        gid
                    }
                };
                let rows = &mut indices[gid as usize];
                if rows.is_empty() {
                    touched.push(gid);
                }
                rows.push(row as u32);
                Ok(())
            })?;
            let projected = batch.project(&self.keep[grouping]).map_err(arrow_error)?;
            for gid in std::mem::take(&mut self.touched) {
                let g = gid as usize;
                let rows = UInt32Array::from(std::mem::take(&mut self.indices[g]));
                let taken = arrow_select::take::take_record_batch(&projected, &rows)
                    .map_err(arrow_error)?;
                let bytes = taken.get_array_memory_size();
                self.rows[g] += taken.num_rows() as u64;
                self.pending[g].batches.push(taken);
                self.pending[g].bytes += bytes;
                self.pending_bytes += bytes;
                if self.pending[g].bytes >= self.send_bytes {
                    self.send(gid, outputs)?;
                }
            }
        }
        if self.pending_bytes > self.budget {
            self.relieve(outputs)?;
        }
        Ok(())
    }

    /// Sends the largest groups until half the budget is left.
    fn relieve(&mut self, outputs: &mut Outputs) -> Result<(), PartitionError> {
        let mut sizes: Vec<(usize, u32)> = (self.pending.iter().enumerate())
            .filter(|(_, p)| p.bytes > 0)
            .map(|(gid, p)| (p.bytes, gid as u32))
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        for (_, gid) in sizes {
            if self.pending_bytes <= self.budget / 2 {
                break;
            }
            self.send(gid, outputs)?;
        }
        Ok(())
    }

    fn send(&mut self, gid: u32, outputs: &mut Outputs) -> Result<(), PartitionError> {
        let pending = std::mem::take(&mut self.pending[gid as usize]);
        self.pending_bytes -= pending.bytes;
        outputs.send_batches(gid, pending.batches)
    }

    /// Sends every group's waiting rows.
    ///
    /// # Errors
    ///
    /// A worker's failure or a cancellation.
    pub fn flush_all(&mut self, outputs: &mut Outputs) -> Result<(), PartitionError> {
        for gid in 0..self.pending.len() {
            if !self.pending[gid].batches.is_empty() {
                self.send(gid as u32, outputs)?;
            }
        }
        Ok(())
    }
}
