//! A whole run, from the options to the published dataset.
//!
//! [`Run::new`] checks what can be checked without touching a file and
//! plans the memory ([`MemoryPlan`]); nothing has started yet, so a caller
//! can act on the plan first (the `spool` binary tunes its allocator with
//! it). [`Run::execute`] then does the rest, in this order:
//!
//! ```text
//!  Destination         chosen in `Run::new`: a local dataset (new,
//!                      replacing, or one append run) or an S3 prefix,
//!                      which stages in a local directory of its own
//!  Staging::begin      lock the output, remove dead runs' leftovers,
//!                      start a hidden staging directory
//!  start               the writer threads, the buffers' pool, the router
//!  read the inputs   SourceBlocks ──► Router ──► Buffers ──► Outputs
//!  finish              send every buffer, join the writers, write the
//!                      manifest, publish (commit)
//!  on an error         abort: stop the writers, drop the staging
//!                      directory with everything in it; a record error
//!                      from a writer thread is located by reading the
//!                      inputs again (see the `rescan` module)
//! ```

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use spool_io::progress::Phase;
use spool_io::write::told_in_target;

use crate::buffers::Buffers;
use crate::destination::Destination;
use crate::options::FileLimits;
use crate::outputs::Outputs;
use crate::parquet::ParquetRun;
use crate::router::Router;
use crate::source::{SourceBlocks, SourceFormat, Sources};
use crate::staging::Staging;
use crate::workers::WriterFormat;
use crate::Summary;
use crate::{commit, rescan};
use crate::{GroupSummary, MemoryPlan, Options, OutputFormat, PartitionError};

/// Partitions `options.inputs` into `options.out`: [`Run::new`], then
/// [`Run::execute`].
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
/// let dir = std::env::temp_dir().join(format!("spool-partition-doc-run-{}", std::process::id()));
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
    Run::new(options)?.execute()
}

/// A run, checked and planned, not started; see the module docs.
///
/// # Examples
///
/// ```
/// use spool_partition::{ColumnRef, Options, Run};
/// let mut options = Options::new(vec!["in.tsv".into()], "out".into(), vec![ColumnRef("1".into())]);
/// options.memory = 256 << 20;
/// let run = Run::new(&options)?;
/// assert_eq!(run.memory().total(), 256 << 20);
/// options.workers = 0;
/// assert!(Run::new(&options).is_err_and(|e| e.to_string().contains("threads must be at least 1")));
/// options.workers = 2;
/// options.by.clear();
/// assert!(Run::new(&options).is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub struct Run<'a> {
    /// As given, or (NDJSON inputs) with the header the transcoder
    /// writes turned on.
    options: Cow<'a, Options>,
    sources: Sources,
    memory: MemoryPlan,
    destination: Destination,
    /// Called once the files are written, before they are published.
    before_publish: Option<&'a (dyn Fn() + Sync)>,
}

impl<'a> Run<'a> {
    /// Checks `options` ([`Options::check`]), chooses the destination
    /// ([`Destination::of`]), finds the inputs' files and their format
    /// ([`Sources::resolve`]) and plans the run's memory.
    ///
    /// # Errors
    ///
    /// [`PartitionError::Usage`] for options that cannot work together,
    /// inputs that name no file or files of different formats, or a
    /// `--memory` too small ([`MemoryPlan::new`]).
    pub fn new(options: &'a Options) -> Result<Self, PartitionError> {
        options.check()?;
        let destination = Destination::of(options)?;
        let sources = Sources::resolve(options)?;
        let options = match sources.format() {
            SourceFormat::Text => Cow::Borrowed(options),
            // The transcoder writes a header naming the fields (a Parquet
            // run with Parquet output reads none: see `typed`).
            SourceFormat::Ndjson | SourceFormat::Parquet => Cow::Owned(Options {
                header: true,
                ..options.clone()
            }),
        };
        let memory = MemoryPlan::new(&options)?;
        Ok(Run {
            options,
            sources,
            memory,
            destination,
            before_publish: None,
        })
    }

    /// Calls `hook` once every file is written and closed, before the
    /// staging directory is published (renamed): an S3 run's upload
    /// thread stops there, so that it never opens a file by its staging
    /// path after the rename.
    #[cfg(feature = "s3")]
    pub(crate) fn before_publish(mut self, hook: &'a (dyn Fn() + Sync)) -> Self {
        self.before_publish = Some(hook);
        self
    }

