//! The typed run's router: the decoded batches' rows to their groups, as
//! rows of the input's own types.
//!
//! Batches are gathered until they hold `send_bytes`; their rows are then
//! put in group order at once — one `interleave` (or `take`) per column
//! of the gathered rows, stable, so each group's rows keep their input
//! order — and each group is sent its rows as one zero-copy slice of that
//! sorted batch. Taking each small decoded batch apart per key instead
//! made a handful of tiny arrays per key and column, and the allocations
//! and copies of those were most of the run.
//!
//! The same job as the text router (`--where`, one key per grouping, a
//! group per new key), on columns rather than records: a key is its
//! column's value as text ([`for_each_key`]), a `--where` is matched on
//! that same text.
//!
//! # Bounds
//!
//! The batches gathered hold about `send_bytes` (the last one taken may
//! go past it). Their sorted copy is charged to the [`InFlight`] gate (at
//! the gathered batches' size) before it is made, and given back once
//! every slice of it is written, so the sorted rows on their way to the
//! writers stay within the gate's limit.

use std::sync::Arc;

use arrow_array::{RecordBatch, UInt32Array};
use regex::bytes::Regex;

use super::arrow_error;
use super::in_flight::{Charge, InFlight, Rows};
use super::keys::for_each_key;
use crate::key_table::KeyTable;
use crate::outputs::Outputs;
use crate::PartitionError;

/// A row `--where` dropped.
const DROPPED: u32 = u32::MAX;

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
    /// Per group: rows routed.
    rows: Vec<u64>,
    /// Batches gathered, and their bytes.
    gathered: Vec<RecordBatch>,
    gathered_bytes: usize,
    send_bytes: usize,
    in_flight: Arc<InFlight>,
    records_in: u64,
    filtered: u64,
}

impl TypedRouter {
    /// A router keying grouping `g` on column `by[g]` and writing the
    /// columns `keep[g]`, sorting batches of `send_bytes` and sending
    /// them through `in_flight`.
    pub fn new(
        by: Vec<usize>,
        keep: Vec<Vec<usize>>,
        filters: Vec<TypedFilter>,
        send_bytes: usize,
        in_flight: Arc<InFlight>,
    ) -> Self {
        let keys = by.iter().map(|_| KeyTable::default()).collect();
        TypedRouter {
            by,
            keep,
            filters,
            keys,
            rows: Vec::new(),
            gathered: Vec::new(),
            gathered_bytes: 0,
            send_bytes,
            in_flight,
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

    /// Takes `batch`'s rows, routing the batches gathered once they hold
    /// `send_bytes`.
    ///
    /// # Errors
    ///
    /// As [`flush_all`](Self::flush_all).
    pub fn route(
        &mut self,
        batch: RecordBatch,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        self.records_in += batch.num_rows() as u64;
        self.gathered_bytes += batch.get_array_memory_size();
        self.gathered.push(batch);
        if self.gathered_bytes >= self.send_bytes {
            self.flush_all(outputs)?;
        }
        Ok(())
    }

    /// Routes the batches gathered, adding groups to `outputs` as keys
    /// appear.
    ///
    /// # Errors
    ///
    /// A key Arrow cannot display, a worker's failure or a cancellation.
    pub fn flush_all(&mut self, outputs: &mut Outputs) -> Result<(), PartitionError> {
        let batches = std::mem::take(&mut self.gathered);
        let bytes = std::mem::take(&mut self.gathered_bytes);
        if batches.is_empty() {
            return Ok(());
        }
        let mut kept: Vec<Vec<bool>> = (batches.iter()).map(|b| vec![true; b.num_rows()]).collect();
        for f in &self.filters {
            for (batch, kept) in batches.iter().zip(&mut kept) {
                for_each_key(batch.column(f.index), |row, value| {
                    kept[row] &= f.regex.is_match(value) != f.negate;
                    Ok(())
                })?;
            }
        }
        self.filtered += (kept.iter().flatten()).filter(|k| !**k).count() as u64;
        for grouping in 0..self.by.len() {
            let gids = self.group_ids(grouping, &batches, &kept, outputs)?;
            // The sorted copy is as large as the batches: it waits for
            // room before it is made.
            let charge = (self.in_flight).charge(bytes, || outputs.check())?;
            self.send_sorted(grouping, &batches, &gids, &charge, outputs)?;
        }
        Ok(())
    }

    /// Each row's group (adding the new keys' groups), [`DROPPED`] for
    /// the rows `--where` dropped; per batch.
    fn group_ids(
        &mut self,
        grouping: usize,
        batches: &[RecordBatch],
        kept: &[Vec<bool>],
        outputs: &mut Outputs,
    ) -> Result<Vec<Vec<u32>>, PartitionError> {
        let (keys, rows_of) = (&mut self.keys[grouping], &mut self.rows);
        let mut all = Vec::with_capacity(batches.len());
        for (batch, kept) in batches.iter().zip(kept) {
            let mut gids = Vec::with_capacity(batch.num_rows());
            for_each_key(batch.column(self.by[grouping]), |row, key| {
                if !kept[row] {
                    gids.push(DROPPED);
                    return Ok(());
                }
                let gid = keys.get(key).unwrap_or_else(|| {
                    let gid = outputs.add(grouping, key);
                    keys.insert(key, gid);
                    rows_of.push(0);
                    gid
                });
                gids.push(gid);
                Ok(())
            })?;
            all.push(gids);
        }
        Ok(all)
    }

    /// Puts the rows of `batches` in group order (stable) and sends each
    /// group its slice.
    fn send_sorted(
        &mut self,
        grouping: usize,
        batches: &[RecordBatch],
        gids: &[Vec<u32>],
        charge: &Arc<Charge>,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        // Counting sort: where each group's rows start in the sorted batch.
        let mut starts = vec![0usize; outputs.len() + 1];
        for &gid in gids.iter().flatten().filter(|&&g| g != DROPPED) {
            starts[gid as usize + 1] += 1;
        }
        for g in 1..starts.len() {
            starts[g] += starts[g - 1];
        }
        let total = starts[starts.len() - 1];
        if total == 0 {
            return Ok(());
        }
        let mut next = starts.clone();
        let mut order = vec![(0usize, 0usize); total];
        for (b, gids) in gids.iter().enumerate() {
            for (row, &gid) in gids.iter().enumerate().filter(|(_, &g)| g != DROPPED) {
                order[next[gid as usize]] = (b, row);
                next[gid as usize] += 1;
            }
        }
        let keep = &self.keep[grouping];
        let sorted = if let [batch] = batches {
            let rows = UInt32Array::from_iter_values(order.iter().map(|&(_, row)| row as u32));
            let projected = batch.project(keep).map_err(arrow_error)?;
            arrow_select::take::take_record_batch(&projected, &rows)
        } else {
            let projected = (batches.iter())
                .map(|b| b.project(keep))
                .collect::<Result<Vec<_>, _>>()
                .map_err(arrow_error)?;
            let refs: Vec<&RecordBatch> = projected.iter().collect();
            arrow_select::interleave::interleave_record_batch(&refs, &order)
        }
        .map_err(arrow_error)?;
        drop(order);
        for gid in 0..starts.len() - 1 {
            let (start, end) = (starts[gid], starts[gid + 1]);
            if start == end {
                continue;
            }
            self.rows[gid] += (end - start) as u64;
            let rows = Rows {
                batch: sorted.slice(start, end - start),
                _charge: charge.clone(),
            };
            outputs.send_batches(gid as u32, rows)?;
        }
        Ok(())
    }
}
