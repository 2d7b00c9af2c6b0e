//! A writer thread's Parquet files for a run whose inputs are Parquet:
//! the rows of its groups, as record batches of the input's own types,
//! appended to one [`ArrowWriter`] per group.
//!
//! Each writer writes to an [`AppendFile`], open only while a row group
//! (or the footer) is appended: a group keeps its writer, and so its one
//! part, however many groups the thread has and however few files
//! `--max-open` lets it hold open.
//!
//! # Bounds
//!
//! * Files: one open at a time per thread, while it is appended to.
//! * Memory: a job's rows (all of one sorted batch's rows of the group)
//!   are one row group, encoded and written before the next job is taken
//!   (split where it holds `row_group_bytes`), so one writer at a time
//!   holds a row group in progress. A writer between row groups keeps its
//!   file's metadata so far; at most [`live_writers`] writers are kept per
//!   thread (`IDLE_WRITER` each, within its share of the budget), and
//!   when another must start, the least recently used one finishes its
//!   part — the group's next rows start its next part (`part-00001…`).
//!   The router's batches are made large so these parts are rare.
//! * Parts also roll over at the run's file limits (`--max-records`,
//!   `--max-bytes`).

use std::io;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use lru::LruCache;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use spool_io::input::with_path;

use super::append_file::AppendFile;
use crate::file_layout::part_path;
use crate::options::FileLimits;
use crate::parquet::Dictionaries;

/// Memory counted for a writer between row groups: its schema, buffers
/// and the metadata of the row groups it has written.
const IDLE_WRITER: usize = 32 << 10;

/// Writers a thread keeps, with `thread_budget` bytes and `max_open`
/// files: see the module docs.
pub(crate) fn live_writers(thread_budget: usize, max_open: usize) -> usize {
    (thread_budget / IDLE_WRITER).max(max_open).max(1)
}

/// What the router and the writer threads of a typed run share.
pub(crate) struct TypedRun {
    /// Per grouping: the schema of its files (the run's, less the key).
    pub files: Vec<SchemaRef>,
    /// The run's writer properties.
    pub properties: WriterProperties,
    /// A row group is flushed when its writer holds this many bytes.
    pub row_group_bytes: usize,
    /// Bytes one thread's writers may hold between row groups.
    pub thread_budget: usize,
    pub limits: FileLimits,
}

/// What a thread knows of one of its groups.
struct Group {
    first: PathBuf,
    grouping: usize,
    /// Rows of each part started so far.
    parts: Vec<u64>,
}

/// One writer thread's typed Parquet files; see the module docs.
pub(crate) struct TypedSink {
    run: Arc<TypedRun>,
    live: LruCache<u32, ArrowWriter<AppendFile>>,
    groups: foldhash::HashMap<u32, Group>,
    bytes_out: u64,
}

impl TypedSink {
    /// A thread's sink, allowed `max_open` open files.
    pub fn new(run: Arc<TypedRun>, max_open: usize) -> Self {
        let live = live_writers(run.thread_budget, max_open);
        TypedSink {
            run,
            live: LruCache::new(NonZeroUsize::new(live).expect("at least one")),
            groups: foldhash::HashMap::default(),
            bytes_out: 0,
        }
    }

    /// Appends `batch` (rows of group `gid`, its files' schema) to the
    /// group's part file, creating the group's first part at `create`.
    ///
    /// # Errors
    ///
    /// A file that cannot be created or written.
    pub fn write(
        &mut self,
        gid: u32,
        grouping: usize,
        create: Option<PathBuf>,
        batch: &RecordBatch,
    ) -> io::Result<()> {
        if let Some(first) = create {
            if let Some(dir) = first.parent() {
                std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
            }
            let group = Group {
                first,
                grouping,
                parts: Vec::new(),
            };
            self.groups.insert(gid, group);
        }
        let limits = self.run.limits;
        let mut start = 0;
        while start < batch.num_rows() {
            let rest = batch.slice(start, batch.num_rows() - start);
            if !self.live.contains(&gid) {
                self.open_part(gid, &rest)?;
            }
            let in_part = *self.groups[&gid].parts.last().expect("a part is open");
            let writer = self.live.get_mut(&gid).expect("open");
            if in_part > 0
                && (in_part >= limits.records || writer.bytes_written() as u64 >= limits.bytes)
            {
                self.close(gid)?;
                continue;
            }
            let mut room = (limits.records - in_part) as usize;
            if limits.bytes < u64::MAX {
                // A row group at a time, so the bytes written are looked
                // at after each.
                let rows = self.run.properties.max_row_group_row_count();
                room = room.min(rows.unwrap_or(usize::MAX));
            }
            let slice = rest.slice(0, rest.num_rows().min(room));
            writer
                .write(&slice)
                .map_err(|e| part_error(&self.groups, gid, e))?;
            let full = writer.in_progress_size() >= self.run.row_group_bytes;
            let group = self.groups.get_mut(&gid).expect("known");
            *group.parts.last_mut().expect("open") += slice.num_rows() as u64;
            if full {
                self.flush(gid)?;
            }
            start += slice.num_rows();
        }
        // A job is all of a sorted batch's rows of the group: one row
        // group, written now, so one writer at a time holds one.
        if self.live.contains(&gid) {
            self.flush(gid)?;
        }
        Ok(())
    }

