//! A writer thread's Parquet files: one [`ArrowWriter`] per open group,
//! at most `max_open` of them (least recently used closed first), each
//! one's in-progress row group charged to the run's memory budget.
//!
//! ```text
//!  job (group g, text records) ─► BatchBuilder ─► ArrowWriter(g).write
//!                                                   │ memory_size() grew by d
//!                                                   ▼
//!                               charge d to the pool; no room ─► flush the
//!                               largest in-progress row groups of this thread
//! ```
//!
//! A Parquet file cannot be appended to once its footer is written, so a
//! group whose file the LRU closed starts its next part file
//! (`part-00001.parquet`, …) when it comes back.
//!
//! # Bounds
//!
//! Every byte [`ArrowWriter::memory_size`] reports for an open writer is
//! charged to the same [`ChunkPool`](crate::write::ChunkPool) budget as
//! the router's buffers, through [`WriterMemory`]. A row group is flushed
//! when it reaches `row_group_bytes` or `--row-group-size` rows, when the
//! charge does not fit (the thread's largest row groups go first), and
//! when the router finds the budget spent and raises the pressure epoch.
//! Pages are as large as a row group may be, so a column chunk is
//! compressed once, as its row group is flushed: the compressor's state
//! lives only during that flush, one per thread, not one per open column.

use std::fs::File;
use std::io::{self, BufWriter};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use lru::LruCache;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use super::batch::BatchBuilder;
use super::ParquetRun;
use crate::input::with_path;
use crate::partition::layout::part_path;
use crate::partition::writer_memory::WriterMemory;

/// Write buffer of an open part file: parquet writes a page header and a
/// page as separate calls; this joins them into fewer system calls.
pub(crate) const FILE_BUFFER: usize = 8 << 10;

struct OpenPart {
    writer: ArrowWriter<BufWriter<File>>,
    /// Bytes of `writer.memory_size()` charged to the budget.
    charged: usize,
}

/// A group this thread has written to.
struct Group {
    /// Path of the group's first part; later parts sit beside it.
    first: PathBuf,
    grouping: usize,
    /// Parts started so far (the open one included).
    parts: u32,
    /// The start of a record cut at a chunk's end (a record longer than
    /// the largest chunk arrives in pieces).
    carry: Vec<u8>,
}

/// One writer thread's Parquet files; see the module docs.
pub(crate) struct ParquetSink {
    run: Arc<ParquetRun>,
    open: LruCache<u32, OpenPart>,
    groups: foldhash::HashMap<u32, Group>,
    builders: Vec<Option<BatchBuilder>>,
    seen_pressure: u64,
    /// Bytes of the part files finished so far.
    bytes_out: u64,
}

impl ParquetSink {
    pub fn new(run: Arc<ParquetRun>, max_open: usize) -> Self {
        let cap = NonZeroUsize::new(max_open.max(1)).expect("at least one");
        ParquetSink {
            run,
            open: LruCache::new(cap),
            groups: foldhash::HashMap::default(),
            builders: Vec::new(),
            seen_pressure: 0,
            bytes_out: 0,
        }
    }

    fn memory(&self) -> &WriterMemory {
        &self.run.memory
    }

    /// Appends the records in `data` to group `gid`'s file (creating its
    /// first part at `create`).
    pub fn write(
        &mut self,
        gid: u32,
        grouping: usize,
        create: Option<PathBuf>,
        data: &[u8],
    ) -> io::Result<()> {
        if let Some(first) = create {
            self.groups.insert(
                gid,
                Group {
                    first,
                    grouping,
                    parts: 0,
                    carry: Vec::new(),
                },
            );
        }
        let group = self
            .groups
            .get_mut(&gid)
            .expect("created with its first job");
        let joined;
        let text: &[u8] = if group.carry.is_empty() {
            data
        } else {
            group.carry.extend_from_slice(data);
            joined = std::mem::take(&mut group.carry);
            &joined
        };
        let (batch, whole) = self.builder(grouping).build(text)?;
        if whole < text.len() {
            let group = self.groups.get_mut(&gid).expect("known group");
            group.carry = text[whole..].to_vec();
        }
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.open_part(gid)?;
        let part = self.open.get_mut(&gid).expect("just opened");
        part.writer.write(&batch).map_err(io::Error::other)?;
        if part.writer.memory_size() >= self.run.row_group_bytes {
            part.writer.flush().map_err(io::Error::other)?;
        }
        self.settle(gid)
    }

