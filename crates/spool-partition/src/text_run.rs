//! The text path of a run under way: the writer threads, the buffers'
//! pool and the router started together, the inputs read through them,
//! then the finish (send every buffer, join the writers, write the
//! manifest, publish) or the abort. [`Run`](crate::Run) plans and
//! chooses the path; Parquet and NDJSON into Parquet take the `typed`
//! path instead.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use spool_io::progress::Phase;

use crate::buffers::Buffers;
use crate::commit;
use crate::options::FileLimits;
use crate::outputs::Outputs;
use crate::parquet::ParquetRun;
use crate::rescan;
use crate::router::Router;
use crate::source::{SourceBlocks, Sources};
use crate::staging::Staging;
use crate::workers::WriterFormat;
use crate::{GroupSummary, MemoryPlan, Options, OutputFormat, PartitionError, Summary};

/// A run under way: its parts, each with one job.
pub(crate) struct Running<'a> {
    options: &'a Options,
    sources: &'a Sources,
    router: Router<'a>,
    buffers: Buffers,
    outputs: Outputs,
    /// Until published or aborted.
    staging: Option<Staging>,
    /// The writer threads check the records against the Parquet table
    /// (see the `rescan` module).
    pub(crate) writers_check: bool,
    /// Decompressed bytes read.
    bytes_in: u64,
}

impl<'a> Running<'a> {
    /// Starts the writer threads and makes the buffers and the router.
    pub(crate) fn start(
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
    pub(crate) fn read_inputs(&mut self) -> Result<(), PartitionError> {
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
    pub(crate) fn check_inputs(&mut self) -> Result<(), PartitionError> {
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
    pub(crate) fn finish(
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
    pub(crate) fn abort(&mut self) -> Option<std::io::Error> {
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
