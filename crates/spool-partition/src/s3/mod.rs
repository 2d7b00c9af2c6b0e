//! `--out s3://BUCKET/PREFIX/`: the run's dataset committed to an S3
//! bucket (or any S3-compatible store), with no object under its final
//! name before the commit.
//!
//! ```text
//!  the run, as for a local OUT     every file written under a local staging
//!  (same engine, same names)       directory (TMPDIR), manifest last
//!   └ beside it (early)            a file's whole 8 MiB parts sent as soon
//!                                  as it holds them, then punched out of
//!                                  the local file; uploads begun, their ids
//!                                  written (begun-N.tsv) before any part
//!  the rest (upload::send_rest)    every file's unsent tail, small files
//!                                  whole; uploads left pending
//!  journal                         _staging-RUNID/journal.tsv: the uploads'
//!                                  keys, ids and parts; the manifest beside
//!  commit                          _staging-RUNID/committing; complete each
//!                                  upload; --force: delete what the run
//!                                  did not write; the manifest; the staging
//!                                  objects
//! ```
//!
//! What lives where, and when:
//!
//! * **memory**: the engine's plan, as for a local run, on `--memory` less
//!   the parts the `early` thread may hold at once
//!   ([`MemoryPlan::uploads_during_run`](crate::MemoryPlan::uploads_during_run));
//!   after the input, once the engine has given its memory back, at most
//!   [`MemoryPlan::uploads_in_flight`](crate::MemoryPlan::uploads_in_flight)
//!   parts at once.
//! * **local disk** (`TMPDIR/spool-s3-RUNID-PID/`): every file's bytes not
//!   yet sent — a file's tail below one part, and whatever has grown since
//!   the last look — so about `files × 8 MiB` at most beside the bytes
//!   written since; Parquet runs' spill logs too. Removed at the end of
//!   the run, whatever its outcome (a `kill -9` leaves it).
//! * **S3**: pending multipart uploads, invisible to listings, from the
//!   moment a file holds its first part until the commit; the
//!   `_staging-RUNID/` objects; the data files and the manifest, from the
//!   commit on.
//!
//! S3 takes parts of 5 MiB and more but the last, so the bytes of a file
//! that has not reached one part wait on local disk: with many keys most
//! of a dataset is sent at the end, with few keys most of it while the run
//! reads.
//!
//! What is atomic and what is not is in the `journal` module and in
//! docs/partition.md: each object appears whole or not at all; the
//! dataset's objects appear one by one during the commit, named by the
//! run's journal until its manifest is written; `clean` finishes a commit
//! that started and undoes a run that did not.

mod early;
mod journal;
mod profile;
mod store;
mod upload;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub(crate) use upload::PART_BYTES;

use early::Early;
use journal::{Journal, RunObjects};
use store::Store;

use crate::run::Run;
use crate::{PartitionError, Summary};

/// Where an `s3://` output is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Url {
    /// The bucket.
    pub bucket: String,
    /// The key prefix of the dataset: empty, or ending in `/`.
    pub prefix: String,
}

impl S3Url {
    /// `out` as an S3 location, if it starts with `s3://`.
    ///
    /// # Errors
    ///
    /// An `s3://` URL without a bucket, or with an empty segment.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::s3::S3Url;
    /// let url = S3Url::parse("s3://data/sales/2024".as_ref())?.unwrap();
    /// assert_eq!((url.bucket.as_str(), url.prefix.as_str()), ("data", "sales/2024/"));
    /// assert_eq!(S3Url::parse("out/sales".as_ref())?, None);
    /// assert!(S3Url::parse("s3:///sales".as_ref()).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn parse(out: &Path) -> Result<Option<S3Url>, PartitionError> {
        let Some(rest) = out.to_str().and_then(|s| s.strip_prefix("s3://")) else {
            return Ok(None);
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_end_matches('/');
        if bucket.is_empty() || prefix.split('/').any(str::is_empty) && !prefix.is_empty() {
            return Err(PartitionError::Usage(format!(
                "{}: give s3://BUCKET/PREFIX/",
                out.display()
            )));
        }
        let prefix = match prefix {
            "" => String::new(),
            p => format!("{p}/"),
        };
        Ok(Some(S3Url {
            bucket: bucket.to_owned(),
            prefix,
        }))
    }

    /// The URL of the object `relative` to the dataset.
    fn join(&self, relative: &Path) -> PathBuf {
        PathBuf::from(format!(
            "s3://{}/{}{}",
            self.bucket,
            self.prefix,
            relative.display()
        ))
    }
}

