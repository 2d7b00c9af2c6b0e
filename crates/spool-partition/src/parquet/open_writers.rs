//! A writer thread's open Parquet writers, each charged to the run's
//! budget for what it holds, and flushed when the budget runs short.
//!
//! A new group gets a writer while the thread has fewer than `max_open`
//! and the budget admits one more ([`WriterMemory::try_admit`]); a writer
//! then stays open to the end, so a group has one part file whatever the
//! number of keys — two if its writer had to be closed to keep the budget
//! (see below), its later records spilled. No LRU closes Parquet files: a
//! finished file cannot be appended to, and a group that came back would
//! start a new part each time.
//!
//! # Bounds
//!
//! An open writer is charged, to the same
//! [`ChunkPool`](spool_io::write::ChunkPool) budget as the router's
//! buffers, through [`WriterMemory`]:
//! - at open, [`writer_state_bytes`] for what it holds that
//!   `ArrowWriter::memory_size` does not report (column writers, level
//!   and page buffers, metadata builders), for as long as it is open;
//! - as it grows, every byte `memory_size()` reports (its in-progress row
//!   group's pages and dictionaries), and while a row group is in
//!   progress its columns' codec contexts, which libzstd allocates outside
//!   Rust's allocator ([`codec_state_bytes`](super::writer_costs::codec_state_bytes)),
//!   given back as row groups are flushed;
//! - per row group flushed, [`row_group_metadata_bytes`] for the metadata
//!   the file keeps for its footer; a writer whose next row group's
//!   metadata does not fit is finished, and its group spills.
//!
//! A row group is flushed when it reaches `row_group_bytes` or
//! `--row-group-size` rows, when a charge does not fit (the thread's
//! largest row groups go first), and when the router finds the budget
//! spent and raises the pressure epoch ([`relieve`](OpenWriters::relieve)).
//! Pages are as large as a row group may be, so a column chunk is
//! compressed once, as its row group is flushed: the compressor's state
//! lives only during that flush, one per thread, not one per open column.
//!
//! A spilled group's conversion at the end of the input has a writer that
//! is not charged ([`open_unbudgeted`](OpenWriters::open_unbudgeted)): the
//! [`MemoryPlan`](crate::MemoryPlan) sets aside one writer, one spill
//! piece and one batch per thread for it, like the batch of a direct
//! write.

use std::io;
use std::sync::Arc;

use super::options::dictionary_columns;
use super::parquet_run::ParquetRun;
use super::part::PartWriter;
use super::writer_costs::{row_group_metadata_bytes, writer_state_bytes, DICTIONARY_TABLE_BYTES};
use crate::writer_memory::WriterMemory;

struct OpenPart {
    writer: PartWriter,
    /// Columns in its file.
    columns: usize,
    /// Charged to the budget (a spilled group's conversion is not: see the
    /// module docs).
    budgeted: bool,
    /// Bytes of `writer.memory_size()` charged to the budget.
    charged: usize,
    /// Bytes charged for good while open: the writer's unreported state
    /// and its row groups' metadata.
    fixed: usize,
    /// The typical footprint it was admitted with.
    footprint: usize,
}

/// What an open writer holds that is charged as it grows: what
/// `memory_size()` reports, and while a row group is in progress its
/// columns' `codec` state (see [`codec_state_bytes`](super::writer_costs::codec_state_bytes)).
fn held(writer: &PartWriter, codec: usize) -> usize {
    let in_progress = if writer.in_progress_rows() > 0 {
        codec
    } else {
        0
    };
    writer.memory_size() + in_progress
}

/// One writer thread's open writers, by group; see the module docs.
pub(crate) struct OpenWriters {
    run: Arc<ParquetRun>,
    max_open: usize,
    open: foldhash::HashMap<u32, OpenPart>,
    /// The router's pressure epoch last acted on.
    seen_pressure: u64,
    /// Bytes of the part files finished so far.
    bytes_out: u64,
}

