//! The router: reads blocks in input order, finds each record's keys and
//! hands the record to its groups' buffers; see the [parent docs](super).
//!
//! It owns what a record means — columns, `--where` filters, the header,
//! the table from key to group — and nothing about memory or files: the
//! buffers and their budget are [`Buffers`](super::budget::Buffers), the
//! files [`Outputs`](super::outputs::Outputs), their names
//! [`FileLayout`](super::layout::FileLayout), and the end of the run
//! [`commit`](super::commit).

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use regex::bytes::Regex;

use super::budget::Buffers;
use super::commit::Staging;
use super::key_table::KeyTable;
use super::outputs::Outputs;
use super::parquet::ParquetRun;
use super::workers::Output;
use super::{Column, GroupSummary, Layout, Options, OutputFormat, PartitionError, Summary};
use spool_io::progress::Phase;
use spool_io::read::{Block, FieldRecord, FileBlocks, Format, Line};
use spool_io::write::told_in_target;
use spool::text::csv::UnterminatedQuote;

mod checks;
mod rescan;

/// Most `--by` columns in one run.
pub const MAX_GROUPINGS: usize = 16;

/// Memory charged per group besides its key: the group record, two
/// hash-table entries (router and writer) and the writer's path.
const GROUP_OVERHEAD: usize = 192;

struct ResolvedFilter {
    index: usize,
    regex: Regex,
    negate: bool,
}

struct Router<'a> {
    options: &'a Options,
    columns: Vec<Column>,
    filters: Vec<ResolvedFilter>,
    /// The header as read (without its line break) once seen, to compare
    /// the other inputs' headers with.
    header: Option<Vec<u8>>,
    /// The input the last block came from, and whether its header is
    /// still to come (its first record, in header mode).
    file: Option<usize>,
    header_pending: bool,
    /// Per grouping, each key's group id.
    keys: Vec<KeyTable>,
    buffers: Buffers,
    outputs: Outputs,
    /// Set for `--format parquet`.
    parquet: Option<Arc<ParquetRun>>,
    /// The writer threads check the Parquet table, not the router (see
    /// the `rescan` module).
    writers_check: bool,
    /// Reading the inputs again only to find a record that does not fit.
    check_only: bool,
    summary: Summary,
}

/// Partitions `options.inputs` into `options.out`.
///
/// # Errors
///
/// Bad options, an unreadable input, a record with too few fields (unless
/// `skip_invalid`), a header that differs between inputs, a write error,
/// or cancellation. On every error the partial output is removed.
///
/// # Examples
///
/// ```
/// use spool_partition::{run, ColumnRef, Options};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-partition-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("in.tsv"), "de\tBerlin\nfr\tParis\nde\tBonn\n")?;
/// let out = dir.join("out");
/// let options = Options::new(vec![dir.join("in.tsv")], out.clone(), vec![ColumnRef("1".into())]);
/// let summary = run(&options)?;
/// assert_eq!(summary.groups.len(), 2);
/// let de = std::fs::read_to_string(out.join("col1=de/part-00000.tsv"))?;
/// assert_eq!(de, "de\tBerlin\nde\tBonn\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(options: &Options) -> Result<Summary, PartitionError> {
    if options.by.is_empty() || options.by.len() > MAX_GROUPINGS {
        return Err(PartitionError::Usage(format!(
            "give between 1 and {MAX_GROUPINGS} --by columns"
        )));
    }
    if options.inputs.is_empty() {
        return Err(PartitionError::Usage("no input files".into()));
    }
    if matches!(options.format, OutputFormat::Parquet(_)) && options.layout != Layout::Hive {
        return Err(PartitionError::Usage(
            "--format parquet writes the hive layout only (a group may have several part files)"
                .into(),
        ));
    }
    // Locks the output (or the run id), removes dead runs' staging
    // directories and starts this run's; dropped on any error below, it
    // removes what was written.
    let staged = Staging::begin(options)?;
    let stale = staged.stale_removed().to_vec();
    let staging = staged.dir().to_owned();
    let mut router = Router::new(options, staged)?;
    router.summary.stale_removed = stale;
    let result = router.route_all();
    let result = match result {
        Ok(()) => router.finish(),
        Err(e) => {
            // A worker's own error says more than the router's "write failed".
            Err(router.abort().map_or(e, PartitionError::Io))
        }
    };
    let result = match result {
        Err(e) if router.writers_check && rescan::about_a_record(&e) => {
            Err(router.first_bad_record(e))
        }
        other => other,
    };
    result.map(|()| router.summary).map_err(|e| match e {
        PartitionError::Io(e) => PartitionError::Io(told_in_target(e, &staging, &options.out)),
        other => other,
    })
}

