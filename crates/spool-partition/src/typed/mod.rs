//! A Parquet run whose inputs are Parquet or NDJSON: the rows never
//! become text. Each file is decoded into Arrow record batches of its own
//! types (an NDJSON file's are the `--schema` types: see the source
//! module's `ndjson_batches`), the batches' rows are put in key order,
//! each group's rows kept by its
//! writer thread in a spill log as Arrow IPC while the input is read, and
//! written as its Parquet part by an [`ArrowWriter`](parquet::arrow::ArrowWriter)
//! once it ends — so every type the input holds (integers of every width,
//! decimals, dates, timestamps with their unit and zone, binary,
//! dictionary-encoded strings, nested lists and structs, carried whole) is
//! the output's type, and each part is as few row groups as its size
//! allows, however many keys share `--memory`.
//!
//! ```text
//!  sources ──► Batches ──────► TypedRouter ─────────► writer threads (TypedSink)
//!  (decoded a   (hive keys as    key per row (as text);  input: each group's rows
//!   few files    string          rows sorted by group,   appended to the thread's
//!   ahead)       columns)        sent at `send_bytes`    spill log (IPC); end: each
//!                                                        group read back, written
//!                                                        as its part, heaviest first
//! ```
//!
//! Everything around is the text run's: the staging directory, the file
//! layout and names, the writer threads' queues ([`Outputs`]), the
//! manifest and the publish (the `commit` module), so a typed run appends,
//! rolls over at the file limits and writes to S3 as any other.
//!
//! | module | its job |
//! |---|---|
//! | `batches` | the sources' batches, in order, with the hive columns |
//! | `keys` | a key column's values as key bytes |
//! | `router` | rows to groups, gathered and sent within the budget |
//! | `in_flight` | batches between two threads (decoded ahead of the router; sorted, to the writers), within a limit |
//! | `ipc_runs` | a group's rows in the spill log, as Arrow IPC |
//! | `sink` | a writer thread's groups: spilled, then written as parts |

mod batches;
mod in_flight;
mod ipc_runs;
mod keys;
mod router;
mod sink;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_schema::Schema;
use spool_io::progress::Phase;
use spool_io::write::told_in_target;

pub(crate) use in_flight::Rows;
pub(crate) use keys::displayable;
pub(crate) use sink::{TypedRun, TypedSink};

use crate::columns::check_distinct;
use crate::destination::Destination;
use crate::options::FileLimits;
use crate::outputs::Outputs;
use crate::parquet::Board;
use crate::staging::Staging;
use crate::workers::WriterFormat;
use crate::{
    commit, GroupSummary, MemoryPlan, Options, OutputFormat, PartitionError, Sources, Summary,
};
use batches::{run_schema, Batches};
use in_flight::InFlight;
use router::{TypedFilter, TypedRouter};

/// The share of the group-buffer budget the router gathers batches in
/// (1/`GATHER`); their sorted copy on its way to the writers may hold as
/// much (it is made once the writers have spilled the last one), the
/// batches decoded ahead of the router 1/[`AHEAD`], and the rest is for
/// the writers' runs being encoded and the allocator's slack.
const GATHER: usize = 4;

/// The share of the group-buffer budget the file being read is decoded
/// ahead of the router in (1/`AHEAD`; the files after it an eighth of
/// that each).
const AHEAD: usize = 8;

/// An Arrow error as the run's.
pub(crate) fn arrow_error(e: arrow_schema::ArrowError) -> PartitionError {
    PartitionError::Io(std::io::Error::other(e.to_string()))
}