impl OpenWriters {
    /// None open yet; at most `max_open` (at least one) at a time.
    pub fn new(run: Arc<ParquetRun>, max_open: usize) -> Self {
        OpenWriters {
            run,
            max_open: max_open.max(1),
            open: foldhash::HashMap::default(),
            seen_pressure: 0,
            bytes_out: 0,
        }
    }

    fn memory(&self) -> &WriterMemory {
        &self.run.memory
    }

    /// Columns in the files of `grouping`.
    fn columns(&self, grouping: usize) -> usize {
        let table = self.run.table.get().expect("set before the first block");
        table.files[grouping].1.fields().len()
    }

    /// Group `gid`'s writer, if it has one open.
    pub fn get_mut(&mut self, gid: u32) -> Option<&mut PartWriter> {
        self.open.get_mut(&gid).map(|part| &mut part.writer)
    }

    /// Opens group `gid` (of `grouping`) a writer on the part `create`
    /// makes, if the thread has fewer than `max_open` open and the budget
    /// admits and has room for one more writer; `false` if not.
    ///
    /// # Errors
    ///
    /// What `create` returns.
    pub fn try_open(
        &mut self,
        gid: u32,
        grouping: usize,
        create: impl FnOnce() -> io::Result<PartWriter>,
    ) -> io::Result<bool> {
        let table = self.run.table.get().expect("set before the first block");
        let schema = &table.files[grouping].1;
        let (columns, dictionaries) = (schema.fields().len(), dictionary_columns(schema).count());
        let fixed = writer_state_bytes(columns);
        // Every string column may be written with delta lengths (the
        // choice is made at the first batch): its reservation counts.
        let footprint = fixed
            + dictionaries * (DICTIONARY_TABLE_BYTES + self.run.lengths_reserve)
            + columns * self.run.codec_bytes;
        if self.open.len() >= self.max_open || !self.memory().try_admit(footprint) {
            return Ok(false);
        }
        if !self.memory().try_charge(fixed) {
            self.memory().dismiss(footprint);
            return Ok(false);
        }
        let writer = match create() {
            Ok(w) => w,
            Err(e) => {
                self.memory().release(fixed);
                self.memory().dismiss(footprint);
                return Err(e);
            }
        };
        let part = OpenPart {
            writer,
            columns,
            budgeted: true,
            charged: 0,
            fixed,
            footprint,
        };
        self.open.insert(gid, part);
        Ok(true)
    }

    /// Opens group `gid` a writer on `writer` outside the budget, and
    /// outside `max_open` (a spilled group's conversion: see the module
    /// docs).
    pub fn open_unbudgeted(&mut self, gid: u32, grouping: usize, writer: PartWriter) {
        let part = OpenPart {
            writer,
            columns: self.columns(grouping),
            budgeted: false,
            charged: 0,
            fixed: 0,
            footprint: 0,
        };
        self.open.insert(gid, part);
    }

    /// Charges group `gid`'s writer's growth to the budget; when it does
    /// not fit, flushes this thread's largest row groups (this one's last)
    /// until it does. The groups whose part that closed (see
    /// [`flush_row_group`](Self::flush_row_group)).
    ///
    /// # Errors
    ///
    /// A writer's error.
    pub fn settle(&mut self, gid: u32) -> io::Result<Vec<u32>> {
        let mut closed = Vec::new();
        loop {
            let memory = &self.run.memory;
            let Some(part) = self.open.get_mut(&gid) else {
                return Ok(closed); // closed by a flush: the group spills now
            };
            let now = held(&part.writer, part.columns * self.run.codec_bytes);
            if now <= part.charged {
                memory.release(part.charged - now);
                part.charged = now;
                return Ok(closed);
            }
            if memory.try_charge(now - part.charged) {
                part.charged = now;
                return Ok(closed);
            }
            let largest = (self.open.iter())
                .filter(|(&g, p)| g != gid && p.charged > 0)
                .max_by_key(|(_, p)| p.charged)
                .map_or(gid, |(&g, _)| g);
            if self.flush_row_group(largest)? {
                closed.push(largest);
            }
        }
    }