impl<'a> Router<'a> {
    fn new(options: &'a Options, staged: Staging) -> Result<Self, PartitionError> {
        let buffers = Buffers::new(options);
        let (output, parquet) = match (&options.format, buffers.writer_memory()) {
            (OutputFormat::Parquet(p), Some(memory)) => {
                let run = Arc::new(ParquetRun::new(
                    p,
                    memory,
                    options.input_format()?,
                    options.delimiter,
                    options.read.delimiter,
                    options.row_group_bytes(),
                )?);
                (Output::Parquet(run.clone()), Some(run))
            }
            _ => (Output::Text(options.compression), None),
        };
        let mut router = Router {
            options,
            columns: Vec::new(),
            filters: Vec::new(),
            header: None,
            file: None,
            header_pending: false,
            keys: (0..options.by.len()).map(|_| KeyTable::default()).collect(),
            outputs: Outputs::new(options, &output, staged)?,
            buffers,
            parquet,
            writers_check: rescan::writers_check(options),
            check_only: false,
            summary: Summary::default(),
        };
        if !options.header {
            router.resolve_columns(None)?;
        }
        Ok(router)
    }

    fn resolve_columns(&mut self, header: Option<&[&str]>) -> Result<(), PartitionError> {
        self.columns = self
            .options
            .by
            .iter()
            .map(|c| c.resolve(header))
            .collect::<Result<_, _>>()?;
        super::columns::check_distinct(&self.options.by, &self.columns)?;
        self.filters = self
            .options
            .filters
            .iter()
            .map(|f| {
                Ok(ResolvedFilter {
                    index: f.column.resolve(header)?.index,
                    regex: f.regex.clone(),
                    negate: f.negate,
                })
            })
            .collect::<Result<_, PartitionError>>()?;
        self.outputs
            .layout
            .set_columns(self.columns.iter().map(|c| c.name.as_str()))
    }

    fn route_all(&mut self) -> Result<(), PartitionError> {
        self.read_inputs()
    }