    /// This run with the local directory `out` as its output, the same
    /// sources and the same plan: an `s3://` run writes its files there
    /// and sends them on (its plan already set aside the parts it sends
    /// while reading), so its inputs are listed once and its memory
    /// planned once. The staging directory is the run's own: nothing to
    /// replace, append to or flush for a power loss.
    #[cfg(feature = "s3")]
    pub(crate) fn staged_in(self, out: std::path::PathBuf) -> Self {
        let mut options = self.options.into_owned();
        let destination = Destination::staging(&out);
        options.out = out;
        (options.force, options.append, options.fsync) = (false, false, false);
        Run {
            options: Cow::Owned(options),
            sources: self.sources,
            memory: self.memory,
            destination,
            before_publish: self.before_publish,
        }
    }

    /// What the run was asked to do.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The files it reads, in order, and their format.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// Where the run's memory goes.
    pub fn memory(&self) -> &MemoryPlan {
        &self.memory
    }

    /// Where its files go.
    pub fn destination(&self) -> &Destination {
        &self.destination
    }

    /// Runs it: see the module docs.
    ///
    /// # Errors
    ///
    /// As [`run`].
    pub fn execute(self) -> Result<Summary, PartitionError> {
        if let Destination::S3 { url, mode } = &self.destination {
            let (url, mode) = (url.clone(), mode.clone());
            return crate::s3::execute(self, url, mode);
        }
        let options: &Options = &self.options;
        let parquet_out = matches!(options.format, OutputFormat::Parquet(_));
        let batches = matches!(
            self.sources.format(),
            SourceFormat::Parquet | SourceFormat::Ndjson
        );
        let mut summary = if parquet_out && batches {
            let before_publish = self.before_publish.unwrap_or(&|| {});
            let (sources, memory) = (&self.sources, &self.memory);
            crate::typed::execute(options, sources, memory, &self.destination, before_publish)?
        } else {
            self.execute_text()?
        };
        // Lines a transcoder or an NDJSON decoder skipped never reached the
        // router.
        summary.records_in += self.sources.skipped();
        summary.skipped_invalid += self.sources.skipped();
        Ok(summary)
    }

    /// Runs it through the text router and writers.
    fn execute_text(&self) -> Result<Summary, PartitionError> {
        let options: &Options = &self.options;
        // Locks the output (or the run id), removes dead runs' staging
        // directories and starts this run's; dropped on any error below, it
        // removes what was written.
        let staging = Staging::begin(&self.destination)?;
        let stale_removed = staging.stale_removed().to_vec();
        let staging_dir = staging.dir().to_owned();
        let mut running = Running::start(options, &self.sources, &self.memory, staging)?;
        let result = match running.read_inputs() {
            Ok(()) => running.finish(self.before_publish),
            // A worker's own error says more than the router's "write failed".
            Err(e) => Err(running.abort().map_or(e, PartitionError::Io)),
        };
        let result = match result {
            Err(e) if running.writers_check && rescan::about_a_record(&e) => {
                let reread = running.check_inputs();
                Err(rescan::first_bad_record(e, reread))
            }
            other => other,
        };
        let mut summary = result.map_err(|e| match e {
            PartitionError::Io(e) => {
                PartitionError::Io(told_in_target(e, &staging_dir, &options.out))
            }
            other => other,
        })?;
        summary.stale_removed = stale_removed;
        Ok(summary)
    }
}

/// A run under way: its parts, each with one job.
struct Running<'a> {
    options: &'a Options,
    sources: &'a Sources,
    router: Router<'a>,
    buffers: Buffers,
    outputs: Outputs,
    /// Until published or aborted.
    staging: Option<Staging>,
    /// The writer threads check the records against the Parquet table
    /// (see the `rescan` module).
    writers_check: bool,
    /// Decompressed bytes read.
    bytes_in: u64,
}

impl<'a> Running<'a> {
    /// Starts the writer threads and makes the buffers and the router.
    fn start(
        options: &'a Options,
        sources: &'a Sources,
        memory: &MemoryPlan,
        staging: Staging,
    ) -> Result<Self, PartitionError> {
        let buffers = Buffers::new(memory.buffers(), options);
        let writers_check = rescan::writers_check(options, sources.paths());
        let (format, parquet) = match (&options.format, buffers.writer_memory()) {
            (OutputFormat::Parquet(p), Some(writer_memory)) => {
                let run = Arc::new(ParquetRun::new(
                    p,
                    writer_memory,
                    options.input_format()?,
                    options.delimiter,
                    options.read.delimiter,
                    memory.row_group_bytes(),
                    FileLimits::of(options),
                )?);
                (WriterFormat::Parquet(run.clone()), Some(run))
            }
            _ => (WriterFormat::Text(options.compression), None),
        };
        let mut outputs = Outputs::new(options, memory, &format, staging.dir())?;
        let router = Router::new(
            options,
            sources.paths(),
            parquet,
            !writers_check,
            &mut outputs,
        )?;
        Ok(Running {
            options,
            sources,
            router,
            buffers,
            outputs,
            staging: Some(staging),
            writers_check,
            bytes_in: 0,
        })
    }

