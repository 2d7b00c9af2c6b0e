//! Moving a file into a directory other processes write into, without
//! ever replacing what is there.
//!
//! A plain `rename` replaces its destination: two runs whose names clashed
//! would silently lose one file. `renameat2(RENAME_NOREPLACE)` (Linux)
//! fails instead; where it is missing (other systems, and file systems
//! such as NFS that refuse the flag) a hard link, which never replaces,
//! then an unlink of the old name do the same in two atomic steps.

use std::io;
use std::path::Path;

use spool_io::input::with_path;

/// Moves the staged file `from` to `to` in the target, creating its
/// directory. Another run may remove that directory, empty, between the
/// two steps (a failed run takes back the directories it made): the
/// directory is then made again.
pub(super) fn move_in(from: &Path, to: &Path) -> io::Result<()> {
    let dir = to.parent().expect("a file inside the target");
    for _ in 0..8 {
        std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
        match rename_noreplace(from, to) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && from.exists() => continue,
            other => return other,
        }
    }
    rename_noreplace(from, to)
}

/// Removes the directories holding `rel` inside `target` that are empty,
/// innermost first, stopping at the first that is not (`remove_dir`
/// never removes a directory that holds anything).
pub(super) fn remove_empty_parents(target: &Path, rel: &Path) {
    for dir in rel.ancestors().skip(1) {
        if dir.as_os_str().is_empty() || std::fs::remove_dir(target.join(dir)).is_err() {
            return;
        }
    }
}

/// Renames `from` to `to`, failing (`AlreadyExists`, naming `to`) rather
/// than replacing an existing `to`: `renameat2(RENAME_NOREPLACE)` on
/// Linux; elsewhere, or on a file system without it, a hard link and an
/// unlink (`link` never replaces).
pub(super) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::EXIST) => return Err(exists(to)),
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {} // not supported here
            Err(e) => return Err(with_path(e.into(), to)),
        }
    }
    link_noreplace(from, to)
}

/// [`rename_noreplace`] without `RENAME_NOREPLACE`: a hard link (which
/// never replaces) and an unlink. A kill between the two leaves the file
/// under both names; the staging one goes with the staging directory.
fn link_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => std::fs::remove_file(from).map_err(|e| with_path(e, from)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(exists(to)),
        Err(e) => Err(with_path(e, to)),
    }
}

fn exists(to: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{}: already exists (written by another run?); nothing is replaced, \
             and this run's files were removed",
            to.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linking_never_replaces() {
        let dir = std::env::temp_dir().join(format!("spool-no-replace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        assert_eq!(
            link_noreplace(&a, &b).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b");
        link_noreplace(&a, &c).unwrap();
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "a");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
