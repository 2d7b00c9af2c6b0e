//! Parts sent while the run still reads: the engine writes its files to
//! a local staging directory as for a local output (append-only, Parquet
//! too until its footer), and a thread beside it sends each file's parts
//! as soon as the file holds them whole, then frees them on local disk
//! (see the `upload` module). What is left at the end of the input — each
//! file's unsent tail, and the files too small to have a whole part — is
//! sent by [`send_rest`](super::upload::send_rest).
//!
//! The thread looks at the staging directory's files (their sizes, by
//! one walk of the tree) at least every [`TICK`], less often when the
//! walk takes long (many keys): it waits [`WALK_SHARE`] times as long as
//! its last walk took, so walking costs a small share of one core
//! whatever the key count. A file is known by its path relative to the
//! dataset's root (the local run's staging directory, the one directory
//! under the local root while the thread runs).
//!
//! The thread owns the staged files only until they are all written: it
//! is stopped, its parts under way finished, before the local run
//! renames its staging directory ([`Run::before_publish`](crate::Run)),
//! so it never opens a file by a path the rename has moved; the commit
//! sends the rest from the published directory.
//!
//! Its parts in flight are charged to `--memory`: the run's engine gets
//! the total less [`MemoryPlan::uploads_during_run`](crate::MemoryPlan::uploads_during_run)
//! parts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use super::journal::{RunObjects, Upload};
use super::store::Store;
use super::upload::{begin_all, send_all};
use super::PART_BYTES;

/// The longest wait between two looks at the staging directory.
const TICK: Duration = Duration::from_millis(100);

/// How many times its last walk the thread waits before the next.
const WALK_SHARE: u32 = 20;

/// What the thread leaves: the uploads begun, by key, with what each has
/// sent; the begun-segments written; the first error, after which it
/// stopped sending.
#[derive(Default)]
pub(crate) struct PartsDuringRun {
    pub sending: HashMap<String, Upload>,
    pub segments: usize,
    pub error: Option<std::io::Error>,
}

impl PartsDuringRun {
    /// Every upload begun, for a roll back.
    pub fn uploads(&self) -> Vec<Upload> {
        self.sending.values().cloned().collect()
    }
}

/// Sends the whole parts of the files under `local_root` to `prefix` in
/// the bucket, at most `in_flight` at once, until `stop` is raised (then
/// finishes the parts under way and returns).
pub(crate) fn send_while_running(
    store: &Store,
    run: &RunObjects<'_>,
    prefix: &str,
    local_root: &Path,
    in_flight: usize,
    stop: &AtomicBool,
) -> PartsDuringRun {
    let permits = Arc::new(Semaphore::new(in_flight.max(1)));
    let mut early = PartsDuringRun::default();
    while !stop.load(Ordering::Acquire) {
        let walked = Instant::now();
        let files = walk(local_root);
        let wait = (walked.elapsed() * WALK_SHARE).max(TICK);
        if let Err(e) = send_due(store, run, prefix, &permits, files, &mut early) {
            early.error = Some(e);
            return early;
        }
        let until = walked + wait;
        while !stop.load(Ordering::Acquire) && Instant::now() < until {
            std::thread::sleep(TICK.min(until.saturating_duration_since(Instant::now())));
        }
    }
    early
}

/// Begins the uploads of the files that hold a whole part not yet sent
/// and sends those parts.
fn send_due(
    store: &Store,
    run: &RunObjects<'_>,
    prefix: &str,
    permits: &Arc<Semaphore>,
    files: Vec<(String, PathBuf, u64)>,
    early: &mut PartsDuringRun,
) -> std::io::Result<()> {
    let part = PART_BYTES as u64;
    let due: Vec<_> = (files.into_iter())
        .map(|(relative, path, len)| (format!("{prefix}{relative}"), path, len))
        .filter(|(key, _, len)| {
            let sent = early.sending.get(key).map_or(0, |u| u.size);
            *len >= sent + part
        })
        .collect();
    if due.is_empty() {
        return Ok(());
    }
    let fresh = (due.iter())
        .filter(|(key, _, _)| !early.sending.contains_key(key))
        .map(|(key, _, _)| key.clone())
        .collect();
    match begin_all(store, run, early.segments, fresh) {
        Ok(begun) => {
            early.segments += usize::from(!begun.is_empty());
            let begun = begun.into_iter().map(|u| (u.key.clone(), u));
            early.sending.extend(begun);
        }
        Err((e, begun)) => {
            let begun = begun.into_iter().map(|u| (u.key.clone(), u));
            early.sending.extend(begun);
            return Err(e);
        }
    }
    let work = (due.into_iter())
        .map(|(key, path, len)| {
            let upload = early.sending.remove(&key).expect("begun above");
            let end = upload.size + (len - upload.size) / part * part;
            (upload, path, end)
        })
        .collect();
    let (sent, error) = send_all(store, permits, work);
    let sent = sent.into_iter().map(|u| (u.key.clone(), u));
    early.sending.extend(sent);
    error.map_or(Ok(()), Err)
}

/// The data files under every directory of `local_root` (the local
/// run's staging directory): each one's path relative to that directory
/// (with `/`), its path, and its size. Spill logs and manifests are left
/// out.
fn walk(local_root: &Path) -> Vec<(String, PathBuf, u64)> {
    let mut files = Vec::new();
    let Ok(top) = std::fs::read_dir(local_root) else {
        return files;
    };
    for entry in top.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk_dir(&entry.path(), "", &mut files);
        }
    }
    files
}

fn walk_dir(dir: &Path, relative: &str, files: &mut Vec<(String, PathBuf, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let relative = format!("{relative}{name}");
        if kind.is_dir() {
            walk_dir(&path, &format!("{relative}/"), files);
        } else if !(name.starts_with(".spill-") || name.starts_with("_partitions")) {
            if let Ok(meta) = entry.metadata() {
                files.push((relative, path, meta.len()));
            }
        }
    }
}
