//! One run adding its files to a directory that other runs add to at the
//! same time: the many-writers counterpart of [`StagedDir`].
//!
//! A dataset written by many processes at once (the tasks of a Spark job,
//! a job array over input shards) cannot be published by one rename of
//! the whole tree, since no run owns the whole tree. Each run instead
//! owns its *run id*, and every name it writes carries it:
//!
//! ```text
//!  OUT/
//!    _staging-ID.lock          flock'ed while run ID is alive (removed at its end)
//!    _staging-ID/              run ID writes here, final relative names
//!      _moves.journal          the files it is about to move (written before the first move)
//!    COL=KEY/part-ID-00000.tsv moved here by one rename each
//!    _partitions-ID.tsv        moved last: run ID is complete
//! ```
//!
//! * **Appending runs share the output; replacing it waits for none.**
//!   Each holds the output's own lock (`.OUT.spool-lock`, beside it)
//!   shared, so a run that would replace the whole output (`--force`,
//!   which takes it exclusively) refuses while any appends, and an append
//!   refuses while a replacement runs.
//! * **One run per id.** [`AppendRun::begin`] takes the run's lock, then
//!   refuses an id whose manifest exists (a finished run) or whose lock is
//!   held (a live one). Names starting with `_` are skipped by Hive,
//!   Spark, DuckDB and Polars readers.
//! * **Whole files only.** Every file appears in OUT by one rename from
//!   the staging directory (same file system), so no reader sees a file
//!   being written. A rename never replaces an existing file
//!   (`RENAME_NOREPLACE`, or a hard link where that is missing): a name
//!   clash fails the run, which then removes what it moved.
//! * **The manifest is the commit.** It is moved last; a run's files
//!   without its manifest belong to an unfinished run.
//! * **Dead runs are told apart and removed.** A run is dead when its lock
//!   is free and its manifest missing. Its `_moves.journal` names every file
//!   it may have moved; a file no longer in its staging directory but
//!   present in OUT was moved, and is removed, then the staging directory
//!   ([`AppendRun::clean_dead`]; the list is `moves_list.rs`'s). A run restarted with the same id (a
//!   retried task) does this itself before it starts.
//! * **Dropped unpublished** (an error, Ctrl-C), the run removes the files
//!   it moved, its staging directory and its lock file.
//!
//! Directories in OUT (`COL=KEY/`) that a failed or dead run leaves empty
//! are removed with its files. Another run may have just made the same
//! directory to move a file into it: its move then finds no directory,
//! and it makes it again.
//!
//! [`StagedDir`]: spool_io::write::StagedDir

use std::io;
use std::path::{Path, PathBuf};

mod moves_list;
mod no_replace;
mod run_id;

use moves_list::{remove_dead, write_moves};
use no_replace::{move_in, remove_empty_parents, rename_noreplace};
pub use run_id::{check_run_id, MAX_RUN_ID_LEN};
use spool_io::input::with_path;
use spool_io::write::{beside, split_target, sync_directory, OutputLock};

/// Start of a run's staging directory's name (and of its lock file's).
pub const STAGING_PREFIX: &str = "_staging-";

/// One run's files, staged inside a shared output directory and moved
/// into it file by file, its manifest last; see the [`write`](super)
/// module docs and `docs/partition.md`.
///
/// # Examples
///
/// ```
/// use spool_partition::append_run::AppendRun;
/// let out = std::env::temp_dir().join(format!("spool-io-doc-append-{}", std::process::id()));
/// for id in ["a", "b"] {
///     let run = AppendRun::begin(&out, id, &format!("_done-{id}"), "_done")?;
///     std::fs::create_dir_all(run.dir().join("k=1"))?;
///     std::fs::write(run.dir().join(format!("k=1/part-{id}.tsv")), "x\n")?;
///     std::fs::write(run.dir().join(format!("_done-{id}")), "")?;
///     run.publish(&[format!("k=1/part-{id}.tsv").into()], false)?;
/// }
/// assert!(out.join("k=1/part-a.tsv").exists() && out.join("k=1/part-b.tsv").exists());
/// // An id already used is refused.
/// assert!(AppendRun::begin(&out, "a", "_done-a", "_done").is_err());
/// # std::fs::remove_dir_all(&out)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AppendRun {
    target: PathBuf,
    staging: PathBuf,
    manifest: String,
    /// Files moved into the target so far (relative).
    moved: Vec<PathBuf>,
    published: bool,
    stale_removed: Vec<PathBuf>,
    lock: Option<OutputLock>,
    /// The output's own lock, held shared until the run ends.
    _output: Option<OutputLock>,
}

