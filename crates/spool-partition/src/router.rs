//! The router: finds each record's keys and hands the record to its
//! groups' buffers, one block at a time, in input order.
//!
//! It owns what a record means — the columns, the `--where` filters, the
//! header, the table from each key to its group — and nothing about memory
//! or files: the buffers and their budget are [`Buffers`], the files and
//! the threads writing them [`Outputs`], and reading the inputs, finishing
//! and publishing the [`Run`](crate::Run). A record that cannot be routed
//! goes to [`InvalidRecords`].
//!
//! Every record passes through [`route`](Router::route) on this one
//! thread, so it is kept small: one filter test per `--where`, one key
//! lookup per grouping, one append per grouping; what is rare (a new key,
//! a header, an invalid record) is out of line.

use std::borrow::Cow;
use std::sync::Arc;

use regex::bytes::Regex;
use spool::text::csv::UnterminatedQuote;
use spool_io::read::{Block, FieldRecord, Line, RecordFormat};

use crate::buffers::Buffers;
use crate::columns::{check_distinct, Column};
use crate::invalid_records::InvalidRecords;
use crate::key_table::KeyTable;
use crate::outputs::Outputs;
use crate::parquet::{ParquetRun, Table};
use crate::{Options, OutputFormat, PartitionError};

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

/// Records to groups; see the module docs.
pub(crate) struct Router<'a> {
    options: &'a Options,
    /// The input files, in order.
    inputs: &'a [std::path::PathBuf],
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
    /// Set for `--format parquet`.
    parquet: Option<Arc<ParquetRun>>,
    /// The router checks each record against the Parquet table (see the
    /// `rescan` module for when the writer threads do instead).
    checks_typed: bool,
    /// Only checking, not routing: reading the inputs again to find a
    /// record that does not fit.
    check_only: bool,
    invalid: InvalidRecords<'a>,
    /// Records read (headers excluded).
    records_in: u64,
    /// Records dropped by `--where`.
    filtered: u64,
}

impl<'a> Router<'a> {
    /// A router for `options` reading `inputs`; `parquet` for a Parquet run, whose records
    /// the router checks itself when `checks_typed`. Without a header the
    /// columns are resolved now, naming `outputs`' columns.
    ///
    /// # Errors
    ///
    /// A `--by` or `--where` column that cannot be resolved.
    pub fn new(
        options: &'a Options,
        inputs: &'a [std::path::PathBuf],
        parquet: Option<Arc<ParquetRun>>,
        checks_typed: bool,
        outputs: &mut Outputs,
    ) -> Result<Self, PartitionError> {
        let mut router = Router {
            options,
            inputs,
            columns: Vec::new(),
            filters: Vec::new(),
            header: None,
            file: None,
            header_pending: false,
            keys: (0..options.by.len()).map(|_| KeyTable::default()).collect(),
            parquet,
            checks_typed,
            check_only: false,
            invalid: InvalidRecords::new(inputs, options.skip_invalid),
            records_in: 0,
            filtered: 0,
        };
        if !options.header {
            router.resolve_columns(None, outputs)?;
        }
        Ok(router)
    }

    /// From here on, only checks records (every one, against the Parquet
    /// table too), from the first input's start, and routes none.
    pub fn check_only(&mut self) {
        self.check_only = true;
        self.checks_typed = true;
        self.file = None;
    }