    /// Reads every input from the start and routes its records (with
    /// `check_only`, only checks them).
    fn read_inputs(&mut self) -> Result<(), PartitionError> {
        let mut read = self.options.read.clone();
        read.format = self.options.input_format()?;
        let mut blocks = FileBlocks::new(
            self.options.inputs.clone(),
            read,
            self.options.parallel_inputs,
        );
        let raw_counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
        blocks = blocks.count_raw_bytes(raw_counter.clone());
        if let Some(cancel) = &self.options.cancel {
            blocks = blocks.cancel_on(cancel.clone());
        }
        loop {
            let next = match blocks.next_block() {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    return Err(PartitionError::Interrupted)
                }
                next => next?,
            };
            let Some((file, block)) = next else { break };
            if self.check_only {
                self.route_block(file, &block)?;
                continue;
            }
            self.outputs.check()?;
            let before = self.summary.records_in;
            self.route_block(file, &block)?;
            self.summary.bytes_in += block.len() as u64;
            if let Some(progress) = &self.options.progress {
                progress
                    .raw_bytes
                    .store(raw_counter.load(Ordering::Relaxed), Ordering::Relaxed);
                progress
                    .records
                    .fetch_add(self.summary.records_in - before, Ordering::Relaxed);
                progress
                    .groups
                    .store(self.outputs.files.len() as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    fn route_block(&mut self, file: usize, block: &Block) -> Result<(), PartitionError> {
        if self.file != Some(file) {
            self.file = Some(file);
            self.header_pending = self.options.header;
        }
        match block.format() {
            Format::Lines => {
                let delimiter = self.options.delimiter;
                self.route(file, block.records().map(|r| Ok(Line::new(r, delimiter))))
            }
            Format::Csv(_) => self.route(file, block.csv_records()),
        }
    }

    /// Routes the records of one block; compiled once per format.
    fn route<'b, R: FieldRecord<'b>>(
        &mut self,
        file: usize,
        records: impl Iterator<Item = Result<R, UnterminatedQuote>>,
    ) -> Result<(), PartitionError> {
        let groupings = self.options.by.len();
        let mut gids = [0u32; MAX_GROUPINGS];
        // Outside the loop: filling a fresh array for every record cost
        // more than the rest of the routing (measured).
        let mut keys: [Cow<'b, [u8]>; MAX_GROUPINGS] = Default::default();
        'records: for record in records {
            let record = match record {
                Ok(record) => record,
                Err(e) => return self.unterminated(file, e),
            };
            if self.header_pending {
                self.header_pending = false;
                self.take_header(file, &record)?;
                continue;
            }
            self.summary.records_in += 1;
            for f in &self.filters {
                let Some(value) = record.value(f.index) else {
                    self.invalid(file, &record, f.index)?;
                    continue 'records;
                };
                if f.regex.is_match(&value) == f.negate {
                    self.summary.filtered += 1;
                    continue 'records;
                }
            }
            // Every key first: a record skipped for a missing column must
            // not leave a group (with no file) behind in another grouping.
            for (g, key) in keys.iter_mut().enumerate().take(groupings) {
                let index = self.columns[g].index;
                let Some(value) = record.value(index) else {
                    self.invalid(file, &record, index)?;
                    continue 'records;
                };
                *key = value;
            }
            if self.parquet.is_some() && !self.check_typed(file, &record)? {
                continue 'records;
            }
            if self.check_only {
                continue 'records;
            }
            for (g, gid) in gids.iter_mut().enumerate().take(groupings) {
                *gid = self.group_of(g, &keys[g])?;
            }
            for &gid in &gids[..groupings] {
                self.buffers.append(gid, record.raw(), &mut self.outputs)?;
            }
        }
        Ok(())
    }

    #[inline]
    fn group_of(&mut self, grouping: usize, key: &[u8]) -> Result<u32, PartitionError> {
        match self.keys[grouping].get(key) {
            Some(gid) => Ok(gid),
            None => self.new_group(grouping, key),
        }
    }

    /// Adds a group, charging its bookkeeping (key table entry, group
    /// record, the writer's path) to the memory budget so that a run with
    /// a million keys stays as bounded as one with ten.
    #[cold]
    fn new_group(&mut self, grouping: usize, key: &[u8]) -> Result<u32, PartitionError> {
        let cost = GROUP_OVERHEAD + 5 * key.len() + self.options.out.as_os_str().len();
        self.buffers.add_group(cost, &mut self.outputs)?;
        let gid = self.outputs.add(grouping, key);
        self.keys[grouping].insert(key, gid);
        Ok(gid)
    }

    /// Sends what is left, waits for the workers, writes the manifest and
    /// publishes the dataset.
    fn finish(&mut self) -> Result<(), PartitionError> {
        if let Some(progress) = &self.options.progress {
            progress.set_phase(Phase::Finishing);
        }
        if let Err(e) = self.buffers.flush_all(&mut self.outputs) {
            return Err(self.outputs.abort().map_or(e, PartitionError::Io));
        }
        self.summary.groups = (0..self.outputs.files.len())
            .map(|gid| {
                let file = &self.outputs.files[gid];
                GroupSummary {
                    column: self.columns[file.grouping].name.clone(),
                    key: file.key.to_vec(),
                    path: self.outputs.final_path(gid),
                    records: self.buffers.records(gid),
                    files: 1,
                }
            })
            .collect();
        self.summary.manifest = self.options.out.join(self.outputs.layout.manifest());
        let result = self
            .outputs
            .commit(&self.summary.groups, self.options.fsync);
        for (gid, group) in self.summary.groups.iter_mut().enumerate() {
            group.files = self.outputs.part_paths(gid).len() as u32;
        }
        self.collect_counters();
        result
    }

    /// Stops the run, removing its partial output; returns the first error
    /// a worker reported, if any.
    fn abort(&mut self) -> Option<std::io::Error> {
        self.buffers.discard();
        self.outputs.abort()
    }

    /// Copies the buffers' and workers' counters into the summary.
    fn collect_counters(&mut self) {
        self.summary.early_flushes = self.buffers.early_flushes();
        self.summary.over_budget_bytes = self.buffers.over_budget_bytes();
        self.summary.bytes_out = self.outputs.bytes_out;
        self.summary.reopened = self.outputs.reopened;
    }
}
