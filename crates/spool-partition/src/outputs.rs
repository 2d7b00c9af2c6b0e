//! The output files of a run: one per group, named by the [`FileLayout`],
//! written by the worker threads into the run's [`StagedDir`], published or
//! removed together ([`commit`](super::commit)).
//!
//! A group's file is created when its first block is sent, so a group
//! whose every record was filtered out or skipped leaves no file. Group
//! `g`'s blocks all go to worker `g % workers`, through one FIFO queue, so
//! they reach the file in the order they were sent.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::commit::Staging;
use super::layout::{part_path, FileLayout};
use super::parquet::spill;
use super::workers::{self, Job, Output, Worker};
use super::{Options, PartitionError};
use spool_io::write::Chunk;

/// Blocks waiting in each worker's queue before the router waits.
const QUEUE: usize = 256;

/// One group's output file.
pub(super) struct OutputFile {
    /// The `--by` column (grouping) it belongs to.
    pub grouping: usize,
    /// The group's key, as read.
    pub key: Box<[u8]>,
    /// Its first block was sent: the file exists in the staging directory.
    pub created: bool,
}

/// Every output file of a run and the threads that write them.
pub(super) struct Outputs {
    /// How files are named.
    pub layout: FileLayout,
    /// Group `g`'s file is `files[g]`.
    pub files: Vec<OutputFile>,
    /// Group `g` is written by `workers[g % workers.len()]`.
    pub workers: Vec<Worker>,
    /// Raised by a worker that failed; its error comes with its report.
    pub failed: Arc<AtomicBool>,
    /// Raised from outside (Ctrl-C) to stop the run.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the files are written (the staging directory) until the
    /// commit publishes it; `None` once published or aborted.
    pub staged: Option<Staging>,
    /// The staging directory's path (the root of [`path`](Self::path)).
    root: PathBuf,
    /// The output directory (the root of [`final_path`](Self::final_path)).
    out: PathBuf,
    /// Bytes written, from the workers' reports.
    pub bytes_out: u64,
    /// Times a closed file was opened again, from the workers' reports.
    pub reopened: u64,
    /// Part files per group where there may be more than one (Parquet):
    /// the records of each, in order, from the workers' reports; a
    /// created group not listed has one file.
    pub parts: foldhash::HashMap<u32, Vec<u64>>,
}

impl Outputs {
    /// Starts the workers: `options.workers` of them, but no more than
    /// `max_open` (each keeps at least one file open), sharing `max_open`.
    ///
    /// # Errors
    ///
    /// A compression level the encoder rejects, or a thread that cannot
    /// be started.
    pub fn new(
        options: &Options,
        output: &Output,
        staged: Staging,
    ) -> Result<Self, PartitionError> {
        let failed = Arc::new(AtomicBool::new(false));
        let n = options.workers.clamp(1, options.max_open.max(1));
        let per_worker_open = (options.max_open / n).max(1);
        let workers = (0..n)
            .map(|i| {
                let spill_log = spill::log_path(staged.dir(), i);
                workers::spawn(output, per_worker_open, QUEUE, failed.clone(), spill_log)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Outputs {
            layout: FileLayout::new(options),
            files: Vec::new(),
            workers,
            failed,
            cancel: options.cancel.clone(),
            root: staged.dir().to_path_buf(),
            out: options.out.clone(),
            staged: Some(staged),
            bytes_out: 0,
            reopened: 0,
            parts: foldhash::HashMap::default(),
        })
    }

    /// Adds the file of a new group; its number is the group's id.
    pub fn add(&mut self, grouping: usize, key: &[u8]) -> u32 {
        let gid = self.files.len() as u32;
        self.layout.add(grouping, key);
        self.files.push(OutputFile {
            grouping,
            key: key.into(),
            created: false,
        });
        gid
    }

    /// Where group `gid`'s file (its first part) is written (in the
    /// staging directory).
    pub fn path(&self, gid: usize) -> PathBuf {
        self.root.join(self.relative(gid))
    }

    /// Where group `gid`'s file is once the run is published.
    pub fn final_path(&self, gid: usize) -> PathBuf {
        self.out.join(self.relative(gid))
    }

    /// Group `gid`'s file relative to the dataset's root.
    pub fn relative(&self, gid: usize) -> PathBuf {
        let file = &self.files[gid];
        self.layout.relative(file.grouping, &file.key)
    }

    /// The root files are written under until the publish.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every file group `gid` wrote, in the staging directory: its parts,
    /// in order (none if it was never created).
    pub fn part_paths(&self, gid: usize) -> Vec<PathBuf> {
        if !self.files[gid].created {
            return Vec::new();
        }
        let first = self.path(gid);
        match self.parts.get(&(gid as u32)) {
            Some(records) => (0..records.len() as u32)
                .map(|i| part_path(&first, i))
                .collect(),
            None => vec![first],
        }
    }

    /// Sends a block to group `gid`'s worker (creating the file with the
    /// group's first block).
    ///
    /// # Errors
    ///
    /// If a worker failed or stopped, or the run was cancelled.
    pub fn send(&mut self, gid: u32, data: Chunk) -> Result<(), PartitionError> {
        let g = gid as usize;
        let create = (!self.files[g].created).then(|| self.path(g));
        self.files[g].created = true;
        let worker = &self.workers[g % self.workers.len()];
        let job = Job {
            group: gid,
            grouping: self.files[g].grouping,
            create,
            data,
        };
        if worker.jobs.send(job).is_err() {
            self.check()?;
            return Err(PartitionError::Usage("a writer thread stopped".into()));
        }
        Ok(())
    }

    /// Fails if a worker failed or the run was cancelled.
    ///
    /// # Errors
    ///
    /// [`PartitionError::Interrupted`], or an I/O error saying a write
    /// failed (the worker's own error is collected when the workers are
    /// joined).
    pub fn check(&self) -> Result<(), PartitionError> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(PartitionError::Interrupted);
        }
        if self.failed.load(Ordering::Relaxed) {
            return Err(PartitionError::Io(std::io::Error::other("write failed")));
        }
        Ok(())
    }

    /// Closes the workers' queues and waits for them; adds up their
    /// reports. Every queue is closed before the first join, so the
    /// workers finish their files (with Parquet, the conversion of every
    /// spilled group) side by side rather than one after another.
    ///
    /// # Errors
    ///
    /// The first error a worker reported, or one saying it panicked.
    pub fn join_workers(&mut self) -> Result<(), PartitionError> {
        let mut first_error = None;
        let threads: Vec<_> = (self.workers.drain(..))
            .map(|Worker { jobs, thread }| {
                drop(jobs);
                thread
            })
            .collect();
        for thread in threads {
            match thread.join() {
                Ok(report) => {
                    self.bytes_out += report.bytes_out;
                    self.reopened += report.reopened;
                    self.parts.extend(report.parts);
                    if first_error.is_none() {
                        first_error = report.error;
                    }
                }
                Err(_) => {
                    first_error
                        .get_or_insert_with(|| std::io::Error::other("a writer thread panicked"));
                }
            }
        }
        match first_error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}
