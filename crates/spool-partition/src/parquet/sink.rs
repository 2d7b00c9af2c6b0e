//! A writer thread's Parquet files: an [`ArrowWriter`] for each group
//! admitted to one, the other groups' records spilled as text to the
//! thread's spill log and each turned into one part file at the end of
//! the input, by whichever writer thread is free (see the `board`
//! module).
//!
//! ```text
//!  job (group g, text records)
//!    ├─ g has a writer ─► BatchBuilder ─► ArrowWriter(g).write
//!    │                                      │ memory_size() grew by d
//!    │                                      ▼
//!    │                  charge d to the pool; no room ─► flush the
//!    │                  largest in-progress row groups of this thread
//!    └─ g spills ─────► append the text to the spill log, a run of g
//!                       (end of input: g's runs ─► one part file)
//! ```
//!
//! A new group gets a writer while the thread has fewer than `max_open`
//! and the budget admits one more (`WriterMemory::try_admit`); a writer
//! then stays open to the end, so a group has one part file whatever the
//! number of keys — two if its writer had to be closed to keep the
//! budget (see below), its later records spilled. No LRU closes Parquet
//! files: a finished file cannot be appended to, and a group that came
//! back would start a new part each time.
//!
//! # Bounds
//!
//! An open writer is charged, to the same [`ChunkPool`](spool_io::write::ChunkPool)
//! budget as the router's buffers through [`WriterMemory`]:
//! - at open, [`writer_state_bytes`] for what it holds that
//!   [`ArrowWriter::memory_size`] does not report (column writers, level
//!   and page buffers, metadata builders), for as long as it is open;
//! - as it grows, every byte `memory_size()` reports (its in-progress row
//!   group's pages and dictionaries), and while a row group is in
//!   progress its columns' codec contexts, which libzstd allocates outside
//!   Rust's allocator ([`codec_state_bytes`](super::codec_state_bytes)),
//!   given back as row groups are flushed;
//! - per row group flushed, [`row_group_metadata_bytes`] for the metadata
//!   the file keeps for its footer; a writer whose next row group's
//!   metadata does not fit is finished, and its group spills.
//!
//! A row group is flushed when it reaches `row_group_bytes` or
//! `--row-group-size` rows, when a charge does not fit (the thread's
//! largest row groups go first), and when the router finds the budget
//! spent and raises the pressure epoch. Pages are as large as a row group
//! may be, so a column chunk is compressed once, as its row group is
//! flushed: the compressor's state lives only during that flush, one per
//! thread, not one per open column. Converting a spilled group needs one
//! writer, one [`READ_PIECE`](super::spill::READ_PIECE) and one batch per
//! thread, set aside from `--memory` like the batch of a direct write.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use parquet::file::properties::WriterProperties;

use super::batch::BatchBuilder;
use super::board::Poster;
use super::dictionary::Dictionaries;
use super::part::PartWriter;
use super::spill::{Spill, SpillLog};
use super::{
    dictionary_columns, row_group_metadata_bytes, writer_state_bytes, ParquetRun,
    DICTIONARY_TABLE_BYTES,
};
use spool_io::input::with_path;
use crate::layout::part_path;
use crate::writer_memory::WriterMemory;

/// Write buffer of an open part file: parquet writes a page header and a
/// page as separate calls; this joins them into fewer system calls.
pub(crate) const FILE_BUFFER: usize = 8 << 10;

