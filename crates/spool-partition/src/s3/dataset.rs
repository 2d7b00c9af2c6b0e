//! One run into a bucket, its commit, and `clean`: the sequence the
//! module docs of [`s3`](super) draw.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use super::journal::{staging_root, CommitPlan, Committed, RunObjects};
use super::local_staging::{self, LocalStaging};
use super::parts_during_run::{self, PartsDuringRun};
use super::store::{Listed, Store};
use super::upload;
use super::verify::Missing;
use super::S3Url;
use crate::destination::Mode;
use crate::run::Run;
use crate::{PartitionError, Summary};

/// Runs `run` into the bucket of `url`: see the module docs.
pub(crate) fn execute(run: Run<'_>, url: S3Url, mode: Mode) -> Result<Summary, PartitionError> {
    let options = run.options();
    let store = Store::connect(&url, options.verbose)?;
    if mode == Mode::New {
        let staging_root = staging_root(&url.prefix);
        let listed = store.list(&url.prefix)?;
        if listed.iter().any(|o| !o.key.starts_with(&staging_root)) {
            return Err(PartitionError::Usage(format!(
                "{} is not empty: give --force to replace it, or --append with a --run-id",
                options.out.display()
            )));
        }
    }
    if let Mode::AppendRun(id) = &mode {
        let manifest = format!(
            "{}{}",
            url.prefix,
            crate::file_layout::manifest_name(Some(id))
        );
        if store.exists(&manifest)? {
            return Err(PartitionError::Usage(format!(
                "run {id} is already in {}: its manifest {manifest} exists",
                options.out.display()
            )));
        }
    }
    let id = options.run_id.clone().unwrap_or_else(new_run_id);
    let (local_staging, stale_removed) = LocalStaging::begin(&std::env::temp_dir(), &id)?;
    let local_root = local_staging.dir();
    let local_out = local_root.join("out");
    // The parts sent while the run reads are set aside in its plan.
    let during_run = run.memory().uploads_during_run();
    let in_flight = run.memory().uploads_in_flight();
    let force = mode == Mode::Replace;
    let local = run.staged_in(local_out.clone());
    let objects = RunObjects::new(&url.prefix, &id);
    let stop = AtomicBool::new(false);
    let (ran, early, read_to_now) = std::thread::scope(|scope| {
        let thread = scope.spawn(|| {
            parts_during_run::send_while_running(
                &store,
                &objects,
                &url.prefix,
                local_root,
                during_run,
                &stop,
            )
        });
        // The upload thread owns the staged files until they are all
        // written, the commit from then on: it is stopped, and its parts
        // under way finished, before the local run renames its staging
        // directory (or on any error), never after.
        let thread = Mutex::new(Some(thread));
        let early = OnceLock::new();
        let stop_early = || {
            stop.store(true, Ordering::Release);
            early.get_or_init(|| {
                let thread = thread.lock().unwrap_or_else(|e| e.into_inner()).take();
                let joined = thread.map(|t| t.join());
                joined
                    .and_then(Result::ok)
                    .unwrap_or_else(|| PartsDuringRun {
                        error: Some(std::io::Error::other("the upload thread panicked")),
                        ..PartsDuringRun::default()
                    })
            });
        };
        let ran = local.before_publish(&stop_early).execute();
        let ran_at = Instant::now();
        stop_early();
        let early = early.into_inner().expect("stopped above");
        (ran, early, ran_at)
    });
    let result = match (ran, early.error.is_some()) {
        (Ok(summary), false) => commit(
            &store, &objects, &local_out, summary, force, in_flight, early,
        ),
        (ran, _) => {
            let _ = objects.roll_back(&store, &early.uploads());
            let error = early.error.map(PartitionError::Io);
            Err(ran.err().or(error).expect("one failed"))
        }
    };
    drop(local_staging);
    let mut summary = result?;
    summary.stale_removed = stale_removed;
    summary.finishing += read_to_now.elapsed();
    for group in &mut summary.groups {
        let relative = group.path.strip_prefix(&local_out).unwrap_or(&group.path);
        group.path = url.join(relative);
    }
    let manifest = summary
        .manifest
        .strip_prefix(&local_out)
        .unwrap_or(&summary.manifest);
    summary.manifest = url.join(manifest);
    Ok(summary)
}