/// Runs `run` into the bucket of `url`: see the module docs.
pub(crate) fn execute(run: Run<'_>, url: S3Url) -> Result<Summary, PartitionError> {
    let options = run.options();
    let usage = |m: &str| Err(PartitionError::Usage(m.to_owned()));
    if options.append && options.run_id.is_none() {
        return usage("--append needs --run-id (each run's files are named after its id)");
    }
    if options.append && options.force {
        return usage("--append adds to a dataset and --force replaces it: give one of them");
    }
    let store = Store::connect(&url)?;
    if !options.append && !options.force {
        let staging_root = format!("{}{}", url.prefix, spool_io::write::STAGING_PREFIX);
        let listed = store.list(&url.prefix)?;
        if listed
            .iter()
            .any(|(key, _)| !key.starts_with(&staging_root))
        {
            return Err(PartitionError::Usage(format!(
                "{} is not empty: give --force to replace it, or --append with a --run-id",
                options.out.display()
            )));
        }
    }
    if let (true, Some(id)) = (options.append, &options.run_id) {
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
    let local_root = std::env::temp_dir().join(format!("spool-s3-{id}-{}", std::process::id()));
    let mut local = options.clone();
    local.out = local_root.join("out");
    (local.force, local.append, local.fsync) = (false, false, false);
    // The open files as planned (fitted to the open-file limit once).
    local.max_open = run.memory().max_open();
    // The parts sent while the run reads are charged to --memory: the
    // engine plans with the rest.
    let during_run = run.memory().uploads_during_run();
    local.memory -= during_run * PART_BYTES;
    let in_flight = run.memory().uploads_in_flight();
    let objects = RunObjects::new(&url.prefix, &id);
    let stop = AtomicBool::new(false);
    let (ran, early, read_to_now) = std::thread::scope(|scope| {
        let early = scope.spawn(|| {
            early::send_while_running(
                &store,
                &objects,
                &url.prefix,
                &local_root,
                during_run,
                &stop,
            )
        });
        let ran = Run::new(&local).and_then(Run::execute);
        let ran_at = Instant::now();
        stop.store(true, Ordering::Release);
        let early = early.join().unwrap_or_else(|_| Early {
            error: Some(std::io::Error::other("the upload thread panicked")),
            ..Early::default()
        });
        (ran, early, ran_at)
    });
    let result = match (ran, early.error.is_some()) {
        (Ok(summary), false) => commit(
            &store,
            &objects,
            &local.out,
            summary,
            options.force,
            in_flight,
            early,
        ),
        (ran, _) => {
            let _ = objects.roll_back(&store, &early.uploads());
            let error = early.error.map(PartitionError::Io);
            Err(ran.err().or(error).expect("one failed"))
        }
    };
    let _ = std::fs::remove_dir_all(&local_root);
    let mut summary = result?;
    summary.finishing += read_to_now.elapsed();
    for group in &mut summary.groups {
        let relative = group.path.strip_prefix(&local.out).unwrap_or(&group.path);
        group.path = url.join(relative);
    }
    let manifest = summary
        .manifest
        .strip_prefix(&local.out)
        .unwrap_or(&summary.manifest);
    summary.manifest = url.join(manifest);
    Ok(summary)
}

/// Uploads the rest of the dataset written under `local` (what `early`
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
    early: Early,
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
    let journal = Journal {
        manifest: manifest_name,
        replace,
        uploads,
    };
    if let Err(e) = run.write_journal(store, &journal, manifest) {
        let _ = run.roll_back(store, &journal.uploads);
        return Err(e.into());
    }
    run.commit(store, &journal, in_flight)?;
    Ok(summary)
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
    /// Pending uploads aborted that no journal named (runs killed before
    /// their journal), as their keys.
    pub aborted: Vec<String>,
}

/// Brings the dataset at `url` to a committed state: finishes every run
/// whose commit started, undoes every other run with staging objects,
/// and aborts every pending upload under the prefix. No run may be
/// writing into the prefix meanwhile (S3 has no lock to tell a live run
/// from a dead one).
///
/// # Errors
///
/// An S3 request that fails.
pub fn clean(url: &S3Url) -> Result<CleanedS3, PartitionError> {
    let store = Store::connect(url)?;
    let staging_root = format!("{}{}", url.prefix, spool_io::write::STAGING_PREFIX);
    let mut ids: Vec<String> = (store.list(&url.prefix)?.into_iter())
        .filter_map(|(key, _)| {
            let rest = key.strip_prefix(&staging_root)?;
            Some(rest.split('/').next()?.to_owned())
        })
        .collect();
    ids.sort();
    ids.dedup();
    let mut cleaned = CleanedS3::default();
    for id in ids {
        let run = RunObjects::new(&url.prefix, &id);
        let journal = run.read_journal(&store)?;
        match journal {
            Some(journal) if run.is_committing(&store)? => {
                run.roll_forward(&store, &journal, 16)?;
                cleaned.rolled_forward.push(id);
            }
            journal => {
                let mut uploads = journal.map(|j| j.uploads).unwrap_or_default();
                uploads.extend(run.read_begun(&store)?);
                run.roll_back(&store, &uploads)?;
                cleaned.rolled_back.push(id);
            }
        }
    }
    for upload in store.pending_uploads(&url.prefix)? {
        store.abort(&upload.key, &upload.id)?;
        cleaned.aborted.push(upload.key);
    }
    Ok(cleaned)
}