    /// Reads every input from the start and routes its records.
    fn read_inputs(&mut self) -> Result<(), PartitionError> {
        let (mut blocks, raw_bytes) = self.blocks()?;
        while let Some((file, block)) = next_block(&mut blocks)? {
            self.outputs.check()?;
            let (before, _, _) = self.router.counts();
            let (buffers, outputs) = (&mut self.buffers, &mut self.outputs);
            self.router.route_block(file, &block, buffers, outputs)?;
            self.bytes_in += block.len() as u64;
            if let Some(progress) = &self.options.progress {
                let (records, _, _) = self.router.counts();
                let raw = raw_bytes.load(Ordering::Relaxed);
                progress.raw_bytes.store(raw, Ordering::Relaxed);
                (progress.records).fetch_add(records - before, Ordering::Relaxed);
                (progress.groups).store(self.outputs.len() as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Reads every input again from the start, only checking its records
    /// (every one, against the Parquet table too); the first error found.
    fn check_inputs(&mut self) -> Result<(), PartitionError> {
        self.router.check_only();
        let (mut blocks, _) = self.blocks()?;
        while let Some((file, block)) = next_block(&mut blocks)? {
            let (buffers, outputs) = (&mut self.buffers, &mut self.outputs);
            self.router.route_block(file, &block, buffers, outputs)?;
        }
        Ok(())
    }

    /// The inputs' blocks, in order, and a counter of the bytes read from
    /// the files (before decompression).
    fn blocks(&self) -> Result<(SourceBlocks<'a>, Arc<AtomicU64>), PartitionError> {
        let mut read = self.options.read.clone();
        read.format = self.options.input_format()?;
        let raw_bytes = Arc::new(AtomicU64::new(0));
        let parallel = self.options.parallel_inputs;
        let cancel = self.options.cancel.clone();
        let blocks = SourceBlocks::new(self.sources, read, parallel, raw_bytes.clone(), cancel);
        Ok((blocks, raw_bytes))
    }

    /// Sends what is left, waits for the workers, writes the manifest and
    /// publishes the dataset; the summary of the run.
    fn finish(
        &mut self,
        before_publish: Option<&(dyn Fn() + Sync)>,
    ) -> Result<Summary, PartitionError> {
        let finishing = std::time::Instant::now();
        if let Some(progress) = &self.options.progress {
            progress.set_phase(Phase::Finishing);
        }
        if let Err(e) = self.buffers.flush_all(&mut self.outputs) {
            return Err(self.abort().map_or(e, PartitionError::Io));
        }
        let buffers = &self.buffers;
        self.outputs.last_parts(|gid| buffers.records(gid));
        let columns = self.router.columns();
        let mut groups: Vec<GroupSummary> = (0..self.outputs.len())
            .map(|gid| GroupSummary {
                column: columns[self.outputs.grouping(gid)].name.clone(),
                key: self.outputs.key(gid).to_vec(),
                path: self.outputs.final_path(gid),
                records: self.buffers.records(gid),
                files: 1,
            })
            .collect();
        let staging = self.staging.take().expect("finished once");
        let before_publish = before_publish.unwrap_or(&|| {});
        commit::publish(
            &mut self.outputs,
            staging,
            &groups,
            self.options.fsync,
            before_publish,
        )?;
        for (gid, group) in groups.iter_mut().enumerate() {
            group.files = self.outputs.part_paths(gid).len() as u32;
        }
        let (records_in, filtered, skipped_invalid) = self.router.counts();
        Ok(Summary {
            records_in,
            filtered,
            skipped_invalid,
            bytes_in: self.bytes_in,
            bytes_out: self.outputs.bytes_out(),
            reopened: self.outputs.reopened(),
            early_flushes: self.buffers.early_flushes(),
            over_budget_bytes: self.buffers.over_budget_bytes(),
            groups,
            manifest: self.options.out.join(self.outputs.layout.manifest()),
            stale_removed: Vec::new(),
            finishing: finishing.elapsed(),
        })
    }

    /// Stops the run, removing its partial output; the first error a
    /// worker reported, if any.
    fn abort(&mut self) -> Option<std::io::Error> {
        self.buffers.discard();
        let worker_error = match self.outputs.join_workers() {
            Err(PartitionError::Io(e)) => Some(e),
            _ => None,
        };
        drop(self.staging.take());
        worker_error
    }
}

/// The next block, or `None` after the last; a cancellation as
/// [`PartitionError::Interrupted`].
fn next_block(
    blocks: &mut SourceBlocks<'_>,
) -> Result<Option<(usize, spool_io::read::Block)>, PartitionError> {
    blocks.next_block()
}
