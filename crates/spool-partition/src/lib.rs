//! The engine of `spool partition`: many delimited-text inputs in, one
//! output file per key out, in input order, in bounded memory, with a bounded
//! number of open files.
//!
//! ```text
//!  inputs ──FileBlocks──► router (this thread)         workers (one per core)
//!  (read ahead,           key = field(record)          own group g when
//!   decompressed)         append record to the  ──►    g % workers == i:
//!                         group's pool chunk;          encode block (plain,
//!                         full chunk → its worker      zstd frame, gzip member),
//!                                                      append to the group's
//!                                                      file in the staging dir
//!                                                      (LRU of open files);
//!                                                      publish: one rename
//! ```
//!
//! Order: one router reads the inputs in order and each group has exactly
//! one worker, fed through a FIFO queue, so a group's records reach its file
//! in input order (file order, then line order) without any lock.
//!
//! Memory: group buffers are chunks from one [`ChunkPool`]. A group starts
//! with a small chunk and moves up a size class (512 B … 64 KiB by default)
//! as it fills; a full largest chunk goes to the group's worker. When the
//! pool's budget is spent, the router sends the quarter of the buffers that
//! hold the most bytes and waits for memory to come back. The number of
//! distinct keys changes how large the written blocks are, never how much
//! memory is used.
//!
//! Files: the run holds an exclusive lock on the output and writes the
//! whole dataset into a hidden staging directory beside it, which is
//! published as the output with one rename once every input was read and
//! every block and the manifest written. On an error, an interruption or a
//! kill, no part of the dataset is ever visible under the output's name.
//!
//! The parts, one job each:
//!
//! | module | its job |
//! |---|---|
//! | `router` | the run: reads blocks, applies columns, filters and the header, maps keys to groups |
//! | `key_table` | the router's table from a key's bytes to its group, short keys compared in registers |
//! | `budget` | the groups' buffers under the pool's budget: growing, early flushes, waiting for memory |
//! | `outputs` | one output file per group and the worker threads that write them |
//! | `workers` | a writer thread: encode each block, append it, keep at most `max_open` files open |
//! | `layout` | file names: Hive or flat layout, escaped keys within name limits, extensions, no two alike |
//! | `commit` | the end: manifest, then one publish ([`StagedDir`]) or, with `--append`, one rename per file ([`AppendRun`]); or removal of everything; `--fsync` |
//! | [`dataset`] | a dataset of several runs read back as one: the manifests merged, unlisted files found |
//! | [`clean`] | what dead appending runs left, removed |
//! | [`escape`] | keys as file names, reversibly |
//! | [`choices`] | delimiters, quotes and compressions by name, as the CLI and Python take them |
//! | `columns` | `--by` and `--where` columns resolved against the header |
//! | [`parquet`] | `--format parquet`: the table, typed values, Parquet writers |
//! | `writer_memory` | the Parquet writers' row groups charged to the budget |
//!
//! [`ChunkPool`]: spool_io::write::ChunkPool
//! [`StagedDir`]: spool_io::write::StagedDir
//! [`AppendRun`]: spool_io::write::AppendRun

#![deny(missing_docs, unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod budget;
pub mod choices;
pub mod clean;
mod columns;
mod commit;
pub mod dataset;
pub mod escape;
mod key_table;
mod layout;
mod outputs;
pub mod parquet;
mod router;
mod workers;
mod writer_memory;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use columns::{Column, ColumnRef, Filter};
pub use layout::MANIFEST_PREFIX;
pub use router::run;

use spool_io::progress::Progress;
use spool_io::read::{Format, ReadOptions};
use spool_io::size::Size;
use spool_io::write::Compression;
use spool::text::csv::{BlockIndex, Dialect};

/// Where each group's file goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `OUT/COLUMN=VALUE/part-00000.tsv` — what Spark, DuckDB and Polars read
    /// as a Hive-partitioned dataset. With several `--by` columns each gets
    /// its own tree, `OUT/by-COLUMN/COLUMN=VALUE/…`.
    Hive,
    /// `OUT/VALUE.tsv` (or `OUT/COLUMN/VALUE.tsv` with several `--by`).
    Flat,
}

