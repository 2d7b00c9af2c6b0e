//! One build per output: an exclusive `flock` on a lock file beside the
//! index, held from before the first temporary file is created until the
//! index is renamed into place.
//!
//! Two builds to one path would otherwise both write the same hidden
//! temporary name and both "succeed", one renaming the other's half-written
//! file into place. With the lock the second refuses at once, naming the
//! path. The lock file (`.NAME.spool-lock`, the name `spool partition`'s
//! lock takes too) is kept: removing it would let a third build lock a new
//! file while the second still holds the old one. The kernel drops a
//! `flock` when its holder dies, so a lock file left by a killed build
//! never blocks the next one — unlike a PID file, which a reused PID can
//! make look alive.
//!
//! Holding the lock also proves that the output's temporary file, if one
//! exists, belongs to a dead build: the new build takes it over
//! (`PartialFile` truncates it), so kills never pile up temporaries.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use spool_io::input::with_path;

/// The held lock; dropping it releases it.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
}

impl OutputLock {
    /// Locks `output` for this process without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` naming `output` if another build holds the lock; I/O
    /// errors naming the lock file otherwise.
    pub fn acquire(output: &Path) -> io::Result<OutputLock> {
        let name = output
            .file_name()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: not a file name to write an index to", output.display()),
                )
            })?
            .to_string_lossy();
        let path = output.with_file_name(format!(".{name}.spool-lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| {
                let lock = path
                    .file_name()
                    .unwrap_or(path.as_os_str())
                    .to_string_lossy();
                io::Error::new(
                    e.kind(),
                    format!(
                        "{}: {e} (creating its lock file {lock}; check that the folder exists \
                         and can be written)",
                        output.display()
                    ),
                )
            })?;
        #[cfg(unix)]
        {
            use rustix::fs::{flock, FlockOperation};
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!(
                            "{}: another build is writing this index (it holds {}); \
                             wait for it to finish or choose another output",
                            output.display(),
                            path.display()
                        ),
                    ))
                }
                Err(e) => return Err(with_path(e.into(), &path)),
            }
        }
        Ok(OutputLock { _file: file })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::OutputLock;

    #[test]
    fn a_second_lock_on_one_output_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("spool-output-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("pwned.idx");
        let first = OutputLock::acquire(&out).unwrap();
        let err = OutputLock::acquire(&out).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        assert!(
            err.to_string().contains("pwned.idx: another build"),
            "{err}"
        );
        assert!(OutputLock::acquire(&dir.join("other.idx")).is_ok());
        drop(first);
        OutputLock::acquire(&out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
