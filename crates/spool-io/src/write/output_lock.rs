//! One writer per output: an exclusive `flock` on a lock file, held from
//! before the first temporary file is made until the output is in place.
//!
//! Two writers into one output would otherwise both write the same hidden
//! temporary names and both "succeed". With the lock the second refuses at
//! once, naming the output. `spool partition` ([`StagedDir`]) and
//! `spool pwned build` ([`OutputLock::for_file`]) take the same lock file
//! name beside the output,
//! `.NAME.spool-lock`, so one output cannot be written by both at once
//! either. A run appending into a shared dataset (spool-partition's
//! `AppendRun`) holds
//! `.NAME.spool-lock` *shared* — appending runs do not exclude each other,
//! but a run replacing the whole output waits for none of them and
//! refuses while any is writing — and its own run id exclusively,
//! `OUT/_staging-ID.lock`.
//!
//! The kernel drops a `flock` when its holder dies, so a lock file left by
//! a killed run never blocks the next one — unlike a PID file, which a
//! reused PID can make look alive. Holding the lock therefore also proves
//! that temporaries found beside the output belong to a dead run.
//!
//! # Removing a lock file
//!
//! `.NAME.spool-lock` is never removed. A per-run lock file is, by its
//! holder, once the run's files are in place ([`remove`](OutputLock::remove)),
//! so a dataset written by a thousand runs does not keep a thousand lock
//! files. Unlinking a lock file is only safe because every taker checks,
//! after its `flock` succeeded, that the path still names the file it
//! locked (device and inode); a taker that locked a file just unlinked
//! under it starts again with the new one. Without that check, a second
//! taker could lock the unlinked file while a third locks its replacement,
//! and both would "hold" the lock.
//!
//! [`StagedDir`]: super::StagedDir

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::beside;
use crate::input::with_path;

/// A held output lock; dropping it releases it.
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