/// Runs a Parquet-to-Parquet run: see the module docs.
///
/// # Errors
///
/// As [`Run::execute`](crate::Run::execute).
pub(crate) fn execute(
    options: &Options,
    sources: &Sources,
    memory: &MemoryPlan,
    destination: &Destination,
    before_publish: &(dyn Fn() + Sync),
) -> Result<Summary, PartitionError> {
    let OutputFormat::Parquet(parquet) = &options.format else {
        unreachable!("a typed run writes Parquet");
    };
    let schema = run_schema(sources)?;
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let columns = (options.by.iter())
        .map(|c| c.resolve(Some(&names)))
        .collect::<Result<Vec<_>, _>>()?;
    check_distinct(&options.by, &columns)?;
    for c in &columns {
        if c.index >= names.len() {
            return Err(PartitionError::Usage(format!(
                "--by {}: the inputs have {} columns",
                c.name,
                names.len()
            )));
        }
        keys::check_key_type(&c.name, schema.field(c.index).data_type())?;
    }
    let filters = (options.filters.iter())
        .map(|f| {
            let index = f.column.resolve(Some(&names))?.index;
            let field = schema.fields().get(index).ok_or_else(|| {
                PartitionError::Usage(format!(
                    "--where {}: the inputs have {} columns",
                    f.column.0,
                    names.len()
                ))
            })?;
            keys::check_key_type(field.name(), field.data_type())?;
            Ok(TypedFilter {
                index,
                regex: f.regex.clone(),
                negate: f.negate,
            })
        })
        .collect::<Result<Vec<_>, PartitionError>>()?;
    if names.len() < 2 {
        return Err(crate::parquet::schema::only_the_key());
    }
    let keep: Vec<Vec<usize>> = (columns.iter())
        .map(|c| (0..names.len()).filter(|&i| i != c.index).collect())
        .collect();
    let files = (keep.iter())
        .map(|k| Arc::new(schema.project(k).expect("indices in range")))
        .collect::<Vec<Arc<Schema>>>();
    let budget = memory.buffers().budget;
    let run = Arc::new(TypedRun {
        files,
        properties: parquet.writer_properties(memory.row_group_bytes())?,
        row_group_bytes: memory.row_group_bytes(),
        limits: FileLimits::of(options),
        conversions: Arc::new(Board::new()),
    });
    let staging = Staging::begin(destination)?;
    let stale_removed = staging.stale_removed().to_vec();
    let staging_dir = staging.dir().to_owned();
    let mut outputs = Outputs::new(options, memory, &WriterFormat::Typed(run), staging.dir())?;
    let mut router = TypedRouter::new(
        columns.iter().map(|c| c.index).collect(),
        keep,
        filters,
        budget / GATHER,
        InFlight::new(budget / GATHER),
    );
    let finishing = std::time::Instant::now();
    let result = outputs
        .layout
        .set_columns(columns.iter().map(|c| c.name.as_str()))
        .and_then(|()| {
            read(
                options,
                sources,
                &schema,
                budget / AHEAD,
                &mut router,
                &mut outputs,
            )
        });
    let result = result.and_then(|bytes_in| {
        if let Some(progress) = &options.progress {
            progress.set_phase(Phase::Finishing);
        }
        router.flush_all(&mut outputs)?;
        Ok(bytes_in)
    });
    let bytes_in = match result {
        Ok(bytes_in) => bytes_in,
        Err(e) => {
            // A worker's own error says more than the router's "write failed".
            let worker = match outputs.join_workers() {
                Err(PartitionError::Io(w)) => Some(w),
                _ => None,
            };
            drop(staging);
            let e = worker.map_or(e, PartitionError::Io);
            return Err(match e {
                PartitionError::Io(e) => {
                    PartitionError::Io(told_in_target(e, &staging_dir, &options.out))
                }
                other => other,
            });
        }
    };
    let mut groups: Vec<GroupSummary> = (0..outputs.len())
        .map(|gid| GroupSummary {
            column: columns[outputs.grouping(gid)].name.clone(),
            key: outputs.key(gid).to_vec(),
            path: outputs.final_path(gid),
            records: router.records(gid),
            files: 1,
        })
        .collect();
    commit::publish(
        &mut outputs,
        staging,
        &groups,
        options.fsync,
        before_publish,
    )
    .map_err(|e| match e {
        PartitionError::Io(e) => PartitionError::Io(told_in_target(e, &staging_dir, &options.out)),
        other => other,
    })?;
    for (gid, group) in groups.iter_mut().enumerate() {
        group.files = outputs.part_paths(gid).len() as u32;
    }
    let (records_in, filtered) = router.counts();
    Ok(Summary {
        records_in,
        filtered,
        skipped_invalid: 0,
        bytes_in,
        bytes_out: outputs.bytes_out(),
        reopened: 0,
        early_flushes: 0,
        over_budget_bytes: 0,
        groups,
        manifest: options.out.join(outputs.layout.manifest()),
        stale_removed,
        finishing: finishing.elapsed(),
    })
}

/// Reads every batch (decoded up to `ahead_bytes` ahead) and routes it;
/// the bytes of the files read.
fn read(
    options: &Options,
    sources: &Sources,
    schema: &Arc<Schema>,
    ahead_bytes: usize,
    router: &mut TypedRouter,
    outputs: &mut Outputs,
) -> Result<u64, PartitionError> {
    let raw = Arc::new(AtomicU64::new(0));
    let mut batches = Batches::new(
        sources,
        schema.clone(),
        options.parallel_inputs,
        ahead_bytes,
        raw.clone(),
        options.cancel.clone(),
    );
    while let Some((_, batch)) = batches.next_batch()? {
        outputs.check()?;
        let (before, _) = router.counts();
        router.route(batch, outputs)?;
        if let Some(progress) = &options.progress {
            let (records, _) = router.counts();
            progress
                .raw_bytes
                .store(raw.load(Ordering::Relaxed), Ordering::Relaxed);
            progress
                .records
                .fetch_add(records - before, Ordering::Relaxed);
            progress
                .groups
                .store(outputs.len() as u64, Ordering::Relaxed);
        }
    }
    Ok(raw.load(Ordering::Relaxed))
}
