//! The groups' buffers under one memory budget.
//!
//! Every group buffers its records in one chunk of the run's
//! [`ChunkPool`]. A group starts with a small chunk and moves up a size
//! class as it fills; a full largest chunk goes to the group's worker
//! ([`Outputs::send`]). When the pool's budget is spent, the quarter of the
//! buffers holding the most bytes are sent early and the router waits for
//! memory to come back ([`make_room`](Buffers::make_room)), so the number of
//! distinct keys changes how large the written blocks are, never how much
//! memory is used.
//!
//! # Bounds
//!
//! The budget is what the [`MemoryPlan`](crate::MemoryPlan) leaves for
//! the group buffers:
//!
//! ```text
//!  budget = held (chunks in groups' slots) + in flight (queued or being
//!           written by workers) + free (in the pool's lists)
//!           + charged (group bookkeeping, for good)
//!           + writers (Parquet: open writers' row groups and state,
//!             see `WriterMemory`)
//! ```
//!
//! Bookkeeping (a key table entry, the group record, its path) is charged
//! as groups appear, but never into the room of the largest chunk, so the
//! buffers can always make progress; past that, keys are counted as over
//! the budget ([`over_budget_bytes`](Buffers::over_budget_bytes)) rather
//! than stalling the run. A record longer than the largest chunk is
//! written in chunk-sized pieces, so it needs no more memory either.
//!
//! # File limits
//!
//! With `--max-rows-per-file` or `--max-bytes-per-file`, text output rolls
//! over here, where records are counted: before a record that would take
//! its group's part past a limit, the group's buffer is sent and the
//! group moves to its next part ([`Outputs::next_part`]), whose first
//! block starts with the header again. Bytes are counted as buffered,
//! before compression. Parquet rolls over in its writers instead, at row
//! and row group boundaries (see the `parquet::sink` module).

mod make_room;

use std::sync::Arc;

use spool_io::write::{Chunk, ChunkPool};

use crate::options::FileLimits;
use crate::outputs::Outputs;
use crate::writer_memory::WriterMemory;
use crate::{BufferSizes, Options, OutputFormat, PartitionError};

/// A group's buffer.
#[derive(Default)]
struct Slot {
    chunk: Option<Chunk>,
    /// The header went into the group's first block.
    header_done: bool,
    /// Records appended (counted here, beside the chunk the same append
    /// touches, rather than in a table of their own: one lookup per record).
    records: u64,
    /// Records and bytes (the header's included) in the group's current
    /// part, against the [`FileLimits`].
    part_records: u64,
    part_bytes: u64,
}

/// Every group's buffer; see the module docs.
pub(super) struct Buffers {
    pool: ChunkPool,
    slots: Vec<Slot>,
    /// Record delimiter, added to a last record that lacks one.
    delimiter: u8,
    /// A record ending in CR is complete too (CSV, where a lone CR ends
    /// records).
    cr_ends: bool,
    /// Raw header line (ending with the delimiter) written at the top of
    /// every file, once seen.
    header: Option<Vec<u8>>,
    /// Bytes of the chunks the slots hold (not in flight, not free).
    held: usize,
    /// Bytes of group bookkeeping charged to the pool for good.
    charged: usize,
    early_flushes: u64,
    over_budget_bytes: u64,
    /// Parquet writers' row groups, charged to the same pool.
    writers: Option<Arc<WriterMemory>>,
    limits: FileLimits,
}

impl Buffers {
    /// Buffers in a pool of `sizes`, for the records of a run of
    /// `options`.
    pub fn new(sizes: BufferSizes, options: &Options) -> Self {
        let pool = ChunkPool::with_classes(
            sizes.min_chunk.min(sizes.max_chunk),
            sizes.max_chunk,
            sizes.budget,
        );
        let parquet = matches!(options.format, OutputFormat::Parquet(_));
        let writers = parquet.then(|| Arc::new(WriterMemory::new(pool.clone())));
        let limits = match parquet {
            true => FileLimits::NONE,
            false => FileLimits::of(options),
        };
        Buffers {
            pool,
            slots: Vec::new(),
            delimiter: options.read.delimiter,
            cr_ends: options.quote.is_some(),
            header: None,
            held: 0,
            charged: 0,
            early_flushes: 0,
            over_budget_bytes: 0,
            writers,
            limits,
        }
    }