    fn builder(&mut self, grouping: usize) -> &BatchBuilder {
        if self.builders.len() <= grouping {
            self.builders.resize_with(grouping + 1, || None);
        }
        let run = &self.run;
        self.builders[grouping].get_or_insert_with(|| {
            let table = run.table.get().expect("set before the first block").clone();
            BatchBuilder::new(table, grouping, run.syntax)
        })
    }

    /// Makes sure group `gid` has an open part file, closing the least
    /// recently used one first if `max_open` are open.
    fn open_part(&mut self, gid: u32) -> io::Result<()> {
        if self.open.contains(&gid) {
            return Ok(());
        }
        if self.open.len() == self.open.cap().get() {
            if let Some((_, part)) = self.open.pop_lru() {
                self.close(part)?;
            }
        }
        let group = self.groups.get_mut(&gid).expect("known group");
        let path = part_path(&group.first, group.parts);
        if group.parts == 0 {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
            }
        }
        // Under its final name: the run's staging directory is published
        // whole, or removed.
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        group.parts += 1;
        let table = self.run.table.get().expect("set before the first block");
        let schema = table.files[group.grouping].1.clone();
        let writer = ArrowWriter::try_new(
            BufWriter::with_capacity(FILE_BUFFER, file),
            schema,
            Some(WriterProperties::clone(&self.run.properties)),
        )
        .map_err(io::Error::other)?;
        self.open.push(gid, OpenPart { writer, charged: 0 });
        Ok(())
    }

    /// Charges group `gid`'s writer's growth to the budget; when it does
    /// not fit, flushes this thread's largest row groups (this one's last)
    /// until it does.
    fn settle(&mut self, gid: u32) -> io::Result<()> {
        loop {
            let memory = &self.run.memory;
            let part = self.open.peek_mut(&gid).expect("open");
            let now = part.writer.memory_size();
            if now <= part.charged {
                memory.release(part.charged - now);
                part.charged = now;
                return Ok(());
            }
            if memory.try_charge(now - part.charged) {
                part.charged = now;
                return Ok(());
            }
            let largest = self
                .open
                .iter()
                .filter(|(&g, p)| g != gid && p.charged > 0)
                .max_by_key(|(_, p)| p.charged)
                .map(|(&g, _)| g)
                .unwrap_or(gid);
            self.flush_row_group(largest)?;
        }
    }

    /// Writes group `gid`'s in-progress row group and gives its memory back.
    fn flush_row_group(&mut self, gid: u32) -> io::Result<()> {
        let part = self.open.peek_mut(&gid).expect("open");
        part.writer.flush().map_err(io::Error::other)?;
        let now = part.writer.memory_size();
        self.run.memory.release(part.charged.saturating_sub(now));
        part.charged = part.charged.min(now);
        Ok(())
    }

    /// If the router raised the pressure epoch since last time, flushes the
    /// quarter (at least one) of this thread's row groups holding the most.
    pub fn relieve(&mut self) -> io::Result<()> {
        let epoch = self.memory().pressure();
        if epoch == self.seen_pressure {
            return Ok(());
        }
        self.seen_pressure = epoch;
        let mut held: Vec<(usize, u32)> = self
            .open
            .iter()
            .filter(|(_, p)| p.charged > 0)
            .map(|(&g, p)| (p.charged, g))
            .collect();
        held.sort_unstable_by(|a, b| b.cmp(a));
        let flush = held.len().div_ceil(4);
        for &(_, gid) in &held[..flush] {
            self.flush_row_group(gid)?;
        }
        Ok(())
    }

    /// Finishes one part file (its last row group and footer, flushed to
    /// the file) and gives its memory back.
    fn close(&mut self, mut part: OpenPart) -> io::Result<()> {
        let result = part.writer.finish().map_err(io::Error::other);
        self.bytes_out += part.writer.bytes_written() as u64;
        self.memory().release(part.charged);
        result.map(drop)
    }

    /// Bytes of the part files finished so far.
    pub fn bytes_out(&self) -> u64 {
        self.bytes_out
    }

    /// Finishes every open part; returns each group's number of parts.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, u32)>> {
        while let Some((_, part)) = self.open.pop_lru() {
            self.close(part)?;
        }
        Ok(self.parts())
    }

    /// Each group's number of part files so far.
    pub fn parts(&self) -> Vec<(u32, u32)> {
        self.groups
            .iter()
            .map(|(&g, group)| (g, group.parts))
            .collect()
    }

    /// Drops every open writer (the run is being aborted), giving back its
    /// memory.
    pub fn discard(&mut self) {
        while let Some((_, part)) = self.open.pop_lru() {
            self.memory().release(part.charged);
        }
    }
}
