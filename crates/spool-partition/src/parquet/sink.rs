//! A writer thread's Parquet files: an [`ArrowWriter`](parquet::arrow::ArrowWriter) for each group
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
//! Which groups get a writer and what the writers are charged is
//! [`OpenWriters`]; what the thread knows of each group, [`GroupParts`];
//! the spill log, [`Spill`]; the sharing of the end's conversions, the
//! `conversion_queue` module. This module puts them together: a job's records go to
//! the group's writer or to the spill log, and at the end the thread's
//! spilled groups are posted and converted.

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_schema::SchemaRef;
use parquet::file::properties::WriterProperties;

use super::batch::BatchBuilder;
use super::conversion::{Conversion, Shelf};
use super::conversion_queue::Poster;
use super::dictionary::Dictionaries;
use super::group_parts::GroupParts;
use super::open_writers::OpenWriters;
use super::parquet_run::ParquetRun;
use super::spill::Spill;
use spool_io::input::with_path;

/// One writer thread's Parquet files; see the module docs.
pub(crate) struct ParquetSink {
    run: Arc<ParquetRun>,
    writers: OpenWriters,
    spill: Spill,
    /// Posts this thread's spilled groups when its input ends (`None`
    /// once posted).
    poster: Option<Poster<Conversion>>,
    /// The last spill drain's buffer, for the next.
    spare: Vec<u8>,
    /// This thread's groups once it has spilled and its input has ended.
    shelf: Option<Arc<Shelf>>,
    groups: foldhash::HashMap<u32, GroupParts>,
    builders: Vec<Option<BatchBuilder>>,
    /// File properties by grouping and dictionary choice, once used.
    properties: foldhash::HashMap<(usize, Dictionaries), WriterProperties>,
}

impl ParquetSink {
    /// A thread's sink, with at most `max_open` writers open, spilling to
    /// a log at `spill_log`.
    pub fn new(run: Arc<ParquetRun>, max_open: usize, spill_log: PathBuf) -> Self {
        ParquetSink {
            poster: Some(run.conversions.poster()),
            writers: OpenWriters::new(run.clone(), max_open),
            run,
            spill: Spill::new(spill_log),
            spare: Vec::new(),
            shelf: None,
            groups: foldhash::HashMap::default(),
            builders: Vec::new(),
            properties: foldhash::HashMap::default(),
        }
    }