    /// The Parquet writers' share of the budget (Parquet runs only).
    pub fn writer_memory(&self) -> Option<Arc<WriterMemory>> {
        self.writers.clone()
    }

    /// Sets the header line every file starts with.
    pub fn set_header(&mut self, line: Vec<u8>) {
        self.header = Some(line);
    }

    /// Chunks sent before they were full because the budget was spent.
    pub fn early_flushes(&self) -> u64 {
        self.early_flushes
    }

    /// Bookkeeping that did not fit in the budget.
    pub fn over_budget_bytes(&self) -> u64 {
        self.over_budget_bytes
    }

    /// Records appended to group `gid`.
    pub fn records(&self, gid: usize) -> u64 {
        self.slots[gid].records
    }

    /// Adds an (empty) buffer for a new group, charging `cost` bytes of
    /// bookkeeping to the budget (see the module docs).
    ///
    /// # Errors
    ///
    /// As [`make_room`](Self::make_room).
    pub fn add_group(&mut self, cost: usize, out: &mut Outputs) -> Result<(), PartitionError> {
        if self.charged + cost + self.pool.chunk_len() <= self.pool.budget() {
            while !self.pool.try_charge(cost) {
                self.make_room(cost, out)?;
            }
            self.charged += cost;
        } else {
            self.over_budget_bytes += cost as u64;
        }
        self.slots.push(Slot {
            part_bytes: self.header_len(),
            ..Slot::default()
        });
        Ok(())
    }

    /// Appends one record (adding a delimiter if it has none) to group
    /// `gid`'s buffer.
    ///
    /// # Errors
    ///
    /// A worker's failure or a cancellation while making room.
    #[inline]
    pub fn append(
        &mut self,
        gid: u32,
        raw: &[u8],
        out: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let newline = !(raw.ends_with(&[self.delimiter]) || self.cr_ends && raw.ends_with(b"\r"));
        let need = raw.len() + usize::from(newline);
        let slot = &mut self.slots[gid as usize];
        if slot.part_records >= self.limits.records
            || slot.part_bytes + need as u64 > self.limits.bytes && slot.part_records > 0
        {
            self.next_part(gid, out)?;
        }
        let slot = &mut self.slots[gid as usize];
        slot.records += 1;
        slot.part_records += 1;
        slot.part_bytes += need as u64;
        if let Some(chunk) = &mut slot.chunk {
            if chunk.remaining() >= need {
                chunk.push_slice(raw);
                if newline {
                    chunk.push_slice(&[self.delimiter]);
                }
                prefetch_tail(chunk);
                return Ok(());
            }
        }
        self.append_slow(gid, raw, newline, out)
    }

    /// Sends group `gid`'s buffer and moves the group to its next part
    /// (see the module docs).
    #[cold]
    fn next_part(&mut self, gid: u32, out: &mut Outputs) -> Result<(), PartitionError> {
        if let Some(chunk) = self.take_group_chunk(gid as usize) {
            out.send(gid, chunk)?;
        }
        let header_len = self.header_len();
        let slot = &mut self.slots[gid as usize];
        out.next_part(gid, slot.part_records);
        (slot.part_records, slot.part_bytes) = (0, header_len);
        slot.header_done = false;
        Ok(())
    }

    /// Bytes of the header each file starts with.
    fn header_len(&self) -> u64 {
        self.header.as_ref().map_or(0, |h| h.len() as u64)
    }

    #[cold]
    fn append_slow(
        &mut self,
        gid: u32,
        raw: &[u8],
        newline: bool,
        out: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let need = raw.len() + usize::from(newline);
        let max = self.pool.chunk_len();
        let g = gid as usize;
        if let Some(chunk) = &self.slots[g].chunk {
            // Move up a class while the group's buffer is below the largest.
            let len = chunk.len();
            if len + need <= max {
                let want = (2 * chunk.capacity()).max(len + need);
                if let Some(mut bigger) = self.pool.try_take_at_least(want) {
                    bigger.push_slice(chunk);
                    self.put_chunk(g, bigger); // the old one goes back
                    self.push_record(g, raw, newline);
                    return Ok(());
                }
            }
            // Full, or no memory to grow: write it out.
            let chunk = self.take_group_chunk(g).expect("checked");
            out.send(gid, chunk)?;
        }
        let header_len = match &self.header {
            Some(h) if !self.slots[g].header_done => h.len(),
            _ => 0,
        };
        let total = header_len + need;
        if total > max {
            return self.append_long(gid, header_len > 0, raw, newline, out);
        }
        let mut chunk = self.take_chunk(total, out)?;
        if let Some(h) = &self.header {
            if !self.slots[g].header_done {
                chunk.push_slice(h);
            }
        }
        self.slots[g].header_done = true;
        self.put_chunk(g, chunk);
        self.push_record(g, raw, newline);
        Ok(())
    }