    /// The `--by` columns, resolved.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Records read, dropped by `--where`, and skipped as invalid.
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.records_in, self.filtered, self.invalid.skipped())
    }

    fn resolve_columns(
        &mut self,
        header: Option<&[&str]>,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        self.columns = (self.options.by.iter())
            .map(|c| c.resolve(header))
            .collect::<Result<_, _>>()?;
        check_distinct(&self.options.by, &self.columns)?;
        self.filters = (self.options.filters.iter())
            .map(|f| {
                Ok(ResolvedFilter {
                    index: f.column.resolve(header)?.index,
                    regex: f.regex.clone(),
                    negate: f.negate,
                })
            })
            .collect::<Result<_, PartitionError>>()?;
        (outputs.layout).set_columns(self.columns.iter().map(|c| c.name.as_str()))
    }

    /// Routes the records of `block`, read from input `file`, to their
    /// groups' `buffers`, adding groups to `outputs` as keys appear.
    ///
    /// # Errors
    ///
    /// An invalid record (unless skipped), a header that differs from the
    /// first input's, a worker's failure or a cancellation.
    pub fn route_block(
        &mut self,
        file: usize,
        block: &Block,
        buffers: &mut Buffers,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        if self.file != Some(file) {
            self.file = Some(file);
            self.header_pending = self.options.header;
        }
        match block.format() {
            RecordFormat::Lines => {
                let delimiter = self.options.delimiter;
                let records = block.records().map(|r| Ok(Line::new(r, delimiter)));
                self.route(file, records, buffers, outputs)
            }
            RecordFormat::Csv(_) => self.route(file, block.csv_records(), buffers, outputs),
        }
    }

    /// Routes the records of one block; compiled once per format.
    fn route<'b, R: FieldRecord<'b>>(
        &mut self,
        file: usize,
        records: impl Iterator<Item = Result<R, UnterminatedQuote>>,
        buffers: &mut Buffers,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let groupings = self.options.by.len();
        let mut gids = [0u32; MAX_GROUPINGS];
        // Outside the loop: filling a fresh array for every record cost
        // more than the rest of the routing.
        let mut keys: [Cow<'b, [u8]>; MAX_GROUPINGS] = Default::default();
        'records: for record in records {
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    // The rest of the input is inside the quote: nothing
                    // follows in this block, or in the input.
                    self.invalid.unterminated(file, e)?;
                    self.records_in += 1;
                    return Ok(());
                }
            };
            if self.header_pending {
                self.header_pending = false;
                self.take_header(file, &record, buffers, outputs)?;
                continue;
            }
            self.records_in += 1;
            for f in &self.filters {
                let Some(value) = record.value(f.index) else {
                    self.invalid.too_few_fields(file, &record, f.index)?;
                    continue 'records;
                };
                if f.regex.is_match(&value) == f.negate {
                    self.filtered += 1;
                    continue 'records;
                }
            }
            // Every key first: a record skipped for a missing column must
            // not leave a group (with no file) behind in another grouping.
            for (g, key) in keys.iter_mut().enumerate().take(groupings) {
                let index = self.columns[g].index;
                let Some(value) = record.value(index) else {
                    self.invalid.too_few_fields(file, &record, index)?;
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
                *gid = self.group_of(g, &keys[g], buffers, outputs)?;
            }
            for &gid in &gids[..groupings] {
                buffers.append(gid, record.raw(), outputs)?;
            }
        }
        Ok(())
    }

    // Always inlined: called for every record and grouping, and left as
    // a call it made the routing loop measurably slower (TSV at 1,000
    // keys: docs/perf/partition-notes.md).
    #[inline(always)]
    fn group_of(
        &mut self,
        grouping: usize,
        key: &[u8],
        buffers: &mut Buffers,
        outputs: &mut Outputs,
    ) -> Result<u32, PartitionError> {
        match self.keys[grouping].get(key) {
            Some(gid) => Ok(gid),
            None => self.new_group(grouping, key, buffers, outputs),
        }
    }

    /// Adds a group, charging its bookkeeping (key table entry, group
    /// record, the writer's path) to the memory budget so that a run with
    /// a million keys stays as bounded as one with ten.
    #[cold]
    fn new_group(
        &mut self,
        grouping: usize,
        key: &[u8],
        buffers: &mut Buffers,
        outputs: &mut Outputs,
    ) -> Result<u32, PartitionError> {
        let cost = GROUP_OVERHEAD + 5 * key.len() + self.options.out.as_os_str().len();
        buffers.add_group(cost, outputs)?;
        let gid = outputs.add(grouping, key);
        self.keys[grouping].insert(key, gid);
        Ok(gid)
    }

    /// Handles an input's first record in header mode: its unquoted field
    /// values name the columns, and the first input's is written at the
    /// top of every text file; the others must be the same.
    #[cold]
    fn take_header<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
        buffers: &mut Buffers,
        outputs: &mut Outputs,
    ) -> Result<(), PartitionError> {
        let body = record.bytes();
        if let Some(first) = &self.header {
            if first[..] == *body {
                return Ok(());
            }
            let message = format!(
                "header differs from the first input's header ({})",
                self.inputs[0].display()
            );
            return Err(self.invalid.error(file, record, message));
        }
        let values: Vec<Cow<'_, [u8]>> = (0..record.field_count())
            .map(|i| record.value(i).expect("counted"))
            .collect();
        let names = (values.iter())
            .map(|v| std::str::from_utf8(v))
            .collect::<Result<Vec<&str>, _>>()
            .map_err(|e| {
                let message = format!("header is not valid UTF-8: {e}");
                self.invalid.error(file, record, message)
            })?;
        self.resolve_columns(Some(&names), outputs)?;
        self.set_table(names.iter().map(|n| (*n).to_owned()).collect())?;
        // Written as read, so a CRLF header stays CRLF like the records
        // under it, and quoted names stay quoted.
        let mut line = record.raw().to_vec();
        let ended = line.last() == Some(&self.options.read.delimiter)
            || (self.options.quote.is_some() && line.last() == Some(&b'\r'));
        if !ended {
            line.push(self.options.read.delimiter);
        }
        // A Parquet file has its column names in its schema.
        if self.parquet.is_none() {
            buffers.set_header(line);
        }
        self.header = Some(body.to_vec());
        Ok(())
    }

    /// Sets the Parquet table from the column names (the header's, or
    /// `colN` for each field of the first record).
    fn set_table(&mut self, names: Vec<String>) -> Result<(), PartitionError> {
        let (Some(run), OutputFormat::Parquet(p)) = (&self.parquet, &self.options.format) else {
            return Ok(());
        };
        let keys: Vec<usize> = self.columns.iter().map(|c| c.index).collect();
        let table = Table::new(names, &p.schema, &keys)?;
        let _ = run.table.set(Arc::new(table));
        Ok(())
    }

    /// Checks a record against the Parquet table (unless the writers
    /// check it); `false` to skip it (`--skip-invalid`).
    fn check_typed<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
    ) -> Result<bool, PartitionError> {
        let run = self.parquet.clone().expect("a parquet run");
        if run.table.get().is_none() {
            let fields = record.field_count();
            self.set_table((1..=fields).map(|i| format!("col{i}")).collect())?;
        }
        if !self.checks_typed {
            return Ok(true);
        }
        let table = run.table.get().expect("just set");
        match table.check(record.bytes(), run.syntax) {
            Ok(()) => Ok(true),
            Err(misfit) => {
                self.invalid.misfit(file, record, table, misfit)?;
                Ok(false)
            }
        }
    }
}
