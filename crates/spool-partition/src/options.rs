//! What a run is asked to do: the inputs, the output, the groupings, and
//! every choice `spool partition`'s flags and `spool.partition`'s keywords
//! make.
//!
//! Every field is an input. Nothing here is derived from another field:
//! how `memory` is divided is worked out from the whole of the options,
//! when the run is planned ([`MemoryPlan`](crate::MemoryPlan)), so the
//! fields may be set in any order. What cannot work together is refused
//! in one place, [`Options::check`], which the run calls first, so the
//! command line and the Python keywords get the same texts.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use spool::text::csv::Dialect;
use spool_io::progress::Progress;
use spool_io::read::{ReadOptions, RecordFormat};
use spool_io::write::Compression;

use crate::columns::{ColumnRef, Filter};
use crate::parquet::ParquetOptions;
use crate::router::MAX_GROUPINGS;
use crate::source::SourceFormat;
use crate::PartitionError;

/// Default memory target for a whole run (`--memory`).
pub const DEFAULT_MEMORY: usize = 128 << 20;

/// How the files of a dataset are arranged under the output directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetLayout {
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
    Parquet(ParquetOptions),
}

/// The group buffers: the chunk pool's sizes.
///
/// A group's buffer starts as a chunk of `min_chunk` bytes and moves up a
/// size class as it fills, up to `max_chunk`; all chunks together, with
/// what else is charged to the pool, stay within `budget`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSizes {
    /// The smallest chunk (no larger than `max_chunk`).
    pub min_chunk: usize,
    /// The largest chunk.
    pub max_chunk: usize,
    /// Bytes the pool may hand out and charge in all.
    pub budget: usize,
}

/// When a group's file rolls over to its next part: `--max-rows-per-file`
/// and `--max-bytes-per-file`, `u64::MAX` where not given.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FileLimits {
    /// Most records in one part.
    pub records: u64,
    /// Most bytes in one part.
    pub bytes: u64,
}

impl FileLimits {
    /// No limit.
    pub const NONE: FileLimits = FileLimits {
        records: u64::MAX,
        bytes: u64::MAX,
    };

    /// The limits `options` set.
    pub fn of(options: &Options) -> Self {
        FileLimits {
            records: options.max_rows_per_file.unwrap_or(u64::MAX),
            bytes: options.max_bytes_per_file.unwrap_or(u64::MAX),
        }
    }
}

/// What to partition and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Inputs, read in this order: files, directories (every file under
    /// them), globs (expanded by the run, not a shell), `-` for standard
    /// input; see [`Sources`](crate::Sources).
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
    /// Memory for the whole run, in bytes (`--memory`); the
    /// [`MemoryPlan`](crate::MemoryPlan) says where each byte goes.
    pub memory: usize,
    /// The group buffers' sizes, given directly rather than taken from
    /// what `memory` leaves for them: for tests and experiments, where a
    /// pool of a few small chunks makes every path of the budget run.
    /// `None` (the default) lets the plan size them.
    pub buffer_sizes: Option<BufferSizes>,
    /// Most output files open at once (shared among the workers); fewer
    /// if the process's open-file limit does not allow as many (see
    /// [`MemoryPlan::max_open`](crate::MemoryPlan::max_open)).
    pub max_open: usize,
    /// How the files are arranged.
    pub layout: DatasetLayout,
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
    /// [`check_run_id`](crate::append_run::check_run_id) for what an id may hold.
    pub run_id: Option<String>,
    /// Add this run's files to the dataset in `out` (created if missing),
    /// beside other runs' — even runs writing at the same time — instead
    /// of publishing a whole new dataset. Needs `run_id`; see
    /// [`AppendRun`](crate::append_run::AppendRun).
    pub append: bool,
    /// Most records in one output file: a group's file that holds this
    /// many rolls over to the group's next part (`part-00001…`, Hive
    /// layout only). `None`: no limit.
    pub max_rows_per_file: Option<u64>,
    /// Most bytes in one output file, within one block: text rolls over
    /// before a record that would take the group's part past it (counted
    /// before compression, so a compressed part is smaller still);
    /// Parquet at the first row group boundary at or past it. A record
    /// larger than the limit gets a part of its own. `None`: no limit.
    pub max_bytes_per_file: Option<u64>,
    /// Flush every output file and directory to disk before the dataset
    /// is published, and the publish after, so that not even a power loss
    /// can leave a published dataset with missing data. Off by default (as
    /// in DuckDB, Polars and xsv): the run then does not wait for the disk.
    pub fsync: bool,
    /// What the inputs hold (`--input-format`); `None` detects it from
    /// each file's first bytes and name (see [`Sources`](crate::Sources)).
    pub source_format: Option<SourceFormat>,
    /// How inputs are read.
    pub read: ReadOptions,
    /// Inputs read ahead at once.
    pub parallel_inputs: usize,
    /// Raised from another thread (a Ctrl-C handler) to stop early; the
    /// partial output is removed.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Live counters for a progress display (updated once per block).
    pub progress: Option<Arc<Progress>>,
    /// Errors from an object store carry the store's whole answer (its
    /// XML error body), not the one line of code and message.
    pub verbose: bool,
}

