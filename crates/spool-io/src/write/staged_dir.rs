//! A directory that appears whole or not at all, written by one run at a
//! time.
//!
//! A dataset of many files cannot be made to appear atomically file by
//! file: a reader (or a kill) between two renames sees half of it. So the
//! whole tree is built in a hidden *staging* directory beside the target
//! and published with one `rename` — the one step a POSIX file system
//! makes atomic for a whole tree:
//!
//! ```text
//!  PARENT/
//!    .OUT.spool-lock               flock'ed for the whole run (kept)
//!    .OUT.spool-staging-RUNID/     the run writes here
//!    OUT/                          the published dataset (old or new, never mixed)
//! ```
//!
//! * **One writer.** [`StagedDir::begin`] takes an exclusive `flock` on
//!   `.OUT.spool-lock` before it looks at anything, so a second run into
//!   the same target refuses at once, naming the lock. The lock file is
//!   never removed: unlinking a lock file while others may have it open
//!   lets two runs hold "the" lock at once.
//! * **Whole or nothing.** [`publish`](StagedDir::publish) renames the
//!   staging directory to the target. A target that exists (empty, or an
//!   earlier dataset being replaced) is swapped out in one step with
//!   `renameat2(RENAME_EXCHANGE)` on Linux and then removed; elsewhere (or
//!   on a file system without it) it is renamed aside first, so a reader
//!   may find no target for that moment, but never a mixed one.
//! * **Dead runs leave nothing visible.** A killed run leaves only hidden
//!   names. The next run holds the lock, so any staging directory it finds
//!   belongs to a dead run: it is removed and reported
//!   ([`stale_removed`](StagedDir::stale_removed)), never published. An
//!   old dataset renamed aside by a run killed before its second rename is
//!   renamed back.
//! * **Dropped unpublished**, the staging directory is removed.
//!
//! Every file under [`dir`](StagedDir::dir) can be written under its final
//! name (no per-file temporary names): nothing inside is visible until the
//! publish, whatever writes it (text blocks, Parquet, a manifest).
//!
//! The file-system steps this shares with spool-partition's append runs
//! (a target's parent and name, the one-step exchange, run names, a
//! durable rename) are `publish_steps.rs`'s.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use super::publish_steps::{exchange, run_id, split_target, sync_directory};
use super::{beside, OutputLock};
use crate::input::with_path;

/// A directory tree being built under a hidden name by one run at a time
/// (an exclusive `flock` on `.OUT.spool-lock`), published whole with one
/// rename; a dead run's staging directory is removed by the next run.
///
/// # Examples
///
/// ```
/// use spool_io::write::StagedDir;
/// let parent = std::env::temp_dir().join(format!("spool-io-doc-staged-{}", std::process::id()));
/// let out = parent.join("dataset");
/// let staged = StagedDir::begin(&out, None)?;
/// std::fs::write(staged.dir().join("part.tsv"), "a\n")?;
/// assert!(!out.exists()); // not yet
/// // A second run into the same target refuses while this one holds it.
/// assert!(StagedDir::begin(&out, None).is_err());
/// staged.publish(false)?;
/// assert_eq!(std::fs::read(out.join("part.tsv"))?, b"a\n");
/// # std::fs::remove_dir_all(&parent)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct StagedDir {
    target: PathBuf,
    parent: PathBuf,
    name: OsString,
    staging: PathBuf,
    replace: bool,
    stale_removed: Vec<PathBuf>,
    published: bool,
    /// Holds the `flock` until the run ends (closing it releases it).
    _lock: OutputLock,
}

