//! Writer threads: each owns a fixed share of the groups, so a group's
//! blocks are encoded and written in the order the router sent them, with
//! no lock around any file.
//!
//! [`Workers`] starts them, feeds group `g`'s blocks to thread
//! `g % threads` through a bounded FIFO queue, notices a failure (a
//! thread that fails raises a shared flag and keeps draining its queue, so
//! the router never blocks on it) and joins them, adding up their reports.
//!
//! A worker keeps at most `max_open` files open, least recently used first
//! out; a closed text file is reopened in append mode when its group writes
//! again (blocks are self-contained frames, so appending keeps it valid).
//! Parquet files are never closed early: groups beyond the open writers
//! spill as text to the thread's spill log and become one part each at the
//! end ([`ParquetSink`]).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lru::LruCache;

use spool_io::input::with_path;
use spool_io::write::{BlockEncoder, Chunk, Compression};

use crate::parquet::{spill, ParquetRun, ParquetSink};
use crate::typed::{Rows, TypedRun, TypedSink};
use crate::{MemoryPlan, Options, PartitionError};

/// How often an idle Parquet writer looks at the pressure epoch.
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_millis(20);

/// Blocks waiting in each worker's queue before the router waits.
const QUEUE: usize = 256;

/// One block for one group; the group's first job carries its path.
pub(crate) struct Job {
    pub group: u32,
    /// The `--by` column the group belongs to.
    pub grouping: usize,
    pub create: Option<PathBuf>,
    pub data: Payload,
}

/// What a job carries.
pub(crate) enum Payload {
    /// Records as text: a pool chunk (goes back to the pool when written).
    Text(Chunk),
    /// Rows of a Parquet input, in its types (a typed run).
    Batches(Rows),
}

impl Payload {
    /// The text of a text or Parquet-from-text run's job.
    fn text(&self) -> &[u8] {
        match self {
            Payload::Text(chunk) => chunk,
            Payload::Batches(_) => unreachable!("batches go to typed writers only"),
        }
    }
}

/// What a worker did, reported when it ends; the reports of all, added
/// up, once joined.
#[derive(Default)]
pub(crate) struct Report {
    /// The first error.
    pub error: Option<io::Error>,
    pub bytes_out: u64,
    pub reopened: u64,
    /// Parquet part files started per group, the records of each, for
    /// the groups with other than one part (text files have one).
    pub parts: Vec<(u32, Vec<u64>)>,
}

/// What the workers write.
pub(crate) enum WriterFormat {
    /// Encoded text blocks appended to one file per group.
    Text(Compression),
    /// Parquet part files.
    Parquet(Arc<ParquetRun>),
    /// Parquet part files from record batches (a typed run).
    Typed(Arc<TypedRun>),
}

/// A running worker.
struct Worker {
    jobs: Sender<Job>,
    thread: JoinHandle<Report>,
}

/// The writer threads of a run; see the module docs.
pub(crate) struct Workers {
    /// Group `g` is written by `threads[g % threads.len()]`; empty once
    /// joined.
    threads: Vec<Worker>,
    /// Raised by a worker that failed; its error comes with its report.
    failed: Arc<AtomicBool>,
    /// Raised from outside (Ctrl-C) to stop the run.
    cancel: Option<Arc<AtomicBool>>,
}

impl Workers {
    /// Starts the plan's writer threads writing `format`, sharing its
    /// [`max_open`](MemoryPlan::max_open) open files; a Parquet worker
    /// keeps its spill log under `root`.
    ///
    /// # Errors
    ///
    /// A compression level the encoder rejects, or a thread that cannot
    /// be started.
    pub fn start(
        options: &Options,
        plan: &MemoryPlan,
        format: &WriterFormat,
        root: &Path,
    ) -> Result<Self, PartitionError> {
        let failed = Arc::new(AtomicBool::new(false));
        let threads = plan.writer_threads();
        let per_worker_open = (plan.max_open() / threads).max(1);
        let threads = (0..threads)
            .map(|i| {
                let spill_log = spill::log_path(root, i);
                spawn(format, per_worker_open, failed.clone(), spill_log)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Workers {
            threads,
            failed,
            cancel: options.cancel.clone(),
        })
    }

    /// Queues `job` for the worker of its group.
    ///
    /// # Errors
    ///
    /// If a worker failed or stopped, or the run was cancelled.
    pub fn send(&self, job: Job) -> Result<(), PartitionError> {
        let worker = &self.threads[job.group as usize % self.threads.len()];
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
        if (self.cancel.as_ref()).is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(PartitionError::Interrupted);
        }
        if self.failed.load(Ordering::Relaxed) {
            return Err(PartitionError::Io(io::Error::other("write failed")));
        }
        Ok(())
    }

    /// Closes the queues and waits for every worker; their reports added
    /// up, with the first error (or one saying a worker panicked). Every
    /// queue is closed before the first join, so the workers finish their
    /// files (with Parquet, the conversion of every spilled group) side by
    /// side rather than one after another.
    pub fn join(&mut self) -> Report {
        let mut all = Report::default();
        let threads: Vec<_> = (self.threads.drain(..))
            .map(|Worker { jobs, thread }| {
                drop(jobs);
                thread
            })
            .collect();
        for thread in threads {
            match thread.join() {
                Ok(report) => {
                    all.bytes_out += report.bytes_out;
                    all.reopened += report.reopened;
                    all.parts.extend(report.parts);
                    if all.error.is_none() {
                        all.error = report.error;
                    }
                }
                Err(_) => {
                    (all.error).get_or_insert_with(|| io::Error::other("a writer thread panicked"));
                }
            }
        }
        all
    }
}

