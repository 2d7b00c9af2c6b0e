//! The sources' record batches (Parquet, or NDJSON read as batches),
//! decoded a few files ahead on threads of their own and handed out in
//! input order, each with the run's schema: the sources' columns (every
//! one nullable), then the hive keys (strings, or the types `--schema`
//! gives them).
//!
//! The file the router reads decodes until its batches waiting to be
//! taken hold the read-ahead bytes, not a number of batches: the router
//! takes batches only between its sorts, and while it sorts the decoder
//! must keep going for both cores to work (a thread that stopped two
//! batches ahead left one core idle for each sort). The files opened
//! after it decode a small part of that ahead, so that each starts at once
//! when its turn comes; the one that comes next is given the whole share.
//!
//! # Bounds
//!
//! At most `parallel` files are open. The batches decoded and not yet
//! taken hold at most `ahead_bytes` for the file being read and
//! `ahead_bytes / OTHERS_SHARE` for each other (one batch more than that
//! when it alone is larger), charged to an [`InFlight`] gate of each
//! file's own, so a file further on cannot use the share of the file the
//! router waits for.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::{Field, Schema, SchemaRef};
use crossbeam_channel::Receiver;

use super::in_flight::{Charge, InFlight};
use crate::parquet::batch::ColumnBuilder;
use crate::parquet::ColumnType;
use crate::source::parquet_text::not_parquet;
use crate::source::{NdjsonBatches, SourceBatches, SourceFormat};
use crate::{PartitionError, Sources};

/// The run's schema: the sources' own columns (every one nullable), then
/// the hive keys they do not hold themselves, each of the type `--schema`
/// gives it (string by default: a directory name is text).
///
/// # Errors
///
/// As [`Sources::batch_schema`]; a `--schema` name that is not a column,
/// or that names a Parquet source's own column (those keep their types).
pub(crate) fn run_schema(sources: &Sources) -> Result<SchemaRef, PartitionError> {
    let file = sources.batch_schema()?;
    let spec = sources.spec();
    let mut fields: Vec<Field> = (file.fields().iter())
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    let own = fields.len();
    for name in sources.hive_names() {
        if file.field_with_name(name).is_err() {
            let kind = spec.type_of(name).unwrap_or(ColumnType::String);
            fields.push(Field::new(name, kind.arrow(), true));
        }
    }
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    for (name, _) in &spec.0 {
        let Some(at) = names.iter().position(|n| n == name) else {
            return Err(PartitionError::Usage(format!(
                "--schema names {name:?}, which is not a column; the columns are: {}",
                names.join(", ")
            )));
        };
        if at < own && sources.format() == SourceFormat::Parquet {
            return Err(PartitionError::Usage(format!(
                "--schema names {name:?}, a column of the Parquet inputs, which keep their own \
                 types; --schema types only their hive keys ({})",
                names[own..].join(", ")
            )));
        }
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// The part of the read-ahead share a file has before its turn comes.
const OTHERS_SHARE: usize = 8;

/// A decoded batch, holding its share of the read-ahead until taken.
type Decoded = Result<(RecordBatch, Arc<Charge>), PartitionError>;

/// A file being decoded: its index, its batches, its thread and the gate
/// of its read-ahead.
struct Open {
    index: usize,
    batches: Receiver<Decoded>,
    thread: JoinHandle<()>,
    ahead: Arc<InFlight>,
}

/// Batches of every source in order; see the module docs.
pub(crate) struct Batches<'s> {
    sources: &'s Sources,
    schema: SchemaRef,
    parallel: usize,
    /// The read-ahead bytes of the file being read.
    ahead_bytes: usize,
    next_to_open: usize,
    open: VecDeque<Open>,
    counter: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    cancel: Option<Arc<AtomicBool>>,
    /// NDJSON sources: read in pieces of lines on threads of their own,
    /// started by the first call, and how many columns are the sources'
    /// own.
    lines: Option<(NdjsonBatches, usize)>,
}

impl<'s> Batches<'s> {
    /// Reads `sources` as batches of `schema` ([`run_schema`]), up to
    /// `parallel` files at once, the one being read decoded up to
    /// `ahead_bytes` ahead, adding each file's size to `counter` as it is
    /// opened.
    pub fn new(
        sources: &'s Sources,
        schema: SchemaRef,
        parallel: usize,
        ahead_bytes: usize,
        counter: Arc<AtomicU64>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Self {
        Batches {
            sources,
            schema,
            parallel: parallel.max(1),
            ahead_bytes,
            next_to_open: 0,
            open: VecDeque::new(),
            counter,
            stop: Arc::new(AtomicBool::new(false)),
            cancel,
            lines: None,
        }
    }

    /// The next batch and its source's index, or `None` after the last.
    ///
    /// # Errors
    ///
    /// A file that cannot be read as Parquet or whose columns differ from
    /// the first's, or an invalid NDJSON line (naming them), or
    /// [`PartitionError::Interrupted`].
    pub fn next_batch(&mut self) -> Result<Option<(usize, RecordBatch)>, PartitionError> {
        loop {
            if (self.cancel.as_ref()).is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(PartitionError::Interrupted);
            }
            if self.sources.format() == SourceFormat::Ndjson {
                return self.next_lines_batch();
            }
            while self.open.len() < self.parallel && self.next_to_open < self.sources.len() {
                self.start(self.next_to_open)?;
                self.next_to_open += 1;
            }
            let Some(front) = self.open.front() else {
                return Ok(None);
            };
            match front.batches.recv() {
                // The batch is the router's now: its charge is given back.
                Ok(batch) => return batch.map(|(b, _charge)| Some((front.index, b))),
                Err(_) => {
                    let done = self.open.pop_front().expect("front");
                    let _ = done.thread.join();
                    if let Some(next) = self.open.front() {
                        next.ahead.set_limit(self.ahead_bytes);
                    }
                }
            }
        }
    }

    /// The next batch of the NDJSON sources, with the hive columns.
    fn next_lines_batch(&mut self) -> Result<Option<(usize, RecordBatch)>, PartitionError> {
        if self.lines.is_none() {
            let own = self.sources.batch_schema()?.fields().len();
            let lines = self.sources.ndjson_batches(self.parallel, &self.counter)?;
            self.lines = Some((lines, own));
        }
        let (lines, own) = self.lines.as_mut().expect("started");
        let Some((index, batch)) = lines.next_batch()? else {
            return Ok(None);
        };
        let hive = hive_arrays(self.sources, index, &self.schema, *own)?;
        let batch = with_hive(batch, &hive, &self.schema).map_err(|e| {
            let path = self.sources.paths()[index].display();
            PartitionError::Io(std::io::Error::other(format!("{path}: {e}")))
        })?;
        Ok(Some((index, batch)))
    }

    /// Opens source `index` and starts decoding it.
    fn start(&mut self, index: usize) -> Result<(), PartitionError> {
        let SourceBatches { own, batches } = self.sources.open_batches(index, &self.counter)?;
        let path = self.sources.paths()[index].clone();
        let hive = hive_arrays(self.sources, index, &self.schema, own)?;
        let schema = self.schema.clone();
        let stop = self.stop.clone();
        let share = match self.open.is_empty() {
            true => self.ahead_bytes,
            false => self.ahead_bytes / OTHERS_SHARE,
        };
        let ahead = InFlight::new(share);
        // Unbounded: the gate bounds the bytes waiting, and every batch
        // holds at least one row.
        let (tx, rx) = crossbeam_channel::unbounded();
        let stopped = move || match stop.load(Ordering::Relaxed) {
            true => Err(PartitionError::Interrupted),
            false => Ok(()),
        };
        let gate = ahead.clone();
        let thread = std::thread::Builder::new()
            .name("spool-partition-parquet-reader".into())
            .spawn(move || {
                for batch in batches {
                    let batch = batch
                        .and_then(|batch| {
                            with_hive(batch, &hive, &schema).map_err(|e| not_parquet(&path, e))
                        })
                        .and_then(|batch| {
                            let charge = gate.charge(batch.get_array_memory_size(), &stopped)?;
                            Ok((batch, charge))
                        });
                    if stopped().is_err() {
                        return;
                    }
                    let failed = batch.is_err();
                    if tx.send(batch).is_err() || failed {
                        return;
                    }
                }
            })
            .map_err(PartitionError::Io)?;
        self.open.push_back(Open {
            index,
            batches: rx,
            thread,
            ahead,
        });
        Ok(())
    }
}

impl Drop for Batches<'_> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for open in self.open.drain(..) {
            // Its batches' charges are given back; a thread waiting for
            // room sees `stop` within the gate's check interval.
            drop(open.batches);
            let _ = open.thread.join();
        }
    }
}