impl StagedDir {
    /// Locks `target`, cleans up after dead runs and creates a fresh
    /// staging directory beside it. The parent directory is created if
    /// missing.
    ///
    /// An existing `target` must be an empty directory, unless `replace`
    /// starts the name of a file that marks it as a dataset to replace
    /// (such as a manifest, `_partitions` for `_partitions.tsv` and
    /// `_partitions-ID.tsv`): then a non-empty directory holding such a
    /// file is replaced
    /// as a whole by [`publish`](Self::publish). A directory that does not
    /// hold it is never replaced, so a mistyped target cannot delete
    /// unrelated files.
    ///
    /// # Errors
    ///
    /// Another run holds the target (kind `WouldBlock`, naming the lock
    /// file); the target is not a directory, or is not empty and may not be
    /// replaced (kind `AlreadyExists`); or a file-system error naming its
    /// path.
    pub fn begin(target: &Path, replace: Option<&str>) -> io::Result<Self> {
        let (parent, name) = split_target(target)?;
        if parent.exists() && !parent.is_dir() {
            // create_dir_all would say "File exists" about the parent.
            return Err(with_path(
                io::Error::from_raw_os_error(rustix::io::Errno::NOTDIR.raw_os_error()),
                target,
            ));
        }
        std::fs::create_dir_all(&parent).map_err(|e| beside(e, target, &parent))?;
        let lock =
            OutputLock::acquire(&parent, &name, target, "another run is writing this output")?;
        let mut staged = StagedDir {
            target: target.to_path_buf(),
            parent,
            name,
            staging: PathBuf::new(),
            replace: false,
            stale_removed: Vec::new(),
            published: false,
            _lock: lock,
        };
        staged.clean_stale();
        staged.replace = staged.check_target(replace)?;
        staged.staging = staged.sibling("staging", &run_id());
        std::fs::create_dir(&staged.staging).map_err(|e| beside(e, target, &staged.staging))?;
        Ok(staged)
    }

    /// The directory to write into; its contents become the target's.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// The directory the tree is published as.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Leftovers of dead runs that [`begin`](Self::begin) removed (for a
    /// warning).
    pub fn stale_removed(&self) -> &[PathBuf] {
        &self.stale_removed
    }

    /// Publishes the staging directory as the target in one rename,
    /// replacing an existing target as a whole (which is then removed).
    /// With `sync`, the parent directory is flushed after the rename so the
    /// publish survives a power loss (the caller flushes the files and
    /// directories inside first).
    ///
    /// # Errors
    ///
    /// A rename error naming the target; the staging directory is then
    /// removed and an old target left in place.
    pub fn publish(mut self, sync: bool) -> io::Result<()> {
        if sync {
            sync_directory(&self.staging).map_err(|e| with_path(e, &self.staging))?;
        }
        if self.replace {
            self.swap_in()?;
        } else {
            std::fs::rename(&self.staging, &self.target).map_err(|e| with_path(e, &self.target))?;
        }
        self.published = true;
        if sync {
            sync_directory(&self.parent).map_err(|e| with_path(e, &self.parent))?;
        }
        Ok(())
    }

    /// Replaces the existing target with the staging directory, then
    /// removes the old one.
    fn swap_in(&mut self) -> io::Result<()> {
        if exchange(&self.staging, &self.target).is_ok() {
            // The staging name now holds the old dataset.
            let _ = std::fs::remove_dir_all(&self.staging);
            return Ok(());
        }
        let old = self.sibling("old", &run_id());
        std::fs::rename(&self.target, &old).map_err(|e| with_path(e, &self.target))?;
        if let Err(e) = std::fs::rename(&self.staging, &self.target) {
            let _ = std::fs::rename(&old, &self.target);
            return Err(with_path(e, &self.target));
        }
        let _ = std::fs::remove_dir_all(&old);
        Ok(())
    }