/// What the output files hold.
#[derive(Clone, Debug, Default)]
pub enum OutputFormat {
    /// The records as read (compressed per [`Options::compression`]).
    #[default]
    Text,
    /// A Parquet dataset (Hive layout only).
    Parquet(parquet::ParquetOptions),
}

/// What to partition and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Input paths, read in this order (`-` is standard input).
    pub inputs: Vec<PathBuf>,
    /// Output directory; created if missing.
    pub out: PathBuf,
    /// One grouping per entry: records are written once per grouping.
    pub by: Vec<ColumnRef>,
    /// Field delimiter.
    pub delimiter: u8,
    /// Quote byte: `Some` reads RFC 4180 CSV (a field may be enclosed in
    /// it; delimiters and line breaks inside are data), `None` unquoted
    /// lines (IANA TSV). Keys and `--where` see unquoted values; records
    /// are written as read.
    pub quote: Option<u8>,
    /// Each input starts with a header line (names columns, is repeated
    /// at the top of every output file, and must be the same in every input).
    pub header: bool,
    /// Conditions every written record meets.
    pub filters: Vec<Filter>,
    /// Output encoding of text files.
    pub compression: Compression,
    /// Text or Parquet.
    pub format: OutputFormat,
    /// Writer threads (no more than `max_open` are started: each keeps a
    /// file open).
    pub workers: usize,
    /// Size of the largest buffer chunk (a group's buffer grows up to it).
    pub chunk_len: usize,
    /// Size of the smallest buffer chunk (where a group's buffer starts).
    pub min_chunk_len: usize,
    /// Bytes all chunks together may use.
    pub chunk_budget: usize,
    /// The memory target last given to [`set_memory`](Self::set_memory).
    pub memory: usize,
    /// Most output files open at once (shared among the workers).
    pub max_open: usize,
    /// Output layout.
    pub layout: Layout,
    /// Count and skip records with too few fields, a last record whose
    /// quote is never closed, and (Parquet) records that do not fit the
    /// table, instead of stopping.
    pub skip_invalid: bool,
    /// Replace an existing dataset (a directory holding a
    /// `_partitions*.tsv` manifest) as a whole; without it the output must
    /// be missing or empty.
    pub force: bool,
    /// Names every file of the run after this id (`part-ID-00000.tsv`,
    /// flat `KEY.ID.tsv`, manifest `_partitions-ID.tsv`), so that runs
    /// with different ids never write the same name; see
    /// [`check_run_id`](spool_io::write::check_run_id) for what an id may hold.
    pub run_id: Option<String>,
    /// Add this run's files to the dataset in `out` (created if missing),
    /// beside other runs' — even runs writing at the same time — instead
    /// of publishing a whole new dataset. Needs `run_id`; see
    /// [`AppendRun`](spool_io::write::AppendRun).
    pub append: bool,
    /// Flush every output file and directory to disk before the dataset
    /// is published, and the publish after, so that not even a power loss
    /// can leave a published dataset with missing data. Off by default (as
    /// in DuckDB, Polars and xsv): the run then does not wait for the disk.
    pub fsync: bool,
    /// How inputs are read.
    pub read: ReadOptions,
    /// Inputs read ahead at once.
    pub parallel_inputs: usize,
    /// Raised from another thread (a Ctrl-C handler) to stop early; the
    /// partial output is removed.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Live counters for a progress display (updated once per block).
    pub progress: Option<Arc<Progress>>,
}