/// Uploads the rest of the dataset written under `local` (what `parts_during_run`
/// has not sent) and commits it as `run` (see the module docs); on an
/// error before the commit, aborts every upload begun and deletes the
/// run's staging objects.
fn commit(
    store: &Store,
    run: &RunObjects<'_>,
    local: &Path,
    summary: Summary,
    replace: bool,
    in_flight: usize,
    early: PartsDuringRun,
) -> Result<Summary, PartitionError> {
    let manifest_path = &summary.manifest;
    let manifest =
        std::fs::read(manifest_path).map_err(|e| spool_io::input::with_path(e, manifest_path))?;
    let manifest_name = manifest_path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let files: Vec<(String, PathBuf)> = String::from_utf8_lossy(&manifest)
        .lines()
        .skip(1)
        .filter_map(|line| line.split('\t').nth(2))
        .map(|relative| (format!("{}{relative}", run.prefix), local.join(relative)))
        .collect();
    let sent = upload::send_rest(store, run, early.segments, files, early.sending, in_flight);
    let uploads = match sent {
        Ok(uploads) => uploads,
        Err((e, begun)) => {
            let _ = run.roll_back(store, &begun);
            return Err(e.into());
        }
    };
    let journal = CommitPlan {
        manifest: manifest_name,
        replace,
        uploads,
    };
    if let Err(e) = run.write_journal(store, &journal, manifest) {
        let _ = run.roll_back(store, &journal.uploads);
        return Err(e.into());
    }
    match run.commit(store, &journal, in_flight)? {
        Committed::Done => Ok(summary),
        Committed::Lost(missing) => Err(PartitionError::Io(lost(&missing))),
    }
}

/// The error of a commit undone because the store did not keep objects
/// it said it completed.
fn lost(missing: &[Missing]) -> std::io::Error {
    const NAMED: usize = 5;
    let mut named: Vec<String> = missing.iter().take(NAMED).map(Missing::to_string).collect();
    if missing.len() > NAMED {
        named.push(format!("and {} more", missing.len() - NAMED));
    }
    std::io::Error::other(format!(
        "the store does not hold {} object(s) it said it completed: {}; \
         the run was rolled back (nothing of it committed): run it again",
        missing.len(),
        named.join(", ")
    ))
}

/// A run id for a run given none: unique per process and moment.
fn new_run_id() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    let nanos = now.map_or(0, |d| d.as_nanos());
    format!("r{nanos:x}-{}", std::process::id())
}

/// What [`clean`] did in an S3 dataset.
#[derive(Clone, Debug, Default)]
pub struct CleanedS3 {
    /// Runs whose commit had started, finished.
    pub rolled_forward: Vec<String>,
    /// Runs whose commit had not started, undone.
    pub rolled_back: Vec<String>,
    /// Runs whose commit had started but could not be finished: the store
    /// does not hold objects it said it completed. Undone like the runs
    /// rolled back (nothing of them is left); each with what is missing.
    pub lost: Vec<(String, String)>,
    /// Pending uploads aborted that no journal named (runs killed before
    /// their journal), as their keys.
    pub aborted: Vec<String>,
    /// Why the pending uploads could not be listed (a store without
    /// `ListMultipartUploads`): uploads no journal names may be left.
    pub unlisted: Option<String>,
    /// Local staging folders of dead runs removed from this machine's
    /// temp directory.
    pub local_removed: Vec<PathBuf>,
}

/// Brings the dataset at `url` to a committed state: finishes every run
/// whose commit started (or undoes it, if the store lost objects of it),
/// undoes every other run with staging objects, and aborts every pending
/// upload under the prefix; also removes dead runs' local staging folders
/// from the temp directory. No run may be writing into the prefix
/// meanwhile (S3 has no lock to tell a live run from a dead one).
/// `verbose`: errors carry the store's whole answer.
///
/// # Errors
///
/// An S3 request that fails.
pub fn clean(url: &S3Url, verbose: bool) -> Result<CleanedS3, PartitionError> {
    let mut cleaned = CleanedS3 {
        local_removed: local_staging::remove_dead(&std::env::temp_dir()),
        ..CleanedS3::default()
    };
    let store = Store::connect(url, verbose)?;
    let staging_root = staging_root(&url.prefix);
    let mut ids: Vec<String> = (store.list(&url.prefix)?.into_iter())
        .filter_map(|Listed { key, .. }| {
            let rest = key.strip_prefix(&staging_root)?;
            Some(rest.split('/').next()?.to_owned())
        })
        .collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        let run = RunObjects::new(&url.prefix, &id);
        let journal = run.read_journal(&store)?;
        match journal {
            Some(journal) if run.is_committing(&store)? => {
                match run.roll_forward(&store, &journal, 16)? {
                    Committed::Done => cleaned.rolled_forward.push(id),
                    Committed::Lost(missing) => {
                        cleaned.lost.push((id, lost(&missing).to_string()));
                    }
                }
            }
            journal => {
                let mut uploads = journal.map(|j| j.uploads).unwrap_or_default();
                uploads.extend(run.read_begun(&store)?);
                run.roll_back(&store, &uploads)?;
                cleaned.rolled_back.push(id);
            }
        }
    }
    match store.pending_uploads(&url.prefix) {
        Ok(pending) => {
            for upload in pending {
                store.abort(&upload.key, &upload.id)?;
                cleaned.aborted.push(upload.key);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {
            cleaned.unlisted = Some(e.to_string());
        }
        Err(e) => return Err(e.into()),
    }
    Ok(cleaned)
}