impl AppendRun {
    /// Starts run `id` into `target` (created if missing): checks that
    /// `target` is empty or a dataset (it holds a name starting with
    /// `marker` or a staging directory), locks the id, refuses it if its
    /// `manifest` exists, removes what a dead run of the same id left, and
    /// creates the staging directory `target/_staging-ID/`.
    ///
    /// # Errors
    ///
    /// A bad id (`InvalidInput`); a target that is a file or a directory
    /// holding other things (`AlreadyExists`); the id in use by a live run
    /// (`WouldBlock`) or already published (`AlreadyExists`); or a
    /// file-system error naming its path.
    pub fn begin(target: &Path, id: &str, manifest: &str, marker: &str) -> io::Result<Self> {
        check_run_id(id).map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
        let refuse =
            |kind, why: String| Err(io::Error::new(kind, format!("{}: {why}", target.display())));
        let (parent, name) = split_target(target)?;
        std::fs::create_dir_all(&parent).map_err(|e| beside(e, target, &parent))?;
        // Where OUT's parent cannot be written, no run can replace OUT as a
        // whole (that stages beside it) either: nothing to exclude.
        let output = match OutputLock::acquire_shared(
            &parent,
            &name,
            target,
            "another run is replacing this whole output",
        ) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => None,
            other => Some(other?),
        };
        match std::fs::metadata(target) {
            Ok(meta) if !meta.is_dir() => {
                return refuse(
                    io::ErrorKind::AlreadyExists,
                    "exists and is not a directory".into(),
                )
            }
            Ok(_) if !is_dataset(target, marker)? => {
                return refuse(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "not empty and holds no {marker}* manifest, so it is not a dataset \
                         to append to; choose another output"
                    ),
                )
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(target).map_err(|e| with_path(e, target))?
            }
            Err(e) => return Err(with_path(e, target)),
        }
        let (staging, lock_path) = names(target, id);
        let Some(lock) = OutputLock::try_acquire_file(&lock_path, target)? else {
            return refuse(
                io::ErrorKind::WouldBlock,
                format!(
                    "run id {id} is being written by another process (it holds {}); \
                     give each run its own id",
                    lock_path.display()
                ),
            );
        };
        if target.join(manifest).exists() {
            lock.remove();
            return refuse(
                io::ErrorKind::AlreadyExists,
                format!("run id {id} was already written (its manifest {manifest} exists); give each run its own id"),
            );
        }
        let mut run = AppendRun {
            target: target.to_path_buf(),
            staging,
            manifest: manifest.to_owned(),
            moved: Vec::new(),
            published: false,
            stale_removed: Vec::new(),
            lock: Some(lock),
            _output: output,
        };
        if run.staging.exists() {
            run.stale_removed = remove_dead(target, &run.staging)?;
        }
        std::fs::create_dir(&run.staging).map_err(|e| with_path(e, &run.staging))?;
        Ok(run)
    }

    /// Removes what run `id` left in `target` if it is dead (its lock is
    /// free): with its `manifest` present (a finished run killed while
    /// tidying up) only its staging directory, otherwise also every file
    /// it moved into `target`; then its lock file. Returns what it
    /// removed, or `None` if the run is alive.
    ///
    /// # Errors
    ///
    /// A file-system error naming its path.
    pub fn clean_dead(target: &Path, id: &str, manifest: &str) -> io::Result<Option<Vec<PathBuf>>> {
        let (staging, lock_path) = names(target, id);
        let had_lock = lock_path.exists();
        let Some(lock) = OutputLock::try_acquire_file(&lock_path, target)? else {
            return Ok(None);
        };
        let mut removed = Vec::new();
        let result = if !staging.exists() {
            Ok(())
        } else if target.join(manifest).exists() {
            std::fs::remove_dir_all(&staging).map(|()| removed.push(staging.clone()))
        } else {
            remove_dead(target, &staging).map(|r| removed = r)
        };
        lock.remove();
        result.map_err(|e| with_path(e, &staging))?;
        if had_lock {
            removed.push(lock_path);
        }
        Ok(Some(removed))
    }

    /// The directory to write into, under the final relative names.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// Files and the staging directory a dead run of the same id left,
    /// removed by [`begin`](Self::begin) (for a warning).
    pub fn stale_removed(&self) -> &[PathBuf] {
        &self.stale_removed
    }

    /// Moves `files` (relative to the staging directory) into the target,
    /// then the manifest (which the caller wrote into the staging
    /// directory last), then removes the staging directory and the lock
    /// file. With `sync`, the directories moved into are flushed before
    /// the manifest is moved, and the target after (the caller flushes
    /// the files first).
    ///
    /// # Errors
    ///
    /// A file that exists in the target already, or a rename or sync
    /// error, naming the path; the files moved so far are then removed.
    pub fn publish(mut self, files: &[PathBuf], sync: bool) -> io::Result<()> {
        write_moves(&self.staging, files, sync)?;
        let mut dirs = Vec::new();
        for rel in files {
            let to = self.target.join(rel);
            move_in(&self.staging.join(rel), &to)?;
            self.moved.push(rel.clone());
            if sync {
                dirs.extend(to.parent().map(Path::to_path_buf));
            }
        }
        dirs.sort();
        dirs.dedup();
        for dir in &dirs {
            sync_directory(dir).map_err(|e| with_path(e, dir))?;
        }
        let manifest = self.target.join(&self.manifest);
        rename_noreplace(&self.staging.join(&self.manifest), &manifest)?;
        self.published = true;
        if sync {
            sync_directory(&self.target).map_err(|e| with_path(e, &self.target))?;
        }
        let _ = std::fs::remove_dir_all(&self.staging);
        if let Some(lock) = self.lock.take() {
            lock.remove();
        }
        Ok(())
    }
}