impl Options {
    /// Defaults: tab-delimited, no header, plain output, Hive layout, one
    /// writer per core, 256 open files, and a memory target of 128 MiB.
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf, by: Vec<ColumnRef>) -> Self {
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut options = Options {
            inputs,
            out,
            by,
            delimiter: b'\t',
            quote: None,
            header: false,
            filters: Vec::new(),
            compression: Compression::None,
            format: OutputFormat::Text,
            workers,
            chunk_len: 64 << 10,
            min_chunk_len: 512,
            chunk_budget: 64 << 20,
            memory: DEFAULT_MEMORY,
            max_open: 256,
            layout: Layout::Hive,
            skip_invalid: false,
            force: false,
            run_id: None,
            append: false,
            fsync: false,
            read: ReadOptions::default(),
            parallel_inputs: 2,
            cancel: None,
            progress: None,
        };
        options
            .set_memory(DEFAULT_MEMORY)
            .expect("the default target is large enough");
        options
    }

    /// Sizes the chunk pool so the whole run stays within `total` bytes:
    /// what is left after the read-ahead buffers, each worker's encoder and
    /// a fixed allowance for the program itself goes to chunks, the largest
    /// of which is about 1/512 of that (32 KiB to 1 MiB).
    ///
    /// # Errors
    ///
    /// If `total` leaves less than 1 MiB for chunks; the message says the
    /// smallest workable value.
    pub fn set_memory(&mut self, total: usize) -> Result<(), PartitionError> {
        self.memory = total;
        let reserve = self.memory_reserve(total);
        let budget = total.saturating_sub(reserve);
        if budget < MIN_CHUNK_BUDGET {
            // The reserve grows with the total (row groups, arena slack):
            // name a total that is enough once its own reserve is taken.
            let mut least = (reserve + MIN_CHUNK_BUDGET).next_multiple_of(1 << 20);
            while least.saturating_sub(self.memory_reserve(least)) < MIN_CHUNK_BUDGET {
                least += 1 << 20;
            }
            return Err(PartitionError::Usage(format!(
                "--memory {} is too small for {} writer(s) and {} read-ahead input(s); \
                 use at least {} (or fewer --threads)",
                Size(total),
                self.workers,
                self.parallel_inputs,
                Size(least)
            )));
        }
        let per_chunk = (budget / 512).clamp(32 << 10, MAX_CHUNK);
        self.chunk_len = 1 << per_chunk.ilog2();
        self.chunk_budget = budget;
        Ok(())
    }

    /// How inputs split into records: [`Format::Csv`] with a quote,
    /// [`Format::Lines`] without.
    ///
    /// # Errors
    ///
    /// If the delimiter and quote cannot work together (equal, or CR/LF).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::Dialect;
    /// use spool_partition::Options;
    /// use spool_io::read::Format;
    /// let mut options = Options::new(vec!["in.csv".into()], "out".into(), vec![]);
    /// assert_eq!(options.input_format()?, Format::Lines);
    /// (options.delimiter, options.quote) = (b',', Some(b'"'));
    /// assert_eq!(options.input_format()?, Format::Csv(Dialect::CSV));
    /// options.quote = Some(b',');
    /// assert!(options.input_format().is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn input_format(&self) -> Result<Format, PartitionError> {
        let Some(quote) = self.quote else {
            return Ok(Format::Lines);
        };
        Dialect::new(self.delimiter, Some(quote))
            .map(Format::Csv)
            .map_err(|e| PartitionError::Usage(e.to_string()))
    }

    /// Memory besides the chunks in a run of `--memory` `total`: read-ahead rings (a ring can briefly hold
    /// one extra buffer; for CSV each buffer has its records' index), an
    /// encoder and its output per worker, and a fixed allowance for code,
    /// the key table and allocator slack.
    fn memory_reserve(&self, total: usize) -> usize {
        let index = match self.quote {
            Some(_) => self.read.buffers * BlockIndex::memory(self.read.buffer_len),
            None => 0,
        };
        let read = self.parallel_inputs * (self.read.buffers + 1) * self.read.buffer_len
            + self.parallel_inputs * index
            // a decompressor's input buffer
            + self.parallel_inputs * (1 << 20);
        let workers = match &self.format {
            OutputFormat::Text => {
                let encoder = match self.compression {
                    Compression::None => 0,
                    Compression::Zstd(_) => 4 << 20,
                    Compression::Gzip(_) => 1 << 20,
                };
                self.workers.max(1) * (encoder + 2 * (1 << 20))
            }
            // Per writer thread: a batch being built (its arrays, about
            // three times the text of a largest chunk, or of a piece of a
            // spilled group being converted, and that piece), the spill
            // log's write buffer, a row group being compressed
            // (its output, and a zstd context; with delta-length strings,
            // the copy arrow-rs makes of a string page as it flushes it),
            // what its allocator arena may keep free
            // (`parquet::arena_slack`); per open file its write buffer (the
            // writers' own state is charged to the budget as they open).
            OutputFormat::Parquet(options) => {
                let page_copy = match options.encodings {
                    parquet::Encodings::Delta => row_group_bytes(total),
                    parquet::Encodings::Plain => 0,
                };
                self.workers.max(1)
                    * (3 * MAX_CHUNK
                        + parquet::READ_PIECE
                        + parquet::spill::WRITE_BUFFER
                        + row_group_bytes(total)
                        + page_copy
                        + (4 << 20)
                        + parquet::arena_slack(total))
                    + self.max_open * parquet::sink::FILE_BUFFER
            }
        };
        read + workers + BASE_ALLOWANCE
    }

    /// In-memory size at which this run's Parquet writers flush a row
    /// group (see [`row_group_bytes`]).
    pub(crate) fn row_group_bytes(&self) -> usize {
        row_group_bytes(self.memory)
    }
}