impl Options {
    /// Defaults: tab-delimited, no header, plain output, Hive layout, one
    /// writer per core, 256 open files, and [`DEFAULT_MEMORY`].
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf, by: Vec<ColumnRef>) -> Self {
        Options {
            inputs,
            out,
            by,
            delimiter: b'\t',
            quote: None,
            header: false,
            filters: Vec::new(),
            compression: Compression::None,
            format: OutputFormat::Text,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            memory: DEFAULT_MEMORY,
            buffer_sizes: None,
            max_open: 256,
            layout: DatasetLayout::Hive,
            skip_invalid: false,
            force: false,
            run_id: None,
            append: false,
            max_rows_per_file: None,
            max_bytes_per_file: None,
            fsync: false,
            source_format: None,
            read: ReadOptions::default(),
            parallel_inputs: 2,
            cancel: None,
            progress: None,
            verbose: false,
        }
    }

    /// How inputs split into records: [`RecordFormat::Csv`] with a quote,
    /// [`RecordFormat::Lines`] without.
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
    /// use spool_io::read::RecordFormat;
    /// let mut options = Options::new(vec!["in.csv".into()], "out".into(), vec![]);
    /// assert_eq!(options.input_format()?, RecordFormat::Lines);
    /// (options.delimiter, options.quote) = (b',', Some(b'"'));
    /// assert_eq!(options.input_format()?, RecordFormat::Csv(Dialect::CSV));
    /// options.quote = Some(b',');
    /// assert!(options.input_format().is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn input_format(&self) -> Result<RecordFormat, PartitionError> {
        let Some(quote) = self.quote else {
            return Ok(RecordFormat::Lines);
        };
        Dialect::new(self.delimiter, Some(quote))
            .map(RecordFormat::Csv)
            .map_err(|e| PartitionError::Usage(e.to_string()))
    }

    /// Refuses options that cannot work together or are out of range, each
    /// with its one text (what needs no file: the inputs and the output
    /// are [`Sources`](crate::Sources)' and
    /// [`Destination`](crate::destination::Destination)'s to check).
    ///
    /// # Errors
    ///
    /// [`PartitionError::Usage`]: no or too many `--by` columns, no input,
    /// a layout the output format or file limits cannot use, a count or
    /// file limit of 0, a delimiter and quote that make no dialect.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::{ColumnRef, Options};
    /// let mut options = Options::new(vec!["in.tsv".into()], "out".into(), vec![ColumnRef("1".into())]);
    /// assert!(options.check().is_ok());
    /// options.max_open = 0;
    /// let e = options.check().unwrap_err();
    /// assert_eq!(e.to_string(), "max_open must be at least 1");
    /// ```
    pub fn check(&self) -> Result<(), PartitionError> {
        let usage = |message: String| Err(PartitionError::Usage(message));
        if self.by.is_empty() || self.by.len() > MAX_GROUPINGS {
            return usage(format!("give between 1 and {MAX_GROUPINGS} --by columns"));
        }
        if self.inputs.is_empty() {
            return usage("no input files".into());
        }
        let parquet = matches!(self.format, OutputFormat::Parquet(_));
        if parquet && self.layout != DatasetLayout::Hive {
            return usage(
                "--format parquet writes the hive layout only (a group may have several part files)"
                    .into(),
            );
        }
        let capped = self.max_rows_per_file.is_some() || self.max_bytes_per_file.is_some();
        if capped && self.layout != DatasetLayout::Hive {
            return usage(
                "--max-rows-per-file and --max-bytes-per-file need the hive layout (a group may have several part files)"
                    .into(),
            );
        }
        let counts = [
            (self.workers, "threads"),
            (self.max_open, "max_open"),
            (self.parallel_inputs, "parallel_inputs"),
        ];
        if let Some((_, name)) = counts.iter().find(|(n, _)| *n == 0) {
            return usage(format!("{name} must be at least 1"));
        }
        if self.max_rows_per_file == Some(0) || self.max_bytes_per_file == Some(0) {
            return usage("a file limit (--max-rows-per-file, --max-bytes-per-file) of 0".into());
        }
        self.input_format()?;
        Ok(())
    }

    /// Whether the output is an `s3://` URL (its parts in flight and
    /// their connections are then part of the run's memory and files).
    pub(crate) fn writes_to_s3(&self) -> bool {
        crate::destination::Destination::of(self).is_ok_and(|d| d.is_s3())
    }

    /// Whether an input is remote (`s3://`, `http(s)://`): its reads in
    /// flight are then part of the run's memory.
    pub(crate) fn reads_remote(&self) -> bool {
        (self.inputs.iter()).any(|input| crate::source::is_remote(input))
    }

    /// The writer threads a run starts with `max_open` files open at
    /// most (see [`MemoryPlan::max_open`](crate::MemoryPlan::max_open)):
    /// [`workers`](Self::workers), but at least one and no more than
    /// `max_open`, since each keeps at least one file open.
    pub(crate) fn writer_threads(&self, max_open: usize) -> usize {
        self.workers.clamp(1, max_open.max(1))
    }
}
