//! A writer thread's Parquet files for a run whose inputs are Parquet:
//! the rows of its groups, as record batches of the input's own types,
//! appended to one [`ArrowWriter`] per group.
//!
//! # Bounds
//!
//! * Files: at most `max_open` writers open per thread; a group whose
//!   writer is the least recently used one when another must open has its
//!   part finished, and its next rows start its next part
//!   (`part-00001…`). Many more keys than open files thus make more, and
//!   smaller, part files, never more open files.
//! * Memory: a writer's row group in progress is flushed once it holds
//!   `row_group_bytes`; when the thread's writers hold more than its
//!   share of the budget together, the largest row groups are flushed
//!   until they hold half of it.

use std::fs::File;
use std::io;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use lru::LruCache;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use spool_io::input::with_path;

use crate::file_layout::part_path;
use crate::options::FileLimits;
use crate::parquet::Dictionaries;

/// What the router and the writer threads of a typed run share.
pub(crate) struct TypedRun {
    /// Per grouping: the schema of its files (the run's, less the key).
    pub files: Vec<SchemaRef>,
    /// The run's writer properties.
    pub properties: WriterProperties,
    /// A row group is flushed when its writer holds this many bytes.
    pub row_group_bytes: usize,
    /// Bytes the row groups of one thread's writers may hold together.
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
    open: LruCache<u32, ArrowWriter<File>>,
    groups: foldhash::HashMap<u32, Group>,
    bytes_out: u64,
}

impl TypedSink {
    /// A thread's sink, with at most `max_open` writers open.
    pub fn new(run: Arc<TypedRun>, max_open: usize) -> Self {
        let cap = NonZeroUsize::new(max_open.max(1)).expect("at least one");
        TypedSink {
            run,
            open: LruCache::new(cap),
            groups: foldhash::HashMap::default(),
            bytes_out: 0,
        }
    }

    /// Appends `batches` (rows of group `gid`, its files' schema) to the
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
        batches: &[RecordBatch],
    ) -> io::Result<()> {
        if let Some(first) = create {
            if let Some(dir) = first.parent() {
                std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
            }
            let parts = Vec::new();
            self.groups.insert(
                gid,
                Group {
                    first,
                    grouping,
                    parts,
                },
            );
        }
        let schema = self.run.files[self.groups[&gid].grouping].clone();
        let batch = arrow_select::concat::concat_batches(&schema, batches)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let limits = self.run.limits;
        let mut start = 0;
        while start < batch.num_rows() {
            let rest = batch.slice(start, batch.num_rows() - start);
            if !self.open.contains(&gid) {
                self.open_part(gid, &rest)?;
            }
            let in_part = *self.groups[&gid].parts.last().expect("a part is open");
            let writer = self.open.get_mut(&gid).expect("open");
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
            if writer.in_progress_size() >= self.run.row_group_bytes {
                writer
                    .flush()
                    .map_err(|e| part_error(&self.groups, gid, e))?;
            }
            start += slice.num_rows();
            *self
                .groups
                .get_mut(&gid)
                .expect("known")
                .parts
                .last_mut()
                .expect("open") += slice.num_rows() as u64;
        }
        self.relieve()
    }

    /// Opens group `gid`'s next part, its dictionaries chosen from
    /// `sample` (closing the least recently used writer first if all are
    /// open).
    fn open_part(&mut self, gid: u32, sample: &RecordBatch) -> io::Result<()> {
        if self.open.len() == self.open.cap().get() {
            if let Some((lru, _)) = self.open.peek_lru() {
                let lru = *lru;
                self.close(lru)?;
            }
        }
        let group = self.groups.get_mut(&gid).expect("known group");
        let path = part_path(&group.first, group.parts.len() as u32);
        let schema = self.run.files[group.grouping].clone();
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        let properties = file_properties(&self.run.properties, &schema, sample);
        let writer = ArrowWriter::try_new(file, schema, Some(properties))
            .map_err(|e| with_path(io::Error::other(e.to_string()), &path))?;
        group.parts.push(0);
        self.open.push(gid, writer);
        Ok(())
    }

    /// Finishes group `gid`'s open part.
    fn close(&mut self, gid: u32) -> io::Result<()> {
        if let Some(mut writer) = self.open.pop(&gid) {
            writer
                .finish()
                .map_err(|e| part_error(&self.groups, gid, e))?;
            self.bytes_out += writer.bytes_written() as u64;
        }
        Ok(())
    }

    /// Flushes the largest row groups in progress while this thread's
    /// writers hold more than its budget, down to half of it.
    fn relieve(&mut self) -> io::Result<()> {
        let held = |open: &LruCache<u32, ArrowWriter<File>>| -> usize {
            open.iter().map(|(_, w)| w.in_progress_size()).sum()
        };
        if held(&self.open) <= self.run.thread_budget {
            return Ok(());
        }
        let mut sizes: Vec<(usize, u32)> = (self.open.iter())
            .map(|(&gid, w)| (w.in_progress_size(), gid))
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let mut total: usize = sizes.iter().map(|(size, _)| size).sum();
        for (size, gid) in sizes {
            if total <= self.run.thread_budget / 2 {
                break;
            }
            let writer = self.open.peek_mut(&gid).expect("open");
            writer
                .flush()
                .map_err(|e| part_error(&self.groups, gid, e))?;
            total -= size;
        }
        Ok(())
    }

    /// Finishes every open part; each group's parts, the rows of each,
    /// for the groups with other than one.
    ///
    /// # Errors
    ///
    /// A part that cannot be finished.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        let open: Vec<u32> = self.open.iter().map(|(&gid, _)| gid).collect();
        for gid in open {
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

    /// Drops every open writer (the run is being aborted).
    pub fn discard(&mut self) {
        self.open.clear();
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
/// held dictionary-encoded.
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
        .build()
}
