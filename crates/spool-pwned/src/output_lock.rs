//! One build per index: the output lock `spool partition` takes too
//! ([`spool_io::write::OutputLock`], an exclusive `flock` on
//! `.NAME.spool-lock` beside the index), held from before the first
//! temporary file is created until the index is renamed into place.
//!
//! Two builds to one path would otherwise both write the same hidden
//! temporary name and both "succeed", one renaming the other's half-written
//! file into place. Holding the lock also proves that the output's
//! temporary file, if one exists, belongs to a dead build: the new build
//! takes it over (`PartialFile` truncates it), so kills never pile up
//! temporaries.

use std::io;
use std::path::Path;

use spool_io::write::OutputLock;

/// Locks `output` for this build without waiting.
///
/// # Errors
///
/// `WouldBlock` naming `output` if another build holds the lock; an I/O
/// error naming `output` if the lock file cannot be made.
pub(crate) fn lock(output: &Path) -> io::Result<OutputLock> {
    let name = output.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name to write an index to", output.display()),
        )
    })?;
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    OutputLock::acquire(parent, name, output, "another build is writing this index")
}

#[cfg(all(test, unix))]
mod tests {
    use super::lock;

    #[test]
    fn a_second_lock_on_one_output_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("spool-output-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("pwned.idx");
        let first = lock(&out).unwrap();
        let err = lock(&out).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        assert!(
            err.to_string().contains("pwned.idx: another build"),
            "{err}"
        );
        assert!(lock(&dir.join("other.idx")).is_ok());
        drop(first);
        lock(&out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