/// Starts a worker; `failed` is raised if it hits an error (it then keeps
/// draining its queue without writing, so the router never blocks on it).
/// A Parquet worker keeps its spill log at `spill_log`.
fn spawn(
    format: &WriterFormat,
    max_open: usize,
    failed: Arc<AtomicBool>,
    spill_log: PathBuf,
) -> io::Result<Worker> {
    let (jobs, rx) = crossbeam_channel::bounded(QUEUE);
    let builder = std::thread::Builder::new().name("spool-partition-writer".into());
    let thread = match format {
        WriterFormat::Text(compression) => {
            let encoder = BlockEncoder::new(*compression)?;
            builder.spawn(move || run_text(rx, encoder, max_open, &failed))?
        }
        WriterFormat::Parquet(parquet) => {
            let sink = ParquetSink::new(parquet.clone(), max_open, spill_log);
            builder.spawn(move || run_parquet(rx, sink, &failed))?
        }
        WriterFormat::Typed(typed) => {
            let sink = TypedSink::new(typed.clone(), spill_log);
            builder.spawn(move || run_typed(rx, sink, &failed))?
        }
    };
    Ok(Worker { jobs, thread })
}

fn run_parquet(jobs: Receiver<Job>, mut sink: ParquetSink, failed: &AtomicBool) -> Report {
    let mut report = Report::default();
    let fail = |report: &mut Report, e: io::Error| {
        report.error.get_or_insert(e);
        failed.store(true, Ordering::Relaxed);
    };
    loop {
        let job = match jobs.recv_timeout(IDLE_CHECK) {
            Ok(job) => Some(job),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => None,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
        };
        if report.error.is_some() {
            continue; // drain: chunks go back to the pool as jobs drop
        }
        let result = match job {
            Some(job) => sink.write(job.group, job.grouping, job.create, job.data.text()),
            None => Ok(()),
        }
        .and_then(|()| sink.relieve());
        if let Err(e) = result {
            fail(&mut report, e);
        }
    }
    if report.error.is_none() {
        match sink.finish() {
            Ok(parts) => report.parts = parts,
            Err(e) => fail(&mut report, e),
        }
    }
    if report.error.is_some() {
        report.parts = sink.parts();
        sink.discard();
    }
    report.bytes_out = sink.bytes_out();
    report
}

fn run_typed(jobs: Receiver<Job>, mut sink: TypedSink, failed: &AtomicBool) -> Report {
    let mut report = Report::default();
    for job in jobs {
        if report.error.is_some() {
            continue; // drain
        }
        let Payload::Batches(rows) = &job.data else {
            unreachable!("a typed run sends batches");
        };
        if let Err(e) = sink.write(job.group, job.grouping, job.create, &rows.batch) {
            report.error = Some(e);
            failed.store(true, Ordering::Relaxed);
        }
    }
    if report.error.is_none() {
        match sink.finish() {
            Ok(parts) => report.parts = parts,
            Err(e) => {
                report.error = Some(e);
                failed.store(true, Ordering::Relaxed);
            }
        }
    }
    if report.error.is_some() {
        report.parts = sink.parts();
        sink.discard();
    }
    report.bytes_out = sink.bytes_out();
    report
}

fn run_text(
    jobs: Receiver<Job>,
    mut encoder: BlockEncoder,
    max_open: usize,
    failed: &AtomicBool,
) -> Report {
    let cap = NonZeroUsize::new(max_open.max(1)).expect("at least one");
    let mut open: LruCache<u32, File> = LruCache::new(cap);
    let mut paths: foldhash::HashMap<u32, PathBuf> = foldhash::HashMap::default();
    let mut report = Report::default();
    for job in jobs {
        if report.error.is_some() {
            continue; // drain: chunks go back to the pool as jobs drop
        }
        if let Err(e) = write_job(job, &mut encoder, &mut open, &mut paths, &mut report) {
            report.error = Some(e);
            failed.store(true, Ordering::Relaxed);
        }
    }
    report
}

fn write_job(
    job: Job,
    encoder: &mut BlockEncoder,
    open: &mut LruCache<u32, File>,
    paths: &mut foldhash::HashMap<u32, PathBuf>,
    report: &mut Report,
) -> io::Result<()> {
    let opening = !open.contains(&job.group);
    if opening && open.len() == open.cap().get() {
        // Close one before opening one: never `max_open + 1` at once.
        open.pop_lru();
    }
    if let Some(path) = job.create {
        // The group's first file, or its next part (replacing the last).
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
        }
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        open.push(job.group, file);
        paths.insert(job.group, path);
    } else if opening {
        let path = &paths[&job.group];
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| with_path(e, path))?;
        report.reopened += 1;
        open.push(job.group, file);
    }
    let file = open.get_mut(&job.group).expect("just opened");
    let block = encoder.encode(job.data.text())?;
    file.write_all(block)
        .map_err(|e| with_path(e, &paths[&job.group]))?;
    report.bytes_out += block.len() as u64;
    Ok(())
}