    /// Appends a record (and the header, if it is the group's first)
    /// larger than the largest chunk: it goes out in chunk-sized pieces —
    /// blocks are only concatenated, so a record may span several — and
    /// memory stays within the pool's budget whatever the record's length.
    /// The last piece stays as the group's buffer.
    #[cold]
    fn append_long(
        &mut self,
        gid: u32,
        with_header: bool,
        raw: &[u8],
        newline: bool,
        out: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let header = match &self.header {
            Some(h) if with_header => h.clone(),
            _ => Vec::new(),
        };
        let delimiter = [self.delimiter];
        let tail: &[u8] = if newline { &delimiter } else { &[] };
        self.slots[gid as usize].header_done = true;
        let max = self.pool.chunk_len();
        let mut chunk = self.take_chunk(max, out)?;
        for mut part in [&header[..], raw, tail] {
            while !part.is_empty() {
                if chunk.remaining() == 0 {
                    out.send(gid, chunk)?;
                    chunk = self.take_chunk(max, out)?;
                }
                let n = chunk.remaining().min(part.len());
                chunk.push_slice(&part[..n]);
                part = &part[n..];
            }
        }
        self.put_chunk(gid as usize, chunk);
        Ok(())
    }

    #[inline]
    fn push_record(&mut self, g: usize, raw: &[u8], newline: bool) {
        let delimiter = self.delimiter;
        let chunk = self.slots[g].chunk.as_mut().expect("a chunk with room");
        let fits = chunk.push_slice(raw) && (!newline || chunk.push_slice(&[delimiter]));
        debug_assert!(fits, "room was checked");
    }

    /// Puts a chunk into a group's slot (dropping any chunk there).
    fn put_chunk(&mut self, g: usize, chunk: Chunk) {
        self.held += chunk.capacity();
        if let Some(old) = self.slots[g].chunk.replace(chunk) {
            self.held -= old.capacity();
        }
    }

    /// Takes a group's chunk out of its slot.
    fn take_group_chunk(&mut self, g: usize) -> Option<Chunk> {
        let chunk = self.slots[g].chunk.take();
        if let Some(c) = &chunk {
            self.held -= c.capacity();
        }
        chunk
    }

    /// Sends every group's buffer, at the end of the input, and gives the
    /// pool's memory back.
    ///
    /// # Errors
    ///
    /// As [`Outputs::send`].
    pub fn flush_all(&mut self, out: &mut Outputs) -> Result<(), PartitionError> {
        for g in 0..self.slots.len() {
            if let Some(chunk) = self.take_group_chunk(g) {
                out.send(g as u32, chunk)?;
            }
        }
        self.pool = ChunkPool::new(1, 1);
        Ok(())
    }

    /// Drops every buffered chunk (the run is being aborted).
    pub fn discard(&mut self) {
        for slot in &mut self.slots {
            slot.chunk = None;
        }
        self.held = 0;
    }
}

/// Asks the CPU to bring the two cache lines after `chunk`'s end into
/// its second-level cache, for the group's next record.
///
/// With many groups, consecutive records go to different buffers, and
/// each append writes past its buffer's end into lines no cache holds
/// (the buffers are recycled, last written long before): a wait for
/// memory on every record, which hardware prefetchers, following a few
/// streams, do not foresee among thousands. The group's next record comes
/// a group count of records later, time enough for the lines to arrive;
/// a thousand groups' two lines are 128 KiB of that cache.
#[inline(always)]
#[allow(unsafe_code)] // the intrinsic's only requirement is SSE
fn prefetch_tail(chunk: &Chunk) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        let end = chunk.as_ptr().wrapping_add(chunk.len()) as *const i8;
        // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has
        // (it is in the target's baseline). It reads nothing and never
        // faults, whatever the address: past the buffer's capacity it is
        // a hint about memory nobody uses.
        unsafe {
            _mm_prefetch::<_MM_HINT_T1>(end);
            _mm_prefetch::<_MM_HINT_T1>(end.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = chunk;
}