    /// Whether the target exists and is to be replaced; errors for one that
    /// may not be.
    fn check_target(&self, replace: Option<&str>) -> io::Result<bool> {
        let target = &self.target;
        let meta = match std::fs::symlink_metadata(target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            other => other.map_err(|e| with_path(e, target))?,
        };
        let refuse = |why: &str| {
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{}: {why}", target.display()),
            ))
        };
        if !meta.is_dir() {
            return refuse("exists and is not a directory");
        }
        let empty = std::fs::read_dir(target)
            .map_err(|e| with_path(e, target))?
            .next()
            .is_none();
        match replace {
            _ if empty => Ok(true),
            None => refuse("output directory is not empty (use --force to replace it)"),
            Some(marker) if holds_marker(target, marker)? => Ok(true),
            Some(marker) => refuse(&format!(
                "not empty and holds no {marker}* file, so it is not a dataset to replace; \
                 remove it yourself or choose another output"
            )),
        }
    }

    /// Removes staging directories of dead runs; renames back an old
    /// target a dead run had moved aside and not yet replaced. Only called
    /// under the lock, so no live run owns any of them.
    fn clean_stale(&mut self) {
        let staging = prefixed(&self.name, "staging");
        let old = prefixed(&self.name, "old");
        let Ok(entries) = std::fs::read_dir(&self.parent) else {
            return;
        };
        let mut found: Vec<(PathBuf, bool)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                let is_old = name.starts_with(&old);
                (is_old || name.starts_with(&staging)).then(|| (e.path(), is_old))
            })
            .collect();
        found.sort();
        for (path, is_old) in found {
            if is_old
                && std::fs::symlink_metadata(&self.target).is_err()
                && std::fs::rename(&path, &self.target).is_ok()
            {
                continue;
            }
            let _ = std::fs::remove_dir_all(&path);
            self.stale_removed.push(path);
        }
    }

    /// `PARENT/.NAME.spool-KIND-ID`.
    fn sibling(&self, kind: &str, id: &str) -> PathBuf {
        self.parent
            .join(format!("{}{id}", prefixed(&self.name, kind)))
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.published && !self.staging.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Whether `dir` holds a file whose name starts with `marker`.
fn holds_marker(dir: &Path, marker: &str) -> io::Result<bool> {
    for entry in std::fs::read_dir(dir).map_err(|e| with_path(e, dir))? {
        let entry = entry.map_err(|e| with_path(e, dir))?;
        if entry.file_name().to_string_lossy().starts_with(marker)
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `.NAME.spool-KIND-`, the start of a hidden sibling's name.
fn prefixed(name: &OsString, kind: &str) -> String {
    format!(".{}.spool-{kind}-", name.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spool-staged-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn hidden_siblings(parent: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.') && !n.ends_with("spool-lock"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replacing_swaps_the_whole_tree_and_leaves_nothing_behind() {
        let parent = scratch("replace");
        let out = parent.join("out");
        std::fs::create_dir_all(out.join("old-only")).unwrap();
        std::fs::write(out.join("_m"), "old").unwrap();
        assert!(
            StagedDir::begin(&out, None).is_err(),
            "not empty, no replace"
        );
        let staged = StagedDir::begin(&out, Some("_m")).unwrap();
        std::fs::write(staged.dir().join("_m"), "new").unwrap();
        staged.publish(true).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("_m")).unwrap(), "new");
        assert!(!out.join("old-only").exists(), "the old tree is gone whole");
        assert!(hidden_siblings(&parent).is_empty());
        std::fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn a_directory_without_the_marker_is_never_replaced() {
        let parent = scratch("marker");
        let out = parent.join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("precious"), "x").unwrap();
        let err = StagedDir::begin(&out, Some("_m")).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(out.join("precious").exists());
        std::fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn dropped_unpublished_leaves_nothing_and_frees_the_lock() {
        let parent = scratch("drop");
        let out = parent.join("out");
        let staged = StagedDir::begin(&out, None).unwrap();
        std::fs::write(staged.dir().join("f"), "x").unwrap();
        let busy = StagedDir::begin(&out, None).err().unwrap();
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        assert!(busy.to_string().contains("spool-lock"), "{busy}");
        drop(staged);
        assert!(!out.exists());
        assert!(hidden_siblings(&parent).is_empty());
        drop(StagedDir::begin(&out, None).unwrap());
        std::fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn leftovers_of_dead_runs_are_removed_or_restored() {
        let parent = scratch("stale");
        let out = parent.join("out");
        // A dead run's staging directory, and an old dataset renamed aside
        // by a run killed before it renamed its own into place.
        let dead = parent.join(".out.spool-staging-1-dead");
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::write(dead.join("_m"), "partial").unwrap();
        let aside = parent.join(".out.spool-old-1-dead");
        std::fs::create_dir_all(&aside).unwrap();
        std::fs::write(aside.join("_m"), "old").unwrap();
        let staged = StagedDir::begin(&out, Some("_m")).unwrap();
        assert_eq!(staged.stale_removed(), std::slice::from_ref(&dead));
        assert_eq!(std::fs::read_to_string(out.join("_m")).unwrap(), "old");
        drop(staged);
        assert!(hidden_siblings(&parent).is_empty());
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