impl Drop for AppendRun {
    fn drop(&mut self) {
        if self.published {
            return;
        }
        for rel in self.moved.iter().rev() {
            let _ = std::fs::remove_file(self.target.join(rel));
            remove_empty_parents(&self.target, rel);
        }
        let _ = std::fs::remove_dir_all(&self.staging);
        if let Some(lock) = self.lock.take() {
            lock.remove();
        }
    }
}

/// Run `id`'s staging directory and lock file in `target`.
fn names(target: &Path, id: &str) -> (PathBuf, PathBuf) {
    (
        target.join(format!("{STAGING_PREFIX}{id}")),
        target.join(format!("{STAGING_PREFIX}{id}.lock")),
    )
}

/// Whether `dir` is empty or holds a name starting with `marker` or
/// [`STAGING_PREFIX`] (a dataset, or one being started by another run).
fn is_dataset(dir: &Path, marker: &str) -> io::Result<bool> {
    let mut entries = std::fs::read_dir(dir)
        .map_err(|e| with_path(e, dir))?
        .peekable();
    if entries.peek().is_none() {
        return Ok(true);
    }
    for entry in entries {
        let name = entry.map_err(|e| with_path(e, dir))?.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(marker) || name.starts_with(STAGING_PREFIX) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spool-append-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn stage(run: &AppendRun, rel: &str, text: &str) -> PathBuf {
        let path = run.dir().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        PathBuf::from(rel)
    }

    #[test]
    fn a_name_clash_fails_the_run_and_undoes_its_moves() {
        let out = scratch("clash");
        let run = AppendRun::begin(&out, "r1", "_m-r1", "_m").unwrap();
        let files = [stage(&run, "a/1", "mine"), stage(&run, "b/2", "mine")];
        stage(&run, "_m-r1", "");
        // Another run's file already holds the second name.
        std::fs::write(out.join("_m-r0"), "").unwrap();
        std::fs::create_dir_all(out.join("b")).unwrap();
        std::fs::write(out.join("b/2"), "theirs").unwrap();
        let err = run.publish(&files, false).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(std::fs::read_to_string(out.join("b/2")).unwrap(), "theirs");
        assert!(
            !out.join("a").exists(),
            "the moved file is taken back, and its directory"
        );
        assert!(!out.join("_m-r1").exists());
        assert!(!out.join("_staging-r1").exists() && !out.join("_staging-r1.lock").exists());
        // The id is free again.
        drop(AppendRun::begin(&out, "r1", "_m-r1", "_m").unwrap());
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_dead_run_of_the_same_id_is_cleaned_up_on_start() {
        let out = scratch("retry");
        let run = AppendRun::begin(&out, "r1", "_m-r1", "_m").unwrap();
        let files = [stage(&run, "a/1", "old"), stage(&run, "b/2", "old")];
        write_moves(run.dir(), &files, false).unwrap();
        // Killed after its first move: simulate by moving it and forgetting.
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::rename(run.dir().join("a/1"), out.join("a/1")).unwrap();
        std::mem::forget(run); // no Drop: as a kill leaves it (the lock goes with the process)
                               // Its lock file is still open in this process; a new run of the id
                               // would be refused, so free it as the kernel would.
        let lock = out.join("_staging-r1.lock");
        std::fs::remove_file(&lock).unwrap();
        let retry = AppendRun::begin(&out, "r1", "_m-r1", "_m").unwrap();
        assert!(
            !out.join("a/1").exists(),
            "the dead attempt's moved file is removed"
        );
        assert_eq!(
            retry.stale_removed().len(),
            2,
            "{:?}",
            retry.stale_removed()
        );
        drop(retry);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
