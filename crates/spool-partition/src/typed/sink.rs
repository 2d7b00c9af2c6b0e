//! A writer thread's Parquet files for a run whose inputs are Parquet:
//! the rows of its groups, as record batches of the input's own types,
//! kept in a spill log while the input is read and written as each
//! group's part, in as few row groups as its size allows, once it ends.
//!
//! Every job (a group's rows of one sorted batch) is appended to the
//! thread's spill log (the `spill` module of `--format parquet`) as Arrow
//! IPC messages (the `ipc_runs` module): a copy, no encoding. When the
//! input ends the thread posts its groups on the run's board and, with
//! the other threads, takes them heaviest first (the `conversion_queue`
//! module): each group's runs are decoded in order and written by one
//! [`ArrowWriter`] into its part.
//!
//! Writing each job as it came instead made a row group per group per
//! sorted batch: at a thousand keys within `--memory`, several row
//! groups of a few hundred rows per part, each costing a compressor per
//! column and its metadata (docs/perf/partition-parquet-input.md).
//!
//! # Bounds
//!
//! * Files: the spill log while the input is read; then one part at a
//!   time per thread.
//! * Memory: while the input is read, a job's IPC messages (as large as
//!   its rows) and the log's write buffer; at the end one group at a
//!   time per thread: one piece of its runs read back, the rows decoded
//!   from it, and the row group being encoded (flushed at
//!   `row_group_bytes`).
//! * Parts roll over at the run's file limits (`--max-records`,
//!   `--max-bytes`), and only there.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use spool_io::input::with_path;

use super::ipc_runs::{IpcRuns, RunsDecoder};
use crate::file_layout::part_path;
use crate::options::FileLimits;
use crate::parquet::spill::{Spill, SpillLog};
use crate::parquet::{Board, Dictionaries, Poster};

/// Rows written to a part's writer at a time, so that its row group in
/// progress is looked at (and flushed at `row_group_bytes`) between them.
const WRITE_ROWS: usize = 1 << 16;

/// What the router and the writer threads of a typed run share.
pub(crate) struct TypedRun {
    /// Per grouping: the schema of its files (the run's, less the key).
    pub files: Vec<SchemaRef>,
    /// The run's writer properties.
    pub properties: WriterProperties,
    /// A row group is flushed when its writer holds this many bytes.
    pub row_group_bytes: usize,
    pub limits: FileLimits,
    /// Every thread's groups at the end of the input.
    pub conversions: Arc<Board<Pending>>,
}

/// A group whose rows are in a spill log, waiting to be written as its
/// part by whichever thread takes it.
pub(crate) struct Pending {
    gid: u32,
    group: Group,
    log: Arc<SpillLog>,
}

/// What a thread knows of one of its groups while the input is read.
struct Group {
    /// Its first part's path.
    first: PathBuf,
    grouping: usize,
    /// The offset of its last run in the log.
    last: u64,
    /// Bytes of its runs.
    bytes: u64,
}

/// One writer thread's typed Parquet files; see the module docs.
pub(crate) struct TypedSink {
    run: Arc<TypedRun>,
    spill: Spill,
    groups: foldhash::HashMap<u32, Group>,
    ipc: IpcRuns,
    poster: Option<Poster<Pending>>,
    /// The groups this thread wrote with other than one part: the rows of
    /// each part.
    parts: Vec<(u32, Vec<u64>)>,
    bytes_out: u64,
    /// The read buffer, kept from one group to the next.
    spare: Vec<u8>,
}

impl TypedSink {
    /// A thread's sink, its spill log at `spill_log`.
    pub fn new(run: Arc<TypedRun>, spill_log: PathBuf) -> Self {
        let poster = Some(run.conversions.poster());
        TypedSink {
            run,
            spill: Spill::new(spill_log),
            groups: foldhash::HashMap::default(),
            ipc: IpcRuns::default(),
            poster,
            parts: Vec::new(),
            bytes_out: 0,
            spare: Vec::new(),
        }
    }

    /// Appends `batch` (rows of group `gid`, its files' schema) to the
    /// group's runs, the group's first part to be `create`.
    ///
    /// # Errors
    ///
    /// The spill log cannot be written, or a batch IPC cannot encode.
    pub fn write(
        &mut self,
        gid: u32,
        grouping: usize,
        create: Option<PathBuf>,
        batch: &RecordBatch,
    ) -> io::Result<()> {
        let previous = self.groups.get(&gid).map(|g| g.last);
        let bytes = self.ipc.encode(batch, previous.is_none())?;
        let at = self.spill.append(gid, previous, bytes)?;
        let len = bytes.len() as u64;
        match (create, self.groups.get_mut(&gid)) {
            (_, Some(group)) => {
                group.last = at;
                group.bytes += len;
            }
            (Some(first), None) => {
                let group = Group {
                    first,
                    grouping,
                    last: at,
                    bytes: len,
                };
                self.groups.insert(gid, group);
            }
            (None, None) => unreachable!("a group's first job names its part"),
        }
        Ok(())
    }

