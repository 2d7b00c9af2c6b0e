//! One writer per output: an exclusive `flock` on `.NAME.spool-lock`
//! beside the output, held from before the first temporary file is made
//! until the output is in place.
//!
//! Two writers into one output would otherwise both write the same hidden
//! temporary names and both "succeed". With the lock the second refuses at
//! once, naming the output. `spool partition` ([`StagedDir`]) and
//! `spool pwned build` take the same lock file name, so one output cannot
//! be written by both at once either.
//!
//! The lock file is never removed: unlinking it while another writer has
//! it open would let a third lock a new file while the second still holds
//! the old one. The kernel drops a `flock` when its holder dies, so a lock
//! file left by a killed run never blocks the next one — unlike a PID file,
//! which a reused PID can make look alive. Holding the lock therefore also
//! proves that temporaries found beside the output belong to a dead run.
//!
//! [`StagedDir`]: super::StagedDir

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use super::beside;
use crate::input::with_path;

/// A held output lock; dropping it releases it.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
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
        let path = parent.join(format!(".{}.spool-lock", name.to_string_lossy()));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| beside(e, target, &path))?;
        #[cfg(unix)]
        {
            use rustix::fs::{flock, FlockOperation};
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!(
                            "{}: {busy} (it holds {}); wait for it to finish or choose \
                             another output",
                            target.display(),
                            path.display()
                        ),
                    ))
                }
                Err(e) => return Err(with_path(e.into(), &path)),
            }
        }
        #[cfg(not(unix))]
        let _ = busy;
        Ok(OutputLock { _file: file })
    }
}