/// In-memory size at which a Parquet writer flushes its row group in a
/// run of `--memory` `total`: 1/32 of it, 1 to 16 MiB.
fn row_group_bytes(total: usize) -> usize {
    (total / 32).clamp(1 << 20, 16 << 20)
}

/// Default memory target for a whole run.
pub const DEFAULT_MEMORY: usize = 128 << 20;
/// Memory counted for the program itself (code, stacks, key table).
const BASE_ALLOWANCE: usize = 24 << 20;
/// Largest chunk `set_memory` chooses.
const MAX_CHUNK: usize = 1 << 20;
/// Smallest chunk budget `set_memory` accepts.
const MIN_CHUNK_BUDGET: usize = 1 << 20;

/// One output file.
#[derive(Clone, Debug)]
pub struct GroupSummary {
    /// The `--by` column it belongs to.
    pub column: String,
    /// The key.
    pub key: Vec<u8>,
    /// The file written (with Parquet, its first part).
    pub path: PathBuf,
    /// Records written (not counting the header).
    pub records: u64,
    /// Files written: 1, or with Parquet the number of parts.
    pub files: u32,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Records read (headers excluded).
    pub records_in: u64,
    /// Records dropped by `--where`.
    pub filtered: u64,
    /// Records skipped for too few fields or an unterminated quote
    /// (`--skip-invalid`).
    pub skipped_invalid: u64,
    /// Decompressed bytes read.
    pub bytes_in: u64,
    /// Bytes written (after compression).
    pub bytes_out: u64,
    /// Times a closed output file was opened again.
    pub reopened: u64,
    /// Chunks sent before they were full because the pool was spent.
    pub early_flushes: u64,
    /// Bookkeeping for keys that did not fit in the memory budget (so many
    /// distinct keys that their table alone outgrew it); 0 normally.
    pub over_budget_bytes: u64,
    /// Every output file, in the order its key first appeared.
    pub groups: Vec<GroupSummary>,
    /// The run's manifest, `OUT/_partitions.tsv` (`OUT/_partitions-ID.tsv`
    /// with a run id), once published.
    pub manifest: PathBuf,
    /// Staging directories of dead (killed) runs into the same output,
    /// removed at the start.
    pub stale_removed: Vec<PathBuf>,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// Reading or writing failed; the message names the path. Transparent:
    /// the I/O error's message is this error's message, not also its cause.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A record or header cannot be used.
    #[error("{file}:{line}: byte offset {offset}: {message}")]
    Input {
        /// The input's path.
        file: String,
        /// Line number (from 1).
        line: u64,
        /// Byte offset of the line's start (decompressed).
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The options are wrong.
    #[error("{0}")]
    Usage(String),
    /// Stopped by the cancel flag; partial output was removed.
    #[error("interrupted; partial output removed")]
    Interrupted,
}