impl OutputLock {
    /// Locks `PARENT/.NAME.spool-lock` for `target` (`PARENT/NAME`)
    /// without waiting. `busy` is what a refusal says holds it, e.g.
    /// "another build is writing this index".
    ///
    /// # Errors
    ///
    /// `WouldBlock` naming `target` and the lock file if another process
    /// holds the lock; an I/O error naming `target` if the lock file
    /// cannot be made.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_io::write::OutputLock;
    /// let dir = std::env::temp_dir().join(format!("spool-lock-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let out = dir.join("out");
    /// let held = OutputLock::acquire(&dir, "out".as_ref(), &out, "another run is writing it")?;
    /// # #[cfg(unix)]
    /// assert!(OutputLock::acquire(&dir, "out".as_ref(), &out, "another run is writing it").is_err());
    /// drop(held);
    /// assert!(OutputLock::acquire(&dir, "out".as_ref(), &out, "another run is writing it").is_ok());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn acquire(parent: &Path, name: &OsStr, target: &Path, busy: &str) -> io::Result<Self> {
        Self::acquire_beside(parent, name, target, busy, true)
    }

    /// Locks `.NAME.spool-lock` beside the file `target` (`PARENT/NAME`,
    /// `PARENT` being `.` for a bare name) without waiting: the lock of a
    /// writer of one file, such as `spool pwned build`'s index.
    ///
    /// # Errors
    ///
    /// `InvalidInput` if `target` has no file name (`/`, `..`); otherwise
    /// as [`acquire`](Self::acquire).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_io::write::OutputLock;
    /// let dir = std::env::temp_dir().join(format!("spool-lock-for-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let held = OutputLock::for_file(&dir.join("pwned.idx"), "another build is writing it")?;
    /// assert_eq!(held.path(), dir.join(".pwned.idx.spool-lock"));
    /// # #[cfg(unix)]
    /// assert!(OutputLock::for_file(&dir.join("pwned.idx"), "busy").is_err());
    /// assert!(OutputLock::for_file("/".as_ref(), "busy").is_err());
    /// # drop(held);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn for_file(target: &Path, busy: &str) -> io::Result<Self> {
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file name to write to", target.display()),
            )
        })?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Self::acquire(parent, name, target, busy)
    }

    /// Like [`acquire`](Self::acquire), but a shared lock: any number of
    /// shared holders at once, none while an exclusive one holds it. Runs
    /// appending into one dataset hold it shared, so a run replacing the
    /// whole dataset (exclusive) cannot swap it away under them.
    ///
    /// # Errors
    ///
    /// As [`acquire`](Self::acquire), when an exclusive holder has it.
    pub fn acquire_shared(
        parent: &Path,
        name: &OsStr,
        target: &Path,
        busy: &str,
    ) -> io::Result<Self> {
        Self::acquire_beside(parent, name, target, busy, false)
    }

    fn acquire_beside(
        parent: &Path,
        name: &OsStr,
        target: &Path,
        busy: &str,
        exclusive: bool,
    ) -> io::Result<Self> {
        let path = parent.join(format!(".{}.spool-lock", name.to_string_lossy()));
        Self::try_lock(&path, target, exclusive)?.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{}: {busy} (it holds {}); wait for it to finish or choose another output",
                    target.display(),
                    path.display()
                ),
            )
        })
    }

    /// Locks the file at `path` (creating it) without waiting; `None` if
    /// another process holds it. Errors name `target`, the output the
    /// lock is for.
    ///
    /// # Errors
    ///
    /// The lock file cannot be made or locked.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_io::write::OutputLock;
    /// let dir = std::env::temp_dir().join(format!("spool-lock-file-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("_staging-r1.lock");
    /// let held = OutputLock::try_acquire_file(&path, &dir)?.expect("free");
    /// # #[cfg(unix)]
    /// assert!(OutputLock::try_acquire_file(&path, &dir)?.is_none());
    /// held.remove();
    /// assert!(!path.exists());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_acquire_file(path: &Path, target: &Path) -> io::Result<Option<Self>> {
        Self::try_lock(path, target, true)
    }

    fn try_lock(path: &Path, target: &Path, exclusive: bool) -> io::Result<Option<Self>> {
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)
                .map_err(|e| beside(e, target, path))?;
            #[cfg(unix)]
            {
                use rustix::fs::{flock, FlockOperation};
                let operation = if exclusive {
                    FlockOperation::NonBlockingLockExclusive
                } else {
                    FlockOperation::NonBlockingLockShared
                };
                match flock(&file, operation) {
                    Ok(()) => {}
                    Err(rustix::io::Errno::WOULDBLOCK) => return Ok(None),
                    Err(e) => return Err(with_path(e.into(), path)),
                }
                if !still_named(&file, path)? {
                    continue; // unlinked by its last holder: lock the new one
                }
            }
            #[cfg(not(unix))]
            let _ = exclusive;
            return Ok(Some(OutputLock {
                file,
                path: path.to_path_buf(),
            }));
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the lock file, then releases the lock. Only for lock files
    /// whose takers all go through [`try_acquire_file`](Self::try_acquire_file)
    /// (see the module docs); a failure to remove it is ignored (the file
    /// is then left, as `.NAME.spool-lock` always is).
    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.file);
    }
}

/// Whether `path` still names the open `file` (same device and inode).
#[cfg(unix)]
fn still_named(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file.metadata().map_err(|e| with_path(e, path))?;
    Ok(match std::fs::metadata(path) {
        Ok(now) => now.dev() == held.dev() && now.ino() == held.ino(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(with_path(e, path)),
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::OutputLock;

    #[test]
    fn a_second_lock_on_one_file_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("spool-output-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("pwned.idx");
        let busy = "another build is writing this index";
        let first = OutputLock::for_file(&out, busy).unwrap();
        let err = OutputLock::for_file(&out, busy).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        assert!(
            err.to_string().contains("pwned.idx: another build"),
            "{err}"
        );
        assert!(OutputLock::for_file(&dir.join("other.idx"), busy).is_ok());
        drop(first);
        OutputLock::for_file(&out, busy).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