/// Source `index`'s hive key values as one-row arrays of the types of
/// `schema`'s hive columns (its fields from `own` on), each parsed as a
/// CSV field of that type is (an empty value is NULL).
///
/// # Errors
///
/// A value that is not one of its column's type (a string's: not UTF-8),
/// naming the source.
fn hive_arrays(
    sources: &Sources,
    index: usize,
    schema: &Schema,
    own: usize,
) -> Result<Vec<ArrayRef>, PartitionError> {
    let (names, values) = (sources.hive_names(), sources.hive_values(index));
    (schema.fields()[own..].iter())
        .map(|field| {
            let name = field.name();
            let kind = sources.spec().type_of(name).unwrap_or(ColumnType::String);
            let value = (names.iter().position(|n| n == name)).map_or(&[][..], |i| &values[i][..]);
            let mut column = ColumnBuilder::new(kind);
            let parsed = column.push(value);
            match column.finish() {
                Ok(array) if parsed => Ok(array),
                _ => {
                    // A string key's value unescapes (`%FF`) to bytes that
                    // are not UTF-8: an error, not a replaced character.
                    let what = match kind {
                        ColumnType::String => "UTF-8 text".to_owned(),
                        _ => format!("of type {kind} (--schema {name}:{kind})"),
                    };
                    Err(PartitionError::Io(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}: the hive key {name}={} is not {what}",
                            sources.paths()[index].display(),
                            String::from_utf8_lossy(value)
                        ),
                    )))
                }
            }
        })
        .collect()
}

/// `batch` (a file's own columns) with the hive columns the run's
/// `schema` adds, each its source's one value (`hive`, see
/// [`hive_arrays`]) repeated.
fn with_hive(
    batch: RecordBatch,
    hive: &[ArrayRef],
    schema: &SchemaRef,
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    if !hive.is_empty() {
        let only_row = UInt32Array::from(vec![0u32; batch.num_rows()]);
        for value in hive {
            columns.push(arrow_select::take::take(value.as_ref(), &only_row, None)?);
        }
    }
    RecordBatch::try_new(schema.clone(), columns)
}