    /// Posts this thread's groups to the run's board, then writes groups
    /// (of any thread, heaviest first) as their parts, one at a time,
    /// until none is left; returns the groups this thread wrote with
    /// other than one part, every thread's writing done.
    ///
    /// # Errors
    ///
    /// The spill log's or a part's error.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        if let Some(log) = self.spill.finish()? {
            let pending = (self.groups.drain())
                .map(|(gid, group)| {
                    let log = log.clone();
                    (group.bytes, Pending { gid, group, log })
                })
                .collect();
            self.poster.take().expect("posted once").post(pending);
        }
        drop(self.poster.take()); // nothing spilled: posts nothing
        let board = self.run.conversions.clone();
        board.work_through(|pending| self.write_group(pending))?;
        Ok(self.parts())
    }

    /// Writes a group's runs as its part files.
    fn write_group(&mut self, pending: Pending) -> io::Result<()> {
        let Pending { gid, group, log } = pending;
        let schema = self.run.files[group.grouping].clone();
        let mut drain = log.drain(gid, group.last, std::mem::take(&mut self.spare))?;
        let mut decoder = RunsDecoder::default();
        let mut part = PartWriter::new(&self.run, &group.first, schema);
        while let Some(piece) = drain.next_piece()? {
            for batch in decoder
                .decode(piece)
                .map_err(|e| with_path(e, &group.first))?
            {
                part.write(&batch)?;
            }
        }
        decoder.finish().map_err(|e| with_path(e, &group.first))?;
        self.spare = drain.into_buffer();
        let rows = part.finish()?;
        self.bytes_out += rows.bytes_out;
        if rows.parts.len() != 1 {
            self.parts.push((gid, rows.parts));
        }
        Ok(())
    }

    /// The groups this thread wrote with other than one part.
    pub fn parts(&self) -> Vec<(u32, Vec<u64>)> {
        self.parts.clone()
    }

    /// Bytes of the parts finished.
    pub fn bytes_out(&self) -> u64 {
        self.bytes_out
    }

    /// Stops every thread's writing (the run is being aborted); the
    /// spill log goes with the staging directory.
    pub fn discard(&mut self) {
        self.run.conversions.stop();
    }
}

/// One group's part files as they are written: the current part's
/// writer, and the rows of each part so far.
struct PartWriter<'a> {
    run: &'a TypedRun,
    first: &'a PathBuf,
    schema: SchemaRef,
    writer: Option<ArrowWriter<File>>,
    parts: Vec<u64>,
    bytes_out: u64,
}

/// A group's parts once written.
struct Written {
    parts: Vec<u64>,
    bytes_out: u64,
}

impl<'a> PartWriter<'a> {
    fn new(run: &'a TypedRun, first: &'a PathBuf, schema: SchemaRef) -> Self {
        PartWriter {
            run,
            first,
            schema,
            writer: None,
            parts: Vec::new(),
            bytes_out: 0,
        }
    }

    /// Appends `batch`, starting the next part at the file limits.
    fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        let limits = self.run.limits;
        let mut start = 0;
        while start < batch.num_rows() {
            let rest = batch.slice(start, batch.num_rows() - start);
            if self.writer.is_none() {
                self.open(&rest)?;
            }
            let written = self.writer.as_ref().map_or(0, |w| w.bytes_written() as u64);
            let in_part = *self.parts.last().expect("a part is open");
            if in_part > 0 && (in_part >= limits.records || written >= limits.bytes) {
                self.close()?;
                continue;
            }
            let mut room = ((limits.records - in_part) as usize).min(WRITE_ROWS);
            if limits.bytes < u64::MAX {
                // A row group at a time, so the bytes written are looked
                // at after each.
                let rows = self.run.properties.max_row_group_row_count();
                room = room.min(rows.unwrap_or(usize::MAX));
            }
            let slice = rest.slice(0, rest.num_rows().min(room));
            let path = part_path(self.first, self.parts.len() as u32 - 1);
            let writer = self.writer.as_mut().expect("open");
            writer.write(&slice).map_err(|e| part_error(&path, e))?;
            if limits.bytes < u64::MAX || writer.in_progress_size() >= self.run.row_group_bytes {
                writer.flush().map_err(|e| part_error(&path, e))?;
            }
            *self.parts.last_mut().expect("open") += slice.num_rows() as u64;
            start += slice.num_rows();
        }
        Ok(())
    }

    /// Starts the group's next part, its dictionaries chosen from
    /// `sample`.
    fn open(&mut self, sample: &RecordBatch) -> io::Result<()> {
        let path = part_path(self.first, self.parts.len() as u32);
        if self.parts.is_empty() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
            }
        }
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        let properties = file_properties(&self.run.properties, &self.schema, sample);
        let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(properties))
            .map_err(|e| part_error(&path, e))?;
        self.parts.push(0);
        self.writer = Some(writer);
        Ok(())
    }

    /// Finishes the current part.
    fn close(&mut self) -> io::Result<()> {
        if let Some(mut writer) = self.writer.take() {
            let path = part_path(self.first, self.parts.len() as u32 - 1);
            writer.finish().map_err(|e| part_error(&path, e))?;
            self.bytes_out += writer.bytes_written() as u64;
        }
        Ok(())
    }

    /// Finishes the last part (a group has rows: its first job had some,
    /// so it has at least one part).
    fn finish(mut self) -> io::Result<Written> {
        self.close()?;
        Ok(Written {
            parts: self.parts,
            bytes_out: self.bytes_out,
        })
    }
}

/// Writer error `e` about the part at `path`, naming it.
fn part_error(path: &std::path::Path, e: parquet::errors::ParquetError) -> io::Error {
    with_path(io::Error::other(e.to_string()), path)
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
        // The page index would repeat the column chunks' statistics for a
        // part of few pages, and the writer would hold it until the footer.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .build()
}