    /// Appends the records in `data` to group `gid`'s file or spill log
    /// (creating the group's first part, or its directory, at `create`).
    ///
    /// # Errors
    ///
    /// A file or the spill log cannot be written, or a record that does
    /// not fit the table (an [`Unfit`](super::Unfit)).
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
            self.groups.insert(gid, GroupParts::new(first, grouping));
            if !self.try_open_part(gid)? {
                return self.spill_run(gid, data);
            }
        }
        if self.groups[&gid].spilled.is_some() {
            return self.spill_run(gid, data);
        }
        self.write_batch(gid, data)?;
        let closed = self.writers.settle(gid)?;
        self.spill_closed(closed)
    }

    /// Opens group `gid`'s next part if the writers admit one more.
    fn try_open_part(&mut self, gid: u32) -> io::Result<bool> {
        let group = self.groups.get_mut(&gid).expect("known group");
        let schema = file_schema(&self.run, group.grouping);
        (self.writers).try_open(gid, group.grouping, || group.next_part(schema))
    }

    /// Parses the whole records of `data` (after the group's carry) into a
    /// batch and writes it to group `gid`'s open writer, flushing its row
    /// group when it is large enough; rolls over to the group's next part
    /// at the run's file limits (rows: exactly, slicing the batch; bytes:
    /// once the row groups written reach the limit, the batch written a
    /// row group at a time so that a part passes it by one row group at
    /// most).
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
        let limits = self.run.limits;
        let mut start = 0;
        while start < batch.num_rows() {
            let records = self.groups[&gid].records;
            let written = self.writers.get_mut(gid).expect("open").bytes_written() as u64;
            if records > 0 && (records >= limits.records || written >= limits.bytes) {
                let group = self.groups.get_mut(&gid).expect("known group");
                let schema = file_schema(&self.run, grouping);
                self.writers.next_part(gid, || group.next_part(schema))?;
            }
            let mut room = (limits.records - self.groups[&gid].records) as usize;
            if limits.bytes < u64::MAX {
                // A row group at a time, so the bytes written are looked
                // at after each (the writer flushes it at this many rows).
                let rows = self.run.properties.max_row_group_row_count();
                room = room.min(rows.unwrap_or(usize::MAX));
            }
            let slice = batch.slice(start, (batch.num_rows() - start).min(room));
            start += slice.num_rows();
            if self.writers.get_mut(gid).expect("open").is_pending() {
                let properties = self.properties(grouping, Dictionaries::sampled(&slice));
                self.writers.get_mut(gid).expect("open").open(properties)?;
            }
            let writer = self.writers.get_mut(gid).expect("open");
            writer.write(&slice)?;
            let full = writer.memory_size() >= self.run.row_group_bytes;
            self.groups.get_mut(&gid).expect("known group").records += slice.num_rows() as u64;
            // A slice before the batch's last is followed by the next part,
            // which finishes this one.
            let last = start == batch.num_rows();
            if full && last && self.writers.flush_row_group(gid)? {
                self.spill_closed(vec![gid])?;
            }
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

    /// The groups whose part was closed to keep the budget spill from
    /// here on, starting with the record cut at their last chunk's end.
    fn spill_closed(&mut self, closed: Vec<u32>) -> io::Result<()> {
        for gid in closed {
            let carry = std::mem::take(&mut self.groups.get_mut(&gid).expect("known").carry);
            self.spill_run(gid, &carry)?;
        }
        Ok(())
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
    ///
    /// # Errors
    ///
    /// A writer's or the spill log's error.
    pub fn relieve(&mut self) -> io::Result<()> {
        let closed = self.writers.relieve()?;
        self.spill_closed(closed)
    }

    /// Bytes of the part files finished so far.
    pub fn bytes_out(&self) -> u64 {
        self.writers.bytes_out()
    }

    /// Finishes every open part, posts this thread's spilled groups to
    /// the run's board, then turns spilled groups (of any thread, heaviest
    /// first) into their next parts, one at a time, until none is left;
    /// returns this thread's groups' [`parts`](Self::parts), every
    /// conversion done.
    ///
    /// # Errors
    ///
    /// A writer's or the spill log's error.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        self.writers.close_all()?;
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
        board.work_through(|conversion| self.convert(conversion))?;
        Ok(self.parts())
    }

    /// Writes a spilled group's runs as its next part file, in row groups
    /// of `row_group_bytes`, outside the budget (see the `open_writers`
    /// module), and puts the group back on its shelf, no longer spilled.
    fn convert(&mut self, conversion: Conversion) -> io::Result<()> {
        let Conversion { gid, shelf } = conversion;
        // Taken out and put back in place: the map is never resized while
        // the threads convert.
        let group = std::mem::take(shelf.groups().get_mut(&gid).expect("posted"));
        let last = group.spilled.expect("posted as spilled");
        let group = self.groups.entry(gid).insert_entry(group).into_mut();
        let writer = group.next_part(file_schema(&self.run, group.grouping))?;
        self.writers.open_unbudgeted(gid, group.grouping, writer);
        let mut drain = (shelf.log).drain(gid, last, std::mem::take(&mut self.spare))?;
        while let Some(piece) = drain.next_piece()? {
            self.write_batch(gid, piece)?;
        }
        self.spare = drain.into_buffer();
        self.writers.close(gid)?;
        let mut group = self.groups.remove(&gid).expect("known group");
        group.spilled = None;
        *shelf.groups().get_mut(&gid).expect("posted") = group;
        Ok(())
    }

    /// Each group's part files so far, the records of each in order, for
    /// the groups that have not exactly one: a group's one part holds all
    /// its records, which the router counted (so a run with many keys
    /// lists none of them here).
    pub fn parts(&self) -> Vec<(u32, Vec<u64>)> {
        // Once the board is empty every conversion is done (see
        // `Board::take`), and each group is back on its thread's shelf.
        let shelf = self.shelf.as_ref().map(|shelf| shelf.groups());
        let on_shelf = shelf.iter().flat_map(|groups| groups.iter());
        (self.groups.iter().chain(on_shelf))
            .filter(|(_, group)| !group.has_one_part())
            .map(|(&g, group)| (g, group.part_records()))
            .collect()
    }

    /// Drops every open writer (the run is being aborted), giving back its
    /// memory, and stops every thread's conversions.
    pub fn discard(&mut self) {
        self.run.conversions.stop();
        self.writers.discard();
    }
}

/// The schema of the files of `grouping` in `run`.
fn file_schema(run: &ParquetRun, grouping: usize) -> SchemaRef {
    let table = run.table.get().expect("set before the first block");
    table.files[grouping].1.clone()
}
