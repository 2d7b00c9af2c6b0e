//! The file-system steps that publishing a directory rests on, shared by
//! [`StagedDir`](super::StagedDir) (one run writes the whole tree) and
//! spool-partition's append runs (many runs add files to it): where a
//! target's hidden siblings go (its parent and own name), swapping two
//! directories in one step, a name no other run shares, and making a
//! rename durable.
//!
//! They live apart from either writer because both need them and none of
//! them knows about locks, staging or manifests: each is one system call
//! (or a name) with its portability fallback.

use std::ffi::OsString;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};

use crate::input::with_path;

/// The target's parent directory and its own name (`.`, `..` and a bare
/// `/` are resolved first).
///
/// # Errors
///
/// A target with no name even once resolved (`/`), or one that cannot be
/// resolved.
///
/// # Examples
///
/// ```
/// use spool_io::write::split_target;
/// let (parent, name) = split_target("data/out".as_ref())?;
/// assert_eq!((parent.to_str(), name.to_str()), (Some("data"), Some("out")));
/// assert_eq!(split_target("out".as_ref())?.0.to_str(), Some("."));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn split_target(target: &Path) -> io::Result<(PathBuf, OsString)> {
    let resolved = if target.file_name().is_none() {
        std::fs::canonicalize(target).map_err(|e| with_path(e, target))?
    } else {
        target.to_path_buf()
    };
    let name = resolved.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: cannot write a dataset here (give a directory name)",
                target.display()
            ),
        )
    })?;
    let parent = match resolved.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name.to_owned()))
}

/// Swaps two directory entries atomically (Linux `renameat2`).
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (a, b);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// A name for this run that no other run shares: process id, time and a
/// random number.
pub(super) fn run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!("{:x}-{nanos:08x}{:08x}", std::process::id(), random as u32)
}

/// Makes a directory's entries durable (a no-op where directories cannot
/// be opened, as on Windows, whose renames need no such step).
pub fn sync_directory(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_dot_targets_resolve() {
        let (parent, name) = split_target(Path::new("po")).unwrap();
        assert_eq!((parent, name), (PathBuf::from("."), OsString::from("po")));
        let (parent, name) = split_target(Path::new("a/b/")).unwrap();
        assert_eq!((parent, name), (PathBuf::from("a"), OsString::from("b")));
        assert!(split_target(Path::new(".")).unwrap().0.is_absolute());
    }
}
