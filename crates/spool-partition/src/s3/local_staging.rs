//! An S3 run's local staging folder, `TMPDIR/spool-s3-RUNID-PID/`: the
//! files the engine writes, holding each file's bytes not yet sent.
//!
//! A run removes its folder at its end, whatever its outcome; a run
//! killed (`kill -9`, a power cut) cannot, and on a large run that is
//! gigabytes of local disk. So every run holds a lock on
//! `TMPDIR/spool-s3-RUNID-PID.lock` for its whole life — taken before
//! the folder is made, released after it is removed — and the next S3
//! run in the same temp directory, or `spool partition clean s3://…`,
//! removes every such folder whose lock is free ([`remove_dead`]). The
//! kernel drops a `flock` when its holder dies, so a free lock is a dead
//! run; a live run's lock is held and its folder left alone.

use std::path::{Path, PathBuf};

use spool_io::input::with_path;
use spool_io::write::OutputLock;

/// The name every local staging folder starts with.
const PREFIX: &str = "spool-s3-";

/// A run's local staging folder, locked; dropping it removes the folder,
/// then the lock file.
pub(crate) struct LocalStaging {
    dir: PathBuf,
    lock: Option<OutputLock>,
}

impl LocalStaging {
    /// Locks and makes `TEMP/spool-s3-ID-PID/` in the temp directory
    /// `temp`, after removing the folders dead runs left there (their
    /// paths returned with it).
    ///
    /// # Errors
    ///
    /// The lock file or the folder cannot be made.
    pub fn begin(temp: &Path, id: &str) -> std::io::Result<(Self, Vec<PathBuf>)> {
        let name = format!("{PREFIX}{id}-{}", std::process::id());
        let dir = temp.join(&name);
        let lock_path = temp.join(format!("{name}.lock"));
        let lock = OutputLock::try_acquire_file(&lock_path, &dir)?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!("{}: held by another run", lock_path.display()),
            )
        })?;
        let removed = remove_dead(temp);
        std::fs::create_dir_all(&dir).map_err(|e| with_path(e, &dir))?;
        let staging = LocalStaging {
            dir,
            lock: Some(lock),
        };
        Ok((staging, removed))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for LocalStaging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(lock) = self.lock.take() {
            lock.remove();
        }
    }
}

/// Removes from the temp directory `temp` every local staging folder
/// whose lock is free (its run is dead), and its lock file; the folders
/// removed. Only names a run makes are looked at, and only those with a
/// lock file (a run takes its lock before it makes its folder, and
/// removes the folder before the lock): a folder of another program's
/// that happens to start with `spool-s3-` is never touched. A folder that
/// cannot be removed is left for the next look.
pub(crate) fn remove_dead(temp: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|name| Some(name.strip_suffix(".lock")?.to_owned()))
        .filter(|name| {
            let Some((_, pid)) = name.strip_prefix(PREFIX).and_then(|n| n.rsplit_once('-')) else {
                return false;
            };
            !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    names.sort();
    let mut removed = Vec::new();
    for name in names {
        let dir = temp.join(&name);
        let lock_path = temp.join(format!("{name}.lock"));
        let Ok(Some(lock)) = OutputLock::try_acquire_file(&lock_path, &dir) else {
            continue; // a live run's (or not ours to lock)
        };
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => removed.push(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => continue, // kept, with its lock file, for the next look
        }
        lock.remove();
    }
    removed
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_dead_runs_folder_goes_and_a_live_ones_stays() {
        let temp = std::env::temp_dir().join(format!("spool-local-staging-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&temp);
        std::fs::create_dir_all(&temp).unwrap();
        // A dead run's: its folder and its lock file, nobody holding it.
        let dead = temp.join("spool-s3-r1-4194304");
        std::fs::create_dir_all(dead.join("out/k=a")).unwrap();
        std::fs::write(dead.join("out/k=a/part-00000.csv"), "x").unwrap();
        std::fs::write(temp.join("spool-s3-r1-4194304.lock"), "").unwrap();
        // A dead run killed before its folder: a lock file alone.
        std::fs::write(temp.join("spool-s3-r0-4194304.lock"), "").unwrap();
        // Not staging folders: no lock file, or not a run's name.
        std::fs::create_dir_all(temp.join("other")).unwrap();
        std::fs::create_dir_all(temp.join("spool-s3-faults-12")).unwrap();
        std::fs::create_dir_all(temp.join("spool-s3-x")).unwrap();
        std::fs::write(temp.join("spool-s3-x.lock"), "").unwrap();
        let (live, removed) = LocalStaging::begin(&temp, "r2").unwrap();
        assert_eq!(removed, std::slice::from_ref(&dead));
        assert!(!dead.exists());
        assert!(!temp.join("spool-s3-r1-4194304.lock").exists());
        assert!(!temp.join("spool-s3-r0-4194304.lock").exists());
        assert!(live.dir().is_dir() && temp.join("other").is_dir());
        assert!(temp.join("spool-s3-faults-12").is_dir() && temp.join("spool-s3-x").is_dir());
        // A live run's folder is left alone, by another run's look too.
        assert!(remove_dead(&temp).is_empty());
        assert!(live.dir().is_dir());
        let dir = live.dir().to_owned();
        drop(live);
        assert!(!dir.exists());
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().collect();
        assert_eq!(left.len(), 4, "{left:?}");
        std::fs::remove_dir_all(&temp).unwrap();
    }
}