    /// Writes group `gid`'s in-progress row group and gives its memory
    /// back, charging the metadata it leaves; if that does not fit, the
    /// part is finished and `true` returned: the group spills from here on.
    ///
    /// # Errors
    ///
    /// A writer's error.
    pub fn flush_row_group(&mut self, gid: u32) -> io::Result<bool> {
        let memory = &self.run.memory;
        let part = self.open.get_mut(&gid).expect("open");
        if part.writer.in_progress_rows() == 0 {
            return Ok(false);
        }
        part.writer.flush()?;
        if !part.budgeted {
            return Ok(false);
        }
        let now = held(&part.writer, part.columns * self.run.codec_bytes);
        memory.release(part.charged.saturating_sub(now));
        part.charged = part.charged.min(now);
        let metadata = row_group_metadata_bytes(part.columns);
        if memory.try_charge(metadata) {
            part.fixed += metadata;
            return Ok(false);
        }
        self.close(gid)?;
        Ok(true)
    }

    /// If the router raised the pressure epoch since last time, flushes the
    /// quarter (at least one) of this thread's row groups holding the most.
    /// The groups whose part that closed.
    ///
    /// # Errors
    ///
    /// A writer's error.
    pub fn relieve(&mut self) -> io::Result<Vec<u32>> {
        let epoch = self.memory().pressure();
        if epoch == self.seen_pressure {
            return Ok(Vec::new());
        }
        self.seen_pressure = epoch;
        let mut held: Vec<(usize, u32)> = (self.open.iter())
            .filter(|(_, p)| p.charged > 0)
            .map(|(&g, p)| (p.charged, g))
            .collect();
        held.sort_unstable_by(|a, b| b.cmp(a));
        let flush = held.len().div_ceil(4);
        let mut closed = Vec::new();
        for &(_, gid) in &held[..flush] {
            if self.flush_row_group(gid)? {
                closed.push(gid);
            }
        }
        Ok(closed)
    }

    /// Finishes group `gid`'s part file (its last row group and footer,
    /// flushed to the file) and gives its memory back.
    ///
    /// # Errors
    ///
    /// A writer's error.
    pub fn close(&mut self, gid: u32) -> io::Result<()> {
        let mut part = self.open.remove(&gid).expect("open");
        let result = part.writer.finish(&self.run.properties);
        self.bytes_out += part.writer.bytes_written() as u64;
        self.release(&part);
        result
    }

    /// Finishes group `gid`'s part file and puts the writer `next` (its
    /// next part) in its place, admitted as the last one was: the new
    /// part keeps the old one's admission and state charge, and the row
    /// groups' memory and metadata are given back.
    ///
    /// # Errors
    ///
    /// The finished writer's error, or what `next` returns.
    pub fn next_part(
        &mut self,
        gid: u32,
        next: impl FnOnce() -> io::Result<PartWriter>,
    ) -> io::Result<()> {
        let memory = self.run.memory.clone();
        let part = self.open.get_mut(&gid).expect("open");
        let result = part.writer.finish(&self.run.properties);
        self.bytes_out += part.writer.bytes_written() as u64;
        result?;
        if part.budgeted {
            let state = writer_state_bytes(part.columns);
            memory.release(part.charged + (part.fixed - state));
            (part.charged, part.fixed) = (0, state);
        }
        part.writer = next()?;
        Ok(())
    }

    /// Finishes every open part.
    ///
    /// # Errors
    ///
    /// The first writer's error.
    pub fn close_all(&mut self) -> io::Result<()> {
        let open: Vec<u32> = self.open.keys().copied().collect();
        open.into_iter().try_for_each(|gid| self.close(gid))
    }

    /// Gives back everything charged for an open part.
    fn release(&self, part: &OpenPart) {
        self.memory().release(part.charged + part.fixed);
        self.memory().dismiss(part.footprint);
    }

    /// Bytes of the part files finished so far.
    pub fn bytes_out(&self) -> u64 {
        self.bytes_out
    }

    /// Drops every open writer (the run is being aborted), giving back its
    /// memory.
    pub fn discard(&mut self) {
        for (_, part) in std::mem::take(&mut self.open) {
            self.release(&part);
        }
    }
}