    /// Starts group `gid`'s next part, its dictionaries chosen from
    /// `sample` (finishing the least recently used writer's part first if
    /// the thread keeps as many as it may).
    fn open_part(&mut self, gid: u32, sample: &RecordBatch) -> io::Result<()> {
        if self.live.len() == self.live.cap().get() {
            if let Some((&lru, _)) = self.live.peek_lru() {
                self.close(lru)?;
            }
        }
        let group = self.groups.get_mut(&gid).expect("known group");
        let path = part_path(&group.first, group.parts.len() as u32);
        let schema = self.run.files[group.grouping].clone();
        let file = AppendFile::create(&path)?;
        let properties = file_properties(&self.run.properties, &schema, sample);
        let writer = ArrowWriter::try_new(file, schema, Some(properties))
            .map_err(|e| with_path(io::Error::other(e.to_string()), &path))?;
        group.parts.push(0);
        self.live.push(gid, writer);
        Ok(())
    }

    /// Writes group `gid`'s row group in progress to its part.
    fn flush(&mut self, gid: u32) -> io::Result<()> {
        let writer = self.live.peek_mut(&gid).expect("live");
        writer
            .flush()
            .map_err(|e| part_error(&self.groups, gid, e))?;
        writer.sync()
    }

    /// Finishes group `gid`'s part.
    fn close(&mut self, gid: u32) -> io::Result<()> {
        if let Some(mut writer) = self.live.pop(&gid) {
            writer
                .finish()
                .map_err(|e| part_error(&self.groups, gid, e))?;
            writer.sync()?;
            self.bytes_out += writer.bytes_written() as u64;
        }
        Ok(())
    }

    /// Finishes every part; each group's parts, the rows of each, for
    /// the groups with other than one.
    ///
    /// # Errors
    ///
    /// A part that cannot be finished.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        let live: Vec<u32> = self.live.iter().map(|(&gid, _)| gid).collect();
        for gid in live {
            self.close(gid)?;
        }
        Ok(self.parts())
    }

    /// The parts of the groups with other than one.
    pub fn parts(&self) -> Vec<(u32, Vec<u64>)> {
        (self.groups.iter())
            .filter(|(_, g)| g.parts.len() != 1)
            .map(|(&gid, g)| (gid, g.parts.clone()))
            .collect()
    }

    /// Bytes of the parts finished.
    pub fn bytes_out(&self) -> u64 {
        self.bytes_out
    }

    /// Drops every writer (the run is being aborted).
    pub fn discard(&mut self) {
        self.live.clear();
    }
}

/// Writer error `e` about group `gid`'s current part, naming it.
fn part_error(
    groups: &foldhash::HashMap<u32, Group>,
    gid: u32,
    e: parquet::errors::ParquetError,
) -> io::Error {
    let group = &groups[&gid];
    let path = part_path(&group.first, group.parts.len().saturating_sub(1) as u32);
    with_path(io::Error::other(e.to_string()), &path)
}

/// A part's properties: the run's, with dictionaries where its first
/// rows' strings repeat (as for text input) and on every column the input
/// held dictionary-encoded, and statistics per column chunk only.
fn file_properties(
    run: &WriterProperties,
    schema: &SchemaRef,
    sample: &RecordBatch,
) -> WriterProperties {
    let sampled = Dictionaries::sampled(sample).properties(run, schema);
    (schema.fields().iter())
        .filter(|f| matches!(f.data_type(), DataType::Dictionary(..)))
        .fold(sampled.into_builder(), |builder, f| {
            builder.set_column_dictionary_enabled(ColumnPath::from(f.name().as_str()), true)
        })
        // A column chunk is one page: the page index would repeat its
        // statistics, and the writer would hold it until the footer.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .build()
}