struct OpenPart {
    writer: PartWriter,
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

/// A group this thread has written to.
#[derive(Default)]
struct Group {
    /// Path of the group's first part; later parts sit beside it.
    first: PathBuf,
    grouping: usize,
    /// Parts started so far (the open one included).
    parts: u32,
    /// Records written to the latest part.
    records: u64,
    /// Records of each earlier part, in order (empty for the usual one
    /// part: no allocation per group).
    earlier: Vec<u64>,
    /// Its records go to the spill log (see the `spill` module): the
    /// offset of its last run there.
    spilled: Option<u64>,
    /// Bytes of its runs in the spill log.
    spilled_bytes: u64,
    /// The start of a record cut at a chunk's end (a record longer than
    /// the largest chunk arrives in pieces).
    carry: Vec<u8>,
}

/// What an open writer holds that is charged as it grows: what
/// `memory_size()` reports, and while a row group is in progress its
/// columns' `codec` state (see [`codec_state_bytes`](super::codec_state_bytes)).
fn held(writer: &PartWriter, codec: usize) -> usize {
    let in_progress = if writer.in_progress_rows() > 0 {
        codec
    } else {
        0
    };
    writer.memory_size() + in_progress
}

/// A spilled group to be turned into a part file, by any writer thread:
/// its number and the thread's groups it is among (16 bytes: at 100,000
/// keys the board holds nearly every group, and a copy of each group's
/// record would be 15 MB more at the end of the run).
pub(crate) struct Conversion {
    gid: u32,
    shelf: Arc<Shelf>,
}

/// A writer thread's groups once its input has ended, shared with the
/// threads that convert its spilled ones, and its finished spill log.
pub(crate) struct Shelf {
    /// Every group the thread wrote; a spilled one is away (an empty
    /// `Group` in its place) while a thread converts it, and comes back no
    /// longer spilled.
    groups: Mutex<foldhash::HashMap<u32, Group>>,
    log: Arc<SpillLog>,
}

impl Shelf {
    fn groups(&self) -> MutexGuard<'_, foldhash::HashMap<u32, Group>> {
        // Nothing is left half-changed under the lock: a group is taken
        // out, or the map is read.
        self.groups.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Group {
    /// The records of each of its parts, in order (none if it never got
    /// a part).
    fn part_records(&self) -> Vec<u64> {
        let mut records = self.earlier.clone();
        if self.parts > 0 {
            records.push(self.records);
        }
        records
    }
}

/// One writer thread's Parquet files; see the module docs.
pub(crate) struct ParquetSink {
    run: Arc<ParquetRun>,
    max_open: usize,
    open: foldhash::HashMap<u32, OpenPart>,
    spill: Spill,
    /// Posts this thread's spilled groups when its input ends (`None`
    /// once posted).
    poster: Option<Poster<Conversion>>,
    /// The last spill drain's buffer, for the next.
    spare: Vec<u8>,
    /// This thread's groups once it has spilled and its input has ended.
    shelf: Option<Arc<Shelf>>,
    groups: foldhash::HashMap<u32, Group>,
    builders: Vec<Option<BatchBuilder>>,
    /// File properties by grouping and dictionary choice, once used.
    properties: foldhash::HashMap<(usize, Dictionaries), WriterProperties>,
    seen_pressure: u64,
    /// Bytes of the part files finished so far.
    bytes_out: u64,
}

impl ParquetSink {
    /// A thread's sink, with at most `max_open` writers open, spilling to
    /// a log at `spill_log`.
    pub fn new(run: Arc<ParquetRun>, max_open: usize, spill_log: PathBuf) -> Self {
        ParquetSink {
            poster: Some(run.conversions.poster()),
            run,
            max_open: max_open.max(1),
            open: foldhash::HashMap::default(),
            spill: Spill::new(spill_log),
            spare: Vec::new(),
            shelf: None,
            groups: foldhash::HashMap::default(),
            builders: Vec::new(),
            properties: foldhash::HashMap::default(),
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

    /// Appends the records in `data` to group `gid`'s file or spill log
    /// (creating the group's first part, or its directory, at `create`).
    pub fn write(
        &mut self,
        gid: u32,
        grouping: usize,
        create: Option<PathBuf>,
        data: &[u8],
    ) -> io::Result<()> {
        if let Some(first) = create {
            if let Some(dir) = first.parent() {
                std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
            }
            self.groups.insert(
                gid,
                Group {
                    first,
                    grouping,
                    parts: 0,
                    records: 0,
                    earlier: Vec::new(),
                    spilled: None,
                    spilled_bytes: 0,
                    carry: Vec::new(),
                },
            );
            if !self.try_open_part(gid)? {
                return self.spill_run(gid, data);
            }
        }
        if self.groups[&gid].spilled.is_some() {
            return self.spill_run(gid, data);
        }
        self.write_batch(gid, data)?;
        self.settle(gid)
    }

    /// Parses the whole records of `data` (after the group's carry) into a
    /// batch and writes it to group `gid`'s open writer, flushing its row
    /// group when it is large enough.
    fn write_batch(&mut self, gid: u32, data: &[u8]) -> io::Result<()> {
        let group = self.groups.get_mut(&gid).expect("known group");
        let grouping = group.grouping;
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
        if self.open[&gid].writer.is_pending() {
            let properties = self.properties(grouping, Dictionaries::sampled(&batch));
            let part = self.open.get_mut(&gid).expect("open");
            part.writer.open(properties)?;
        }
        let part = self.open.get_mut(&gid).expect("open");
        part.writer.write(&batch)?;
        self.groups.get_mut(&gid).expect("known group").records += batch.num_rows() as u64;
        if part.writer.memory_size() >= self.run.row_group_bytes {
            self.flush_row_group(gid)?;
        }
        Ok(())
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

    /// Opens group `gid`'s next part if the thread has fewer than
    /// `max_open` open and the budget admits and has room for one more
    /// writer; `false` if not.
    fn try_open_part(&mut self, gid: u32) -> io::Result<bool> {
        let grouping = self.groups[&gid].grouping;
        let table = self.run.table.get().expect("set before the first block");
        let schema = &table.files[grouping].1;
        let (columns, dictionaries) = (schema.fields().len(), dictionary_columns(schema).count());
        let fixed = writer_state_bytes(columns);
        let footprint =
            fixed + dictionaries * DICTIONARY_TABLE_BYTES + columns * self.run.codec_bytes;
        if self.open.len() >= self.max_open || !self.memory().try_admit(footprint) {
            return Ok(false);
        }
        if !self.memory().try_charge(fixed) {
            self.memory().dismiss(footprint);
            return Ok(false);
        }
        let writer = self.create_part(gid);
        let writer = match writer {
            Ok(w) => w,
            Err(e) => {
                self.memory().release(fixed);
                self.memory().dismiss(footprint);
                return Err(e);
            }
        };
        self.open.insert(
            gid,
            OpenPart {
                writer,
                budgeted: true,
                charged: 0,
                fixed,
                footprint,
            },
        );
        Ok(true)
    }

    /// The properties of a file of `grouping` with `dictionaries`.
    fn properties(&mut self, grouping: usize, dictionaries: Dictionaries) -> WriterProperties {
        let run = &self.run;
        (self.properties.entry((grouping, dictionaries)))
            .or_insert_with_key(|(grouping, dictionaries)| {
                let table = run.table.get().expect("set before the first block");
                dictionaries.properties(&run.properties, &table.files[*grouping].1)
            })
            .clone()
    }

    /// Creates group `gid`'s next part file; its writer follows at its
    /// first batch (see the `part` module).
    fn create_part(&mut self, gid: u32) -> io::Result<PartWriter> {
        let group = self.groups.get_mut(&gid).expect("known group");
        let path = part_path(&group.first, group.parts);
        // Under its final name: the run's staging directory is published
        // whole, or removed.
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        if group.parts > 0 {
            group.earlier.push(std::mem::take(&mut group.records));
        }
        group.parts += 1;
        let table = self.run.table.get().expect("set before the first block");
        let schema = table.files[group.grouping].1.clone();
        Ok(PartWriter::pending(
            BufWriter::with_capacity(FILE_BUFFER, file),
            schema,
        ))
    }
    /// Charges group `gid`'s writer's growth to the budget; when it does
    /// not fit, flushes this thread's largest row groups (this one's last)
    /// until it does.
    fn settle(&mut self, gid: u32) -> io::Result<()> {
        let codec = self.columns(self.groups[&gid].grouping) * self.run.codec_bytes;
        loop {
            let memory = &self.run.memory;
            let Some(part) = self.open.get_mut(&gid) else {
                return Ok(()); // closed by a flush: the group spills now
            };
            let now = held(&part.writer, codec);
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

    /// Writes group `gid`'s in-progress row group and gives its memory
    /// back, charging the metadata it leaves; if that does not fit, the
    /// part is finished and the group spills from here on.
    fn flush_row_group(&mut self, gid: u32) -> io::Result<()> {
        let columns = self.columns(self.groups[&gid].grouping);
        let memory = &self.run.memory;
        let part = self.open.get_mut(&gid).expect("open");
        if part.writer.in_progress_rows() == 0 {
            return Ok(());
        }
        part.writer.flush()?;
        if !part.budgeted {
            return Ok(());
        }
        let now = held(&part.writer, columns * self.run.codec_bytes);
        memory.release(part.charged.saturating_sub(now));
        part.charged = part.charged.min(now);
        let metadata = row_group_metadata_bytes(columns);
        if memory.try_charge(metadata) {
            part.fixed += metadata;
            return Ok(());
        }
        let part = self.open.remove(&gid).expect("open");
        self.close(part)?;
        let carry = std::mem::take(&mut self.groups.get_mut(&gid).expect("known").carry);
        self.spill_run(gid, &carry)
    }

    /// Appends `data` to the spill log as group `gid`'s next run (its
    /// first makes it a spilled group).
    fn spill_run(&mut self, gid: u32, data: &[u8]) -> io::Result<()> {
        let group = self.groups.get_mut(&gid).expect("known group");
        group.spilled = Some(self.spill.append(gid, group.spilled, data)?);
        group.spilled_bytes += data.len() as u64;
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
        let result = part.writer.finish(&self.run.properties);
        self.bytes_out += part.writer.bytes_written() as u64;
        self.release(&part);
        result.map(drop)
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

    /// Finishes every open part, posts this thread's spilled groups to
    /// the run's board, then turns spilled groups (of any thread, heaviest
    /// first) into their next parts, one at a time, until none is left;
    /// returns this thread's groups' [`parts`](Self::parts), every
    /// conversion done.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        let open: Vec<u32> = self.open.keys().copied().collect();
        for gid in open {
            let part = self.open.remove(&gid).expect("open");
            self.close(part)?;
        }
        if let Some(log) = self.spill.finish()? {
            let groups = std::mem::take(&mut self.groups);
            let shelf = Arc::new(Shelf {
                groups: Mutex::new(groups),
                log,
            });
            let conversions = {
                let groups = shelf.groups();
                let spilled = groups.iter().filter(|(_, group)| group.spilled.is_some());
                let mut conversions = Vec::with_capacity(spilled.clone().count());
                conversions.extend(spilled.map(|(&gid, group)| {
                    let shelf = shelf.clone();
                    (group.spilled_bytes, Conversion { gid, shelf })
                }));
                conversions
            };
            self.poster.take().expect("posted once").post(conversions);
            self.shelf = Some(shelf);
        }
        drop(self.poster.take()); // nothing spilled: posts nothing
        let board = self.run.conversions.clone();
        while let Some((conversion, done)) = board.take() {
            let converted = self.convert(conversion);
            drop(done);
            if let Err(e) = converted {
                board.stop();
                return Err(e);
            }
        }
        Ok(self.parts())
    }

    /// Writes a spilled group's runs as its next part file, in row groups
    /// of `row_group_bytes`, outside the budget (see the module docs), and
    /// puts the group back on its shelf, no longer spilled.
    fn convert(&mut self, conversion: Conversion) -> io::Result<()> {
        let Conversion { gid, shelf } = conversion;
        // Taken out and put back in place: the map is never resized while
        // the threads convert.
        let group = std::mem::take(shelf.groups().get_mut(&gid).expect("posted"));
        let last = group.spilled.expect("posted as spilled");
        self.groups.insert(gid, group);
        let writer = self.create_part(gid)?;
        self.open.insert(
            gid,
            OpenPart {
                writer,
                budgeted: false,
                charged: 0,
                fixed: 0,
                footprint: 0,
            },
        );
        let mut drain = (shelf.log).drain(gid, last, std::mem::take(&mut self.spare))?;
        while let Some(piece) = drain.next_piece()? {
            self.write_batch(gid, piece)?;
        }
        self.spare = drain.into_buffer();
        let part = self.open.remove(&gid).expect("open");
        self.close(part)?;
        let mut group = self.groups.remove(&gid).expect("known group");
        group.spilled = None;
        *shelf.groups().get_mut(&gid).expect("posted") = group;
        Ok(())
    }

    /// Each group's part files so far, the records of each in order, for
    /// the groups that have not exactly one: a group's one part holds all
    /// its records, which the router counted (at 100,000 keys, listing
    /// them all took 3 MB per thread at the end of the run).
    pub fn parts(&self) -> Vec<(u32, Vec<u64>)> {
        // Once the board is empty every conversion is done (see
        // `Board::take`), and each group is back on its thread's shelf.
        let shelf = self.shelf.as_ref().map(|shelf| shelf.groups());
        let on_shelf = shelf.iter().flat_map(|groups| groups.iter());
        (self.groups.iter().chain(on_shelf))
            .filter(|(_, group)| group.parts != 1)
            .map(|(&g, group)| (g, group.part_records()))
            .collect()
    }

    /// Drops every open writer (the run is being aborted), giving back its
    /// memory, and stops every thread's conversions.
    pub fn discard(&mut self) {
        self.run.conversions.stop();
        for (_, part) in std::mem::take(&mut self.open) {
            self.release(&part);
        }
    }
}
