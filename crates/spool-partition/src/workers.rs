//! Writer threads: each owns a fixed share of the groups, so a group's
//! blocks are encoded and written in the order the router sent them, with
//! no lock around any file.
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
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lru::LruCache;

use super::parquet::sink::ParquetSink;
use super::parquet::ParquetRun;
use spool_io::write::{BlockEncoder, Chunk, Compression};

/// How often an idle Parquet writer looks at the pressure epoch.
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_millis(20);

/// One block for one group; the group's first job carries its path.
pub(crate) struct Job {
    pub group: u32,
    /// The `--by` column the group belongs to.
    pub grouping: usize,
    pub create: Option<PathBuf>,
    /// A pool chunk (goes back to the pool when written).
    pub data: Chunk,
}

/// What a worker did, reported when it ends.
#[derive(Default)]
pub(crate) struct Report {
    pub error: Option<io::Error>,
    pub bytes_out: u64,
    pub reopened: u64,
    /// Parquet part files started per group, the records of each, for
    /// the groups with other than one part (text files have one).
    pub parts: Vec<(u32, Vec<u64>)>,
}

/// What a worker writes.
pub(crate) enum Output {
    /// Encoded text blocks appended to one file per group.
    Text(Compression),
    /// Parquet part files.
    Parquet(Arc<ParquetRun>),
}

/// A running worker.
pub(crate) struct Worker {
    pub jobs: Sender<Job>,
    pub thread: JoinHandle<Report>,
}

/// Starts a worker; `failed` is raised if it hits an error (it then keeps
/// draining its queue without writing, so the router never blocks on it).
/// A Parquet worker keeps its spill log at `spill_log`.
pub(crate) fn spawn(
    output: &Output,
    max_open: usize,
    queue: usize,
    failed: Arc<AtomicBool>,
    spill_log: PathBuf,
) -> io::Result<Worker> {
    let (jobs, rx) = crossbeam_channel::bounded(queue);
    let builder = std::thread::Builder::new().name("spool-partition-writer".into());
    let thread = match output {
        Output::Text(compression) => {
            let encoder = BlockEncoder::new(*compression)?;
            builder.spawn(move || run(rx, encoder, max_open, &failed))?
        }
        Output::Parquet(parquet) => {
            let sink = ParquetSink::new(parquet.clone(), max_open, spill_log);
            builder.spawn(move || run_parquet(rx, sink, &failed))?
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
            Some(job) => sink.write(job.group, job.grouping, job.create, &job.data),
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

fn run(
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
    let opening = job.create.is_some() || !open.contains(&job.group);
    if opening && open.len() == open.cap().get() {
        // Close one before opening one: never `max_open + 1` at once.
        open.pop_lru();
    }
    if let Some(path) = job.create {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| spool_io::input::with_path(e, dir))?;
        }
        let file = File::create(&path).map_err(|e| spool_io::input::with_path(e, &path))?;
        open.push(job.group, file);
        paths.insert(job.group, path);
    }
    if !open.contains(&job.group) {
        let path = &paths[&job.group];
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| spool_io::input::with_path(e, path))?;
        report.reopened += 1;
        open.push(job.group, file);
    }
    let file = open.get_mut(&job.group).expect("just opened");
    let block = encoder.encode(&job.data)?;
    file.write_all(block)
        .map_err(|e| spool_io::input::with_path(e, &paths[&job.group]))?;
    report.bytes_out += block.len() as u64;
    Ok(())
}
