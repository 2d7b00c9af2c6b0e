//! A whole run, from the options to the published dataset.
//!
//! [`Run::new`] checks what can be checked without touching a file and
//! plans the memory ([`MemoryPlan`]); nothing has started yet, so a caller
//! can act on the plan first (the `spool` binary tunes its allocator with
//! it). [`Run::execute`] then does the rest, in this order (the text
//! path's parts under way are the `text_run` module's; Parquet output
//! from Parquet or NDJSON takes the `typed` module's path):
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

use spool_io::write::told_in_target;

use crate::destination::Destination;
use crate::rescan;
use crate::source::{SourceFormat, Sources};
use crate::staging::Staging;
use crate::text_run::Running;
use crate::Summary;
use crate::{MemoryPlan, Options, OutputFormat, PartitionError};

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
